/**
 * readMany(reader): batches of every chunk available, and the pull() timeline a source sees, compared with a
 * plain read() loop over the same source.
 *
 *   node tests/unit/read-many.test.ts   deno run -A tests/unit/read-many.test.ts   bun tests/unit/read-many.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  batches,
  ReadableByteStreamController,
  ReadableStream,
  ReadableStreamDefaultController,
  type ReadableStreamDefaultReader,
  readMany,
} from "../../mod.ts";
import { rejection } from "./stream-test-helpers.ts";

const NativeReadableStream = globalThis.ReadableStream;
const delay = (ms = 0): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

// ---- the pull timeline ----------------------------------------------------------------------------------------

/**
 * A source and everything it can observe, written to `log`: each pull() with the desiredSize it sees, each chunk
 * it enqueues with the desiredSize right after, and the ticks of a job chain started with the stream ("other
 * jobs": a microtask that re-queues itself), so that a pull() moved to another job shows up.
 */
interface Source {
  stream: ReadableStream<unknown>;
  log: string[];
  /** How many chunks the stream yields in all. */
  count: number;
}

type MakeSource = () => Source;

/** Runs a microtask chain of `n` ticks, each logging its number. */
function ticker(log: string[], n: number): void {
  let i = 0;
  const tick = (): void => {
    log.push(`tick ${i}`);
    if (++i < n) queueMicrotask(tick);
  };
  queueMicrotask(tick);
}

function enqueueLogged(c: ReadableStreamDefaultController<unknown>, log: string[], chunk: unknown): void {
  c.enqueue(chunk);
  log.push(`enqueue ${String(chunk)} -> ${c.desiredSize}`);
}

/** pull() enqueues one chunk synchronously; the last pull also closes. */
function syncPull(count: number, highWaterMark: number): MakeSource {
  return () => {
    const log: string[] = [];
    let i = 0;
    const stream = new ReadableStream<unknown>({
      pull(c) {
        log.push(`pull ${c.desiredSize}`);
        enqueueLogged(c, log, i++);
        if (i === count) c.close();
      },
    }, { highWaterMark });
    ticker(log, count * 3);
    return { stream, log, count };
  };
}

/** pull() returns a promise and enqueues after `wait` (a microtask, or a task). */
function asyncPull(count: number, wait: () => Promise<void>): MakeSource {
  return () => {
    const log: string[] = [];
    let i = 0;
    const stream = new ReadableStream<unknown>({
      async pull(c) {
        log.push(`pull ${c.desiredSize}`);
        await wait();
        enqueueLogged(c, log, i++);
        if (i === count) c.close();
      },
    }, { highWaterMark: 4 });
    ticker(log, 40);
    return { stream, log, count };
  };
}

/** pull() enqueues two chunks at once (the second is queued behind the first). */
function twoPerPull(pulls: number): MakeSource {
  return () => {
    const log: string[] = [];
    let i = 0;
    const stream = new ReadableStream<unknown>({
      pull(c) {
        log.push(`pull ${c.desiredSize}`);
        enqueueLogged(c, log, i++);
        enqueueLogged(c, log, i++);
        if (i === pulls * 2) c.close();
      },
    }, { highWaterMark: 3 });
    ticker(log, pulls * 4);
    return { stream, log, count: pulls * 2 };
  };
}

/**
 * The React/network pattern: the controller captured in start() gets bursts of enqueue()s, one burst per task
 * (setTimeout: on Deno a MessagePort delivers its messages between microtasks, so a read loop that is still
 * draining the previous burst would fall behind and the comparison would be about that instead).
 */
function pushBursts(bursts: number, size: number): MakeSource {
  return () => {
    const log: string[] = [];
    let n = 0;
    let controller!: ReadableStreamDefaultController<unknown>;
    const stream = new ReadableStream<unknown>({
      start(c) {
        controller = c;
      },
    }, { highWaterMark: 16 });
    const burst = (): void => {
      log.push("task");
      for (let k = 0; k < size; k++) enqueueLogged(controller, log, n++);
      if (n === bursts * size) controller.close();
      else setTimeout(burst, 0);
    };
    setTimeout(burst, 0);
    return { stream, log, count: bursts * size };
  };
}

/** A byte stream whose pull() enqueues one fresh chunk. */
function bytePull(count: number): MakeSource {
  return () => {
    const log: string[] = [];
    let i = 0;
    const stream = new ReadableStream({
      type: "bytes",
      pull(c: ReadableByteStreamController) {
        log.push(`pull ${c.desiredSize}`);
        c.enqueue(new Uint8Array([i++]));
        log.push(`enqueue ${i - 1} -> ${c.desiredSize}`);
        if (i === count) c.close();
      },
    }, { highWaterMark: 8 }) as ReadableStream<unknown>;
    ticker(log, count * 3);
    return { stream, log, count };
  };
}

