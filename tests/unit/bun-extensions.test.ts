/**
 * Bun's own stream extensions with the Bun adapter's patch on (issue 27, cases 6 and 7): each scenario is
 * application code written against the globals, run once without the patch (Bun's streams) and once with it
 * (ours), and must give the same result, errors included:
 *
 * - string (and other) chunks in bodies and in `Bun.readableStreamTo*()`;
 * - `type: "direct"` sources, `reader.readMany()`, the body methods on `ReadableStream.prototype`;
 * - `Bun.write(path, stream)` and `BunFile.prototype.write(stream)`.
 *
 * On other runtimes every test is skipped with a message.
 *
 *   bun tests/unit/bun-extensions.test.ts
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as bun from "../../adapters/bun/mod.ts";
import * as fuse from "../../mod.ts";
import { bounded, currentRuntime } from "../shared/contract-suite.ts";

const onBun = currentRuntime === "Bun" && typeof Bun !== "undefined";
const enc = new TextEncoder();

/** What a scenario gave: its value as JSON (bytes as arrays), or its error's name, code and message. */
async function outcome(fn: () => unknown): Promise<string> {
  try {
    return `value ${show(await fn())}`;
  } catch (e) {
    const err = e as { name?: unknown; code?: unknown; message?: unknown };
    return `${String(err?.name)} ${String(err?.code)} ${String(err?.message)}`;
  }
}

function show(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof Uint8Array) return { bytes: [...v] };
    if (v instanceof ArrayBuffer) return { arrayBuffer: [...new Uint8Array(v)] };
    if (v instanceof Blob) return { blob: v.size };
    return v === undefined ? "undefined" : v;
  });
}

/** Runs `fn` natively and then with the patch on; returns both outcomes. */
async function bothWays(fn: () => unknown): Promise<[native: string, patched: string]> {
  const native = await outcome(fn);
  bun.patchGlobalWebStreams();
  try {
    return [native, await outcome(fn)];
  } finally {
    bun.unpatchGlobalWebStreams();
  }
}

const bunTest = (name: string, fn: (dir: string) => Promise<void>): void => {
  if (!onBun) {
    test.skip(`bun extensions: ${name}`, () => undefined);
    return;
  }
  test(`bun extensions: ${name}`, async () => {
    const dir = mkdtempSync(join(tmpdir(), "fusestreams-bun-ext-"));
    try {
      await bounded(fn(dir), name);
    } finally {
      bun.unpatchGlobalWebStreams();
      rmSync(dir, { recursive: true, force: true });
    }
  });
};
if (!onBun) console.log(`bun-extensions: skipped on ${currentRuntime} (Bun's own APIs are needed)`);

/** A stream of the globals (Bun's or, patched, ours) with `chunks`, then closed. */
const streamOf = (...chunks: unknown[]): ReadableStream =>
  new ReadableStream({
    start(c) {
      for (const chunk of chunks) c.enqueue(chunk);
      c.close();
    },
  });

const CHUNK_SETS: [string, () => unknown[]][] = [
  ["strings", () => ["hello", " ", "wörld"]],
  ["a split surrogate pair", () => ["\ud83d", "\ude00"]],
  ["a BOM", () => ["\ufeffx"]],
  ["strings and bytes", () => ["a", enc.encode("b"), "c"]],
  ["a number", () => ["a", 1]],
  ["an object", () => [{ a: 1 }]],
  ["null", () => ["a", null, "b"]],
  ["a Blob", () => [new Blob(["hi"])]],
  [
    "views and buffers",
    () => [new Uint16Array([0x6968]), enc.encode("yo").buffer, new DataView(enc.encode("!").buffer)],
  ],
];

