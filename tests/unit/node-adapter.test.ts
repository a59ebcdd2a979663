/**
 * Node.js adapter: conversions between node:stream and fusestreams (fromNodeReadable, toNodeReadable,
 * fromNodeWritable, toNodeWritable, fromNodeDuplex, toNodeDuplex): data, backpressure bounds, error
 * identity, destroy <-> cancel/abort, and no uncaught errors or unhandled rejections.
 *
 *   node tests/unit/node-adapter.test.ts        deno run -A tests/unit/node-adapter.test.ts        bun tests/unit/node-adapter.test.ts
 */
import { Buffer } from "node:buffer";
import process from "node:process";
import { Duplex, PassThrough, Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip, createGzip } from "node:zlib";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  fromNodeDuplex,
  fromNodeReadable,
  fromNodeWritable,
  inspectPipeChain,
  ReadableStream,
  type ReadableStreamDefaultController,
  toNodeDuplex,
  toNodeReadable,
  toNodeWritable,
  TransformStream,
  WritableStream,
} from "../../adapters/node/mod.ts";

/** The runtime's own ReadableStream (nothing in this file patches the globals). */
const NativeReadableStream = globalThis.ReadableStream;

/** Rejects when `promise` takes longer than 5 s, so that a stuck stream fails the test instead of hanging. */
function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), 5_000);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Lets every pending tick, microtask and immediate run (twice over). */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Runs fn and fails if an unhandled rejection or uncaught exception happens during it (or just after). */
async function noStrayErrors(fn: () => Promise<void>): Promise<void> {
  const stray: unknown[] = [];
  const onRejection = (reason: unknown): void => {
    stray.push(reason);
  };
  const onException = (err: unknown): void => {
    stray.push(err);
  };
  process.on("unhandledRejection", onRejection);
  process.on("uncaughtException", onException);
  try {
    await fn();
    await delay(20);
    await settle();
  } finally {
    process.off("unhandledRejection", onRejection);
    process.off("uncaughtException", onException);
  }
  assert.equal(stray, [], "no unhandled rejection or uncaught exception");
}

async function readAll<T>(stream: ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

function collectNode(readable: Readable): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const out: unknown[] = [];
    readable.on("data", (chunk: unknown) => out.push(chunk));
    readable.on("end", () => resolve(out));
    readable.on("error", reject);
  });
}

/** An endless byte-mode Readable of `size`-byte chunks that counts the bytes it produced. */
function endlessReadable(size: number, highWaterMark: number): { readable: Readable; produced: () => number } {
  let produced = 0;
  const readable = new Readable({
    highWaterMark,
    read() {
      produced += size;
      this.push(Buffer.alloc(size, 7));
    },
  });
  return { readable, produced: () => produced };
}

const bytes = (...values: number[]): Uint8Array => new Uint8Array(values);

// ---------------------------------------------------------------------------------------------------
// fromNodeReadable

test("fromNodeReadable: yields the Readable's chunks in order (same objects), then closes", async () => {
  const chunks = [Buffer.from("ab"), Buffer.from("cde"), Buffer.from("f")];
  const stream = fromNodeReadable(Readable.from(chunks, { objectMode: false }));
  assert.ok(stream instanceof ReadableStream);
  const out = await readAll(stream);
  assert.is(Buffer.concat(out).toString(), "abcdef");
  assert.is(out.length, 3);
  for (const [i, chunk] of out.entries()) assert.is(chunk, chunks[i], "chunks are passed through, not copied");
});

test("fromNodeReadable: object mode passes any value; setEncoding gives strings", async () => {
  const values = [{ a: 1 }, 2, "three"];
  assert.equal(await readAll(fromNodeReadable<unknown>(Readable.from(values))), values);
  const text = new PassThrough();
  text.setEncoding("utf8");
  text.end("héllo");
  assert.equal(await readAll(fromNodeReadable<string>(text)), ["héllo"]);
});

