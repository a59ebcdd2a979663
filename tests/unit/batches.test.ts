/**
 * batches(stream, { preventCancel }): async iteration in arrays of chunks.
 *
 *   node tests/unit/batches.test.ts   deno run -A tests/unit/batches.test.ts   bun tests/unit/batches.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { batches, ReadableStream } from "../../mod.ts";
import { rejection, tracked } from "./stream-test-helpers.ts";

const NativeReadableStream = globalThis.ReadableStream;

test("batches: the queued chunks in one array, then the end; the lock is released", async () => {
  const { stream, cancels } = tracked([1, 2, 3]);
  const seen: number[][] = [];
  for await (const batch of batches(stream)) seen.push(batch);
  assert.equal(seen, [[1, 2, 3]]);
  assert.is(stream.locked, false);
  assert.equal(cancels, []);
});

test("batches: types flow (ReadableStream<T> gives arrays of T), on ours and native streams", async () => {
  const ours: AsyncIterableIterator<string[], undefined> = batches(
    new ReadableStream<string>({ start: (c) => c.close() }),
  );
  const native: AsyncIterableIterator<number[], undefined> = batches(
    new NativeReadableStream<number>({ start: (c) => c.close() }),
  );
  assert.equal(await ours.next(), { done: true, value: undefined });
  assert.equal(await native.next(), { done: true, value: undefined });
});

test("batches: an empty stream ends at once", async () => {
  let n = 0;
  for await (const _ of batches(new ReadableStream({ start: (c) => c.close() }))) n++;
  assert.is(n, 0);
});

test("batches: the stream is locked at once; a locked stream or a non-stream is a TypeError", () => {
  const { stream } = tracked([1]);
  const it = batches(stream);
  assert.is(stream.locked, true);
  assert.throws(() => batches(stream), (e: unknown) => e instanceof TypeError && /locked/.test((e as Error).message));
  assert.throws(() => batches({} as never), TypeError);
  void it.return();
});

test("batches: break cancels the stream (reason undefined) and releases it", async () => {
  const { stream, cancels } = tracked([1, 2], false);
  for await (const batch of batches(stream)) {
    assert.equal(batch, [1, 2]);
    break;
  }
  assert.equal(cancels, [undefined]);
  assert.is(stream.locked, false);
});

test("batches: a throw in the loop body cancels too; preventCancel only releases", async () => {
  const a = tracked([1], false);
  const oops = new Error("oops");
  const caught = await rejection((async () => {
    for await (const _ of batches(a.stream)) throw oops;
  })());
  assert.is(caught, oops);
  assert.equal(a.cancels, [undefined]);

  const b = tracked([1], false);
  for await (const _ of batches(b.stream, { preventCancel: true })) break;
  assert.equal(b.cancels, []);
  assert.is(b.stream.locked, false);
  b.controller().enqueue(2);
  const reader = b.stream.getReader();
  assert.equal(await reader.read(), { done: false, value: 2 }, "the stream goes on");
});

test("batches: return(value) while a next() waits runs after it; later next()s are done", async () => {
  const { stream, cancels, controller } = tracked<number>([], false);
  const it = batches(stream);
  const pending = it.next();
  const returned = it.return("bye");
  controller().enqueue(7);
  assert.equal(await pending, { done: false, value: [7] });
  assert.equal(await returned, { done: true, value: undefined });
  assert.equal(cancels, ["bye"]);
  assert.equal(await it.next(), { done: true, value: undefined });
});

test("batches: a stream error rejects next() with the same object and releases the lock", async () => {
  const boom = new Error("boom");
  const { stream, controller } = tracked<number>([1], false);
  const it = batches(stream);
  assert.equal(await it.next(), { done: false, value: [1] });
  const waiting = it.next();
  controller().error(boom);
  assert.is(await rejection(waiting), boom);
  assert.is(stream.locked, false);
  assert.equal(await it.next(), { done: true, value: undefined });
  // Errored before iteration starts: the first next() rejects.
  const errored = new ReadableStream({ start: (c) => c.error(boom) });
  assert.is(await rejection(batches(errored).next()), boom);
});

test("batches: native streams, their chunks in order; break cancels them", async () => {
  const cancels: unknown[] = [];
  const native = new NativeReadableStream<number>({
    start(c) {
      for (let i = 0; i < 5; i++) c.enqueue(i);
    },
    cancel(reason) {
      cancels.push(reason);
    },
  });
  const got: number[] = [];
  for await (const batch of batches(native)) {
    assert.ok(batch.length > 0);
    got.push(...batch);
    if (got.length === 5) break;
  }
  assert.equal(got, [0, 1, 2, 3, 4]);
  assert.equal(cancels, [undefined]);
  assert.is(native.locked, false);
});

test("batches: a byte stream gives its Uint8Array chunks", async () => {
  const stream = new ReadableStream({
    type: "bytes",
    start(c) {
      c.enqueue(new Uint8Array([1, 2]));
      c.enqueue(new Uint8Array([3]));
      c.close();
    },
  });
  const seen: number[][] = [];
  for await (const batch of batches(stream)) for (const chunk of batch) seen.push([...chunk]);
  assert.equal(seen, [[1, 2], [3]]);
});

test.run();