bunTest("Bun.readableStreamTo*() and Response bodies take every chunk as Bun does (case 6)", async () => {
  type Use = (s: ReadableStream) => unknown;
  const bunFn = (name: string): Use => (s) =>
    (Bun as unknown as Record<string, (s: ReadableStream) => unknown>)[name]!(s);
  const uses: [string, Use][] = [
    ["readableStreamToText", bunFn("readableStreamToText")],
    ["readableStreamToBytes", bunFn("readableStreamToBytes")],
    ["readableStreamToJSON", bunFn("readableStreamToJSON")],
    ["readableStreamToArray", bunFn("readableStreamToArray")],
    ["readableStreamToBlob", async (s) => await (await Bun.readableStreamToBlob(s)).text()],
    ["Response text()", (s) => new Response(s).text()],
    ["Response bytes()", (s) => new Response(s).bytes()],
    ["Response blob()", async (s) => await (await new Response(s).blob()).text()],
  ];
  for (const [label, chunks] of CHUNK_SETS) {
    for (const [use, fn] of uses) {
      const [native, patched] = await bothWays(() => fn(streamOf(...chunks())));
      assert.is(patched, native, `${use} of ${label}`);
    }
  }
  // readableStreamToArrayBuffer answers a Uint8Array for a stream of one string chunk
  for (const [label, chunks] of [["one string", () => ["wörld"]], ...CHUNK_SETS] as const) {
    const [native, patched] = await bothWays(() => Bun.readableStreamToArrayBuffer(streamOf(...chunks())));
    assert.is(patched, native, `readableStreamToArrayBuffer of ${label}`);
  }
});

bunTest("ReadableStream.prototype.text()/json()/bytes()/blob() work on our streams as on Bun's (case 7)", async () => {
  const methods = ["text", "json", "bytes", "blob"] as const;
  for (const method of methods) {
    const call = (s: ReadableStream): unknown => {
      const result = (s as unknown as Record<string, () => unknown>)[method]!();
      return method === "blob" ? (result as Promise<Blob>).then((b) => b.text()) : result;
    };
    for (const [label, chunks] of [["json text", () => ['{"a":', " [1, 2]}"]], ...CHUNK_SETS] as const) {
      const [native, patched] = await bothWays(() => call(streamOf(...chunks())));
      assert.is(patched, native, `${method}() of ${label}`);
    }
    const [lockedNative, lockedPatched] = await bothWays(() => {
      const s = streamOf("a");
      s.getReader();
      return call(s);
    });
    assert.match(lockedNative, /Error/);
    assert.is(lockedPatched, lockedNative, `${method}() of a locked stream`);
    const [badNative, badPatched] = await bothWays(() =>
      (ReadableStream.prototype as unknown as Record<string, (this: unknown) => unknown>)[method]!.call({})
    );
    assert.is(badPatched, badNative, `${method}() with a bad this`);
  }
  const [keysNative, keysPatched] = await bothWays(() => Object.keys(ReadableStream.prototype));
  assert.is(keysPatched, keysNative, "the enumerable methods of ReadableStream.prototype, in Bun's order");
});

bunTest('type: "direct" sources make Bun\'s own direct streams (case 7)', async () => {
  const direct = (parts: unknown[], flush = false): ReadableStream =>
    new ReadableStream({
      type: "direct",
      async pull(controller: { write(c: unknown): unknown; flush(): unknown; close(): void }) {
        for (const part of parts) {
          controller.write(part);
          if (flush) await controller.flush();
        }
        controller.close();
      },
    } as unknown as UnderlyingDefaultSource);
  const parts = () => ["hello ", enc.encode("direct "), "world"];
  const scenarios: [string, () => unknown][] = [
    ["text()", () => new Response(direct(parts())).text()],
    ["Bun.readableStreamToText", () => Bun.readableStreamToText(direct(parts()))],
    ["a reader", async () => {
      const reader = direct(parts(), true).getReader();
      const got: unknown[] = [];
      for (let r = await reader.read(); !r.done; r = await reader.read()) got.push(r.value);
      return got;
    }],
    [
      "pipeThrough(new TransformStream())",
      () => new Response(direct(parts()).pipeThrough(new TransformStream())).text(),
    ],
    ["instanceof ReadableStream", () => direct([]) instanceof ReadableStream],
  ];
  for (const [label, fn] of scenarios) {
    const [native, patched] = await bothWays(fn);
    assert.is(patched, native, label);
  }
  bun.patchGlobalWebStreams();
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(direct(parts())) });
  try {
    assert.is(await (await fetch(`http://127.0.0.1:${server.port}/`)).text(), "hello direct world", "Bun.serve");
  } finally {
    await server.stop(true);
    bun.unpatchGlobalWebStreams();
  }
  // the stream classes of fusestreams themselves refuse it again once unpatched
  assert.throws(
    () => new fuse.ReadableStream({ type: "direct" } as unknown as UnderlyingDefaultSource),
    (e: unknown) => e instanceof TypeError,
  );
});

