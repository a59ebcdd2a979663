/**
 * ReadableStream.prototype.pipeTo() and pipeThrough(): chunk delivery, close/error/cancel propagation,
 * prevent* options, AbortSignal, locking, backpressure.
 * Spec: https://streams.spec.whatwg.org/#rs-pipe-to, #readable-stream-pipe-to, #rs-pipe-through
 *
 *   node tests/unit/pipe-to.test.ts   deno run -A tests/unit/pipe-to.test.ts   bun tests/unit/pipe-to.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  ReadableStream,
  ReadableStreamDefaultController,
  TransformStream,
  WritableStream,
  WritableStreamDefaultController,
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

/** Resolves like the promise, but fails if it is still pending after 2 s. */
function within<T>(promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error("promise still pending after 2 s")),
      2000,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Resolves with the rejection reason; fails if the promise fulfils or stays pending for 2 s (a hung pipe). */
function rejection(promise: Promise<unknown>): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error("promise still pending after 2 s")),
      2000,
    );
  });
  const settled = promise.then(
    () => {
      assert.unreachable("expected the promise to reject");
    },
    (err: unknown) => err,
  );
  return Promise.race([settled, timeout]).finally(() => clearTimeout(timer));
}

interface Recorder<T> {
  stream: WritableStream<T>;
  log: string[];
  chunks: T[];
  abortReasons: unknown[];
  controller: () => WritableStreamDefaultController;
}

function recorder<T>(write?: (chunk: T) => unknown, hwm = 1): Recorder<T> {
  const log: string[] = [];
  const chunks: T[] = [];
  const abortReasons: unknown[] = [];
  let controller!: WritableStreamDefaultController;
  const stream = new WritableStream<T>(
    {
      start(c) {
        controller = c;
      },
      write(chunk) {
        log.push(`write:${String(chunk)}`);
        chunks.push(chunk);
        return write?.(chunk) as void;
      },
      close() {
        log.push("close");
      },
      abort(reason) {
        log.push("abort");
        abortReasons.push(reason);
      },
    },
    { highWaterMark: hwm },
  );
  return { stream, log, chunks, abortReasons, controller: () => controller };
}

interface Source<T> {
  stream: ReadableStream<T>;
  controller: ReadableStreamDefaultController<T>;
  cancelReasons: unknown[];
}

function source<T>(chunks: T[] = [], close = false, hwm = 1): Source<T> {
  const cancelReasons: unknown[] = [];
  let controller!: ReadableStreamDefaultController<T>;
  const stream = new ReadableStream<T>(
    {
      start(c) {
        controller = c;
        for (const chunk of chunks) c.enqueue(chunk);
        if (close) c.close();
      },
      cancel(reason) {
        cancelReasons.push(reason);
      },
    },
    { highWaterMark: hwm },
  );
  return { stream, controller, cancelReasons };
}

// --- basic delivery and locking -----------------------------------------------------------------

test("pipeTo: delivers every chunk in order, closes the destination and resolves undefined", async () => {
  const src = source(["a", "b", "c"], true);
  const dest = recorder<string>();
  assert.is(await src.stream.pipeTo(dest.stream), undefined);
  assert.equal(dest.log, ["write:a", "write:b", "write:c", "close"]);
});

test("pipeTo: chunk identity is preserved", async () => {
  const objs = [{ n: 1 }, { n: 2 }];
  const src = source(objs, true);
  const dest = recorder<{ n: number }>();
  await src.stream.pipeTo(dest.stream);
  assert.is(dest.chunks[0], objs[0]);
  assert.is(dest.chunks[1], objs[1]);
});

test("pipeTo: both streams are locked during the pipe and unlocked afterwards", async () => {
  const src = source<number>();
  const dest = recorder<number>();
  const pipe = src.stream.pipeTo(dest.stream);
  assert.is(src.stream.locked, true);
  assert.is(dest.stream.locked, true);
  src.controller.enqueue(1);
  src.controller.close();
  await pipe;
  assert.is(src.stream.locked, false);
  assert.is(dest.stream.locked, false);
});

