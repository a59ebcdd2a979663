/**
 * Node.js adapter, patch on: bad input in bodies made from our streams gets the runtime's own errors, as
 * for a native stream in the same state (undici reads our streams itself), and nothing is stringified; and
 * `text()`, `json()`, `arrayBuffer()`, `bytes()` of such bodies, which read our streams themselves
 * (adapters/node/body-consumers.ts), give what undici gives for a native stream of the same chunks: the value,
 * the error, and the state of the body afterwards. Node.js only; skipped with a message elsewhere.
 *
 *   node tests/unit/node-adapter-bodies.test.ts
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  patchGlobalWebStreams,
  ReadableStream,
  TransformStream,
  unpatchGlobalWebStreams,
} from "../../adapters/node/mod.ts";

const g = globalThis as unknown as Record<string, unknown>;
const runtime = "Deno" in g ? "Deno" : "Bun" in g ? "Bun" : "Node.js";
const NativeRS = globalThis.ReadableStream;
const NativeTS = globalThis.TransformStream;
const nodeTest = runtime === "Node.js" ? test : test.skip;
if (runtime !== "Node.js") {
  console.log(`node-adapter-bodies: skipped on ${runtime}: the Node.js adapter's patch refuses to run there`);
}

/** The error (name and message) a promise rejects with, or "fulfilled". */
async function outcome(p: Promise<unknown>): Promise<string> {
  return p.then(
    () => "fulfilled",
    (e: Error) => `${e.name}: ${e.message}`,
  );
}

async function patched(fn: () => Promise<void>): Promise<void> {
  patchGlobalWebStreams();
  try {
    await fn();
  } finally {
    unpatchGlobalWebStreams();
  }
}

nodeTest(
  "a chunk that is not bytes ends the body with the TypeError a native stream gets; nothing is stringified",
  async () => {
    for (const bad of ["text", 42, { a: 1 }, null]) {
      const native = await outcome(new Response(
        new NativeRS({
          start(c) {
            c.enqueue(bad);
            c.close();
          },
        }),
      ).text());
      await patched(async () => {
        const ours = await outcome(new Response(ReadableStream.from([bad]) as unknown as BodyInit).text());
        assert.match(ours, /^TypeError: /, `chunk ${String(bad)}`);
        assert.is(ours, native, `the same error as a native stream for the chunk ${String(bad)}`);
      });
    }
  },
);

nodeTest("a locked or disturbed stream is refused with the error a native stream in that state gets", async () => {
  const nativeLocked = new NativeRS();
  nativeLocked.getReader();
  const nativeDisturbed = new NativeRS();
  await nativeDisturbed.cancel();
  const expected = [nativeLocked, nativeDisturbed].map((s) => {
    try {
      new Response(s);
      return "accepted";
    } catch (e) {
      return `${(e as Error).name}: ${(e as Error).message}`;
    }
  });
  assert.match(expected[0]!, /^TypeError/);
  await patched(async () => {
    const locked = new ReadableStream<Uint8Array>();
    locked.getReader();
    const disturbed = new ReadableStream<Uint8Array>();
    await disturbed.cancel();
    const got = [locked, disturbed].map((s) => {
      try {
        new Response(s as unknown as BodyInit);
        return "accepted";
      } catch (e) {
        return `${(e as Error).name}: ${(e as Error).message}`;
      }
    });
    assert.equal(got, expected);
  });
});

const enc = new TextEncoder();
const BOOM = new Error("the source broke");

/** What a body of `chunks` is made of, how it is read, and how its source ends. */
interface BodyCase {
  name: string;
  chunks: unknown[];
  /** the source errors with BOOM instead of giving the chunk at this index */
  errorAt?: number;
  /** the source is a readable byte stream (`type: "bytes"`) */
  bytes?: boolean;
}

