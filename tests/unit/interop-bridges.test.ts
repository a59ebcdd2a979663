/**
 * the kit's bridges read our streams in batches (issue 18): chunk order and no loss across batch
 * boundaries, backpressure, cancel and errors, for `toNativeReadableStream`, the byte-checked default body
 * bridge (`toNativeBody`), BODY-BATCH's bridge (`batchedBody`, whose pipe reads a stream that is no
 * transform's readable side in batches: BRIDGE-BATCH) and, on Bun, BUN-DIRECT (`directBody`). Runs on every
 * runtime (the Bun case only on Bun, saying so elsewhere).
 *
 *   node tests/unit/interop-bridges.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as fuse from "../../mod.ts";
import { toNativeBody, toNativeReadableStream } from "../../adapters/kit/to-native.ts";
import { BATCH_BYTES, batchedBody, batchedBodyParts } from "../../adapters/kit/batched-body-bridge.ts";
import { directBody } from "../../adapters/bun/direct-body.ts";
import { pipeToBridge } from "../../adapters/kit/bridge-pipe.ts";

const isBun = "Bun" in globalThis;

/** Resolves after `ms` milliseconds (a task, so bursts from other tasks get in between). */
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * A push source of `total` numbered chunks in bursts of 1, 2, 3, ... enqueue()s, one burst per task (bursts
 * of different sizes make batches of different sizes); `chunk(i)` makes chunk i.
 */
function bursts<T>(total: number, chunk: (i: number) => T): fuse.ReadableStream<T> {
  let controller!: ReadableStreamDefaultController<T>;
  const stream = new fuse.ReadableStream<T>({
    start(c) {
      controller = c;
    },
  });
  let i = 0;
  let size = 1;
  const burst = (): void => {
    try {
      for (const stop = Math.min(total, i + size++); i < stop;) controller.enqueue(chunk(i++));
      if (i === total) return controller.close();
    } catch {
      // The reading side cancelled or errored the stream (a failing test does): stop producing, so that the
      // failure is reported by the test instead of ending the process from a timer. Missing chunks fail the
      // test's own checks.
      return;
    }
    setTimeout(burst, 0);
  };
  setTimeout(burst, 0);
  return stream;
}

test("toNativeReadableStream: every chunk, once, in order, across batches of every size, read fast and slow", async () => {
  for (const slow of [false, true]) {
    const sent: object[] = [];
    const native = toNativeReadableStream(bursts(300, (i) => {
      const chunk = { i };
      sent.push(chunk);
      return chunk;
    }));
    const got: object[] = [];
    const reader = native.getReader();
    for (let k = 0;; k++) {
      const { done, value } = await reader.read();
      if (done) break;
      got.push(value);
      if (slow && k % 7 === 0) await sleep(1);
    }
    assert.is(got.length, sent.length, `${slow ? "slow" : "fast"} reader: as many chunks as were enqueued`);
    for (let k = 0; k < sent.length; k++) assert.is(got[k], sent[k], `chunk ${k}: the same object, in order`);
  }
});

test("toNativeReadableStream: a native pull takes every chunk queued in ours at once", async () => {
  const stream = new fuse.ReadableStream<number>({
    start(c) {
      for (let i = 0; i < 10; i++) c.enqueue(i);
      c.close();
    },
  });
  const native = toNativeReadableStream(stream);
  const reader = native.getReader();
  assert.is((await reader.read()).value, 0);
  // the other nine went over with the first read: ours is empty and closed, the native queue has them
  assert.equal(fuse.readableStreamState(stream)?.state, "closed");
  const rest: number[] = [];
  for (let r = await reader.read(); !r.done; r = await reader.read()) rest.push(r.value!);
  assert.equal(rest, [1, 2, 3, 4, 5, 6, 7, 8, 9]);
});

test("toNativeReadableStream: a slow native consumer never makes us buffer more than twice the source's queue", async () => {
  for (const highWaterMark of [0, 1, 4, 16]) {
    let pulls = 0;
    const source = new fuse.ReadableStream<number>(
      {
        pull(c) {
          c.enqueue(pulls++);
        },
      },
      { highWaterMark },
    );
    const native = toNativeReadableStream(source);
    await sleep(5);
    assert.ok(
      pulls <= highWaterMark,
      `hwm ${highWaterMark}: only the source's own queue before any read (${pulls} pulls)`,
    );
    const reader = native.getReader();
    let read = 0;
    for (let k = 0; k < 40; k++) {
      const { value } = await reader.read();
      assert.is(value, read++, "in order");
      await sleep(1);
      // read: what the consumer has; the rest of the pulls wait in the native queue or in ours
      const buffered = pulls - read;
      assert.ok(
        buffered <= 2 * highWaterMark + 1,
        `hwm ${highWaterMark}: ${buffered} chunks buffered after ${read} reads`,
      );
    }
    await reader.cancel();
  }
});

