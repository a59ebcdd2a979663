/**
 * WritableStreamDefaultWriter: construction, write(), close(), abort(), releaseLock(), ready, closed, desiredSize.
 * Spec: https://streams.spec.whatwg.org/#default-writer-class
 *
 *   node tests/unit/default-writer.test.ts   deno run -A tests/unit/default-writer.test.ts   bun tests/unit/default-writer.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  ReadableStream,
  WritableStream,
  WritableStreamDefaultController,
  WritableStreamDefaultWriter,
} from "../../mod.ts";

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

function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  return delay().then(() => settled);
}

/** A sink whose writes stay pending until released one by one. */
function manualSink<T>(hwm: number) {
  const written: T[] = [];
  const finishers: (() => void)[] = [];
  let controller!: WritableStreamDefaultController;
  const stream = new WritableStream<T>(
    {
      start: (c) => void (controller = c),
      write(chunk) {
        written.push(chunk);
        return new Promise<void>((r) => finishers.push(r));
      },
    },
    { highWaterMark: hwm },
  );
  const finishNext = (): void => finishers.shift()!();
  return { stream, written, finishNext, controller: () => controller };
}

test("constructor: new WritableStreamDefaultWriter(stream) locks the stream", () => {
  const ws = new WritableStream();
  const writer = new WritableStreamDefaultWriter(ws);
  assert.instance(writer, WritableStreamDefaultWriter);
  assert.is(ws.locked, true);
});

test("constructor: a locked stream or a non-stream throws TypeError", () => {
  const ws = new WritableStream();
  ws.getWriter();
  assert.instance(syncError(() => new WritableStreamDefaultWriter(ws)), TypeError);
  for (const bad of [undefined, null, {}, new ReadableStream()]) {
    assert.instance(syncError(() => new WritableStreamDefaultWriter(bad as never)), TypeError);
  }
});

test("desiredSize: high-water mark minus queued sizes, including the in-flight chunk", async () => {
  const { stream, finishNext } = manualSink<string>(3);
  const writer = stream.getWriter();
  assert.is(writer.desiredSize, 3);
  const w1 = writer.write("a");
  const w2 = writer.write("b");
  assert.is(writer.desiredSize, 1);
  await delay();
  assert.is(writer.desiredSize, 1, "the in-flight write still counts");
  finishNext();
  await w1;
  assert.is(writer.desiredSize, 2);
  await delay();
  finishNext();
  await w2;
  assert.is(writer.desiredSize, 3);
});

test("desiredSize: 0 once closed, null once errored, TypeError after releaseLock", async () => {
  const a = new WritableStream().getWriter();
  await a.close();
  assert.is(a.desiredSize, 0);
  let controller!: WritableStreamDefaultController;
  const b = new WritableStream({ start: (c) => void (controller = c) }).getWriter();
  controller.error(new Error("x"));
  assert.is(b.desiredSize, null);
  const c = new WritableStream().getWriter();
  c.releaseLock();
  assert.instance(syncError(() => c.desiredSize), TypeError);
});

test("ready: resolved at once with a positive desiredSize, pending under backpressure, resolves when it clears", async () => {
  const { stream, finishNext } = manualSink<string>(1);
  const writer = stream.getWriter();
  const initialReady = writer.ready;
  assert.is(await initialReady, undefined);
  void writer.write("a");
  assert.is(writer.desiredSize, 0);
  const blocked = writer.ready;
  assert.is.not(blocked, initialReady, "backpressure installs a new ready promise");
  assert.is(await isSettled(blocked), false);
  finishNext();
  assert.is(await blocked, undefined);
  assert.is(writer.desiredSize, 1);
});

test("ready: pending from the start when the high-water mark is 0", async () => {
  const writer = new WritableStream({}, { highWaterMark: 0 }).getWriter();
  assert.is(writer.desiredSize, 0);
  assert.is(await isSettled(writer.ready), false);
});

test("ready: rejects with the abort reason once the stream is aborted", async () => {
  const { stream } = manualSink<string>(1);
  const writer = stream.getWriter();
  const write = rejection(writer.write("a"));
  const reason = new Error("abort");
  const ready = rejection(writer.ready);
  void writer.abort(reason).catch(() => {});
  assert.is(await ready, reason);
  assert.is(await write, reason, "start had not finished, so the write was still queued");
});

test("ready and closed: reject with the controller error", async () => {
  const theError = new Error("controller error");
  const { stream, controller } = manualSink<string>(1);
  const writer = stream.getWriter();
  await delay();
  controller().error(theError);
  assert.is(await rejection(writer.ready), theError);
  assert.is(await rejection(writer.closed), theError);
});

test("write: resolves undefined after the sink's write resolves, in order", async () => {
  const { stream, finishNext, written } = manualSink<number>(10);
  const writer = stream.getWriter();
  const order: number[] = [];
  const promises = [1, 2, 3].map((n) => writer.write(n).then(() => void order.push(n)));
  await delay();
  assert.equal(written, [1]);
  finishNext();
  await delay();
  finishNext();
  await delay();
  finishNext();
  await Promise.all(promises);
  assert.equal(written, [1, 2, 3]);
  assert.equal(order, [1, 2, 3]);
});

