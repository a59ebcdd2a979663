/**
 * Deno with the patch on behaves as without it where Deno's own code makes or takes streams (issue 27,
 * cases 1-3): every body shape Deno accepts (sync and async iterables, consumed and null bodies,
 * `textStream()`), and Deno's node compatibility layer on our streams (`node:stream` `finished()`,
 * `addAbortSignal()`, `fromWeb`/`toWeb`, `pipeline`, `compose`, `node:stream/consumers`, and
 * `node:fs/promises` `FileHandle.readableWebStream()`). Each case runs plain, then patched, and the
 * outcomes (values, or error names and messages) must be the same.
 *
 * On other runtimes every case is skipped with a message.
 *
 *   deno run -A tests/unit/deno-patch-compat.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { addAbortSignal, compose, Duplex, PassThrough, Readable, Writable } from "node:stream";
import { finished, pipeline } from "node:stream/promises";
import { json, text } from "node:stream/consumers";
import { mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as deno from "../../adapters/deno/mod.ts";
import { bounded, currentRuntime } from "../shared/contract-suite.ts";
import { uvuRegistrar } from "./uvu-registrar.ts";

const onDeno = currentRuntime === "Deno";
const enc = new TextEncoder();
const dec = new TextDecoder();

/** What a case settled with, comparable across runs: its value, or its error's name and message. */
type Outcome = { value: unknown } | { error: string };

async function outcomeOf(fn: () => unknown): Promise<Outcome> {
  try {
    return { value: await fn() };
  } catch (e) {
    return { error: e instanceof Error ? `${e.name}: ${e.message}` : `thrown: ${String(e)}` };
  }
}

/** Runs every case plain, then patched (unpatching after), and returns both sets of outcomes. */
async function plainAndPatched(
  cases: Record<string, () => unknown>,
): Promise<{ plain: Record<string, Outcome>; patched: Record<string, Outcome> }> {
  const run = async (): Promise<Record<string, Outcome>> => {
    const out: Record<string, Outcome> = {};
    for (const [name, fn] of Object.entries(cases)) out[name] = await bounded(outcomeOf(fn), name);
    return out;
  };
  const plain = await run();
  deno.patchGlobalWebStreams();
  try {
    return { plain, patched: await run() };
  } finally {
    deno.unpatchGlobalWebStreams();
  }
}

/** Asserts that every case has the same outcome patched as plain, and that the plain ones are `expected`. */
async function samePatched(cases: Record<string, () => unknown>, expected: Record<string, Outcome>): Promise<void> {
  const { plain, patched } = await plainAndPatched(cases);
  assert.equal(plain, expected, "the plain outcomes are Deno's");
  assert.equal(patched, plain, "patched as plain");
}

const denoTest = (name: string, fn: () => Promise<void>): void => {
  if (!onDeno) {
    uvuRegistrar.skip(
      `deno patch compat: ${name}`,
      "deno-patch-compat: Deno's own body and node:stream code, Deno only",
    );
    return;
  }
  test(`deno patch compat: ${name}`, async () => {
    try {
      await bounded(fn(), name);
    } finally {
      deno.unpatchGlobalWebStreams();
    }
  });
};

/** A stream of the global class (ours while patched) of the given byte chunks. */
function bytesOf(...parts: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(c) {
      for (const p of parts) c.enqueue(enc.encode(p));
      c.close();
    },
  });
}

async function readAllText(stream: ReadableStream<unknown>): Promise<string> {
  let out = "";
  for await (const chunk of stream as unknown as AsyncIterable<unknown>) {
    out += typeof chunk === "string" ? chunk : dec.decode(chunk as Uint8Array, { stream: true });
  }
  return out;
}

// ---- case 1: iterable bodies