test("pipeTo: a locked source rejects with TypeError and leaves the destination unlocked", async () => {
  const src = source<number>();
  src.stream.getReader();
  const dest = recorder<number>();
  assert.instance(await rejection(src.stream.pipeTo(dest.stream)), TypeError);
  assert.is(dest.stream.locked, false);
});

test("pipeTo: a locked destination rejects with TypeError and leaves the source unlocked", async () => {
  const src = source<number>();
  const dest = recorder<number>();
  dest.stream.getWriter();
  assert.instance(await rejection(src.stream.pipeTo(dest.stream)), TypeError);
  assert.is(src.stream.locked, false);
});

test("pipeTo: a non-WritableStream destination rejects with TypeError (no synchronous throw)", async () => {
  const src = source<number>();
  for (const bad of [undefined, null, {}, { getWriter() {} }, new TransformStream()]) {
    let promise!: Promise<unknown>;
    try {
      promise = src.stream.pipeTo(bad as never);
    } catch (err) {
      assert.unreachable(`pipeTo threw synchronously: ${String(err)}`);
    }
    assert.instance(await rejection(promise), TypeError);
  }
  assert.is(src.stream.locked, false);
});

test("pipeTo: a non-AbortSignal signal rejects with TypeError", async () => {
  const src = source<number>();
  const dest = recorder<number>();
  assert.instance(await rejection(src.stream.pipeTo(dest.stream, { signal: {} as never })), TypeError);
  assert.is(src.stream.locked, false);
  assert.is(dest.stream.locked, false);
});

test("pipeTo: the destination's close happens only after all writes finished; pipeTo waits for it", async () => {
  let finishWrite!: () => void;
  const order: string[] = [];
  const dest = new WritableStream<string>({
    write(chunk) {
      order.push(`write ${chunk} start`);
      return new Promise<void>((r) => (finishWrite = r)).then(() => void order.push(`write ${chunk} end`));
    },
    close() {
      order.push("close");
    },
  });
  const src = source(["x"], true);
  const pipe = src.stream.pipeTo(dest);
  await delay();
  assert.equal(order, ["write x start"]);
  finishWrite();
  await pipe;
  assert.equal(order, ["write x start", "write x end", "close"]);
});

// --- close propagation ----------------------------------------------------------------------------

test("preventClose: the destination is left open and writable", async () => {
  const src = source(["a"], true);
  const dest = recorder<string>();
  await src.stream.pipeTo(dest.stream, { preventClose: true });
  assert.equal(dest.log, ["write:a"]);
  const writer = dest.stream.getWriter();
  await writer.write("after");
  assert.equal(dest.log, ["write:a", "write:after"]);
});

test("close propagation: an already closed source closes the destination", async () => {
  const src = source<string>([], true);
  const dest = recorder<string>();
  await src.stream.pipeTo(dest.stream);
  assert.equal(dest.log, ["close"]);
});

test("backward close: a closed destination cancels the source with a TypeError and rejects with it", async () => {
  const src = source<string>(["a"]);
  const dest = recorder<string>();
  const writer = dest.stream.getWriter();
  await writer.close();
  writer.releaseLock();
  const err = await rejection(src.stream.pipeTo(dest.stream));
  assert.instance(err, TypeError);
  assert.is(src.cancelReasons.length, 1);
  assert.is(src.cancelReasons[0], err);
  assert.equal(dest.log, ["close"]);
});

test("backward close with preventCancel: the source is not cancelled", async () => {
  const src = source<string>(["a"]);
  const dest = recorder<string>();
  const writer = dest.stream.getWriter();
  await writer.close();
  writer.releaseLock();
  assert.instance(await rejection(src.stream.pipeTo(dest.stream, { preventCancel: true })), TypeError);
  assert.equal(src.cancelReasons, []);
  assert.equal(
    await within(src.stream.getReader().read()),
    { value: "a", done: false },
    "the pipe did not consume the chunk",
  );
});

// --- error propagation forward ---------------------------------------------------------------------

test("forward error: a source error aborts the destination with it and pipeTo rejects with it", async () => {
  const theError = new Error("source failed");
  const src = source<string>(["a"]);
  const dest = recorder<string>();
  const pipe = rejection(src.stream.pipeTo(dest.stream));
  await delay();
  src.controller.error(theError);
  assert.is(await pipe, theError);
  assert.equal(dest.log, ["write:a", "abort"]);
  assert.is(dest.abortReasons[0], theError);
});