test("fromNodeReadable: a slow consumer keeps the buffered bytes bounded", async () => {
  const size = 1024;
  const nodeHwm = 16 * 1024;
  const webHwm = 8 * 1024;
  const { readable, produced } = endlessReadable(size, nodeHwm);
  const stream = fromNodeReadable(readable, { highWaterMark: webHwm });
  const reader = stream.getReader();
  const bound = nodeHwm + webHwm + 2 * size;
  await delay(30);
  assert.ok(produced() > 0, "the source was pulled");
  assert.ok(produced() <= bound, `nothing read: ${produced()} bytes produced, bound ${bound}`);
  let consumed = 0;
  for (let i = 0; i < 200; i++) {
    const { value } = await reader.read();
    consumed += value!.byteLength;
    if (i % 20 === 0) await delay(1);
    assert.ok(produced() - consumed <= bound, `after ${consumed} bytes read: ${produced() - consumed} buffered`);
  }
  await reader.cancel();
  assert.ok(readable.destroyed, "cancel destroyed the Readable");
});

test("fromNodeReadable: the default high-water mark is the Readable's, at least 16 KiB for bytes", async () => {
  // A 1 KiB Readable and nobody reading: the web queue fills to 16 KiB (not 1 KiB), then stops.
  const small = endlessReadable(1024, 1024);
  const stream = fromNodeReadable(small.readable);
  const reader = stream.getReader();
  await delay(30);
  const produced = small.produced();
  assert.ok(produced >= 16 * 1024, `${produced} bytes produced`);
  assert.ok(produced <= 16 * 1024 + 1024 + 2 * 1024, `${produced} bytes produced, bound ${16 * 1024 + 3 * 1024}`);
  await reader.cancel();

  // A 64 KiB Readable keeps its own high-water mark.
  const big = endlessReadable(1024, 64 * 1024);
  const bigReader = fromNodeReadable(big.readable).getReader();
  await delay(30);
  assert.ok(big.produced() >= 64 * 1024, `${big.produced()} bytes produced`);
  assert.ok(big.produced() <= 2 * 64 * 1024 + 2 * 1024, `${big.produced()} bytes produced`);
  await bigReader.cancel();

  // Object mode: the Readable's high-water mark in chunks.
  let objects = 0;
  const objectReadable = new Readable({
    objectMode: true,
    highWaterMark: 4,
    read() {
      this.push({ n: objects++ });
    },
  });
  const objectReader = fromNodeReadable(objectReadable).getReader();
  await delay(30);
  assert.ok(objects >= 4 && objects <= 4 + 4 + 2, `${objects} objects produced`);
  await objectReader.cancel();
});

test("fromNodeReadable: an 'error' errors the stream with the same error object", async () => {
  const readable = new Readable({ read() {} });
  const stream = fromNodeReadable(readable);
  const reader = stream.getReader();
  readable.push(Buffer.from("x"));
  assert.equal(Buffer.from((await reader.read()).value!).toString(), "x");
  const boom = new Error("boom");
  readable.destroy(boom);
  try {
    await reader.read();
    assert.unreachable("read should reject");
  } catch (err) {
    assert.is(err, boom);
  }
  await reader.closed.then(
    () => assert.unreachable("closed should reject"),
    (err: unknown) => assert.is(err, boom),
  );
});

test("fromNodeReadable: destroy() without an error before 'end' errors the stream (premature close)", async () => {
  const readable = new Readable({ read() {} });
  const reader = fromNodeReadable(readable).getReader();
  readable.destroy();
  const err = await reader.read().then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.instance(err, Error);
  assert.is((err as { code?: string }).code, "ERR_STREAM_PREMATURE_CLOSE");
});

test("fromNodeReadable: cancel(reason) destroys the Readable with the reason; later errors are not uncaught", async () => {
  await noStrayErrors(async () => {
    const readable = new Readable({ read() {} });
    const stream = fromNodeReadable(readable);
    const reason = new Error("enough");
    await stream.cancel(reason);
    await settle();
    assert.ok(readable.destroyed);
    assert.is(readable.errored, reason);
    // With no 'error' listener, emit("error") would throw synchronously.
    readable.emit("error", new Error("late"));
    readable.destroy(new Error("again"));
  });
});