type Consumer = (stream: ReadableStream<unknown>) => Promise<unknown[]>;

const readLoop: Consumer = async (stream) => {
  const reader = stream.getReader();
  const out: unknown[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
};

const readManyLoop: Consumer = async (stream) => {
  const reader = stream.getReader();
  const out: unknown[] = [];
  for (;;) {
    const { done, value } = await readMany(reader);
    if (done) return out;
    assert.ok(value.length > 0, "a batch is never empty");
    out.push(...value);
  }
};

const batchesLoop: Consumer = async (stream) => {
  const out: unknown[] = [];
  for await (const batch of batches(stream)) out.push(...batch);
  return out;
};

/** Runs `make()`'s source under `consume` until the stream and the ticker are done, and returns the log. */
async function timeline(make: MakeSource, consume: Consumer): Promise<{ log: string[]; chunks: unknown[] }> {
  const { stream, log, count } = make();
  const chunks = await consume(stream);
  assert.is(chunks.length, count, "every chunk arrives");
  await delay(5); // let the ticker finish
  return { log, chunks };
}

const SOURCES: [string, MakeSource][] = [
  ["sync pull, highWaterMark 16", syncPull(200, 16)],
  ["sync pull, highWaterMark 1", syncPull(100, 1)],
  ["sync pull, highWaterMark 0", syncPull(100, 0)],
  ["async pull (a microtask)", asyncPull(30, () => Promise.resolve())],
  ["async pull (a task)", asyncPull(10, () => delay(0))],
  ["push bursts from start() (64 per task)", pushBursts(5, 64)],
  ["push bursts from start() (3 per task)", pushBursts(10, 3)],
  ["byte stream, sync pull", bytePull(100)],
];

for (const [name, make] of SOURCES) {
  test(`pull timeline: readMany() and batches() call pull() as a read loop does: ${name}`, async () => {
    const reference = await timeline(make, readLoop);
    for (const [label, consume] of [["readMany", readManyLoop], ["batches", batchesLoop]] as const) {
      const got = await timeline(make, consume);
      const chunks = (c: unknown[]) => c.map((x) => (x instanceof Uint8Array ? x[0] : x));
      assert.equal(chunks(got.chunks), chunks(reference.chunks), `${label}: the same chunks in order`);
      assert.equal(got.log, reference.log, `${label}: the source sees the same calls in the same order`);
    }
  });
}

test("pull timeline: where a read loop falls behind (two chunks per pull), batches catch up: the same pull()s, never a fuller queue", async () => {
  const make = twoPerPull(40);
  const pulls = (log: string[]) => log.filter((l) => l.startsWith("pull")).map((l) => Number(l.slice(5)));
  const reference = pulls((await timeline(make, readLoop)).log);
  for (const consume of [readManyLoop, batchesLoop]) {
    const got = pulls((await timeline(make, consume)).log);
    assert.is(got.length, reference.length, "as many pull() calls");
    got.forEach((desired, i) =>
      assert.ok(desired >= reference[i]!, `pull ${i}: desiredSize ${desired} >= ${reference[i]}`)
    );
    assert.ok(got.every((d) => d === 3), "the batch consumer keeps the queue empty");
  }
});

test("pull timeline: the check can fail (a consumer that reads late is told apart)", async () => {
  // A read loop that waits a few extra jobs per chunk makes the source see other desired sizes and pull()
  // in other jobs: the comparison above would catch a batch read that did this.
  const slowLoop: Consumer = async (stream) => {
    const reader = stream.getReader();
    const out: unknown[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return out;
      out.push(value);
      await null;
      await null;
    }
  };
  const make = syncPull(50, 16);
  const reference = await timeline(make, readLoop);
  const slow = await timeline(make, slowLoop);
  assert.not.equal(slow.log, reference.log);
});

test("readMany: from a synchronous pull() chain, batches hold many chunks (and at most 64)", async () => {
  const { stream } = syncPull(200, 16)();
  const reader = stream.getReader() as ReadableStreamDefaultReader<unknown>;
  const sizes: number[] = [];
  for (let r = await readMany(reader); !r.done; r = await readMany(reader)) sizes.push(r.value.length);
  assert.is(sizes.reduce((a, b) => a + b, 0), 200);
  assert.ok(sizes.length <= 5, `few batches: ${sizes.join(",")}`);
  assert.ok(Math.max(...sizes) <= 64);
});

// ---- queued chunks: one step, the steps of back-to-back reads ----------------------------------------------

/** 20 chunks queued by start(), highWaterMark 16; pull() logs and enqueues one more (up to 30 in all). */
function queuedSource(log: string[]) {
  let n = 0;
  return new ReadableStream<number>({
    start(c) {
      for (; n < 20; n++) c.enqueue(n);
    },
    pull(c) {
      log.push(`pull ${c.desiredSize}`);
      if (n < 30) enqueueLogged(c as ReadableStreamDefaultController<unknown>, log, n++);
      if (n === 30) c.close();
    },
  }, { highWaterMark: 16 });
}

test("readMany: takes everything queued in one step, with the pull() calls of back-to-back read()s", async () => {
  const logA: string[] = [];
  const a = queuedSource(logA).getReader();
  await delay(0);
  const many = readMany(a);
  const stepA = [...logA]; // what the source saw during the call
  const manyFirst = await many;
  const manyRest: number[] = [];
  for (let r = await readMany(a); !r.done; r = await readMany(a)) manyRest.push(...r.value);

  const logB: string[] = [];
  const b = queuedSource(logB).getReader();
  await delay(0);
  // As many read()s as readMany took, called one after another in one job.
  const reads = manyFirst.value.map(() => b.read());
  const stepB = [...logB];
  const readFirst = (await Promise.all(reads)).map((r) => r.value);

  assert.equal(manyFirst.value, readFirst);
  assert.ok(manyFirst.value.length > 20, "every queued chunk, and the one the synchronous pull() added");
  assert.equal(stepA, stepB);
  assert.ok(stepA.length > 0, "pull() was called during the step");
  assert.equal([...manyFirst.value, ...manyRest], Array.from({ length: 30 }, (_, i) => i));
});

// ---- results and errors --------------------------------------------------------------------------------------

test("readMany: done with an empty list once closed; an empty stream is done at once", async () => {
  const reader = new ReadableStream({ start: (c) => c.close() }).getReader();
  assert.equal(await readMany(reader), { done: true, value: [] });
  assert.equal(await readMany(reader), { done: true, value: [] });
  const s = new ReadableStream<number>({
    start(c) {
      c.enqueue(1);
      c.enqueue(2);
      c.close();
    },
  });
  const r = s.getReader();
  assert.equal(await readMany(r), { done: false, value: [1, 2] });
  assert.equal(await readMany(r), { done: true, value: [] });
});

test("readMany: an errored stream rejects with its stored error (same object); chunks taken before come first", async () => {
  const boom = new Error("boom");
  let controller!: ReadableStreamDefaultController<number>;
  const reader = new ReadableStream<number>({
    start(c) {
      controller = c;
    },
  }).getReader();
  const first = readMany(reader);
  controller.enqueue(1);
  assert.equal(await first, { done: false, value: [1] });
  const second = readMany(reader);
  controller.error(boom);
  assert.is(await rejection(second), boom);
  assert.is(await rejection(readMany(reader)), boom);
});

test("readMany: a released reader or a non-reader is a TypeError; pending read()s are answered first", async () => {
  const stream = new ReadableStream<number>({
    start(c) {
      c.enqueue(1);
    },
  });
  const reader = stream.getReader();
  reader.releaseLock();
  assert.instance(await rejection(readMany(reader)), TypeError);
  assert.instance(await rejection(readMany({} as never)), TypeError);

  let controller!: ReadableStreamDefaultController<number>;
  const r2 = new ReadableStream<number>({
    start(c) {
      controller = c;
    },
  }).getReader();
  const plain = r2.read();
  const many = readMany(r2);
  controller.enqueue(1);
  controller.enqueue(2);
  assert.equal(await plain, { done: false, value: 1 });
  assert.equal(await many, { done: false, value: [2] });
});

// ---- push bursts: one batch per burst (FP-BATCH-BURST) --------------------------------------------------------

/** A stream whose controller is captured in start() (no pull()), highWaterMark 16, and that controller. */
function pushed(): { stream: ReadableStream<number>; controller: ReadableStreamDefaultController<number> } {
  let controller!: ReadableStreamDefaultController<number>;
  const stream = new ReadableStream<number>({
    start(c) {
      controller = c;
    },
  }, { highWaterMark: 16 });
  return { stream, controller };
}

test("batches(): a burst of enqueue()s in one task is one batch, and the source sees a read loop's desiredSize", async () => {
  const { stream, controller } = pushed();
  const seen: (number | null)[] = [];
  let n = 0;
  const burst = (): void => {
    for (let k = 0; k < 40; k++) {
      controller.enqueue(n++);
      seen.push(controller.desiredSize);
    }
    if (n === 200) controller.close();
    else setTimeout(burst, 0);
  };
  setTimeout(burst, 0);
  const sizes: number[] = [];
  const out: number[] = [];
  for await (const batch of batches(stream)) {
    sizes.push(batch.length);
    out.push(...batch);
  }
  assert.equal(sizes, [40, 40, 40, 40, 40]);
  assert.equal(out, Array.from({ length: 200 }, (_, i) => i));
  // The first chunk of each burst goes to the waiting batch read, the others are queued until the burst job.
  assert.equal(seen, Array.from({ length: 200 }, (_, i) => 16 - (i % 40)));
});

test("batches(): a batch read made before the burst job runs takes the chunks after it, in order", async () => {
  // next() again at once, while the first batch's burst job is still queued: nothing queued yet, it waits.
  const a = pushed();
  const itA = batches(a.stream);
  const a1 = itA.next();
  a.controller.enqueue(1);
  const a2 = itA.next();
  a.controller.enqueue(2);
  a.controller.enqueue(3);
  assert.equal((await a1).value, [1]);
  assert.equal((await a2).value, [2, 3]);
  // next() again after more chunks were queued: it takes them itself, the first batch keeps its one chunk.
  const b = pushed();
  const itB = batches(b.stream);
  const b1 = itB.next();
  b.controller.enqueue(1);
  b.controller.enqueue(2);
  b.controller.enqueue(3);
  const b2 = itB.next();
  b.controller.enqueue(4);
  assert.equal((await b1).value, [1]);
  assert.equal((await b2).value, [2, 3]);
  assert.equal((await itB.next()).value, [4]);
});

test("batches(): close, error and return() while a burst job is queued", async () => {
  const closing = pushed();
  const itC = batches(closing.stream);
  const c1 = itC.next();
  closing.controller.enqueue(1);
  closing.controller.enqueue(2);
  closing.controller.close();
  assert.equal((await c1).value, [1, 2]);
  assert.equal(await itC.next(), { done: true, value: undefined });

  const boom = new Error("boom");
  const erroring = pushed();
  const itE = batches(erroring.stream);
  const e1 = itE.next();
  erroring.controller.enqueue(1);
  erroring.controller.enqueue(2); // discarded by the error, as a read loop would never see it
  erroring.controller.error(boom);
  assert.equal((await e1).value, [1]);
  assert.is(await rejection(itE.next()), boom);

  // return() with preventCancel releases the stream: what was queued after the answered chunk stays queued.
  const releasing = pushed();
  const itR = batches(releasing.stream, { preventCancel: true });
  const r1 = itR.next();
  releasing.controller.enqueue(1);
  releasing.controller.enqueue(2);
  await itR.return();
  assert.equal((await r1).value, [1]);
  assert.equal(await releasing.stream.getReader().read(), { done: false, value: 2 });
});

test("readMany(): on a user's reader, a batch answered outside a pull() is the one chunk (reads may come between)", async () => {
  const { stream, controller } = pushed();
  const reader = stream.getReader();
  const many = readMany(reader);
  controller.enqueue(1);
  controller.enqueue(2);
  const read = reader.read();
  controller.enqueue(3);
  assert.equal(await many, { done: false, value: [1] });
  assert.equal(await read, { done: false, value: 2 });
  assert.equal(await readMany(reader), { done: false, value: [3] });
});

test("readMany: cancel() while a batch waits answers done; releaseLock() rejects it with a TypeError", async () => {
  const r1 = new ReadableStream<number>().getReader();
  const waiting = readMany(r1);
  await r1.cancel("stop");
  assert.equal(await waiting, { done: true, value: [] });
  const r2 = new ReadableStream<number>().getReader();
  const waiting2 = readMany(r2);
  r2.releaseLock();
  assert.instance(await rejection(waiting2), TypeError);
});

test("readMany: on the runtime's own streams, one chunk per batch (or Bun's readMany), errors by identity", async () => {
  const boom = new Error("native boom");
  let controller!: globalThis.ReadableStreamDefaultController<number>;
  const native = new NativeReadableStream<number>({
    start(c) {
      controller = c;
      c.enqueue(1);
      c.enqueue(2);
    },
  });
  const reader = native.getReader();
  const got: number[] = [];
  const r = await readMany(reader);
  assert.is(r.done, false);
  got.push(...r.value);
  const hasReadMany = typeof (reader as unknown as { readMany?: unknown }).readMany === "function";
  if (!hasReadMany) assert.is(r.value.length, 1, "one read() per batch");
  if (got.length < 2) got.push(...(await readMany(reader)).value);
  assert.equal(got, [1, 2]);
  controller.error(boom);
  assert.is(await rejection(readMany(reader)), boom);
});

test.run();