test("write: a throwing size() rejects the write with that error and errors the stream", async () => {
  const theError = new Error("size");
  const ws = new WritableStream<string>(
    {},
    {
      size() {
        throw theError;
      },
    },
  );
  const writer = ws.getWriter();
  assert.is(await rejection(writer.write("a")), theError);
  assert.is(await rejection(writer.closed), theError);
});

test("write: an invalid size() result rejects the write with RangeError", async () => {
  const writer = new WritableStream<string>({}, { size: () => -1 }).getWriter();
  const err = await rejection(writer.write("a"));
  assert.instance(err, RangeError);
  assert.is(await rejection(writer.closed), err);
});

test("write: after close() rejects with TypeError", async () => {
  const writer = new WritableStream().getWriter();
  const closing = writer.close();
  assert.instance(await rejection(writer.write("late")), TypeError);
  await closing;
  assert.instance(await rejection(writer.write("later")), TypeError);
});

test("write: on an errored stream rejects with the stored error", async () => {
  const theError = new Error("stored");
  let controller!: WritableStreamDefaultController;
  const writer = new WritableStream({ start: (c) => void (controller = c) }).getWriter();
  controller.error(theError);
  assert.is(await rejection(writer.write("x")), theError);
});

test("close: resolves undefined and resolves closed; a second close rejects with TypeError", async () => {
  const writer = new WritableStream().getWriter();
  const p = writer.close();
  assert.instance(await rejection(writer.close()), TypeError);
  assert.is(await p, undefined);
  assert.is(await writer.closed, undefined);
});

test("close: waits for all pending writes", async () => {
  const { stream, finishNext, written } = manualSink<string>(5);
  const writer = stream.getWriter();
  void writer.write("a");
  void writer.write("b");
  const closing = writer.close();
  assert.is(await isSettled(closing), false);
  finishNext();
  await delay();
  assert.is(await isSettled(closing), false);
  finishNext();
  assert.is(await closing, undefined);
  assert.equal(written, ["a", "b"]);
});

test("close: closing clears backpressure (ready resolves while the close is pending)", async () => {
  const { stream, finishNext } = manualSink<string>(1);
  const writer = stream.getWriter();
  void writer.write("a");
  const ready = writer.ready;
  assert.is(await isSettled(ready), false);
  const closing = writer.close();
  assert.is(await ready, undefined);
  finishNext();
  await closing;
});

test("abort: via the writer reaches sink.abort with the reason; closed rejects with it", async () => {
  const reasons: unknown[] = [];
  const writer = new WritableStream({ abort: (r) => void reasons.push(r) }).getWriter();
  const reason = { why: "abort" };
  assert.is(await writer.abort(reason), undefined);
  assert.equal(reasons.length, 1);
  assert.is(reasons[0], reason);
  assert.is(await rejection(writer.closed), reason);
});

test("abort: a pending close rejects with the abort reason when the sink has not closed yet", async () => {
  const { stream, finishNext } = manualSink<string>(1);
  const writer = stream.getWriter();
  const write = writer.write("a");
  await delay();
  const closing = rejection(writer.close());
  const aborting = writer.abort("r");
  await delay();
  assert.is(await isSettled(closing), false, "still waiting for the in-flight write");
  finishNext();
  assert.is(await write, undefined);
  assert.is(await aborting, undefined);
  assert.is(await closing, "r");
});

test("releaseLock: ready and closed reject with TypeError; write/close/abort reject with TypeError", async () => {
  const ws = new WritableStream();
  const writer = ws.getWriter();
  const oldClosed = writer.closed;
  writer.releaseLock();
  assert.is(ws.locked, false);
  assert.instance(await rejection(writer.ready), TypeError);
  assert.instance(await rejection(writer.closed), TypeError);
  assert.instance(await rejection(oldClosed), TypeError);
  assert.instance(await rejection(writer.write("x")), TypeError);
  assert.instance(await rejection(writer.close()), TypeError);
  assert.instance(await rejection(writer.abort()), TypeError);
});

test("releaseLock: pending writes still complete; a second releaseLock is a no-op", async () => {
  const { stream, finishNext } = manualSink<string>(1);
  const writer = stream.getWriter();
  const w = writer.write("a");
  writer.releaseLock();
  writer.releaseLock();
  await delay();
  finishNext();
  assert.is(await w, undefined);
  assert.is(stream.locked, false);
});

test("releaseLock: a new writer on the same stream sees its state", async () => {
  const ws = new WritableStream<string>();
  const w1 = ws.getWriter();
  await w1.write("a");
  w1.releaseLock();
  const w2 = ws.getWriter();
  assert.is(w2.desiredSize, 1);
  assert.is(await w2.ready, undefined);
  await w2.close();
  assert.is(await w2.closed, undefined);
});

test("closed: the same promise each time while locked", () => {
  const writer = new WritableStream().getWriter();
  assert.is(writer.closed, writer.closed);
  assert.is(writer.ready, writer.ready);
});

test.run();