bunTest('type: "bytes" sources make Bun\'s own byte streams while patched (BUN-BYTES)', async () => {
  const NativeRS = globalThis.ReadableStream;
  const bytes = (n = 3): ReadableStream<Uint8Array> =>
    new ReadableStream({
      type: "bytes",
      start(c) {
        for (let i = 0; i < n; i++) c.enqueue(enc.encode(`chunk ${i};`));
        c.close();
      },
    });
  const scenarios: [string, () => unknown][] = [
    ["text()", () => new Response(bytes()).text()],
    ["Bun.readableStreamToText", () => Bun.readableStreamToText(bytes())],
    ["a BYOB reader", async () => {
      const reader = bytes(2).getReader({ mode: "byob" });
      const got: number[] = [];
      for (let r = await reader.read(new Uint8Array(4)); !r.done; r = await reader.read(new Uint8Array(4))) {
        got.push(...r.value);
      }
      return got;
    }],
    ["pipeThrough(new TransformStream())", () => new Response(bytes().pipeThrough(new TransformStream())).text()],
    ["through TextDecoderStream", async () => {
      let out = "";
      await bytes().pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>).pipeTo(
        new WritableStream({ write: (c) => void (out += c) }),
      );
      return out;
    }],
    ["instanceof ReadableStream", () => bytes() instanceof ReadableStream],
  ];
  for (const [label, fn] of scenarios) {
    const [native, patched] = await bothWays(fn);
    assert.is(patched, native, label);
  }
  bun.patchGlobalWebStreams();
  try {
    assert.is(Object.getPrototypeOf(bytes()), NativeRS.prototype, "patched: Bun's own byte stream");
    assert.ok(bytes() instanceof bun.ReadableStream, "instanceof the patched class");
    assert.is(Object.getPrototypeOf(new ReadableStream()), bun.ReadableStream.prototype, "default streams are ours");
  } finally {
    bun.unpatchGlobalWebStreams();
  }
  assert.is(
    Object.getPrototypeOf(new bun.ReadableStream({ type: "bytes" })),
    bun.ReadableStream.prototype,
    "unpatched",
  );
});

