/**
 * ReadableStreamDefaultReader: construction, read(), closed, cancel(), releaseLock().
 * Spec: https://streams.spec.whatwg.org/#default-reader-class
 *
 *   node tests/unit/default-reader.test.ts   deno run -A tests/unit/default-reader.test.ts   bun tests/unit/default-reader.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ReadableStream, ReadableStreamDefaultController, ReadableStreamDefaultReader } from "../../mod.ts";

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

function controlled<T>(): { stream: ReadableStream<T>; controller: ReadableStreamDefaultController<T> } {
  let controller!: ReadableStreamDefaultController<T>;
  const stream = new ReadableStream<T>({ start: (c) => void (controller = c) });
  return { stream, controller };
}

test("constructor: new ReadableStreamDefaultReader(stream) locks the stream", () => {
  const stream = new ReadableStream();
  const reader = new ReadableStreamDefaultReader(stream);
  assert.instance(reader, ReadableStreamDefaultReader);
  assert.is(stream.locked, true);
});

test("constructor: a non-stream argument throws TypeError", () => {
  for (const bad of [undefined, null, {}, { getReader() {} }, 1]) {
    assert.instance(syncError(() => new ReadableStreamDefaultReader(bad as never)), TypeError);
  }
});

test("constructor: a locked stream throws TypeError", () => {
  const stream = new ReadableStream();
  stream.getReader();
  assert.instance(syncError(() => new ReadableStreamDefaultReader(stream)), TypeError);
});

test("constructor: works on closed and errored streams; closed settles accordingly", async () => {
  const closed = new ReadableStream({ start: (c) => c.close() });
  assert.is(await new ReadableStreamDefaultReader(closed).closed, undefined);
  const theError = new Error("errored");
  const errored = new ReadableStream({ start: (c) => c.error(theError) });
  assert.is(await rejection(new ReadableStreamDefaultReader(errored).closed), theError);
});

test("read: returns plain { value, done } objects and keeps chunk identity", async () => {
  const chunk = { id: 1 };
  const { stream, controller } = controlled<object>();
  controller.enqueue(chunk);
  const result = await stream.getReader().read();
  assert.is(Object.getPrototypeOf(result), Object.prototype);
  assert.equal(Object.keys(result).sort(), ["done", "value"]);
  assert.is(result.value, chunk);
  assert.is(result.done, false);
});

test("read: queued chunks come out in FIFO order, then pending reads are fulfilled by later enqueues", async () => {
  const { stream, controller } = controlled<string>();
  controller.enqueue("a");
  controller.enqueue("b");
  const reader = stream.getReader();
  const r1 = reader.read();
  const r2 = reader.read();
  const r3 = reader.read();
  const r4 = reader.read();
  controller.enqueue("c");
  controller.enqueue("d");
  assert.equal(
    (await Promise.all([r1, r2, r3, r4])).map((r) => r.value),
    ["a", "b", "c", "d"],
  );
});

test("read: enqueue(undefined) is a real chunk, distinct from done", async () => {
  const { stream, controller } = controlled<undefined>();
  controller.enqueue(undefined);
  controller.close();
  const reader = stream.getReader();
  assert.equal(await reader.read(), { value: undefined, done: false });
  assert.equal(await reader.read(), { value: undefined, done: true });
});

test("read: after close, every read resolves { value: undefined, done: true }", async () => {
  const { stream, controller } = controlled<number>();
  controller.close();
  const reader = stream.getReader();
  assert.equal(await reader.read(), { value: undefined, done: true });
  assert.equal(await reader.read(), { value: undefined, done: true });
});

test("read: close() with queued chunks delivers them first, then done", async () => {
  const { stream, controller } = controlled<number>();
  controller.enqueue(1);
  controller.enqueue(2);
  controller.close();
  const reader = stream.getReader();
  assert.equal(await reader.read(), { value: 1, done: false });
  assert.equal(await reader.read(), { value: 2, done: false });
  assert.equal(await reader.read(), { value: undefined, done: true });
});

test("read: pending reads resolve with done when the stream closes", async () => {
  const { stream, controller } = controlled<number>();
  const reader = stream.getReader();
  const reads = [reader.read(), reader.read()];
  controller.close();
  assert.equal(await Promise.all(reads), [
    { value: undefined, done: true },
    { value: undefined, done: true },
  ]);
});

test("read: pending reads reject with the exact error when the stream errors", async () => {
  const theError = new Error("boom");
  const { stream, controller } = controlled<number>();
  const reader = stream.getReader();
  const reads = [reader.read(), reader.read()].map(rejection);
  controller.error(theError);
  const errors = await Promise.all(reads);
  assert.is(errors[0], theError);
  assert.is(errors[1], theError);
});

test("read: on an errored stream rejects with the stored error every time, even non-Error values", async () => {
  const reason = { code: 42 };
  const { stream, controller } = controlled<number>();
  controller.error(reason);
  const reader = stream.getReader();
  assert.is(await rejection(reader.read()), reason);
  assert.is(await rejection(reader.read()), reason);
});

test("read: erroring discards queued chunks", async () => {
  const theError = new Error("discard");
  const { stream, controller } = controlled<number>();
  controller.enqueue(1);
  controller.error(theError);
  assert.is(await rejection(stream.getReader().read()), theError);
});

test("closed: the same promise each time; resolves undefined on close", async () => {
  const { stream, controller } = controlled<number>();
  const reader = stream.getReader();
  assert.is(reader.closed, reader.closed);
  let resolved = false;
  const p = reader.closed.then((v) => {
    resolved = true;
    return v;
  });
  controller.enqueue(1);
  controller.close();
  await delay();
  assert.is(resolved, false, "closed waits for the queue to drain");
  await reader.read();
  assert.is(await p, undefined);
});

test("closed: rejects with the exact error when the stream errors", async () => {
  const theError = new Error("closed");
  const { stream, controller } = controlled<number>();
  const reader = stream.getReader();
  const p = rejection(reader.closed);
  controller.error(theError);
  assert.is(await p, theError);
});

test("releaseLock: unlocks; closed rejects with TypeError; later reads reject with TypeError", async () => {
  const stream = new ReadableStream<number>();
  const reader = stream.getReader();
  reader.releaseLock();
  assert.is(stream.locked, false);
  assert.instance(await rejection(reader.closed), TypeError);
  assert.instance(await rejection(reader.read()), TypeError);
});

test("releaseLock: pending reads reject with TypeError", async () => {
  const reader = new ReadableStream<number>().getReader();
  const reads = [reader.read(), reader.read()].map(rejection);
  reader.releaseLock();
  const errors = await Promise.all(reads);
  assert.instance(errors[0], TypeError);
  assert.instance(errors[1], TypeError);
});

test("releaseLock: a second releaseLock is a no-op", () => {
  const stream = new ReadableStream();
  const reader = stream.getReader();
  reader.releaseLock();
  reader.releaseLock();
  assert.is(stream.locked, false);
});

test("releaseLock: after the stream closed, closed is replaced by a promise rejected with TypeError", async () => {
  const { stream, controller } = controlled<number>();
  const reader = stream.getReader();
  controller.close();
  const before = reader.closed;
  assert.is(await before, undefined);
  reader.releaseLock();
  assert.is.not(reader.closed, before);
  assert.instance(await rejection(reader.closed), TypeError);
});

test("releaseLock: the stream keeps its queue; a new reader continues where the old one stopped", async () => {
  const { stream, controller } = controlled<number>();
  [1, 2, 3].forEach((n) => controller.enqueue(n));
  const r1 = stream.getReader();
  assert.equal(await r1.read(), { value: 1, done: false });
  r1.releaseLock();
  const r2 = stream.getReader();
  assert.equal(await r2.read(), { value: 2, done: false });
  assert.equal(await r2.read(), { value: 3, done: false });
});

test("releaseLock: pending read's TypeError does not error the stream", async () => {
  const { stream, controller } = controlled<number>();
  const r1 = stream.getReader();
  const pending = rejection(r1.read());
  r1.releaseLock();
  assert.instance(await pending, TypeError);
  controller.enqueue(7);
  assert.equal(await stream.getReader().read(), { value: 7, done: false });
});

test("cancel: reaches source.cancel with the reason, resolves undefined, closes the reader", async () => {
  const reasons: unknown[] = [];
  const stream = new ReadableStream({ cancel: (r) => void reasons.push(r) });
  const reader = stream.getReader();
  const reason = new Error("stop");
  assert.is(await reader.cancel(reason), undefined);
  assert.equal(reasons.length, 1);
  assert.is(reasons[0], reason);
  assert.is(await reader.closed, undefined);
  assert.is(stream.locked, true, "cancel does not release the lock");
});

test("cancel: pending reads resolve with done: true", async () => {
  const reader = new ReadableStream<number>().getReader();
  const read = reader.read();
  await reader.cancel();
  assert.equal(await read, { value: undefined, done: true });
});

test("cancel: rejects with TypeError on a released reader without calling source.cancel", async () => {
  let called = false;
  const stream = new ReadableStream({ cancel: () => void (called = true) });
  const reader = stream.getReader();
  reader.releaseLock();
  assert.instance(await rejection(reader.cancel()), TypeError);
  assert.is(called, false);
});

test("cancel: on an errored stream rejects with the stored error", async () => {
  const theError = new Error("stored");
  const stream = new ReadableStream({ start: (c) => c.error(theError) });
  assert.is(await rejection(stream.getReader().cancel()), theError);
});

test.run();