test("fromNodeReadable: cancel() without a reason destroys the Readable without an error", async () => {
  await noStrayErrors(async () => {
    let destroyedWith: unknown = "not destroyed";
    const readable = new Readable({
      read() {},
      destroy(err, cb) {
        destroyedWith = err;
        cb(err);
      },
    });
    const reader = fromNodeReadable(readable).getReader();
    const pending = reader.read();
    await reader.cancel();
    assert.equal(await pending, { value: undefined, done: true });
    await settle();
    assert.is(destroyedWith, null);
  });
});

test("fromNodeReadable: an already ended, errored or destroyed Readable", async () => {
  const ended = Readable.from([]);
  await collectNode(ended);
  assert.equal(await readAll(fromNodeReadable(ended)), []);

  const boom = new Error("boom");
  const errored = new Readable({ read() {} });
  errored.on("error", () => {});
  errored.destroy(boom);
  await settle();
  await fromNodeReadable(errored).getReader().read().then(
    () => assert.unreachable(),
    (e: unknown) => assert.is(e, boom),
  );

  const destroyed = new Readable({ read() {} });
  destroyed.destroy();
  await settle();
  await fromNodeReadable(destroyed).getReader().read().then(
    () => assert.unreachable(),
    (e: unknown) => assert.is((e as { code?: string }).code, "ERR_STREAM_PREMATURE_CLOSE"),
  );
});

test("fromNodeReadable: pipes through fusestreams transforms", async () => {
  const upper = new TransformStream<Uint8Array, string>({
    transform(chunk, controller) {
      controller.enqueue(Buffer.from(chunk).toString().toUpperCase());
    },
  });
  const out = await readAll(fromNodeReadable(Readable.from([Buffer.from("ab"), Buffer.from("c")])).pipeThrough(upper));
  assert.equal(out, ["AB", "C"]);
});

// ---------------------------------------------------------------------------------------------------
// toNodeReadable

test("toNodeReadable: emits the stream's chunks in order as Buffers, then 'end'", async () => {
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(bytes(1, 2));
      c.enqueue(bytes(3));
      c.close();
    },
  });
  const readable = toNodeReadable(stream);
  assert.ok(readable instanceof Readable);
  assert.ok(stream.locked, "the stream is locked to the Readable");
  const out = (await collectNode(readable)) as Buffer[];
  assert.ok(out.every((b) => Buffer.isBuffer(b)));
  assert.equal([...Buffer.concat(out)], [1, 2, 3]);
});

test("toNodeReadable: object mode and encoding", async () => {
  const values = [{ a: 1 }, 2, "three"];
  const readable = toNodeReadable<unknown>(ReadableStream.from(values), { objectMode: true });
  assert.equal(await collectNode(readable), values);
  const text = toNodeReadable(ReadableStream.from([Buffer.from("hé"), Buffer.from("llo")]), { encoding: "utf8" });
  assert.is((await collectNode(text)).join(""), "héllo");
});

test("toNodeReadable: reads only while the Readable's buffer is below its high-water mark", async () => {
  const size = 1024;
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(c) {
        pulled += size;
        c.enqueue(new Uint8Array(size));
      },
    },
    { highWaterMark: 2 },
  );
  const nodeHwm = 8 * 1024;
  const readable = toNodeReadable(stream, { highWaterMark: nodeHwm });
  readable.pause();
  readable.on("data", () => {}); // attached while paused: nothing flows
  readable.read(0); // start reading without consuming
  await delay(30);
  const bound = nodeHwm + 3 * size;
  assert.ok(pulled > 0, "the stream was read");
  assert.ok(pulled <= bound, `${pulled} bytes pulled while nothing was consumed; bound ${bound}`);
  readable.destroy();
});

test("toNodeReadable: an error of the stream destroys the Readable with the same error object", async () => {
  const boom = new Error("boom");
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
  });
  const readable = toNodeReadable(stream);
  const got = new Promise((resolve) => readable.on("error", resolve));
  readable.resume();
  await settle();
  controller.error(boom);
  assert.is(await got, boom);
  assert.ok(readable.destroyed);
});

