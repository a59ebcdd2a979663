/**
 * ReadableStreamDefaultController: enqueue(), close(), error(), desiredSize and the size() strategy.
 * Spec: https://streams.spec.whatwg.org/#rs-default-controller-class
 *
 *   node tests/unit/default-controller.test.ts   deno run -A tests/unit/default-controller.test.ts   bun tests/unit/default-controller.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ReadableStream, ReadableStreamDefaultController } from "../../mod.ts";
import type { QueuingStrategy } from "../../mod.ts";

const delay = (ms = 0): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function syncError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  assert.unreachable("expected the call to throw");
}

function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      assert.unreachable("expected the promise to reject");
    },
    (err: unknown) => err,
  );
}

function controlled<T>(
  strategy?: QueuingStrategy<T>,
): { stream: ReadableStream<T>; controller: ReadableStreamDefaultController<T> } {
  let controller!: ReadableStreamDefaultController<T>;
  const stream = new ReadableStream<T>({ start: (c) => void (controller = c) }, strategy);
  return { stream, controller };
}

test("desiredSize: counts down per enqueue and goes negative past the high-water mark", () => {
  const { controller } = controlled<number>({ highWaterMark: 2 });
  assert.is(controller.desiredSize, 2);
  controller.enqueue(1);
  assert.is(controller.desiredSize, 1);
  controller.enqueue(2);
  assert.is(controller.desiredSize, 0);
  controller.enqueue(3);
  assert.is(controller.desiredSize, -1);
});

test("desiredSize: rises again as chunks are read", async () => {
  const { stream, controller } = controlled<number>({ highWaterMark: 2 });
  controller.enqueue(1);
  controller.enqueue(2);
  controller.enqueue(3);
  const reader = stream.getReader();
  await reader.read();
  assert.is(controller.desiredSize, 0);
  await reader.read();
  assert.is(controller.desiredSize, 1);
});

test("desiredSize: while close is requested but chunks remain, it still reflects the queue; 0 once closed", async () => {
  const { stream, controller } = controlled<number>({ highWaterMark: 3 });
  controller.enqueue(1);
  controller.close();
  assert.is(controller.desiredSize, 2);
  await stream.getReader().read();
  assert.is(controller.desiredSize, 0);
});

test("desiredSize: null once errored", () => {
  const { controller } = controlled<number>();
  controller.error(new Error("x"));
  assert.is(controller.desiredSize, null);
});

test("desiredSize: 0 after the stream is cancelled", async () => {
  const { stream, controller } = controlled<number>();
  await stream.cancel();
  assert.is(controller.desiredSize, 0);
});

test("enqueue: with a read pending, the chunk goes straight to the read and desiredSize is unchanged", async () => {
  const { stream, controller } = controlled<string>();
  const reader = stream.getReader();
  const read = reader.read();
  controller.enqueue("direct");
  assert.is(controller.desiredSize, 1);
  assert.equal(await read, { value: "direct", done: false });
});

test("enqueue: with a read pending the strategy's size() is not called", async () => {
  let sizeCalls = 0;
  const { stream, controller } = controlled<string>({
    size: () => {
      sizeCalls++;
      return 1;
    },
  });
  const reader = stream.getReader();
  const read = reader.read();
  controller.enqueue("a");
  assert.is(sizeCalls, 0);
  await read;
  controller.enqueue("b");
  assert.is(sizeCalls, 1);
});

test("enqueue: after close() throws TypeError", () => {
  const { controller } = controlled<number>();
  controller.close();
  assert.instance(syncError(() => controller.enqueue(1)), TypeError);
});

test("enqueue: after error() throws TypeError", () => {
  const { controller } = controlled<number>();
  controller.error(new Error("x"));
  assert.instance(syncError(() => controller.enqueue(1)), TypeError);
});

test("enqueue: after the stream was cancelled throws TypeError", async () => {
  const { stream, controller } = controlled<number>();
  await stream.cancel();
  assert.instance(syncError(() => controller.enqueue(1)), TypeError);
});

test("close: a second close() throws TypeError", () => {
  const { controller } = controlled<number>();
  controller.close();
  assert.instance(syncError(() => controller.close()), TypeError);
});

test("close: after error() throws TypeError", () => {
  const { controller } = controlled<number>();
  controller.error(new Error("x"));
  assert.instance(syncError(() => controller.close()), TypeError);
});

test("close: after cancel throws TypeError", async () => {
  const { stream, controller } = controlled<number>();
  await stream.cancel();
  assert.instance(syncError(() => controller.close()), TypeError);
});

test("close: no further pull after close", async () => {
  let pulls = 0;
  const stream = new ReadableStream<number>(
    {
      pull(c) {
        pulls++;
        c.enqueue(pulls);
        c.close();
      },
    },
    { highWaterMark: 5 },
  );
  await delay();
  assert.is(pulls, 1);
  const reader = stream.getReader();
  assert.equal(await reader.read(), { value: 1, done: false });
  assert.equal(await reader.read(), { value: undefined, done: true });
  assert.is(pulls, 1);
});

test("error: with no argument errors the stream with undefined", async () => {
  const { stream, controller } = controlled<number>();
  controller.error();
  const reader = stream.getReader();
  let caught: unknown = "not rejected";
  await reader.read().catch((e: unknown) => (caught = e));
  assert.is(caught, undefined);
});

test("error: after close with an empty queue is a no-op (stream stays closed)", async () => {
  const { stream, controller } = controlled<number>();
  controller.close();
  controller.error(new Error("ignored"));
  const reader = stream.getReader();
  assert.equal(await reader.read(), { value: undefined, done: true });
  assert.is(await reader.closed, undefined);
});

test("error: after close while chunks are still queued errors the stream and drops the chunks", async () => {
  const theError = new Error("late");
  const { stream, controller } = controlled<number>();
  controller.enqueue(1);
  controller.close();
  controller.error(theError);
  const reader = stream.getReader();
  assert.is(await rejection(reader.read()), theError);
  assert.is(await rejection(reader.closed), theError);
});

test("error: a second error() is a no-op; the first error is kept", async () => {
  const first = new Error("first");
  const { stream, controller } = controlled<number>();
  controller.error(first);
  controller.error(new Error("second"));
  assert.is(await rejection(stream.getReader().read()), first);
});

test("error: no pull after error", async () => {
  let pulls = 0;
  let controller!: ReadableStreamDefaultController<number>;
  const stream = new ReadableStream<number>(
    {
      start(c) {
        controller = c;
        c.error(new Error("x"));
      },
      pull: () => void pulls++,
    },
    { highWaterMark: 4 },
  );
  await delay();
  assert.is(pulls, 0);
  assert.is(controller.desiredSize, null);
  await rejection(stream.getReader().closed);
});

test("size(): a throw makes enqueue rethrow that error and errors the stream with it", async () => {
  const theError = new Error("size");
  const { stream, controller } = controlled<number>({
    size() {
      throw theError;
    },
  });
  assert.is(syncError(() => controller.enqueue(1)), theError);
  assert.is(controller.desiredSize, null);
  assert.is(await rejection(stream.getReader().read()), theError);
});

test("size(): NaN, negative or Infinity makes enqueue throw RangeError and errors the stream with it", async () => {
  for (const bad of [NaN, -1, Infinity]) {
    const { stream, controller } = controlled<number>({ size: () => bad });
    const err = syncError(() => controller.enqueue(1));
    assert.instance(err, RangeError, `size ${bad}`);
    assert.is(await rejection(stream.getReader().closed), err);
  }
});

test("size(): a zero size is allowed and leaves desiredSize unchanged", () => {
  const { controller } = controlled<number>({ size: () => 0 });
  controller.enqueue(1);
  assert.is(controller.desiredSize, 1);
});

test("size(): the return value is converted with ToNumber", () => {
  const { controller } = controlled<number>({ highWaterMark: 10, size: () => "3" as unknown as number });
  controller.enqueue(1);
  assert.is(controller.desiredSize, 7);
});

test("size(): a queue total driven below 0 by rounding is clamped to 0 when dequeuing", async () => {
  const { stream, controller } = controlled<number>({ highWaterMark: 0, size: (n) => n });
  for (const n of [0.1, 0.1, 1]) controller.enqueue(n);
  const reader = stream.getReader();
  for (let i = 0; i < 3; i++) await reader.read();
  assert.is(controller.desiredSize, 0, "(0.1 + 0.1 + 1) - 0.1 - 0.1 - 1 < 0 in doubles; the spec clamps it to 0");
});

test("size(): the queue total uses plain double arithmetic (a positive rounding residue is kept)", async () => {
  const { stream, controller } = controlled<number>({ highWaterMark: 0, size: (n) => n });
  controller.enqueue(0.1);
  controller.enqueue(0.2);
  const reader = stream.getReader();
  await reader.read();
  await reader.read();
  const residue = 0.1 + 0.2 - 0.1 - 0.2;
  assert.ok(residue > 0);
  assert.is(controller.desiredSize, 0 - residue);
});

test("enqueue from inside pull with a pending read resolves that read", async () => {
  const stream = new ReadableStream<string>(
    {
      pull(c) {
        c.enqueue("pulled");
      },
    },
    { highWaterMark: 0 },
  );
  assert.equal(await stream.getReader().read(), { value: "pulled", done: false });
});

test.run();
