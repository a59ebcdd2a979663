/**
 * The queues at their edges: core/shared/queue.ts (the ring buffer every queue in the core is built on, and the
 * read-request queue) directly, and the queues built on them through the public API: a default controller's
 * chunk queue (and its chunk sizes), a byte controller's chunk queue and pending pull-intos, a reader's read
 * requests, a WritableStream's write requests and chunk queue. Sizes 0, 1, 15, 16, 17 (the initial capacity is
 * 16), 1,000 and 100,000; growth with the head at 0 and after wrapping, shrinking to empty and growing again,
 * interleaved push/shift; every element checked, in order.
 *
 *   node tests/unit/queue.test.ts   deno run -A tests/unit/queue.test.ts   bun tests/unit/queue.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { RequestQueue, RingQueue } from "../../core/shared/queue.ts";
import {
  type ReadableByteStreamController,
  ReadableStream,
  type ReadableStreamDefaultController,
  WritableStream,
} from "../../mod.ts";

const SIZES = [0, 1, 15, 16, 17, 1000, 100_000] as const;
/** where the head is when the queue grows: 0, just past the start, the middle and the end of the first array */
const HEAD_OFFSETS = [0, 1, 7, 15] as const;

interface Fifo<T> {
  readonly size: number;
  push(value: T): void;
  shift(): T;
}

/** Fails at the first element out of order (one message, not 100,000). */
function expectInOrder(what: string, got: ArrayLike<number>, from: number, count: number): void {
  if (got.length !== count) assert.unreachable(`${what}: ${got.length} elements, expected ${count}`);
  for (let i = 0; i < count; i++) {
    if (got[i] !== from + i) assert.unreachable(`${what}: element ${i} is ${got[i]}, expected ${from + i}`);
  }
}

/** Pushes `offset` and shifts them (the head moves to `offset`), then pushes n and shifts all, checking each. */
function pushThenDrain(q: Fifo<number>, n: number, offset: number, what: string): void {
  for (let i = 0; i < offset; i++) q.push(-1 - i);
  for (let i = 0; i < offset; i++) assert.is(q.shift(), -1 - i);
  assert.is(q.size, 0);
  for (let i = 0; i < n; i++) q.push(i);
  assert.is(q.size, n, `${what}: size after ${n} pushes`);
  const out: number[] = [];
  while (q.size > 0) out.push(q.shift());
  expectInOrder(what, out, 0, n);
}

/** Pushes two and shifts one until n have been pushed, then drains: the queue grows while it wraps around. */
function interleaved(q: Fifo<number>, n: number, what: string): void {
  let next = 0;
  let expected = 0;
  while (next < n) {
    q.push(next++);
    if (next < n) q.push(next++);
    const v = q.shift();
    if (v !== expected) assert.unreachable(`${what}: shifted ${v}, expected ${expected}`);
    expected++;
  }
  while (q.size > 0) {
    const v = q.shift();
    if (v !== expected) assert.unreachable(`${what}: shifted ${v}, expected ${expected}`);
    expected++;
  }
  assert.is(expected, n, `${what}: every element came out`);
}

for (const n of SIZES) {
  for (const offset of HEAD_OFFSETS) {
    test(`RingQueue: ${n} pushed with the head at ${offset}, then shifted: every element in order`, () => {
      pushThenDrain(new RingQueue<number>(), n, offset, `RingQueue n=${n} head=${offset}`);
    });
    test(`RequestQueue: ${n} pushed with the head at ${offset}, then shifted: every element in order`, () => {
      pushThenDrain(new RequestQueue<number>(), n, offset, `RequestQueue n=${n} head=${offset}`);
    });
  }
  test(`RingQueue: ${n} pushed two-in-one-out (grows while wrapped): every element in order`, () => {
    interleaved(new RingQueue<number>(), n, `RingQueue interleaved n=${n}`);
  });
  test(`RequestQueue: ${n} pushed two-in-one-out: every element in order`, () => {
    interleaved(new RequestQueue<number>(), n, `RequestQueue interleaved n=${n}`);
  });
}

