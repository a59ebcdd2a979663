/**
 * No memory is kept when streams end (issue 20): 100,000 short chains (a source piped through three
 * transforms, consumed by a reader loop or by pipeTo(), one long-lived AbortSignal passed to every pipe)
 * leave the post-GC heap within 1 MiB of the post-GC heap after the first 10,000, and no listener on the
 * signal. The collector is reached in-process: `Bun.gc(true)` on Bun, V8's `gc` (exposed at run time with
 * node:v8 setFlagsFromString and node:vm) on Node and Deno.
 *
 *   node tests/unit/leak.test.ts   deno run -A tests/unit/leak.test.ts   bun tests/unit/leak.test.ts
 */
import { getEventListeners } from "node:events";
import process from "node:process";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ReadableStream, TransformStream, WritableStream } from "../../mod.ts";

const g = globalThis as unknown as {
  Bun?: { gc(force: boolean): void };
  Deno?: { memoryUsage(): { heapUsed: number } };
};

/** A full, synchronous garbage collection. */
function collector(): () => void {
  const bun = g.Bun;
  if (bun !== undefined) return () => bun.gc(true);
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

/** Post-GC heap size in bytes. */
async function heapAfterGc(collect: () => void): Promise<number> {
  // let timers and microtasks of finished pipes run before collecting
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setTimeout(resolve, 0));
  collect();
  collect();
  if (g.Bun !== undefined) {
    const jsc = (await import("bun:jsc" as string)) as { heapStats(): { heapSize: number } };
    return jsc.heapStats().heapSize;
  }
  if (g.Deno !== undefined) return g.Deno.memoryUsage().heapUsed;
  return process.memoryUsage().heapUsed;
}

const CHUNKS = 3;

/** One short stream: source -> 3 transforms -> consumer, every pipe with `signal`; resolves with the sum read. */
async function chain(i: number, signal: AbortSignal): Promise<number> {
  let n = 0;
  const source = new ReadableStream<number>({
    pull(c) {
      if (n === CHUNKS) c.close();
      else c.enqueue(i + n++);
    },
  });
  const out = source
    .pipeThrough(new TransformStream<number, number>({ transform: (x, c) => c.enqueue(x * 2) }), { signal })
    .pipeThrough(new TransformStream<number, number>(), { signal })
    .pipeThrough(new TransformStream<number, number>({ transform: (x, c) => c.enqueue(x + 1) }), { signal });
  let sum = 0;
  if (i % 2 === 0) {
    const reader = out.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) sum += r.value;
  } else {
    await out.pipeTo(new WritableStream<number>({ write: (x) => void (sum += x) }), { signal });
  }
  return sum;
}

/** Runs chains first..last-1, a batch at a time, checking each one's result. */
async function runChains(first: number, last: number, signal: AbortSignal): Promise<void> {
  const BATCH = 100;
  for (let start = first; start < last; start += BATCH) {
    const batch: Promise<number>[] = [];
    for (let i = start; i < Math.min(last, start + BATCH); i++) batch.push(chain(i, signal));
    const sums = await Promise.all(batch);
    for (let k = 0; k < sums.length; k++) {
      const i = start + k;
      // sum over n < CHUNKS of (2 * (i + n) + 1)
      const expected = 2 * (CHUNKS * i + (CHUNKS * (CHUNKS - 1)) / 2) + CHUNKS;
      if (sums[k] !== expected) assert.unreachable(`chain ${i} read ${sums[k]}, expected ${expected}`);
    }
  }
}

test("100,000 finished chains with one long-lived AbortSignal: heap within 1 MiB of the warm-up's, no listener left", async () => {
  const collect = collector();
  const controller = new AbortController();
  const signal = controller.signal;
  await runChains(0, 10_000, signal);
  const warm = await heapAfterGc(collect);
  assert.is(getEventListeners(signal, "abort").length, 0, "abort listeners left after the warm-up");
  await runChains(10_000, 100_000, signal);
  const end = await heapAfterGc(collect);
  assert.is(getEventListeners(signal, "abort").length, 0, "abort listeners left after 100,000 chains");
  const grown = end - warm;
  assert.ok(grown <= 1024 * 1024, `post-GC heap grew by ${grown} bytes from the warm-up (10,000) to 100,000 chains`);
  assert.not.ok(signal.aborted);
});

test("a pipe's abort listener is on the signal while it runs, and is removed when it ends", async () => {
  const signal = new AbortController().signal;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const done = new ReadableStream<number>({
    async pull(c) {
      await gate;
      c.close();
    },
  }).pipeTo(new WritableStream(), { signal });
  assert.is(getEventListeners(signal, "abort").length, 1);
  release();
  await done;
  assert.is(getEventListeners(signal, "abort").length, 0);
});

test.run();