test("toNativeReadableStream: errors and cancel reasons go through by identity with chunks batched", async () => {
  const boom = new Error("boom");
  let controller!: ReadableStreamDefaultController<number>;
  const erroring = new fuse.ReadableStream<number>({
    start(c) {
      controller = c;
    },
  });
  const reader = toNativeReadableStream(erroring).getReader();
  controller.enqueue(1);
  controller.enqueue(2);
  assert.is((await reader.read()).value, 1);
  controller.error(boom); // 2 is already in the native queue: the native stream hands it out first
  assert.is((await reader.read()).value, 2);
  await reader.read().then(
    () => assert.unreachable("should reject"),
    (e: unknown) => assert.is(e, boom, "the same error object"),
  );

  let reason: unknown = "not cancelled";
  const cancellable = new fuse.ReadableStream<number>({
    start(c) {
      c.enqueue(1);
      c.enqueue(2);
    },
    cancel(r) {
      reason = r;
    },
  });
  const r2 = toNativeReadableStream(cancellable).getReader();
  await r2.read();
  const why = { why: "enough" };
  await r2.cancel(why);
  assert.is(reason, why, "the cancel reason, by identity");
  assert.ok(cancellable.locked, "ours stays locked to the bridge");
});

test("toNativeBody: a bad chunk inside a batch ends the body after the chunks before it, with its TypeError", async () => {
  let cancelled: unknown = "not cancelled";
  const stream = new fuse.ReadableStream<unknown>({
    start(c) {
      c.enqueue(new Uint8Array([1]));
      c.enqueue(new Uint8Array([2, 3]).buffer); // any BufferSource: its bytes
      c.enqueue("three");
      c.enqueue(new Uint8Array([4]));
    },
    cancel(r) {
      cancelled = r;
    },
  });
  const reader = toNativeBody(stream, "Response").getReader();
  const first = await reader.read();
  assert.equal([...first.value!], [1]);
  assert.ok(cancelled instanceof TypeError, "ours is cancelled with the TypeError as soon as the bad chunk is seen");
  const second = await reader.read();
  assert.equal([...second.value!], [2, 3], "the chunk before the bad one is still delivered");
  await reader.read().then(
    () => assert.unreachable("should reject"),
    (e: unknown) => {
      assert.is(e, cancelled, "the body ends with the error ours was cancelled with");
      assert.match(
        (e as Error).message,
        /Response: a body stream chunk must be an ArrayBuffer or ArrayBufferView; found a string/,
      );
    },
  );
});

/** Chunk i of a byte stream: i % 7 bytes (some empty), each byte (i + k) & 255; and all of them joined. */
function byteChunk(i: number): Uint8Array {
  const chunk = new Uint8Array(i % 7);
  for (let k = 0; k < chunk.length; k++) chunk[k] = (i + k) & 255;
  return chunk;
}
function allBytes(count: number): number[] {
  const all: number[] = [];
  for (let i = 0; i < count; i++) all.push(...byteChunk(i));
  return all;
}

/** Every byte `body` hands out, reading it with pauses when `slow`. */
async function readBytes(body: globalThis.ReadableStream<Uint8Array>, slow: boolean): Promise<number[]> {
  const got: number[] = [];
  const reader = body.getReader();
  for (let k = 0;; k++) {
    const { done, value } = await reader.read();
    if (done) return got;
    assert.ok(value!.byteLength > 0, "no empty chunk goes out");
    got.push(...value!);
    if (slow && k % 3 === 0) await sleep(1);
  }
}

/** A pull source of `count` byte chunks (`byteChunk`), closing after the last; pull() counts in `pulls`. */
function pullBytes(count: number, pulls = { n: 0 }, highWaterMark = 1): fuse.ReadableStream<Uint8Array> {
  return new fuse.ReadableStream<Uint8Array>(
    {
      pull(c) {
        c.enqueue(byteChunk(pulls.n++));
        if (pulls.n === count) c.close();
      },
    },
    { highWaterMark },
  );
}