test("toNodeReadable: destroy(err) cancels the stream with err; destroy() with undefined", async () => {
  await noStrayErrors(async () => {
    const reasons: unknown[] = [];
    const make = () =>
      new ReadableStream<Uint8Array>({
        pull() {
          return new Promise(() => {}); // never delivers: a read is pending when destroyed
        },
        cancel(reason) {
          reasons.push(reason);
        },
      });
    const boom = new Error("boom");
    const a = toNodeReadable(make());
    a.on("error", () => {});
    a.resume();
    await settle();
    a.destroy(boom);
    const b = toNodeReadable(make());
    b.resume();
    await settle();
    b.destroy();
    await settle();
    assert.equal(reasons, [boom, undefined]);
    assert.is(a.errored, boom);
  });
});

test("toNodeReadable: a cancel() that throws is reported as the destroy error", async () => {
  const failure = new Error("cancel failed");
  const readable = toNodeReadable(
    new ReadableStream<Uint8Array>({
      cancel() {
        throw failure;
      },
    }),
  );
  const got = new Promise((resolve) => readable.on("error", resolve));
  readable.destroy();
  assert.is(await got, failure);
});

test("toNodeReadable: a fusestreams chain reaches the Readable by a pipe: same objects, in order, nothing before _read()", async () => {
  const values = Array.from({ length: 50 }, (_, i) => ({ i }));
  let pulls = 0;
  const source = new ReadableStream<{ i: number }>(
    {
      pull(c) {
        pulls++;
        c.enqueue(values[pulls - 1]!);
        if (pulls === values.length) c.close();
      },
    },
    { highWaterMark: 0 },
  );
  const chain = source.pipeThrough(
    new TransformStream<{ i: number }, { i: number }>({
      transform(chunk, c) {
        c.enqueue(chunk);
      },
    }),
  );
  const readable = toNodeReadable(chain, { objectMode: true, highWaterMark: 4 });
  await settle();
  assert.ok(chain.locked, "locked at once");
  assert.ok(pulls <= 2, `${pulls} pulls before anything asked the Readable for data`);
  const out = await collectNode(readable);
  assert.is(out.length, values.length);
  assert.ok(out.every((v, i) => v === values[i]), "the same objects, in order");
});

test("toNodeReadable: destroy(err) while a write waits for _read() cancels the stream with err", async () => {
  await noStrayErrors(async () => {
    const reasons: unknown[] = [];
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        c.enqueue(new Uint8Array(1024));
      },
      cancel(reason) {
        reasons.push(reason);
      },
    });
    const readable = toNodeReadable(stream, { highWaterMark: 4096 });
    readable.read(0); // starts the pipe; nobody consumes: the Readable fills up and the pipe waits
    await settle();
    assert.ok(readable.readableLength >= 4096, `${readable.readableLength} bytes buffered`);
    assert.ok(readable.readableLength <= 4096 + 3 * 1024, `${readable.readableLength} bytes buffered`);
    const boom = new Error("boom");
    const errored = new Promise((resolve) => readable.on("error", resolve));
    const closed = new Promise((resolve) => readable.on("close", resolve));
    readable.destroy(boom);
    assert.is(await within(errored, "'error' after destroy(boom)"), boom);
    await within(closed, "'close' after destroy(boom)");
    assert.equal(reasons, [boom]);
  });
});

test("toNodeReadable: a cancel() that fails after reading started is reported as the destroy error", async () => {
  const failure = new Error("cancel failed");
  const readable = toNodeReadable(
    new ReadableStream<Uint8Array>({
      pull(c) {
        c.enqueue(new Uint8Array(16));
      },
      cancel() {
        return Promise.reject(failure);
      },
    }),
    { highWaterMark: 64 },
  );
  readable.read(0);
  await settle();
  const got = new Promise((resolve) => readable.on("error", resolve));
  readable.destroy();
  assert.is(await within(got, "'error' after destroy()"), failure);
});

test("toNodeReadable: a stream of another implementation (the runtime's own) is read with read()", async () => {
  const Native = NativeReadableStream as unknown as typeof ReadableStream;
  const native = new Native<Uint8Array>({
    start(c) {
      c.enqueue(bytes(1, 2));
      c.enqueue(bytes(3));
      c.close();
    },
  });
  const out = (await collectNode(toNodeReadable(native))) as Buffer[];
  assert.equal([...Buffer.concat(out)], [1, 2, 3]);
  const boom = new Error("boom");
  const failing = new Native<Uint8Array>({
    pull() {
      throw boom;
    },
  });
  const readable = toNodeReadable(failing);
  const got = new Promise((resolve) => readable.on("error", resolve));
  readable.resume();
  assert.is(await got, boom);
});