test("forward error: an already errored source aborts the destination", async () => {
  const theError = new Error("errored before pipe");
  const src = source<string>();
  src.controller.error(theError);
  const dest = recorder<string>();
  assert.is(await rejection(src.stream.pipeTo(dest.stream)), theError);
  assert.equal(dest.abortReasons, [theError]);
});

test("preventAbort: a source error leaves the destination writable", async () => {
  const theError = new Error("no abort");
  const src = source<string>();
  const dest = recorder<string>();
  const pipe = rejection(src.stream.pipeTo(dest.stream, { preventAbort: true }));
  src.controller.error(theError);
  assert.is(await pipe, theError);
  assert.equal(dest.abortReasons, []);
  const writer = dest.stream.getWriter();
  await writer.write("still ok");
  assert.equal(dest.log, ["write:still ok"]);
});

// --- error propagation backward ---------------------------------------------------------------------

test("backward error: a failing write cancels the source with that error and pipeTo rejects with it", async () => {
  const theError = new Error("write failed");
  const src = source(["a", "b"]);
  const dest = recorder<string>(() => {
    throw theError;
  });
  assert.is(await rejection(src.stream.pipeTo(dest.stream)), theError);
  assert.is(src.cancelReasons.length, 1);
  assert.is(src.cancelReasons[0], theError);
});

test("backward error: a destination errored while the pipe is idle cancels the source", async () => {
  const theError = new Error("dest errored");
  const src = source<string>();
  const dest = recorder<string>();
  const pipe = rejection(src.stream.pipeTo(dest.stream));
  await delay();
  dest.controller().error(theError);
  assert.is(await pipe, theError);
  assert.equal(src.cancelReasons, [theError]);
});

test("backward error: an already errored destination cancels the source with its stored error", async () => {
  const theError = new Error("stored dest error");
  const src = source<string>(["a"]);
  const dest = recorder<string>();
  dest.controller().error(theError);
  assert.is(await rejection(src.stream.pipeTo(dest.stream)), theError);
  assert.equal(src.cancelReasons, [theError]);
});

test("preventCancel: a destination error leaves the source uncancelled and unlocked", async () => {
  const theError = new Error("keep source");
  const src = source(["a", "b"]);
  const dest = recorder<string>(() => {
    throw theError;
  });
  assert.is(await rejection(src.stream.pipeTo(dest.stream, { preventCancel: true })), theError);
  assert.equal(src.cancelReasons, []);
  assert.is(src.stream.locked, false);
  assert.equal(await within(src.stream.getReader().read()), { value: "b", done: false });
});

// --- AbortSignal -------------------------------------------------------------------------------------

test("signal: an already aborted signal rejects with its reason, cancels and aborts with it, writes nothing", async () => {
  const reason = new Error("aborted before start");
  const src = source(["a"]);
  const dest = recorder<string>();
  const ac = new AbortController();
  ac.abort(reason);
  assert.is(await rejection(src.stream.pipeTo(dest.stream, { signal: ac.signal })), reason);
  assert.equal(src.cancelReasons, [reason]);
  assert.equal(dest.abortReasons, [reason]);
  assert.equal(dest.chunks, []);
});

test("signal: aborting mid-pipe stops it with the same reason", async () => {
  const reason = { custom: "reason" };
  const src = source<string>(["a"]);
  const dest = recorder<string>();
  const ac = new AbortController();
  const pipe = rejection(src.stream.pipeTo(dest.stream, { signal: ac.signal }));
  await delay();
  assert.equal(dest.chunks, ["a"]);
  ac.abort(reason);
  assert.is(await pipe, reason);
  assert.equal(src.cancelReasons, [reason]);
  assert.equal(dest.abortReasons, [reason]);
  assert.is(src.stream.locked, false);
  assert.is(dest.stream.locked, false);
});