denoTest("sync- and async-iterable bodies (generator, Set, array, Request, body reader) read as natively", async () => {
  function* gen() {
    yield enc.encode("sync ");
    yield enc.encode("generator");
  }
  async function* agen() {
    yield enc.encode("async ");
    yield enc.encode("generator");
  }
  const body = (b: unknown) => b as BodyInit;
  await samePatched({
    "Response(generator).text()": () => new Response(body(gen())).text(),
    "Response(Set).text()": () => new Response(body(new Set([enc.encode("a set")]))).text(),
    "Response(array).text()": () => new Response(body([enc.encode("an "), enc.encode("array")])).text(),
    "Response(async generator).text()": () => new Response(body(agen())).text(),
    "Response(generator).body read": () => readAllText(new Response(body(gen())).body!),
    "Response(generator).bytes()": async () => Array.from(await new Response(body(gen())).bytes()),
    "Request(generator).text()": () =>
      new Request("http://127.0.0.1/", { method: "POST", body: body(gen()), duplex: "half" } as RequestInit).text(),
    "Request(Set).arrayBuffer()": async () =>
      dec.decode(
        await new Request("http://127.0.0.1/", { method: "POST", body: body(new Set([enc.encode("set")])) })
          .arrayBuffer(),
      ),
    "Response(generator of strings).text()": () => new Response(body(["not", "bytes"])).text(),
  }, {
    "Response(generator).text()": { value: "sync generator" },
    "Response(Set).text()": { value: "a set" },
    "Response(array).text()": { value: "an array" },
    "Response(async generator).text()": { value: "async generator" },
    "Response(generator).body read": { value: "sync generator" },
    "Response(generator).bytes()": { value: Array.from(enc.encode("sync generator")) },
    "Request(generator).text()": { value: "sync generator" },
    "Request(Set).arrayBuffer()": { value: "set" },
    "Response(generator of strings).text()": {
      error:
        "TypeError: Argument 1 failed to iterate next value: The value returned from the next() method is not an Uint8Array object",
    },
  });
});

// ---- case 2: consumed and null bodies, textStream()

denoTest("a consumed body's stream, textStream() of null, string and stream bodies", async () => {
  const described = (r: Response | Request) => {
    const b = r.body;
    return { isStream: b instanceof ReadableStream, locked: b?.locked, bodyUsed: r.bodyUsed, again: r.body === b };
  };
  const textStream = (r: Response | Request) => (r as unknown as { textStream(): ReadableStream<string> }).textStream();
  await samePatched({
    "Response consumed": async () => {
      const r = new Response("x");
      await r.text();
      return described(r);
    },
    "Request consumed": async () => {
      const r = new Request("http://127.0.0.1/", { method: "POST", body: "x" });
      await r.arrayBuffer();
      return described(r);
    },
    "consumed body read again": async () => {
      const r = new Response("x");
      await r.text();
      return await r.text();
    },
    "null body textStream()": () => readAllText(textStream(new Response(null))),
    "string body textStream()": () => readAllText(textStream(new Response("héllo"))),
    "stream body textStream()": () => readAllText(textStream(new Response(bytesOf("a ", "stream")))),
    "consumed body textStream()": async () => {
      const r = new Response("x");
      await r.text();
      return textStream(r);
    },
  }, {
    "Response consumed": { value: { isStream: true, locked: true, bodyUsed: true, again: true } },
    "Request consumed": { value: { isStream: true, locked: true, bodyUsed: true, again: true } },
    "consumed body read again": { error: "TypeError: Body already consumed" },
    "null body textStream()": { value: "" },
    "string body textStream()": { value: "héllo" },
    "stream body textStream()": { value: "a stream" },
    "consumed body textStream()": { error: "TypeError: Body already consumed." },
  });
});

// ---- case 3: node compatibility

denoTest("node:stream finished() and addAbortSignal() on readable, writable and transform streams", async () => {
  await samePatched({
    "finished(readable) after a pipe": async () => {
      const s = bytesOf("a");
      const done = finished(s as never);
      await s.pipeTo(new WritableStream());
      await done;
      return "finished";
    },
    "finished(readable) errored": async () => {
      const s = new ReadableStream({
        start(c) {
          c.error(new Error("boom"));
        },
      });
      await finished(s as never);
    },
    "finished(writable) closed": async () => {
      const w = new WritableStream();
      const done = finished(w as never);
      await w.getWriter().close();
      await done;
      return "finished";
    },
    "finished(writable) aborted": async () => {
      const w = new WritableStream();
      const done = finished(w as never);
      await w.abort(new Error("aborted here"));
      await done;
    },
    "finished(transform)": async () => {
      const t = new TransformStream();
      const done = finished(t as never);
      await t.writable.close();
      await t.readable.pipeTo(new WritableStream());
      await done;
      return "finished";
    },
    "addAbortSignal(readable) then abort": async () => {
      const ac = new AbortController();
      const s = new ReadableStream({ pull: () => new Promise(() => {}) });
      addAbortSignal(ac.signal, s as never);
      const read = s.getReader().read();
      ac.abort();
      await read;
    },
    "addAbortSignal(writable) then abort": async () => {
      const ac = new AbortController();
      const w = new WritableStream({ write: () => new Promise(() => {}) });
      addAbortSignal(ac.signal, w as never);
      const writer = w.getWriter();
      ac.abort();
      await writer.closed;
    },
    "addAbortSignal(transform) then abort": async () => {
      const ac = new AbortController();
      const t = new TransformStream();
      addAbortSignal(ac.signal, t as never);
      ac.abort();
      await t.readable.getReader().read();
    },
  }, {
    "finished(readable) after a pipe": { value: "finished" },
    "finished(readable) errored": { error: "Error: boom" },
    "finished(writable) closed": { value: "finished" },
    "finished(writable) aborted": { error: "Error: aborted here" },
    "finished(transform)": { value: "finished" },
    "addAbortSignal(readable) then abort": { error: "AbortError: The operation was aborted" },
    "addAbortSignal(writable) then abort": { error: "AbortError: The operation was aborted" },
    "addAbortSignal(transform) then abort": { error: "AbortError: The operation was aborted" },
  });
});