test("RingQueue: at(), peek() and replaceFirst() see the logical order across growth after wrapping", () => {
  for (const n of SIZES) {
    for (const offset of HEAD_OFFSETS) {
      const q = new RingQueue<number>();
      for (let i = 0; i < offset; i++) q.push(-1);
      for (let i = 0; i < offset; i++) q.shift();
      for (let i = 0; i < n; i++) q.push(i);
      const seen: number[] = [];
      for (let i = 0; i < n; i++) seen.push(q.at(i));
      expectInOrder(`at() n=${n} head=${offset}`, seen, 0, n);
      if (n > 0) {
        assert.is(q.peek(), 0);
        q.replaceFirst(-5);
        assert.is(q.peek(), -5);
        assert.is(q.at(0), -5);
        assert.is(q.shift(), -5);
        if (n > 1) assert.is(q.peek(), 1);
      }
    }
  }
});

test("RingQueue: shrinks to empty and grows again, many times, at every size; clear() then reuse", () => {
  const q = new RingQueue<number>();
  let base = 0;
  for (let round = 0; round < 3; round++) {
    for (const n of SIZES) {
      for (let i = 0; i < n; i++) q.push(base + i);
      const out: number[] = [];
      // shift half, push as many again (wraps), then drain
      const half = n >> 1;
      for (let i = 0; i < half; i++) out.push(q.shift() - base);
      for (let i = 0; i < half; i++) q.push(base + n + i);
      while (q.size > 0) out.push(q.shift() - base);
      expectInOrder(`round ${round} n=${n}`, out, 0, n + half);
      base += n + half;
    }
  }
  for (let i = 0; i < 40; i++) q.push(i);
  for (let i = 0; i < 5; i++) q.shift();
  q.clear();
  assert.is(q.size, 0);
  for (let i = 0; i < 40; i++) q.push(i);
  const out: number[] = [];
  while (q.size > 0) out.push(q.shift());
  expectInOrder("after clear()", out, 0, 40);
});

test("RequestQueue: takeAll() after wrapping moves every element in order and leaves the queue empty and reusable", () => {
  for (const n of SIZES) {
    for (const offset of HEAD_OFFSETS) {
      const q = new RequestQueue<number>();
      for (let i = 0; i < offset; i++) q.push(-1);
      for (let i = 0; i < offset; i++) q.shift();
      for (let i = 0; i < n; i++) q.push(i);
      const all = q.takeAll();
      assert.is(q.size, 0);
      assert.is(all.size, n);
      const out: number[] = [];
      while (all.size > 0) out.push(all.shift());
      expectInOrder(`takeAll n=${n} head=${offset}`, out, 0, n);
      q.push(7);
      q.push(8);
      assert.is(q.shift(), 7);
      assert.is(q.shift(), 8);
    }
  }
});

// ---------------------------------------------------------------------------------------------------
// Queues built on them, through the public API

const BIG = 100_000;
/** the head positions the (slower, asynchronous) public-API tests grow at: at the start and after wrapping */
const API_OFFSETS = [0, 7] as const;

/**
 * Runs fn and fails (instead of hanging or crashing the whole run) when a promise it waits for never settles
 * or when an internal failure surfaces as an unhandled rejection: what a lost queue entry does.
 */