test("batchedBody: every byte, once, in order, across batches (push bursts, a pull source, a transform's readable side), read fast and slow", async () => {
  const count = 400;
  const expected = allBytes(count);
  for (const slow of [false, true]) {
    const sources: [string, () => fuse.ReadableStream<Uint8Array>][] = [
      ["push bursts", () => bursts(count, byteChunk)],
      ["pull source", () => pullBytes(count)],
      [
        "transform's readable side",
        () => pullBytes(count).pipeThrough(new fuse.TransformStream<Uint8Array, Uint8Array>()),
      ],
    ];
    for (const [what, make] of sources) {
      for (const [name, bridge] of [["batchedBody", batchedBody], ["batchedBodyParts", batchedBodyParts]] as const) {
        const got = await readBytes(bridge(make(), "Response"), slow);
        assert.equal(got, expected, `${name}: ${what}, ${slow ? "slow" : "fast"} reader`);
      }
    }
  }
});

/**
 * An async pull source of `count` byte chunks: one per pull, after a task (BRIDGE-ONE reads it one by one), except
 * pulls `burstAt` to `burstAt + 9`, which enqueue 5 chunks each at once (the bridge goes back to batches); ends
 * with `end` (a close, or an error).
 */
function tricklingBytes(count: number, burstAt: number, end: Error | undefined, cancelled: unknown[] = []) {
  let i = 0;
  let pulls = 0;
  return new fuse.ReadableStream<Uint8Array>({
    async pull(c) {
      await sleep(0);
      const n = pulls >= burstAt && pulls < burstAt + 10 ? 5 : 1;
      pulls++;
      for (let k = 0; k < n && i < count; k++) c.enqueue(byteChunk(i++));
      if (i === count) {
        if (end === undefined) c.close();
        else c.error(end);
      }
    },
    cancel(reason) {
      cancelled.push(reason);
    },
  });
}

test("batchedBody (BRIDGE-ONE): a source that trickles, bursts, trickles: every byte in order; its error, its cancel", async () => {
  const count = 150;
  for (const slow of [false, true]) {
    for (const bridge of [batchedBody, batchedBodyParts]) {
      const got = await readBytes(bridge(tricklingBytes(count, 40, undefined), "Response"), slow);
      assert.equal(got, allBytes(count), `${bridge.name}, ${slow ? "slow" : "fast"} reader`);
    }
  }
  const boom = new Error("boom after a trickle");
  const failing = batchedBody(tricklingBytes(30, 100, boom), "Response").getReader();
  const got: number[] = [];
  const end = await (async () => {
    try {
      for (;;) {
        const { done, value } = await failing.read();
        if (done) return "closed";
        got.push(...value!);
      }
    } catch (e) {
      return e;
    }
  })();
  assert.is(end, boom, "the error, by identity, after the chunks before it");
  assert.equal(got, allBytes(30));
  const cancelled: unknown[] = [];
  const reader = batchedBody(tricklingBytes(1000, 1000, undefined, cancelled), "Response").getReader();
  for (let k = 0; k < 5; k++) await reader.read();
  await reader.cancel("enough");
  assert.equal(cancelled, ["enough"], "cancelled while read one by one, with the reason");
});

test("batchedBodyParts: a pull hands out every buffered chunk as it is, in order; batchedBody joins them", async () => {
  const make = (): { stream: fuse.ReadableStream<Uint8Array>; chunks: Uint8Array[] } => {
    const chunks = [1, 2, 3, 4, 5].map((n) => new Uint8Array(n).fill(n));
    let sent = 0;
    // A transform's readable side (the fused pipe) whose source hands out all five chunks at its first pull.
    const source = new fuse.ReadableStream<Uint8Array>({
      pull(c) {
        if (sent === 0) { for (const chunk of chunks) c.enqueue(chunk); }
        sent++;
        c.close();
      },
    });
    return { stream: source.pipeThrough(new fuse.TransformStream<Uint8Array, Uint8Array>()), chunks };
  };
  const parts = make();
  const partsReader = batchedBodyParts(parts.stream, "Response").getReader();
  const seen: Uint8Array[] = [];
  for (;;) {
    const { done, value } = await partsReader.read();
    if (done) break;
    seen.push(value!);
  }
  assert.is(seen.length, parts.chunks.length, "one chunk out per chunk in");
  seen.forEach((chunk, i) => assert.is(chunk, parts.chunks[i], `chunk ${i} is handed on itself, not a copy`));

  const joined = make();
  const joinedReader = batchedBody(joined.stream, "Response").getReader();
  const out: Uint8Array[] = [];
  for (;;) {
    const { done, value } = await joinedReader.read();
    if (done) break;
    out.push(value!);
  }
  assert.ok(out.length < joined.chunks.length, `batchedBody joins what it buffered (${out.length} chunks out)`);
  assert.equal(out.flatMap((c) => [...c]), joined.chunks.flatMap((c) => [...c]));
});