const BODY_CASES: BodyCase[] = [
  { name: "text split inside characters", chunks: splitBytes(enc.encode("Zürich € 日本語 🦕 ".repeat(40)), 7) },
  { name: "a BOM", chunks: [new Uint8Array([0xef, 0xbb]), new Uint8Array([0xbf, 0x61, 0x62])] },
  { name: "two BOMs", chunks: [new Uint8Array([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, 0x7b, 0x7d])] },
  { name: "invalid UTF-8", chunks: [new Uint8Array([0x61, 0xff, 0xc3]), new Uint8Array([0x28, 0xe2, 0x82])] },
  { name: "JSON", chunks: splitBytes(enc.encode(JSON.stringify({ a: [1, "ü", { b: null }], c: "€" })), 3) },
  { name: "one chunk", chunks: [enc.encode('"one"')] },
  { name: "no chunk", chunks: [] },
  { name: "empty chunks", chunks: [new Uint8Array(0), enc.encode("x"), new Uint8Array(0)] },
  { name: "Buffers and views at offsets", chunks: [Buffer.from("ab"), new Uint8Array([0, 99, 100, 0]).subarray(1, 3)] },
  { name: "an error after two chunks", chunks: [enc.encode("a"), enc.encode("b"), enc.encode("c")], errorAt: 2 },
  { name: "an error at once", chunks: [], errorAt: 0 },
  { name: "a string after a chunk", chunks: [enc.encode("a"), "b", enc.encode("c")] },
  { name: "an ArrayBuffer", chunks: [new ArrayBuffer(2)] },
  { name: "an Int8Array", chunks: [new Int8Array([0x61])] },
  { name: "a DataView", chunks: [new DataView(new ArrayBuffer(1))] },
  { name: "null", chunks: [null] },
  { name: "a byte source", chunks: splitBytes(enc.encode("[1,2,3,4,5,6,7,8,9]"), 4), bytes: true },
  { name: "a byte source that errors", chunks: [enc.encode("ab"), enc.encode("cd")], errorAt: 1, bytes: true },
];

function splitBytes(bytes: Uint8Array, n: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0, k = 1; at < bytes.byteLength; at += k, k = (k % n) + 1) out.push(bytes.slice(at, at + k));
  return out;
}

/** A value as text, and whether its bytes are (a view of) one of `chunks`' own buffers. */
function show(value: unknown, chunks: readonly unknown[]): string {
  const shared = (buffer: ArrayBufferLike) =>
    chunks.some((c) => ArrayBuffer.isView(c) && c.buffer === buffer) ? " (a chunk's buffer)" : "";
  if (value instanceof ArrayBuffer) return `ArrayBuffer ${Array.from(new Uint8Array(value)).join(",")}${shared(value)}`;
  if (value instanceof Uint8Array) {
    const where = `${value.byteOffset}/${value.buffer.byteLength}`;
    return `${value.constructor.name} ${where} ${Array.from(value).join(",")}${shared(value.buffer)}`;
  }
  return JSON.stringify(value);
}

type Method = "text" | "json" | "arrayBuffer" | "bytes";
const METHODS: Method[] = ["text", "json", "arrayBuffer", "bytes"];

/** The value a promise fulfills with, or the error it rejects with (whether it is the source's own object). */
function settled(p: Promise<unknown>, chunks: readonly unknown[]): Promise<string> {
  return p.then(
    (value: unknown) => `value ${show(value, chunks)}`,
    (e: Error) => `${e === BOOM ? "the source's error" : e.name}: ${e.message}`,
  );
}

/**
 * Reads a body made of `c`'s chunks (a source of the classes given, piped through one of their transforms for
 * `chain`) with `method` of a Response or a Request, and describes everything a caller can see: `bodyUsed`,
 * `body.locked` and a second call while the read is under way; the value or the error (whether it is the
 * source's own error object); whether the source was cancelled; and afterwards `bodyUsed`, `body.locked` and a
 * second call. With `clone`, the body is cloned first and the original (`"original first"`) or the clone is
 * read to the end before the other.
 */
async function readBody(
  RS: typeof globalThis.ReadableStream,
  TS: typeof globalThis.TransformStream,
  c: BodyCase,
  chain: boolean,
  kind: "Response" | "Request",
  method: Method,
  clone?: "original first" | "clone first",
): Promise<string> {
  let i = 0;
  let cancelled = false;
  // A byte stream transfers (detaches) the buffers enqueued: each run gets its own copies.
  const chunks = c.bytes ? c.chunks.map((chunk) => (chunk as Uint8Array).slice()) : c.chunks;
  const pull = (controller: ReadableStreamDefaultController<unknown>) => {
    if (i === c.errorAt) controller.error(BOOM);
    else if (i < chunks.length) controller.enqueue(chunks[i++]);
    else controller.close();
  };
  const cancel = () => void (cancelled = true);
  let stream: globalThis.ReadableStream<unknown> = c.bytes
    ? new RS({ type: "bytes", pull: pull as never, cancel })
    : new RS({ pull, cancel });
  if (chain) stream = stream.pipeThrough(new TS());
  const body = stream as unknown as BodyInit;
  const owner = kind === "Response"
    ? new Response(body)
    : new Request("http://127.0.0.1/", { method: "POST", body, duplex: "half" } as RequestInit);
  const copy = clone === undefined ? undefined : owner.clone();
  const [first, second] = clone === "clone first" ? [copy!, owner] : [owner, copy];
  const reading = first[method]();
  const during = `during: bodyUsed ${first.bodyUsed} locked ${first.body?.locked} again ${await settled(
    first[method](),
    chunks,
  )}`;
  const results = [await settled(reading, chunks)];
  if (second !== undefined) results.push(`the other ${await settled(second[method](), chunks)}`);
  await new Promise((resolve) => setTimeout(resolve, 0));
  const again = await settled(owner[method](), chunks);
  return [
    during,
    ...results,
    `cancelled ${cancelled}`,
    `bodyUsed ${owner.bodyUsed}`,
    `locked ${owner.body?.locked}`,
    `again ${again}`,
  ].join(" | ");
}