async function guarded(what: string, fn: () => Promise<void>, ms = 10_000): Promise<void> {
  const unhandled: unknown[] = [];
  const g = globalThis as {
    process?: { on(e: string, f: (r: unknown) => void): void; off(e: string, f: (r: unknown) => void): void };
    Deno?: unknown;
  };
  const onNode = (reason: unknown): void => void unhandled.push(reason);
  const onWeb = (e: Event): void => {
    e.preventDefault();
    unhandled.push((e as PromiseRejectionEvent).reason);
  };
  const web = g.Deno !== undefined || !g.process;
  if (web) globalThis.addEventListener("unhandledrejection", onWeb);
  else g.process!.on("unhandledRejection", onNode);
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      fn(),
      new Promise<void>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: not settled after ${ms} ms (a lost queue entry?)`)), ms);
      }),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 0));
  } finally {
    clearTimeout(timer);
    if (web) globalThis.removeEventListener("unhandledrejection", onWeb);
    else g.process!.off("unhandledRejection", onNode);
  }
  if (unhandled.length > 0) assert.unreachable(`${what}: unhandled rejection ${String(unhandled[0])}`);
}

/** Reads everything a default reader gives, as numbers. */
async function readNumbers(stream: ReadableStream<number>): Promise<number[]> {
  const reader = stream.getReader();
  const out: number[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

for (const offset of API_OFFSETS) {
  test(`default stream: ${BIG} chunks through a chunk queue grown past its capacity (head at ${offset}), every chunk in order`, async () => {
    let controller!: ReadableStreamDefaultController<number>;
    const stream = new ReadableStream<number>({ start: (c) => void (controller = c) }, { highWaterMark: 0 });
    const reader = stream.getReader();
    // move the head of the chunk queue, then fill it far past 16
    for (let i = 0; i < offset; i++) controller.enqueue(-1 - i);
    for (let i = 0; i < offset; i++) assert.is((await reader.read()).value, -1 - i);
    for (let i = 0; i < BIG; i++) controller.enqueue(i);
    assert.is(controller.desiredSize, -BIG);
    controller.close();
    reader.releaseLock();
    expectInOrder("default stream", await readNumbers(stream), 0, BIG);
  });
}

test(`default stream with a size(): ${BIG} chunks and their sizes through grown queues; desiredSize adds up at every step`, async () => {
  let controller!: ReadableStreamDefaultController<number>;
  const stream = new ReadableStream<number>(
    { start: (c) => void (controller = c) },
    { highWaterMark: 10, size: (chunk) => (chunk % 3) + 1 },
  );
  const reader = stream.getReader();
  for (let i = 0; i < 5; i++) controller.enqueue(i);
  for (let i = 0; i < 5; i++) assert.is((await reader.read()).value, i);
  let total = 0;
  for (let i = 0; i < BIG; i++) {
    controller.enqueue(i);
    total += (i % 3) + 1;
  }
  assert.is(controller.desiredSize, 10 - total);
  for (let i = 0; i < BIG; i++) {
    const { value } = await reader.read();
    if (value !== i) assert.unreachable(`chunk ${i} is ${value}`);
    total -= (i % 3) + 1;
    if (i % 9973 === 0 && controller.desiredSize !== 10 - total) {
      assert.unreachable(`after ${i + 1} reads desiredSize is ${controller.desiredSize}, expected ${10 - total}`);
    }
  }
  assert.is(controller.desiredSize, 10);
});

/** The bytes of chunk i of the byte-stream tests: 1 to 3 bytes, each (i + k) % 256. */
function byteChunk(i: number): Uint8Array<ArrayBuffer> {
  const chunk = new Uint8Array((i % 3) + 1);
  for (let k = 0; k < chunk.length; k++) chunk[k] = (i + k) & 0xff;
  return chunk;
}

function checkByteChunk(i: number, got: Uint8Array | undefined): void {
  const want = byteChunk(i);
  if (!got || got.length !== want.length || got.some((b, k) => b !== want[k])) {
    assert.unreachable(
      `byte chunk ${i} is [${got ? Array.from(got).join(",") : got}], expected [${Array.from(want).join(",")}]`,
    );
  }
}

for (const offset of API_OFFSETS) {
  test(`byte stream: ${BIG} chunks through a chunk queue grown past its capacity (head at ${offset}), every chunk and byte in order`, async () => {
    let controller!: ReadableByteStreamController;
    const stream = new ReadableStream({ type: "bytes", start: (c) => void (controller = c) }, { highWaterMark: 0 });
    const reader = stream.getReader();
    for (let i = 0; i < offset; i++) controller.enqueue(byteChunk(i));
    for (let i = 0; i < offset; i++) checkByteChunk(i, (await reader.read()).value);
    for (let i = 0; i < BIG; i++) controller.enqueue(byteChunk(offset + i));
    controller.close();
    for (let i = 0; i < BIG; i++) {
      const { value, done } = await reader.read();
      if (done) assert.unreachable(`the stream ended after ${i} chunks`);
      checkByteChunk(offset + i, value);
    }
    assert.is((await reader.read()).done, true);
  });
}

test(`byte stream: ${BIG / 10} BYOB reads pending at once (pull-into queue grown after wrapping), each filled in order`, async () => {
  const n = BIG / 10;
  let controller!: ReadableByteStreamController;
  const stream = new ReadableStream({ type: "bytes", start: (c) => void (controller = c) });
  const reader = stream.getReader({ mode: "byob" });
  // wrap the pull-into queue: 5 reads filled one by one
  for (let i = 0; i < 5; i++) {
    const read = reader.read(new Uint8Array(1));
    controller.enqueue(new Uint8Array([i]));
    assert.equal(Array.from((await read).value!), [i]);
  }
  const reads: Promise<ReadableStreamReadResult<Uint8Array>>[] = [];
  for (let i = 0; i < n; i++) reads.push(reader.read(new Uint8Array(2)));
  for (let i = 0; i < n; i++) controller.enqueue(new Uint8Array([i & 0xff, (i >> 8) & 0xff]));
  const results = await Promise.all(reads);
  for (let i = 0; i < n; i++) {
    const v = results[i]!.value!;
    if (v.length !== 2 || v[0] !== (i & 0xff) || v[1] !== ((i >> 8) & 0xff)) {
      assert.unreachable(`BYOB read ${i} got [${Array.from(v).join(",")}]`);
    }
  }
});

for (const offset of API_OFFSETS) {
  test(`reader: ${BIG} read requests pending at once (head at ${offset}), each fulfilled with its chunk in order`, async () => {
    let controller!: ReadableStreamDefaultController<number>;
    const stream = new ReadableStream<number>({ start: (c) => void (controller = c) }, { highWaterMark: 0 });
    const reader = stream.getReader();
    for (let i = 0; i < offset; i++) {
      const read = reader.read();
      controller.enqueue(-1 - i);
      assert.is((await read).value, -1 - i);
    }
    const reads: ReturnType<typeof reader.read>[] = [];
    for (let i = 0; i < BIG; i++) reads.push(reader.read());
    for (let i = 0; i < BIG; i++) controller.enqueue(i);
    const extra = reader.read();
    controller.close();
    const results = await Promise.all(reads);
    expectInOrder("read requests", results.map((r) => r.value as number), 0, BIG);
    assert.is((await extra).done, true);
  });
}

test(`WritableStream: ${BIG} writes queued behind a slow sink (write requests and chunk queue grown after wrapping), written in order, each promise fulfilled`, () =>
  guarded("WritableStream", async () => {
    const written: number[] = [];
    let release!: () => void;
    let gate: Promise<void> | undefined = new Promise((resolve) => (release = resolve));
    const ws = new WritableStream<number>({
      write(chunk) {
        written.push(chunk);
        if (gate) {
          const g = gate;
          gate = undefined;
          return g;
        }
        return undefined;
      },
    });
    const writer = ws.getWriter();
    await writer.ready;
    // the first write holds the sink; the rest queue up (far past 16), and their promises settle in order
    const done: number[] = [];
    const writes: Promise<void>[] = [];
    for (let i = 0; i < BIG; i++) writes.push(writer.write(i).then(() => void done.push(i)));
    assert.is(writer.desiredSize, 1 - BIG);
    release();
    await Promise.all(writes);
    expectInOrder("sink writes", written, 0, BIG);
    expectInOrder("write promises", done, 0, BIG);
    await writer.close();
  }));

test.run();