test("batchedBody: a slow reader keeps ours paused, with at most two batches of bytes read ahead", async () => {
  const pulls = { n: 0 };
  const source = new fuse.ReadableStream<Uint8Array>({
    pull(c) {
      pulls.n++;
      c.enqueue(new Uint8Array(1024));
    },
  });
  const body = batchedBody(source, "Response");
  await sleep(5);
  assert.ok(pulls.n <= 1, `nothing read before the native consumer pulls (${pulls.n} pulls)`);
  const reader = body.getReader();
  let read = 0;
  for (let k = 0; k < 4; k++) {
    read += (await reader.read()).value!.byteLength;
    await sleep(10);
    const paused = pulls.n;
    await sleep(10);
    assert.is(pulls.n, paused, "ours stays paused while nobody reads");
    // the bridge's buffer (< BATCH_BYTES and a chunk) and the batch in hand (< 64 KiB and a chunk), ours' queue
    assert.ok(pulls.n * 1024 - read <= 2 * BATCH_BYTES + 3 * 1024, `${pulls.n} KiB pulled for ${read} bytes read`);
  }
  const why = new Error("enough");
  let reason: unknown = "not cancelled";
  const cancelling = new fuse.ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(new Uint8Array([1]));
    },
    cancel(r) {
      reason = r;
    },
  });
  const r2 = batchedBody(cancelling, "Response").getReader();
  assert.equal([...(await r2.read()).value!], [1]);
  await sleep(1); // the bridge now waits for ours' next chunk, which never comes
  await r2.cancel(why);
  assert.is(reason, why, "a cancel while the bridge waits on ours reaches ours at once, by identity");
  await reader.cancel();
});

test("batchedBody: ours' error and a failing cancel keep their identity; a bad chunk ends it with a TypeError", async () => {
  const boom = new Error("boom");
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const erroring = new fuse.ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
  });
  const r1 = batchedBody(erroring, "Response").getReader();
  controller.enqueue(new Uint8Array([1, 2]));
  assert.equal([...(await r1.read()).value!], [1, 2]);
  controller.error(boom);
  await r1.read().then(
    () => assert.unreachable("should reject"),
    (e: unknown) => assert.is(e, boom, "our error, by identity"),
  );

  const failure = new Error("our cancel failed");
  const failing = new fuse.ReadableStream<Uint8Array>({
    pull(c) {
      c.enqueue(new Uint8Array([7]));
    },
    cancel() {
      throw failure;
    },
  });
  const r2 = batchedBody(failing, "Response").getReader();
  await r2.read();
  await r2.cancel("stop").then(
    () => assert.unreachable("should reject"),
    (e: unknown) => assert.is(e, failure, "the body's cancel() fails with our cancel's failure"),
  );

  let cancelled: unknown;
  const bad = new fuse.ReadableStream<unknown>({
    start(c) {
      c.enqueue(new Uint8Array([1]));
      c.enqueue(42);
    },
    cancel(r) {
      cancelled = r;
    },
  });
  const r3 = batchedBody(bad as fuse.ReadableStream<unknown>, "Request").getReader();
  const end = await (async () => {
    try {
      for (;;) if ((await r3.read()).done) return undefined;
    } catch (e) {
      return e;
    }
  })();
  assert.instance(end, TypeError);
  assert.match(
    (end as Error).message,
    /^Request: a body stream chunk must be an ArrayBuffer or ArrayBufferView; found a number/,
  );
  assert.is(cancelled, end, "ours is cancelled with the same TypeError");
});

/**
 * An `async pull()` source of `total` one-byte chunks, one per pull, each after a microtask (as a source that
 * reads another stream, Hono's `streamText()`), or after a task (`task`: a source that never ends must let timers
 * run): `at[i]` is how many chunks the sink had when enqueue(i) returned.
 */