test("signal: abort() without a reason rejects with signal.reason (an AbortError DOMException)", async () => {
  const src = source<string>();
  const dest = recorder<string>();
  const ac = new AbortController();
  const pipe = rejection(src.stream.pipeTo(dest.stream, { signal: ac.signal }));
  ac.abort();
  const err = await pipe;
  assert.is(err, ac.signal.reason);
  assert.is((err as DOMException).name, "AbortError");
});

test("signal: with preventAbort and preventCancel neither side is touched", async () => {
  const reason = new Error("just stop");
  const src = source<string>(["a", "b"], false, 0);
  const dest = recorder<string>();
  const ac = new AbortController();
  const pipe = rejection(
    src.stream.pipeTo(dest.stream, { signal: ac.signal, preventAbort: true, preventCancel: true }),
  );
  await delay();
  ac.abort(reason);
  assert.is(await pipe, reason);
  assert.equal(src.cancelReasons, []);
  assert.equal(dest.abortReasons, []);
  assert.is(src.stream.locked, false);
  assert.is(dest.stream.locked, false);
});

test("signal: aborting after the pipe finished has no effect", async () => {
  const src = source(["a"], true);
  const dest = recorder<string>();
  const ac = new AbortController();
  await src.stream.pipeTo(dest.stream, { signal: ac.signal });
  ac.abort(new Error("late"));
  await delay();
  assert.equal(dest.abortReasons, []);
  assert.equal(dest.log, ["write:a", "close"]);
});

// --- backpressure --------------------------------------------------------------------------------------

test("backpressure: with a stalled sink of high-water mark 1 the pipe takes exactly one chunk", async () => {
  const src = source([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], false, 10);
  const dest = recorder<number>(() => new Promise(() => {}), 1);
  void src.stream.pipeTo(dest.stream).catch(() => {});
  await delay(5);
  assert.equal(dest.chunks, [1]);
  assert.is(src.controller.desiredSize, 1, "nine chunks are still queued in the source");
});

test("backpressure: with a stalled sink of high-water mark 3 the pipe fills the writable queue", async () => {
  const src = source([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], false, 10);
  const dest = recorder<number>(() => new Promise(() => {}), 3);
  void src.stream.pipeTo(dest.stream).catch(() => {});
  await delay(5);
  assert.equal(dest.chunks, [1], "the first write is still in flight");
  assert.is(src.controller.desiredSize, 3, "seven chunks left: three moved into the writable queue");
});

// --- pipeThrough ---------------------------------------------------------------------------------------

test("pipeThrough: returns the transform's readable and pipes data through it", async () => {
  const src = source(["a", "b"], true);
  const ts = new TransformStream<string, string>({
    transform(chunk, c) {
      c.enqueue(chunk.toUpperCase());
    },
  });
  const out = src.stream.pipeThrough(ts);
  assert.is(out, ts.readable);
  assert.is(ts.writable.locked, true);
  const reader = out.getReader();
  assert.equal(await reader.read(), { value: "A", done: false });
  assert.equal(await reader.read(), { value: "B", done: false });
  assert.equal(await reader.read(), { value: undefined, done: true });
});

test("pipeThrough: works with any { writable, readable } pair", async () => {
  const src = source([1, 2], true);
  const dest = recorder<number>();
  const readable = new ReadableStream();
  const out = src.stream.pipeThrough({ writable: dest.stream, readable });
  assert.is(out, readable);
  await delay(5);
  assert.equal(dest.log, ["write:1", "write:2", "close"]);
});

test("pipeThrough: a locked source or locked writable throws TypeError synchronously", () => {
  const a = source<number>();
  a.stream.getReader();
  assert.instance(syncError(() => a.stream.pipeThrough(new TransformStream())), TypeError);
  const b = source<number>();
  const ts = new TransformStream();
  ts.writable.getWriter();
  assert.instance(syncError(() => b.stream.pipeThrough(ts)), TypeError);
  assert.is(b.stream.locked, false);
});

test("pipeThrough: a pair without a proper readable or writable throws TypeError", () => {
  const src = source<number>();
  const ws = new WritableStream();
  const rs = new ReadableStream();
  for (
    const bad of [undefined, {}, { readable: rs }, { writable: ws }, { readable: {}, writable: ws }, {
      readable: rs,
      writable: {},
    }]
  ) {
    assert.instance(syncError(() => src.stream.pipeThrough(bad as never)), TypeError);
  }
  assert.is(src.stream.locked, false);
});