bunTest("reader.readMany() on our readers answers as Bun's (case 7)", async () => {
  const sync = (fn: () => unknown) => () => {
    const result = fn();
    return result instanceof Promise ? result.then((v) => ({ promise: v })) : { now: result };
  };
  const readMany = (r: ReadableStreamDefaultReader): unknown => (r as unknown as { readMany(): unknown }).readMany();
  const scenarios: [string, () => unknown][] = [
    ["queued chunks", sync(() => readMany(streamOf("a", "b", enc.encode("c")).getReader()))],
    ["closed", sync(() => readMany(streamOf().getReader()))],
    ["queued, then closed", async () => {
      const r = streamOf("x").getReader();
      return [readMany(r), await readMany(r)];
    }],
    [
      "errored",
      sync(() => {
        const r = new ReadableStream({
          start(c) {
            c.error(new RangeError("failed"));
          },
        }).getReader();
        return readMany(r);
      }),
    ],
    [
      "waiting, then a chunk",
      sync(() => {
        let controller!: ReadableStreamDefaultController;
        const r = new ReadableStream({
          start(c) {
            controller = c;
          },
        }).getReader();
        const result = readMany(r);
        setTimeout(() => controller.enqueue("late"), 1);
        return result;
      }),
    ],
    ["a pull source that enqueues a job later", async () => {
      let pulls = 0;
      const r = new ReadableStream({
        pull(c) {
          return Promise.resolve().then(() => c.enqueue(++pulls));
        },
      }).getReader();
      const first = await readMany(r);
      await new Promise((resolve) => setTimeout(resolve, 5));
      // (after a readMany() that takes queued chunks, the source is not pulled until the next read)
      return [first, pulls, await readMany(r)];
    }],
    [
      "a bad this",
      sync(() => (ReadableStreamDefaultReader.prototype as unknown as { readMany(): unknown }).readMany.call({})),
    ],
    ["a source whose pull() enqueues at once: how readMany() groups its chunks", async () => {
      let pulls = 0;
      const trace: string[] = [];
      const r = new ReadableStream({
        pull(c) {
          pulls++;
          trace.push(`pull ${pulls}`);
          if (pulls <= 6) c.enqueue(`c${pulls}`);
          else c.close();
        },
      }).getReader();
      for (;;) {
        const next = readMany(r) as { done: boolean; value: string[] } | Promise<{ done: boolean; value: string[] }>;
        trace.push(next instanceof Promise ? "waits" : "now");
        const result = await next;
        if (result.done) return trace;
        trace.push(result.value.join(","));
      }
    }],
    ["a read that waits also takes what the same pull() enqueued", async () => {
      const r = new ReadableStream({
        pull(c) {
          c.enqueue("hello");
          c.enqueue("world");
          c.close();
        },
      }).getReader();
      return [await readMany(r), await r.read()];
    }],
  ];
  for (const [label, fn] of scenarios) {
    const [native, patched] = await bothWays(fn);
    assert.is(patched, native, label);
  }
  // a released reader: a TypeError at once (Bun's says "Invalid state: ..."; README, known differences)
  bun.patchGlobalWebStreams();
  const released = streamOf("a").getReader();
  released.releaseLock();
  assert.throws(() => readMany(released), (e: unknown) => e instanceof TypeError);
});

bunTest("a detached chunk: Bun's byte consumers refuse it as for Bun's own streams", async () => {
  const detached = (): Uint8Array => {
    const chunk = new Uint8Array([1, 2, 3]);
    structuredClone(chunk.buffer, { transfer: [chunk.buffer] });
    return chunk;
  };
  // Whether the consumer threw at once or settled later, and with what.
  const when = (fn: () => unknown) => () => {
    let result: unknown;
    try {
      result = fn();
    } catch (e) {
      const err = e as { name?: unknown; code?: unknown; message?: unknown };
      return { threw: `${String(err.name)} ${String(err.code)} ${String(err.message)}` };
    }
    return result instanceof Promise ? result.then((v) => ({ later: v })) : { now: result };
  };
  // A source that enqueues the chunks in a pull (Bun's consumers then read them as they come).
  const later = (...chunks: unknown[]): ReadableStream =>
    new ReadableStream({
      async pull(c) {
        await null;
        for (const chunk of chunks) c.enqueue(chunk);
        c.close();
      },
    });
  // The Response methods of a stream with every chunk queued: Bun's throw at once, ours reject with the same
  // error (the body was handed to Bun when the Response was made; adapters/README.md, known differences).
  const consumers: [string, (s: ReadableStream) => unknown, "timing" | "error"][] = [
    ["Bun.readableStreamToBytes", (s) => Bun.readableStreamToBytes(s), "timing"],
    ["Bun.readableStreamToArrayBuffer", (s) => Bun.readableStreamToArrayBuffer(s), "timing"],
    ["Bun.readableStreamToText", (s) => Bun.readableStreamToText(s), "timing"],
    ["Response.bytes()", (s) => new Response(s).bytes(), "error"],
    ["Response.arrayBuffer()", (s) => new Response(s).arrayBuffer(), "error"],
  ];
  for (const [label, consume, compare] of consumers) {
    for (const [shape, make] of [["queued", streamOf], ["pulled", later]] as const) {
      const run = () => consume(make(new Uint8Array([9]), detached()));
      const [native, patched] = await bothWays(compare === "timing" ? when(run) : run);
      assert.is(patched, native, `${label}, ${shape}`);
    }
  }
});