function oneByOne(
  total: number,
  written: () => number,
  options: { bad?: number; error?: unknown; cancelled?: unknown[]; task?: boolean } = {},
): { stream: fuse.ReadableStream<unknown>; at: number[]; pulls: () => number } {
  const at: number[] = [];
  let i = 0;
  let pulls = 0;
  const stream = new fuse.ReadableStream<unknown>({
    async pull(c) {
      pulls++;
      await (options.task ? sleep(0) : null);
      if (i === total) return c.close();
      if (options.error !== undefined && i === options.bad) return c.error(options.error);
      c.enqueue(i === options.bad ? "not bytes" : new Uint8Array([i]));
      at.push(written());
      i++;
    },
    cancel(reason) {
      options.cancelled?.push(reason);
    },
  });
  return { stream, at, pulls: () => pulls };
}

test("pipeToBridge (BRIDGE-SYNC): chunks that come one per wake are written inside their enqueue(), in order", async () => {
  const got: number[] = [];
  let closed = false;
  const { stream, at } = oneByOne(40, () => got.length);
  const pipe = pipeToBridge(stream, "Response", {
    write(bytes) {
      got.push(...bytes);
      return undefined;
    },
    close() {
      closed = true;
    },
  });
  await pipe.done;
  assert.ok(closed);
  assert.equal(got, [...Array(40).keys()]);
  // The first wait is a batch read (BRIDGE-ONE turns to reads one by one once a wait gave one chunk).
  const inside = at.filter((n, i) => n === i + 1).length;
  assert.ok(inside >= 38, `${inside} of 40 chunks written before their enqueue() returned: ${at.join(" ")}`);
});

test("pipeToBridge (BRIDGE-SYNC): a write that waits holds the source; a bad chunk, an error, a cancel", async () => {
  // Backpressure: a write returning a promise stops the pushes until it settles; the source is pulled no further
  // than its queue (high-water mark 1) while it waits.
  const got: number[] = [];
  let room: (() => void) | undefined;
  const slow = oneByOne(20, () => got.length);
  const slowPipe = pipeToBridge(slow.stream, "Response", {
    write(bytes) {
      got.push(...bytes);
      return got.length % 5 === 0 ? new Promise<void>((resolve) => (room = resolve)) : undefined;
    },
    close() {},
  });
  for (let k = 0; k < 4; k++) {
    while (room === undefined) await sleep(0);
    const pullsAt = slow.pulls();
    await sleep(5);
    assert.ok(slow.pulls() - pullsAt <= 2, `pulled ${slow.pulls() - pullsAt} times while a write waited`);
    const resume = room;
    room = undefined;
    resume();
  }
  await slowPipe.done;
  assert.equal(got, [...Array(20).keys()]);

  // A chunk that is not bytes: the TypeError ends the pipe and cancels ours with it; the enqueue() that gave it
  // returned normally (the cancel comes after it).
  const cancelled: unknown[] = [];
  const bad = oneByOne(20, () => 0, { bad: 6, cancelled });
  const badPipe = pipeToBridge(bad.stream, "Response", { write: () => undefined, close() {} });
  const failure = await badPipe.done.then(() => "fulfilled", (e: unknown) => e);
  assert.instance(failure, TypeError);
  assert.equal(cancelled, [failure], "ours cancelled with the chunk's TypeError, by identity");
  assert.is(bad.at.length, 7, "every enqueue() up to the bad chunk returned");

  // Ours errors while the bridge waits on it: the pipe rejects with that error, by identity.
  const boom = new Error("boom while pushed");
  const erroring = oneByOne(20, () => 0, { bad: 9, error: boom });
  const errorPipe = pipeToBridge(erroring.stream, "Response", { write: () => undefined, close() {} });
  assert.is(await errorPipe.done.then(() => "fulfilled", (e: unknown) => e), boom);

  // The native side cancels while the bridge waits: ours is cancelled with the reason; nothing written after.
  const reasons: unknown[] = [];
  let writes = 0;
  const endless = oneByOne(1e9, () => 0, { cancelled: reasons, task: true });
  const endlessPipe = pipeToBridge(endless.stream, "Response", {
    write() {
      writes++;
      return undefined;
    },
    close() {},
  });
  while (writes < 10) await sleep(0);
  await endlessPipe.cancel("gone");
  await endlessPipe.done;
  const after = writes;
  await sleep(5);
  assert.equal(reasons, ["gone"]);
  assert.is(writes, after, "no write after the cancel");
});