test("toNodeReadable: works with node:stream/promises pipeline", async () => {
  const received: Buffer[] = [];
  await pipeline(
    toNodeReadable(ReadableStream.from([bytes(104, 105), bytes(33)])),
    new Writable({
      write(chunk: Buffer, _enc, cb) {
        received.push(chunk);
        cb();
      },
    }),
  );
  assert.is(Buffer.concat(received).toString(), "hi!");
});

// ---------------------------------------------------------------------------------------------------
// fromNodeWritable

function recordingWritable(options: { highWaterMark?: number; delayMs?: number; objectMode?: boolean } = {}) {
  const chunks: unknown[] = [];
  let finals = 0;
  const writable = new Writable({
    highWaterMark: options.highWaterMark,
    objectMode: options.objectMode,
    write(chunk, _enc, cb) {
      chunks.push(chunk);
      if (options.delayMs === undefined) cb();
      else setTimeout(cb, options.delayMs);
    },
    final(cb) {
      finals++;
      cb();
    },
  });
  return { writable, chunks, finals: () => finals };
}

test("fromNodeWritable: writes reach the Writable in order; close() fulfills after 'finish'", async () => {
  const { writable, chunks, finals } = recordingWritable();
  let finished = false;
  writable.on("finish", () => {
    finished = true;
  });
  const stream = fromNodeWritable(writable);
  assert.ok(stream instanceof WritableStream);
  const writer = stream.getWriter();
  await writer.write(bytes(1));
  await writer.write(Buffer.from([2, 3]));
  await writer.close();
  assert.ok(finished, "'finish' was emitted before close() fulfilled");
  assert.is(finals(), 1);
  assert.equal(
    chunks.map((c) => [...(c as Buffer)]),
    [[1], [2, 3]],
  );
});

test("fromNodeWritable: object mode; ReadableStream.pipeTo into it", async () => {
  const { writable, chunks } = recordingWritable({ objectMode: true });
  await ReadableStream.from([{ a: 1 }, 2]).pipeTo(fromNodeWritable<unknown>(writable));
  assert.equal(chunks, [{ a: 1 }, 2]);
  assert.ok(writable.writableFinished);
});

test("fromNodeWritable: a slow Writable keeps the buffered bytes bounded", async () => {
  const size = 1024;
  const nodeHwm = 4 * 1024;
  const webHwm = 4 * 1024;
  let consumed = 0;
  const writable = new Writable({
    highWaterMark: nodeHwm,
    write(chunk: Buffer, _enc, cb) {
      setTimeout(() => {
        consumed += chunk.byteLength;
        cb();
      }, 1);
    },
  });
  const writer = fromNodeWritable(writable, { highWaterMark: webHwm }).getWriter();
  let accepted = 0;
  let maxBuffered = 0;
  const bound = nodeHwm + webHwm + 2 * size;
  for (let i = 0; i < 60; i++) {
    await writer.ready;
    void writer.write(new Uint8Array(size));
    accepted += size;
    maxBuffered = Math.max(maxBuffered, accepted - consumed);
  }
  await writer.close();
  assert.is(consumed, 60 * size);
  assert.ok(maxBuffered <= bound, `up to ${maxBuffered} bytes buffered; bound ${bound}`);
  assert.ok(maxBuffered >= nodeHwm, `the buffers were used (${maxBuffered} bytes)`);
});

test("fromNodeWritable: without a highWaterMark, a slow Writable's own buffer bounds what is buffered", async () => {
  const size = 1024;
  const nodeHwm = 4 * 1024;
  let consumed = 0;
  const writable = new Writable({
    highWaterMark: nodeHwm,
    write(chunk: Buffer, _enc, cb) {
      setTimeout(() => {
        consumed += chunk.byteLength;
        cb();
      }, 1);
    },
  });
  const writer = fromNodeWritable(writable).getWriter();
  assert.is(writer.desiredSize, 1, "the web side holds one chunk");
  let accepted = 0;
  let maxBuffered = 0;
  for (let i = 0; i < 40; i++) {
    await writer.ready;
    void writer.write(new Uint8Array(size));
    accepted += size;
    maxBuffered = Math.max(maxBuffered, accepted - consumed);
  }
  await writer.close();
  assert.is(consumed, 40 * size);
  const bound = nodeHwm + 2 * size;
  assert.ok(maxBuffered <= bound, `up to ${maxBuffered} bytes buffered; bound ${bound}`);
  assert.ok(maxBuffered >= nodeHwm, `the Writable's buffer was used (${maxBuffered} bytes)`);
});