denoTest("node:stream fromWeb/toWeb, pipeline, compose and node:stream/consumers on our streams", async () => {
  await samePatched({
    "Readable.fromWeb": async () => {
      let s = "";
      for await (const c of Readable.fromWeb(bytesOf("a", "b") as never)) s += c;
      return s;
    },
    "Readable.toWeb": async () => {
      const s = Readable.toWeb(Readable.from([enc.encode("x"), enc.encode("y")]));
      return [s instanceof ReadableStream, await readAllText(s as unknown as ReadableStream<unknown>)];
    },
    "Writable.fromWeb": async () => {
      const got: string[] = [];
      const w = Writable.fromWeb(new WritableStream({ write: (c) => void got.push(String(c)) }) as never);
      w.write("a");
      w.end("b");
      await finished(w);
      return got;
    },
    "Writable.toWeb": async () => {
      const got: string[] = [];
      const w = Writable.toWeb(new Writable({ write: (c, _e, cb) => (got.push(dec.decode(c)), cb()) }));
      await bytesOf("a", "b").pipeTo(w as never);
      return got;
    },
    "Duplex.fromWeb": async () => {
      const d = Duplex.fromWeb(new TransformStream() as never);
      d.end("q");
      let s = "";
      for await (const c of d) s += c;
      return s;
    },
    "pipeline web -> transform -> web": async () => {
      const got: string[] = [];
      await pipeline(
        bytesOf("a", "b") as never,
        new TransformStream() as never,
        new WritableStream({ write: (c) => void got.push(dec.decode(c as Uint8Array)) }) as never,
      );
      return got;
    },
    "pipeline web -> node": async () => {
      const got: string[] = [];
      await pipeline(
        bytesOf("a", "b") as never,
        new PassThrough(),
        new Writable({ write: (c, _e, cb) => (got.push(String(c)), cb()) }),
      );
      return got;
    },
    "compose(transform, node)": async () => {
      const c = compose(new TransformStream() as never, new PassThrough());
      c.end("z");
      let s = "";
      for await (const x of c) s += x;
      return s;
    },
    "consumers text/json":
      async () => [await text(bytesOf("a", "b") as never), await json(bytesOf('{"a"', ":1}") as never)],
  }, {
    "Readable.fromWeb": { value: "ab" },
    "Readable.toWeb": { value: [true, "xy"] },
    "Writable.fromWeb": { value: ["a", "b"] },
    "Writable.toWeb": { value: ["a", "b"] },
    "Duplex.fromWeb": { value: "q" },
    "pipeline web -> transform -> web": { value: ["a", "b"] },
    "pipeline web -> node": { value: ["a", "b"] },
    "compose(transform, node)": { value: "z" },
    "consumers text/json": { value: ["ab", { a: 1 }] },
  });
});

denoTest("node:fs/promises FileHandle.readableWebStream(), then close(): unread, partly read, read, BYOB", async () => {
  const dir = await mkdtemp(join(tmpdir(), "fusestreams-"));
  try {
    const path = join(dir, "f.txt");
    await writeFile(path, "hello file");
    await samePatched({
      "close unread": async () => {
        const fh = await open(path);
        const s = fh.readableWebStream();
        await fh.close();
        return [s.locked, await s.getReader().read()];
      },
      "close after one read (reader released)": async () => {
        const fh = await open(path);
        const r = fh.readableWebStream().getReader();
        const first = await r.read();
        r.releaseLock();
        await fh.close();
        return dec.decode(first.value);
      },
      "close while a read is pending": async () => {
        const fh = await open(path);
        const r = fh.readableWebStream().getReader();
        await r.read();
        await r.read();
        const pending = r.read();
        await fh.close();
        return await pending;
      },
      "close after reading it all": async () => {
        const fh = await open(path);
        const t = await new Response(fh.readableWebStream() as unknown as BodyInit).text();
        await fh.close();
        return t;
      },
      "BYOB read, then close": async () => {
        const fh = await open(path);
        const r = fh.readableWebStream().getReader({ mode: "byob" });
        const { value } = await r.read(new Uint8Array(4));
        r.releaseLock();
        await fh.close();
        return dec.decode(value);
      },
      "autoClose after reading it all": async () => {
        const fh = await open(path);
        const t = await readAllText(
          fh.readableWebStream({ autoClose: true } as never) as unknown as ReadableStream<unknown>,
        );
        return [t, fh.fd];
      },
    }, {
      "close unread": { value: [false, { done: true, value: undefined }] },
      "close after one read (reader released)": { value: "hello file" },
      "close while a read is pending": { value: { done: true, value: undefined } },
      "close after reading it all": { value: "hello file" },
      "BYOB read, then close": { value: "hell" },
      "autoClose after reading it all": { value: ["hello file", -1] },
    });
  } finally {
    await rm(dir, { recursive: true });
  }
});