bunTest("a native body piped into ours that fails: the error names the awaiting functions", async () => {
  // A fetch whose connection is closed while its body is piped: Bun makes the error outside any JavaScript
  // frame, and gives it the frames of the async functions awaiting the pipe. Each run has its own server.
  const frames = async (): Promise<string> => {
    let unpark!: () => void;
    const parked = new Promise<void>((resolve) => (unpark = resolve));
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () =>
        new Response(
          new ReadableStream({
            async pull(c) {
              c.enqueue(enc.encode("x"));
              await parked;
            },
          }),
        ),
    });
    async function pipeLevelTwo(): Promise<void> {
      const res = await fetch(server.url);
      await res.body!.pipeTo(
        new WritableStream({
          write() {
            server.stop(true);
          },
        }),
      );
    }
    async function pipeLevelOne(): Promise<void> {
      await pipeLevelTwo();
    }
    try {
      await pipeLevelOne();
      return "no error";
    } catch (e) {
      const stack = String((e as Error).stack);
      const named = ["pipeLevelTwo", "pipeLevelOne"].map((name) => `${name}: ${stack.includes(`at async ${name}`)}`);
      return `${(e as Error).message.slice(0, 10)} ${named.join(", ")}`;
    } finally {
      unpark();
      server.stop(true);
    }
  };
  const native = await bounded(frames(), "Bun's own pipe", 5000);
  assert.is(native, "ECONNRESET pipeLevelTwo: true, pipeLevelOne: true", "Bun's own pipe");
  bun.patchGlobalWebStreams();
  try {
    assert.is(await bounded(frames(), "the pipe into ours", 5000), native, "patched");
  } finally {
    bun.unpatchGlobalWebStreams();
  }
});

bunTest("Bun.write(path, stream) and BunFile.write(stream) write our streams' bytes (case 7)", async (dir) => {
  const path = join(dir, "out.txt");
  const chunks = () => ["hello ", enc.encode("wörld")];
  const writes: [string, () => Promise<unknown>][] = [
    ["Bun.write(path, stream)", () => Bun.write(path, streamOf(...chunks()) as unknown as Blob)],
    ["Bun.write(file, stream)", () => Bun.write(Bun.file(path), streamOf(...chunks()) as unknown as Blob)],
    ["BunFile.write(stream)", () => Bun.file(path).write(streamOf(...chunks()) as unknown as string)],
    ["Bun.write(path, a locked stream)", () => {
      const s = streamOf("x");
      s.getReader();
      return Bun.write(path, s as unknown as Blob);
    }],
  ];
  for (const [label, write] of writes) {
    const [native, patched] = await bothWays(async () => {
      rmSync(path, { force: true });
      const written = await write();
      return [written, readFileSync(path, "utf8")];
    });
    assert.is(patched, native, label);
  }
});

bunTest(
  "new ReadableStreamDefaultReader(Bun's stream) and new Request({ body, url }) as without the patch",
  async (dir) => {
    const path = join(dir, "data.txt");
    await Bun.write(path, "reader-ctor-data");
    const scenarios: [string, () => unknown][] = [
      ["a reader of Bun.file().stream()", async () => {
        const reader = new ReadableStreamDefaultReader(Bun.file(path).stream());
        let text = "";
        for (let r = await reader.read(); !r.done; r = await reader.read()) text += new TextDecoder().decode(r.value);
        return [text, reader instanceof ReadableStreamDefaultReader];
      }],
      ["a reader of a Response body", () => new ReadableStreamDefaultReader(new Response("abc").body!).read()],
      ["a BYOB reader of a default stream", () => new ReadableStreamBYOBReader(new Response("abc").body!)],
      ["a reader of something else (a TypeError)", () => {
        try {
          return new ReadableStreamDefaultReader({} as ReadableStream);
        } catch (e) {
          return (e as Error).name;
        }
      }],
      ["new Request({ body: stream, url })", async () => {
        const s = streamOf("hello", "world");
        const request = new Request({ body: s, url: "https://example.com/" } as unknown as RequestInfo);
        return [request.body === s, await request.text(), request.url];
      }],
    ];
    for (const [label, fn] of scenarios) {
      const [native, patched] = await bothWays(fn);
      assert.is(patched, native, label);
    }
  },
);