test("directBody (Bun): every byte, once, in order, across batches, through Bun's consumers and a slow reader", async () => {
  if (!isBun) {
    console.log('  (skipped: directBody makes a Bun `type: "direct"` stream, Bun only)');
    return;
  }
  const count = 400;
  const expected = allBytes(count);
  const viaResponse = new Uint8Array(
    await new Response(directBody(bursts(count, byteChunk), "Response")).arrayBuffer(),
  );
  assert.equal([...viaResponse], expected, "push bursts through Response.arrayBuffer()");
  assert.equal(
    [...new Uint8Array(await new Response(directBody(pullBytes(count), "Response")).arrayBuffer())],
    expected,
    "pull source",
  );
  assert.equal(await readBytes(directBody(pullBytes(count, { n: 0 }, 16), "Response"), true), expected, "slow reader");
});

/** A full, synchronous garbage collection (Bun.gc on Bun; V8's gc, exposed at run time, on Node and Deno). */
async function fullGc(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setTimeout(resolve, 0));
  const bun = (globalThis as { Bun?: { gc(force: boolean): void } }).Bun;
  if (bun !== undefined) return bun.gc(true);
  const { setFlagsFromString } = await import("node:v8");
  const { runInNewContext } = await import("node:vm");
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  gc();
  gc();
}

/**
 * One stream of ours (a source through a transform) read to its end through `bridge`: a weak reference to ours,
 * and the native stream, which the caller keeps. In a function of its own, so that no register of the test's
 * suspended frame still holds ours when the collector runs.
 */
async function readThroughBridge(
  bridge: typeof batchedBody,
): Promise<{ ours: WeakRef<object>; native: globalThis.ReadableStream<Uint8Array> }> {
  let n = 0;
  const ours = new fuse.ReadableStream<Uint8Array>({
    pull(c) {
      if (n++ < 3) c.enqueue(new Uint8Array(16).fill(n));
      else c.close();
    },
  }).pipeThrough(new fuse.TransformStream<Uint8Array, Uint8Array>());
  const native = bridge(ours, "Response");
  const reader = native.getReader();
  let bytes = 0;
  for (let r = await reader.read(); !r.done; r = await reader.read()) bytes += r.value.byteLength;
  assert.is(bytes, 48);
  reader.releaseLock();
  return { ours: new WeakRef(ours), native };
}

test("batchedBody (BRIDGE-KEEP-LOCK): ours is locked from its end on, in the job its consumer sees it and after", async () => {
  // A native body read to its end, or failed, stays locked; ours behind the bridge must not be let go in between.
  const boom = new Error("boom");
  for (const bridge of [batchedBody, batchedBodyParts]) {
    for (const ending of ["close", "error"] as const) {
      let n = 0;
      const ours = new fuse.ReadableStream<Uint8Array>({
        async pull(c) {
          await null;
          if (n++ < 3) c.enqueue(new Uint8Array([n]));
          else if (ending === "close") c.close();
          else c.error(boom);
        },
      });
      const reader = bridge(ours, "Response").getReader();
      const seen: boolean[] = [];
      for (;;) {
        let done: boolean;
        try {
          done = (await reader.read()).done === true;
        } catch (error) {
          assert.is(error, boom, "ours' error, by identity");
          done = true;
        }
        seen.push(ours.locked);
        if (done) break;
      }
      for (let i = 0; i < 4; i++) {
        await null;
        seen.push(ours.locked);
      }
      assert.ok(seen.every(Boolean), `${bridge.name}, ${ending}: ours.locked ${seen.join(",")}`);
      assert.throws(() => ours.getReader(), TypeError);
    }
  }
});

test("batchedBody: a bridge read to its end keeps none of our stream (SLOT-NOT-WEAKMAP)", async () => {
  // A native body can outlive its read (held by a Response, or promoted by a minor GC): it must not keep our
  // stream's graph with it. Before the bridge let go of its claim at the first pull, the claim held ours.
  for (const bridge of [batchedBody, batchedBodyParts]) {
    const read = [];
    for (let i = 0; i < 8; i++) read.push(await readThroughBridge(bridge));
    await fullGc();
    const alive = read.filter(({ ours }) => ours.deref() !== undefined).length;
    // JavaScriptCore scans the machine stack conservatively: a stale word there may keep one object alive.
    const tolerated = (globalThis as { Bun?: unknown }).Bun === undefined ? 0 : 1;
    assert.ok(
      alive <= tolerated,
      `${bridge.name}: ${alive} of 8 streams of ours kept by the bridges that read them (${tolerated} tolerated)`,
    );
    assert.ok(read.every(({ native }) => native.locked === false));
  }
});

test.run();