denoTest(
  "WebSocketStream (--unstable-net, in a child process): its writable side closes when the socket closes",
  async () => {
    const D = (globalThis as unknown as {
      Deno: {
        execPath(): string;
        Command: new (cmd: string, o: { args: string[]; stdout: "piped"; stderr: "piped" }) => {
          output(): Promise<{ code: number; stdout: Uint8Array; stderr: Uint8Array }>;
        };
      };
    }).Deno;
    const adapterUrl = new URL("../../adapters/deno/mod.ts", import.meta.url).href;
    const program = (patch: boolean) => `
    import { patchGlobalWebStreams } from ${JSON.stringify(adapterUrl)};
    if (${patch}) patchGlobalWebStreams();
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
      const { socket, response } = Deno.upgradeWebSocket(req);
      socket.onmessage = (e) => { socket.send("echo " + e.data); socket.close(1000, "bye"); };
      return response;
    });
    const ws = new WebSocketStream("ws://127.0.0.1:" + server.addr.port + "/");
    const { readable, writable } = await ws.opened;
    const writer = writable.getWriter();
    await writer.write("hi");
    const reader = readable.getReader();
    const out = [await reader.read(), await reader.read(), await ws.closed];
    out.push(await Promise.race([
      writer.closed.then(() => "writer closed", (e) => "writer errored: " + e),
      new Promise((r) => setTimeout(() => r("writer still open after 500 ms"), 500)),
    ]));
    await server.shutdown();
    console.log(JSON.stringify(out));`;
    const run = async (patch: boolean) => {
      const { code, stdout, stderr } = await new D.Command(D.execPath(), {
        args: ["eval", "--unstable-net", program(patch)],
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.is(code, 0, dec.decode(stderr));
      return JSON.parse(dec.decode(stdout));
    };
    const plain = await run(false);
    assert.equal(plain, [
      { value: "echo hi", done: false },
      { done: true },
      { closeCode: 1000, reason: "bye" },
      "writer closed",
    ]);
    assert.equal(await run(true), plain);
  },
);

// ---- error texts (Deno's own, while patched)

/** What `Deno.serve`'s onError gets when a handler's response body has `chunk`, served on 127.0.0.1. */
async function servedChunkError(chunk: unknown): Promise<string> {
  const failed = Promise.withResolvers<unknown>();
  const ac = new AbortController();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: ac.signal,
    onListen() {},
    handler: () => new Response(new ReadableStream({ start: (c) => (c.enqueue(chunk), c.close()) })),
    onError(error) {
      failed.resolve(error);
      return new Response("failed", { status: 500 });
    },
  });
  try {
    const res = await fetch(`http://127.0.0.1:${server.addr.port}/`);
    await res.text().catch(() => {});
    const error = await failed.promise;
    return error instanceof Error ? `${error.name}: ${error.message}` : `thrown: ${String(error)}`;
  } finally {
    ac.abort();
    await server.finished;
  }
}

/** What a byte controller's `enqueue(chunk)` throws in `start()`. */
function byteEnqueue(chunk: unknown): void {
  let error: unknown;
  new ReadableStream({
    type: "bytes",
    start: (c) => void (error = outcomeOfSync(() => c.enqueue(chunk as Uint8Array))),
  });
  if (error !== undefined) throw error;
}

function outcomeOfSync(fn: () => void): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
}

/** Writes `bytes` to a DecompressionStream of `format`, then closes it: the first rejection. */
async function decompressClose(format: CompressionFormat, bytes: number[]): Promise<void> {
  const ds = new DecompressionStream(format);
  ds.readable.pipeTo(new WritableStream()).catch(() => {});
  const writer = ds.writable.getWriter();
  if (bytes.length !== 0) await writer.write(new Uint8Array(bytes));
  await writer.close();
}