/** Runs `readBody` for native streams unpatched and for ours patched; they must describe the same. */
async function compare(
  c: BodyCase,
  chain: boolean,
  kind: "Response" | "Request",
  method: Method,
  clone?: "original first" | "clone first",
): Promise<void> {
  const what = `${c.name}, ${chain ? "a transform's readable side" : "a source"}, ${kind}.${method}()${
    clone === undefined ? "" : `, cloned, ${clone}`
  }`;
  const native = await readBody(NativeRS, NativeTS, c, chain, kind, method, clone);
  let ours = "";
  await patched(async () => {
    ours = await readBody(
      ReadableStream as unknown as typeof globalThis.ReadableStream,
      TransformStream as unknown as typeof globalThis.TransformStream,
      c,
      chain,
      kind,
      method,
      clone,
    );
  });
  assert.is(ours, native, what);
}

/** The methods this Node.js has (`bytes()`: Node.js >= 22.3). */
const methods = METHODS.filter((m) => typeof Response.prototype[m] === "function");

nodeTest(
  "text(), json(), arrayBuffer(), bytes() of our streams give what undici gives for native streams",
  async () => {
    for (const c of BODY_CASES) {
      for (const chain of [false, true]) {
        for (const kind of ["Response", "Request"] as const) {
          for (const method of methods) await compare(c, chain, kind, method);
        }
      }
    }
  },
);

nodeTest("...and after clone(), reading either the original or the clone first", async () => {
  for (const c of BODY_CASES) {
    for (const chain of [false, true]) {
      for (const kind of ["Response", "Request"] as const) {
        for (const clone of ["original first", "clone first"] as const) {
          for (const method of ["text", "bytes"] as const) {
            if (methods.includes(method)) await compare(c, chain, kind, method, clone);
          }
        }
      }
    }
  }
});

nodeTest("a native body (seen through a shell of ours) is read by undici, as unpatched", async () => {
  const chunks = splitBytes(enc.encode("native ü body"), 3);
  const nativeBody = () =>
    new NativeRS<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
  const describe = async (owner: Response | Request, touchBody: boolean) => {
    const shell = touchBody ? owner.body : undefined;
    const value = await settled(owner.text(), chunks);
    return `${value} | bodyUsed ${owner.bodyUsed} | locked ${owner.body?.locked} | shell locked ${shell?.locked}`;
  };
  for (const touchBody of [false, true]) {
    const expected = await describe(new Response(nativeBody()), touchBody);
    const made = [new Response(nativeBody()), new Request("http://127.0.0.1/", nativeInit(nativeBody()))];
    await patched(async () => {
      const madeWhilePatched = [new Response(nativeBody()), new Request("http://127.0.0.1/", nativeInit(nativeBody()))];
      for (const owner of [...made, ...madeWhilePatched]) {
        const body = owner.body;
        if (touchBody) assert.ok(body instanceof ReadableStream, "while patched, a native body is seen as ours");
        assert.is(
          await describe(owner, touchBody),
          expected,
          `${owner.constructor.name}, body read first ${touchBody}`,
        );
      }
    });
  }
});

nodeTest(
  "a TextEncoderStream's readable side read whole (FP-ENCODE-INTO) gives what undici gives for the runtime's own",
  async () => {
    const long = Array.from({ length: 2000 }, (_, i) => `row ${i}: Zürich € 😀 `);
    const cases: [string, unknown[], number?][] = [
      ["ASCII and non-ASCII", ["plain ", "Zürich € ", "😀", ""]],
      ["a surrogate pair cut across chunks", ["a\ud83d", "\ude00b"]],
      ["lone surrogates, a leading one held at the end", ["\ude00x", "y\ud800", "z", "\ud83d"]],
      ["chunks that are not strings (ToString)", [12, { toString: () => "obj" }, null, true]],
      ["JSON text", ['{"a": ', '["ü", 1]', "}"]],
      ["more than the first buffer (2,000 chunks)", long],
      ["the source errors after two chunks", ["one ", "two "], 2],
    ];
    const describe = async (TS: typeof globalThis.TransformStream, c: [string, unknown[], number?], method: Method) => {
      const [, chunks, errorAt] = c;
      let i = 0;
      const source = new (TS === NativeTS ? NativeRS : ReadableStream as unknown as typeof NativeRS)<unknown>({
        pull(controller) {
          if (i === errorAt) controller.error(BOOM);
          else if (i < chunks.length) controller.enqueue(chunks[i++]);
          else controller.close();
        },
      });
      const encoded = source.pipeThrough(new TS()).pipeThrough(new TextEncoderStream() as never);
      const owner = new Response(encoded as unknown as BodyInit);
      const value = await settled(owner[method](), chunks);
      const again = await settled(owner[method](), chunks);
      return `${value} | bodyUsed ${owner.bodyUsed} | locked ${owner.body?.locked} | again ${again}`;
    };
    for (const c of cases) {
      for (const method of methods) {
        if (method === "json" && c[0] !== "JSON text") continue;
        const expected = await describe(NativeTS, c, method);
        await patched(async () => {
          assert.is(
            await describe(TransformStream as unknown as typeof NativeTS, c, method),
            expected,
            `${c[0]}, ${method}()`,
          );
        });
      }
    }
  },
);