test("fromNodeWritable: a pipe hands it chunks by direct calls (fused) while the Writable accepts them", async () => {
  const { writable, chunks } = recordingWritable({ highWaterMark: 1 << 20 });
  const pass = () =>
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        controller.enqueue(chunk);
      },
    });
  const source = Array.from({ length: 64 }, (_, i) => Buffer.alloc(100, i));
  const sink = fromNodeWritable(writable);
  await fromNodeReadable(Readable.from(source, { objectMode: false })).pipeThrough(pass()).pipeThrough(pass()).pipeTo(
    sink,
  );
  assert.is(chunks.length, 64);
  assert.ok(chunks.every((c, i) => c === source[i]), "the same Buffers, in order");
  const report = inspectPipeChain(sink);
  assert.is(report.mode, "fused", JSON.stringify(report));
  assert.equal(
    report.links.map((l) => [l.mode, l.directWrites, l.destination]),
    [
      ["fused", 64, "transform"],
      ["fused", 64, "transform"],
      ["fused", 64, "sink"],
    ],
  );
});

test("fromNodeWritable: a write that waits for 'drain' takes a promise; an explicit highWaterMark counts bytes", async () => {
  // The Writable takes one chunk at a time: every other write has to wait for 'drain'.
  const slow = recordingWritable({ highWaterMark: 1, delayMs: 0 });
  const sink = fromNodeWritable(slow.writable);
  await ReadableStream.from([bytes(1), bytes(2), bytes(3), bytes(4)]).pipeTo(sink);
  assert.equal(
    slow.chunks.map((c) => [...(c as Buffer)]),
    [[1], [2], [3], [4]],
  );
  const waited = inspectPipeChain(sink).links[0]!;
  assert.ok(waited.specWrites > 0, "writes that waited for 'drain' are not counted as fused");
  assert.match(waited.reason ?? "", /promise/);

  const counted = fromNodeWritable(recordingWritable().writable, { highWaterMark: 4096 });
  assert.is(counted.getWriter().desiredSize, 4096, "bytes");
  const fast = recordingWritable();
  const byteSink = fromNodeWritable(fast.writable, { highWaterMark: 4096 });
  await ReadableStream.from([bytes(1, 2), bytes(3)]).pipeTo(byteSink);
  assert.is(fast.chunks.length, 2);
  // A byte-counting (size()) sink is still written directly while it is idle.
  assert.equal(inspectPipeChain(byteSink).links.map((l) => [l.mode, l.directWrites]), [["fused", 2]]);
});

test("fromNodeWritable: a write error errors the stream with the same error object", async () => {
  const boom = new Error("boom");
  const writable = new Writable({
    write(_chunk, _enc, cb) {
      cb(boom);
    },
  });
  const writer = fromNodeWritable(writable).getWriter();
  await writer.write(bytes(1)).then(
    () => {},
    () => {},
  );
  await writer.closed.then(
    () => assert.unreachable("closed should reject"),
    (err: unknown) => assert.is(err, boom),
  );
});

test("fromNodeWritable: destroy(err) / destroy() of the Writable errors the stream", async () => {
  const boom = new Error("boom");
  const a = recordingWritable();
  const wa = fromNodeWritable(a.writable).getWriter();
  a.writable.destroy(boom);
  await wa.closed.then(
    () => assert.unreachable(),
    (err: unknown) => assert.is(err, boom),
  );
  const b = recordingWritable();
  const wb = fromNodeWritable(b.writable).getWriter();
  b.writable.destroy();
  await wb.closed.then(
    () => assert.unreachable(),
    (err: unknown) => assert.is((err as { code?: string }).code, "ERR_STREAM_PREMATURE_CLOSE"),
  );
});