denoTest("our errors carry Deno's texts while patched (from(), byte enqueue, codecs, Deno.serve bodies)", async () => {
  const from = (value: unknown) => () => ReadableStream.from(value as Iterable<unknown>);
  const asyncSequence =
    "TypeError: Failed to execute 'ReadableStream.from': Argument 1 can not be converted to async sequence.";
  await samePatched({
    "from(string)": from("string"),
    "from(null)": from(null),
    "from(5)": from(5),
    "byte controller enqueue(string)": () => byteEnqueue("wat"),
    "gzip closed with no input": () => decompressClose("gzip", []),
    "gzip cut inside its header": () => decompressClose("gzip", [0x1f, 0x8b, 8, 0]),
    "deflate of garbage": () => decompressClose("deflate", [1, 2, 3, 4]),
  }, {
    "from(string)": { error: asyncSequence },
    "from(null)": { error: asyncSequence },
    "from(5)": { error: asyncSequence },
    "byte controller enqueue(string)": {
      error:
        "TypeError: Failed to execute 'enqueue' on 'ReadableByteStreamController': Argument 1 is not a view on an ArrayBuffer or SharedArrayBuffer",
    },
    "gzip closed with no input": { error: "TypeError: corrupt gzip stream does not have a matching checksum" },
    "gzip cut inside its header": { error: "TypeError: corrupt gzip stream does not have a matching checksum" },
    "deflate of garbage": { error: "TypeError: corrupt deflate stream" },
  });
  // A string chunk in a served body: Deno's text, then ours naming what was found.
  const served = await servedChunkError("wat");
  assert.is(served, "TypeError: expected typed ArrayBufferView");
  deno.patchGlobalWebStreams();
  assert.is(
    await servedChunkError("wat"),
    "TypeError: expected typed ArrayBufferView (Response: a body stream chunk must be an ArrayBuffer or ArrayBufferView; found a string)",
  );
  deno.unpatchGlobalWebStreams();
  // Unpatched, our classes keep our own texts.
  const ours = outcomeOfSync(() => deno.ReadableStream.from("string" as unknown as Iterable<unknown>));
  assert.match(String(ours), /ReadableStream\.from\(\) takes no string/);
  const gzip = await outcomeOf(async () => {
    const ds = new deno.DecompressionStream("gzip");
    ds.readable.pipeTo(new deno.WritableStream()).catch(() => {});
    await ds.writable.close();
  });
  assert.equal(gzip, { error: "TypeError: The gzip stream ended early (unexpected end of input)" });
});

// ---- how Deno shows streams

denoTest("Deno.inspect shows every stream class as Deno shows its own (state, locks, desired sizes)", async () => {
  const inspect = (globalThis as unknown as { Deno: { inspect(v: unknown): string } }).Deno.inspect;
  const controllers = async () => {
    const out: Record<string, unknown> = {};
    new ReadableStream({ start: (c) => void (out["default controller"] = c) });
    new ReadableStream({ type: "bytes", start: (c) => void (out["byte controller"] = c) });
    new WritableStream({ start: (c) => void (out["writable controller"] = c) });
    new TransformStream({ start: (c) => void (out["transform controller"] = c) });
    await Promise.resolve();
    return out;
  };
  const shown = async () => {
    const locked = new ReadableStream();
    locked.getReader();
    const values: Record<string, unknown> = {
      "readable": new ReadableStream(),
      "byte stream": new ReadableStream({ type: "bytes" }),
      "locked": locked,
      "closed": new ReadableStream({ start: (c) => c.close() }),
      "errored": new ReadableStream({ start: (c) => c.error(new Error("x")) }),
      "writable": new WritableStream(),
      "transform": new TransformStream(),
      "reader": new ReadableStream().getReader(),
      "BYOB reader": new ReadableStream({ type: "bytes" }).getReader({ mode: "byob" }),
      "writer": new WritableStream().getWriter(),
      "strategies": [
        new ByteLengthQueuingStrategy({ highWaterMark: 2 }),
        new CountQueuingStrategy({ highWaterMark: 3 }),
      ],
      ...(await controllers()),
    };
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(values)) out[name] = inspect(value);
    return out;
  };
  const plain = await shown();
  assert.is(plain["byte stream"], 'ReadableStream { locked: false, state: "readable", supportsBYOB: true }');
  deno.patchGlobalWebStreams();
  assert.equal(await shown(), plain);
});

test.run();