nodeTest(
  "bodies undici makes itself (a string, bytes, a Blob, FormData, URLSearchParams, Response.json()) read as unpatched",
  async () => {
    const makers: [string, () => Response][] = [
      ["a string", () => new Response("Zürich €")],
      ["bytes", () => new Response(enc.encode("bytes ü"))],
      ["a Blob", () => new Response(new Blob(["blob ", "ü"]))],
      ["URLSearchParams", () => new Response(new URLSearchParams({ a: "ü b" }))],
      ["Response.json()", () => Response.json({ a: ["ü"] })],
      ["FormData", () => {
        const form = new FormData();
        form.set("a", "ü");
        return new Response(form);
      }],
    ];
    const describe = async (make: () => Response, method: Method) => {
      const owner = make();
      let value = await settled(owner[method](), []);
      // a multipart boundary is random: compare the body with it taken out
      value = value.replace(/-{6,}[0-9a-zA-Z-]+/g, "BOUNDARY");
      const again = await settled(owner[method](), []);
      return `${value} | bodyUsed ${owner.bodyUsed} | locked ${owner.body?.locked} | again ${again}`;
    };
    for (const [name, make] of makers) {
      for (const method of methods) {
        if (name === "FormData" && method !== "text") continue;
        const expected = await describe(make, method);
        await patched(async () => {
          assert.is(await describe(make, method), expected, `${name}, ${method}()`);
        });
      }
    }
  },
);

function nativeInit(body: globalThis.ReadableStream<Uint8Array>): RequestInit {
  return { method: "POST", body, duplex: "half" } as RequestInit;
}

/** Listens on 127.0.0.1 (ephemeral port); `handler` answers every request. */
async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Server> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

nodeTest(
  "fetch() responses are left to undici: the same text, and an abort mid-body rejects as unpatched",
  async () => {
    let release = () => {};
    const server = await listen((req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("first part ü, ");
      if (req.url === "/stall") {
        release = () => res.end();
        return;
      }
      res.end("second part");
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const run = async () => {
      const full = await fetch(`${url}/full`);
      const text = await full.text();
      const controller = new AbortController();
      const stalled = await fetch(`${url}/stall`, { signal: controller.signal });
      const reading = stalled.text();
      await new Promise((resolve) => setTimeout(resolve, 20));
      controller.abort();
      const aborted = await settled(reading, []);
      release();
      // aborted before its body is read: undici rejects at once, whatever the body stream holds
      const early = new AbortController();
      const abortedFirst = await fetch(`${url}/stall`, { signal: early.signal });
      await new Promise((resolve) => setTimeout(resolve, 20));
      early.abort();
      const abortedBefore = await settled(abortedFirst.text(), []);
      release();
      return `${text} | ${aborted} | bodyUsed ${stalled.bodyUsed} | type ${stalled.type} | aborted first ${abortedBefore}`;
    };
    try {
      const expected = await run();
      assert.match(expected, /AbortError.*aborted first AbortError/);
      await patched(async () => {
        assert.is(await run(), expected);
      });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  },
);

nodeTest("unpatch puts undici's own text(), json(), arrayBuffer(), bytes() back", () => {
  const described = () =>
    [Response.prototype, Request.prototype].flatMap((proto) =>
      methods.map((m) => Object.getOwnPropertyDescriptor(proto, m))
    );
  const before = described();
  patchGlobalWebStreams();
  const during = described();
  unpatchGlobalWebStreams();
  const after = described();
  for (let k = 0; k < before.length; k++) {
    assert.ok(before[k]?.value !== during[k]?.value, `method ${k} is replaced while patched`);
    assert.equal(after[k], before[k], `method ${k} is restored with its attributes`);
    assert.is(after[k]?.value, before[k]?.value, `method ${k} is the same function`);
  }
});

test.run();