test("pipeThrough: options are honoured (preventClose leaves the writable open)", async () => {
  const src = source(["a"], true);
  const ts = new TransformStream<string, string>();
  const out = src.stream.pipeThrough(ts, { preventClose: true });
  const reader = out.getReader();
  assert.equal(await reader.read(), { value: "a", done: false });
  await delay(5);
  let settled = false;
  reader.read().then(() => (settled = true), () => (settled = true));
  await delay(5);
  assert.is(settled, false, "the transform's readable is not closed");
  assert.is(ts.writable.locked, false);
  reader.releaseLock();
});

// --- user-patchable built-ins ------------------------------------------------------------------------

/**
 * Wraps the methods `names` of `target` so that calls are counted (and still work), runs `fn`, and puts the
 * exact original descriptors back.
 */
async function countingCalls(target: object, names: PropertyKey[], fn: () => Promise<void>): Promise<number> {
  const saved = names.map((n) => Object.getOwnPropertyDescriptor(target, n)!);
  let calls = 0;
  try {
    names.forEach((n, i) => {
      const original = saved[i]!.value as (...args: unknown[]) => unknown;
      Object.defineProperty(target, n, {
        ...saved[i],
        value: function (this: unknown, ...args: unknown[]) {
          calls++;
          return Reflect.apply(original, this, args);
        },
      });
    });
    await fn();
  } finally {
    names.forEach((n, i) => Object.defineProperty(target, n, saved[i]!));
  }
  return calls;
}

test("signal: aborting a pipe goes through no patched Array.prototype.push or array iterator", async () => {
  const ArrayIteratorPrototype = Object.getPrototypeOf([][Symbol.iterator]()) as object;
  let cancelled = 0;
  let aborted = 0;
  const rs = new ReadableStream({
    cancel() {
      cancelled++;
    },
  });
  const ws = new WritableStream({
    abort() {
      aborted++;
    },
  });
  const ac = new AbortController();
  const reason = new Error("stop");
  let outcome: unknown;
  const pipe = rs.pipeTo(ws, { signal: ac.signal }).then(() => "fulfilled", (e: unknown) => e);
  await delay();
  const iteratorCalls = await countingCalls(ArrayIteratorPrototype, ["next"], async () => {
    const pushCalls = await countingCalls(Array.prototype, ["push", Symbol.iterator], async () => {
      ac.abort(reason);
      outcome = await pipe;
    });
    assert.is(pushCalls, 0, "Array.prototype.push / [Symbol.iterator] called");
  });
  assert.is(iteratorCalls, 0, "%ArrayIteratorPrototype%.next called");
  assert.is(outcome, reason);
  assert.is(cancelled, 1);
  assert.is(aborted, 1);
});

test("signal: an 'abort' event dispatched on a signal that is not aborted does not stop the pipe", async () => {
  let cancelled = 0;
  let aborted = 0;
  let controller!: ReadableStreamDefaultController<string>;
  const rs = new ReadableStream<string>({
    start(c) {
      controller = c;
    },
    cancel() {
      cancelled++;
    },
  });
  const written: string[] = [];
  const ws = new WritableStream<string>({
    write(chunk) {
      written.push(chunk);
    },
    abort() {
      aborted++;
    },
  });
  const ac = new AbortController();
  let settled: unknown = "pending";
  const pipe = rs.pipeTo(ws, { signal: ac.signal }).then(() => "fulfilled", (e: unknown) => e);
  void pipe.then((v) => {
    settled = v;
  });
  await delay();
  ac.signal.dispatchEvent(new Event("abort"));
  await delay();
  assert.is(settled, "pending", "the pipe must only react to the signal being aborted (DOM 'signal abort')");
  assert.is(cancelled, 0);
  assert.is(aborted, 0);
  controller.enqueue("still piping");
  await delay();
  assert.equal(written, ["still piping"]);
  const reason = new Error("now for real");
  ac.abort(reason);
  assert.is(await pipe, reason);
  assert.is(cancelled, 1);
  assert.is(aborted, 1);
});

test.run();