bunTest("a released or locked reader's and writer's errors carry Bun's texts and codes while patched", async () => {
  const scenarios: Record<string, () => unknown> = {
    "a read pending at release": async () => {
      const reader = new ReadableStream({ pull() {} }).getReader();
      const read = reader.read();
      reader.releaseLock();
      return await read;
    },
    "closed after release": async () => {
      const reader = new ReadableStream().getReader();
      reader.releaseLock();
      return await reader.closed;
    },
    "read() after release": async () => {
      const reader = new ReadableStream().getReader();
      reader.releaseLock();
      return await reader.read();
    },
    "a BYOB read pending at release": async () => {
      const reader = new ReadableStream({ type: "bytes", pull() {} }).getReader({ mode: "byob" });
      const read = reader.read(new Uint8Array(1));
      reader.releaseLock();
      return await read;
    },
    "a writer's closed after release": async () => {
      const writer = new WritableStream().getWriter();
      writer.releaseLock();
      return await writer.closed;
    },
    "write() after release": async () => {
      const writer = new WritableStream().getWriter();
      writer.releaseLock();
      return await writer.write(1);
    },
    "getReader() of a locked stream": () => {
      const stream = new ReadableStream();
      stream.getReader();
      return stream.getReader();
    },
  };
  for (const [name, fn] of Object.entries(scenarios)) {
    const [native, patched] = await bothWays(fn);
    assert.match(native, /^TypeError ERR_INVALID_STATE Invalid state: /, `${name}: Bun's own`);
    assert.is(patched, native, name);
  }
  // Unpatched, our classes keep our texts.
  const reader = new fuse.ReadableStream({ pull() {} }).getReader();
  const read = reader.read();
  reader.releaseLock();
  assert.is(await outcome(() => read), "TypeError undefined The reader's lock was released during a read");
});

bunTest("unpatch puts back Bun's functions and leaves our prototypes as they were", async () => {
  const fileProto = Object.getPrototypeOf(Bun.file(".")) as object;
  const own = (o: object, k: string) => Object.getOwnPropertyDescriptor(o, k);
  const watched: [string, object, string][] = [
    ["Bun.write", Bun, "write"],
    ["Bun.readableStreamToText", Bun, "readableStreamToText"],
    ["Bun.readableStreamToArrayBuffer", Bun, "readableStreamToArrayBuffer"],
    ["BunFile.prototype.write", fileProto, "write"],
    ["ReadableStream.prototype.getReader (Bun's)", ReadableStream.prototype, "getReader"],
    ["ReadableStream.prototype.values (Bun's)", ReadableStream.prototype, "values"],
    ["ReadableStream.prototype.tee (Bun's)", ReadableStream.prototype, "tee"],
    ["releaseLock (Bun's reader)", Object.getPrototypeOf(new ReadableStream().getReader()), "releaseLock"],
    ["text (ours)", fuse.ReadableStream.prototype, "text"],
    ["readMany (ours)", fuse.ReadableStreamDefaultReader.prototype, "readMany"],
  ];
  const before = watched.map(([, o, k]) => own(o, k));
  bun.patchGlobalWebStreams();
  assert.ok(watched.some(([, o, k], i) => own(o, k)?.value !== before[i]?.value), "the patch changes them");
  bun.unpatchGlobalWebStreams();
  watched.forEach(([label, o, k], i) => assert.equal(own(o, k), before[i], label));
});

test.run();