test("fromNodeWritable: a write waiting for 'drain' fails when the Writable is destroyed", async () => {
  const writable = new Writable({ highWaterMark: 1, write() {} }); // never calls back
  const writer = fromNodeWritable(writable, { highWaterMark: 1 }).getWriter();
  const first = writer.write(bytes(1, 2, 3));
  await settle();
  const boom = new Error("boom");
  writable.destroy(boom);
  await first.then(
    () => assert.unreachable(),
    (err: unknown) => assert.is(err, boom),
  );
});

test("fromNodeWritable: abort(reason) destroys the Writable with the reason; later errors are not uncaught", async () => {
  await noStrayErrors(async () => {
    const { writable } = recordingWritable();
    const writer = fromNodeWritable(writable).getWriter();
    const reason = new Error("stop");
    await writer.abort(reason);
    await settle();
    assert.ok(writable.destroyed);
    assert.is(writable.errored, reason);
    writable.emit("error", new Error("late"));
  });
});

// ---------------------------------------------------------------------------------------------------
// toNodeWritable

test("toNodeWritable: chunks reach the sink in order; 'finish' after the sink's close()", async () => {
  const got: number[][] = [];
  const events: string[] = [];
  const stream = new WritableStream<Uint8Array>({
    write(chunk) {
      got.push([...chunk]);
    },
    close() {
      events.push("sink close");
    },
  });
  const writable = toNodeWritable(stream);
  assert.ok(writable instanceof Writable);
  assert.ok(stream.locked);
  writable.write(bytes(1));
  writable.write(Buffer.from([2, 3]));
  writable.write("d");
  await new Promise<void>((resolve) => writable.end(() => resolve()));
  events.push("finish");
  assert.equal(got, [[1], [2, 3], [100]]);
  assert.equal(events, ["sink close", "finish"]);
});

test("toNodeWritable: object mode with node:stream/promises pipeline", async () => {
  const got: unknown[] = [];
  const stream = new WritableStream<unknown>({
    write(chunk) {
      got.push(chunk);
    },
  });
  await pipeline(Readable.from([{ a: 1 }, 2, "x"]), toNodeWritable(stream, { objectMode: true }));
  assert.equal(got, [{ a: 1 }, 2, "x"]);
});

test("toNodeWritable: a slow sink keeps the buffered bytes bounded", async () => {
  const size = 1024;
  let consumed = 0;
  const webHwm = 4 * 1024;
  const stream = new WritableStream<Uint8Array>(
    {
      write(chunk) {
        return delay(1).then(() => {
          consumed += chunk.byteLength;
        });
      },
    },
    { highWaterMark: webHwm, size: (c) => c.byteLength },
  );
  const nodeHwm = 4 * 1024;
  const writable = toNodeWritable(stream, { highWaterMark: nodeHwm });
  let accepted = 0;
  let maxBuffered = 0;
  for (let i = 0; i < 60; i++) {
    if (!writable.write(new Uint8Array(size))) await new Promise((resolve) => writable.once("drain", resolve));
    accepted += size;
    maxBuffered = Math.max(maxBuffered, accepted - consumed);
  }
  await new Promise<void>((resolve) => writable.end(() => resolve()));
  const bound = nodeHwm + webHwm + 2 * size;
  assert.is(consumed, 60 * size);
  assert.ok(maxBuffered <= bound, `up to ${maxBuffered} bytes buffered; bound ${bound}`);
});

test("toNodeWritable: a sink error destroys the Writable with the same error; no unhandled rejections", async () => {
  await noStrayErrors(async () => {
    const boom = new Error("boom");
    let writes = 0;
    const stream = new WritableStream<Uint8Array>(
      {
        write() {
          if (++writes === 3) throw boom;
          return delay(1);
        },
      },
      { highWaterMark: 8 },
    );
    const writable = toNodeWritable(stream);
    const got = new Promise((resolve) => writable.on("error", resolve));
    for (let i = 0; i < 10; i++) writable.write(bytes(i));
    assert.is(await got, boom);
    assert.ok(writable.destroyed);
  });
});

