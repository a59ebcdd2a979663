/**
 * core/interop's bridges read our streams in batches (issue 18): chunk order and no loss across batch
 * boundaries, and backpressure, for `toNativeReadableStream` and the byte-checked body bridge
 * (`toNativeBody` with its default bridge). Runs on every runtime.
 *
 *   node tests/unit/interop-bridges.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as fuse from "../../mod.ts";
import { toNativeBody, toNativeReadableStream } from "../../core/interop/to-native.ts";

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
    for (const stop = Math.min(total, i + size++); i < stop;) controller.enqueue(chunk(i++));
    if (i === total) controller.close();
    else setTimeout(burst, 0);
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
    for (let k = 0; ; k++) {
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
    assert.ok(pulls <= highWaterMark, `hwm ${highWaterMark}: only the source's own queue before any read (${pulls} pulls)`);
    const reader = native.getReader();
    let read = 0;
    for (let k = 0; k < 40; k++) {
      const { value } = await reader.read();
      assert.is(value, read++, "in order");
      await sleep(1);
      // read: what the consumer has; the rest of the pulls wait in the native queue or in ours
      const buffered = pulls - read;
      assert.ok(buffered <= 2 * highWaterMark + 1, `hwm ${highWaterMark}: ${buffered} chunks buffered after ${read} reads`);
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
      assert.match((e as Error).message, /Response: a body stream chunk must be an ArrayBuffer or ArrayBufferView; found a string/);
    },
  );
});

test.run();