test("toNodeWritable: destroy(err) aborts the stream with err; destroy() with undefined", async () => {
  await noStrayErrors(async () => {
    const reasons: unknown[] = [];
    const make = () =>
      new WritableStream<Uint8Array>({
        abort(reason) {
          reasons.push(reason);
        },
      });
    const boom = new Error("boom");
    const a = toNodeWritable(make());
    a.on("error", () => {});
    a.destroy(boom);
    const b = toNodeWritable(make());
    b.destroy();
    await settle();
    assert.equal(reasons, [boom, undefined]);
  });
});

test("toNodeWritable: a close() that fails errors the Writable", async () => {
  const boom = new Error("close failed");
  const writable = toNodeWritable(
    new WritableStream<Uint8Array>({
      close() {
        throw boom;
      },
    }),
  );
  const got = new Promise((resolve) => writable.on("error", resolve));
  writable.end(bytes(1));
  assert.is(await got, boom);
});

// ---------------------------------------------------------------------------------------------------
// Duplex helpers and round trips

test("fromNodeDuplex: a PassThrough as a pipeThrough pair", async () => {
  const pair = fromNodeDuplex(new PassThrough());
  const out = await readAll(ReadableStream.from([bytes(1, 2), bytes(3)]).pipeThrough(pair));
  assert.equal([...Buffer.concat(out)], [1, 2, 3]);
});

test("fromNodeDuplex: gzip then gunzip (node:zlib) round trip", async () => {
  const text = "fusestreams ".repeat(1000);
  const chunks = [Buffer.from(text.slice(0, 5000)), Buffer.from(text.slice(5000))];
  const out = await readAll(
    ReadableStream.from(chunks).pipeThrough(fromNodeDuplex(createGzip())).pipeThrough(fromNodeDuplex(createGunzip())),
  );
  assert.is(Buffer.concat(out).toString(), text);
});

test("fromNodeDuplex: an error of the Duplex errors both sides with the same object", async () => {
  const duplex = new PassThrough();
  const { readable, writable } = fromNodeDuplex(duplex);
  const boom = new Error("boom");
  duplex.destroy(boom);
  const r = await readable.getReader().closed.then(
    () => undefined,
    (e: unknown) => e,
  );
  const w = await writable.getWriter().closed.then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.is(r, boom);
  assert.is(w, boom);
});

test("toNodeDuplex: a TransformStream in a node:stream pipeline", async () => {
  const upper = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      controller.enqueue(Buffer.from(Buffer.from(chunk).toString().toUpperCase()));
    },
  });
  const duplex = toNodeDuplex(upper);
  assert.ok(duplex instanceof Duplex);
  const out: Buffer[] = [];
  await pipeline(
    Readable.from([Buffer.from("fuse"), Buffer.from("streams")]),
    duplex,
    new Writable({
      write(chunk: Buffer, _enc, cb) {
        out.push(chunk);
        cb();
      },
    }),
  );
  assert.is(Buffer.concat(out).toString(), "FUSESTREAMS");
});

test("toNodeDuplex: destroy(err) cancels the readable side and aborts the writable side", async () => {
  await noStrayErrors(async () => {
    const seen: string[] = [];
    const boom = new Error("boom");
    const duplex = toNodeDuplex({
      readable: new ReadableStream<Uint8Array>({
        cancel(reason) {
          seen.push(`cancel ${reason === boom}`);
        },
      }),
      writable: new WritableStream<Uint8Array>({
        abort(reason) {
          seen.push(`abort ${reason === boom}`);
        },
      }),
    });
    const got = new Promise((resolve) => duplex.on("error", resolve));
    duplex.destroy(boom);
    assert.is(await got, boom);
    assert.equal(seen.sort(), ["abort true", "cancel true"]);
  });
});

test("round trip: Node Readable -> web -> Node Readable -> web -> Node Writable keeps every byte", async () => {
  const chunks = Array.from({ length: 100 }, (_, i) => Buffer.alloc(1000 + i, i));
  const received: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      received.push(chunk);
      cb();
    },
  });
  await fromNodeReadable(toNodeReadable(fromNodeReadable(Readable.from(chunks)))).pipeTo(
    fromNodeWritable(toNodeWritable(fromNodeWritable(sink))),
  );
  assert.ok(Buffer.concat(received).equals(Buffer.concat(chunks)));
});

test.run();
