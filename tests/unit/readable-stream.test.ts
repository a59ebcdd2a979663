/**
 * ReadableStream: constructor validation, underlying-source call protocol, locked, cancel, backpressure.
 * Spec: https://streams.spec.whatwg.org/#rs-class
 *
 *   node tests/unit/readable-stream.test.ts   deno run -A tests/unit/readable-stream.test.ts   bun tests/unit/readable-stream.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  CountQueuingStrategy,
  ReadableStream,
  ReadableStreamDefaultController,
  ReadableStreamDefaultReader,
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

// --- constructor validation -------------------------------------------------------------------

test("constructor: no arguments and an empty object both give an unlocked stream", () => {
  const a = new ReadableStream();
  const b = new ReadableStream({});
  assert.is(a.locked, false);
  assert.is(b.locked, false);
  assert.instance(a, ReadableStream);
});

test("constructor: null or a primitive underlyingSource throws TypeError", () => {
  for (const bad of [null, 1, "source", true, Symbol("s")]) {
    assert.instance(syncError(() => new ReadableStream(bad as never)), TypeError, `source ${String(bad)}`);
  }
});

test("constructor: non-callable start, pull or cancel throws TypeError", () => {
  for (const member of ["start", "pull", "cancel"]) {
    for (const value of [5, "x", {}, null]) {
      const err = syncError(() => new ReadableStream({ [member]: value } as never));
      assert.instance(err, TypeError, `${member}: ${String(value)}`);
    }
  }
});

test("constructor: an unknown type value throws TypeError (enum conversion), undefined type is default", () => {
  for (const type of ["byte", "BYTES", "", null, "default"]) {
    assert.instance(syncError(() => new ReadableStream({ type } as never)), TypeError, `type ${String(type)}`);
  }
  let controller: unknown;
  new ReadableStream({ type: undefined, start: (c) => void (controller = c) });
  assert.instance(controller, ReadableStreamDefaultController);
});

test("constructor: negative or NaN highWaterMark throws RangeError", () => {
  for (const hwm of [-1, -Infinity, NaN, "abc", {}]) {
    const err = syncError(() => new ReadableStream({}, { highWaterMark: hwm as number }));
    assert.instance(err, RangeError, `highWaterMark ${String(hwm)}`);
  }
});

test("constructor: highWaterMark is converted with ToNumber; Infinity and 0 are accepted", () => {
  let seen: number | null = null;
  new ReadableStream({ start: (c) => void (seen = c.desiredSize) }, { highWaterMark: "7" as unknown as number });
  assert.is(seen, 7);
  new ReadableStream({ start: (c) => void (seen = c.desiredSize) }, { highWaterMark: Infinity });
  assert.is(seen, Infinity);
  new ReadableStream({ start: (c) => void (seen = c.desiredSize) }, { highWaterMark: 0 });
  assert.is(seen, 0);
});

test("constructor: a non-callable strategy size throws TypeError", () => {
  for (const size of [1, "size", {}, null]) {
    const err = syncError(() => new ReadableStream({}, { size: size as never }));
    assert.instance(err, TypeError, `size ${String(size)}`);
  }
});

test("constructor: a byte stream with a size function throws RangeError", () => {
  const err = syncError(() => new ReadableStream({ type: "bytes" }, { size: () => 1 } as never));
  assert.instance(err, RangeError);
});

test("constructor: an underlyingSource member error wins over a highWaterMark error", () => {
  const err = syncError(() => new ReadableStream({ start: 5 } as never, { highWaterMark: -1 }));
  assert.instance(err, TypeError);
});

test("constructor: strategy members are read before underlyingSource members, each in dictionary order", () => {
  const log: string[] = [];
  const source = {};
  for (const key of ["type", "start", "pull", "cancel", "autoAllocateChunkSize"]) {
    Object.defineProperty(source, key, {
      get() {
        log.push(`source.${key}`);
        return undefined;
      },
    });
  }
  const strategy = {};
  for (const key of ["size", "highWaterMark"]) {
    Object.defineProperty(strategy, key, {
      get() {
        log.push(`strategy.${key}`);
        return undefined;
      },
    });
  }
  new ReadableStream(source, strategy);
  assert.equal(log, [
    "strategy.highWaterMark",
    "strategy.size",
    "source.autoAllocateChunkSize",
    "source.cancel",
    "source.pull",
    "source.start",
    "source.type",
  ]);
});

test("constructor: a throwing underlyingSource getter propagates its exact error", () => {
  const theError = new Error("getter");
  const source = {
    get pull(): never {
      throw theError;
    },
  };
  assert.is(syncError(() => new ReadableStream(source)), theError);
});

test("constructor: default highWaterMark is 1 for default streams and 0 for byte streams", () => {
  let defaultSize: number | null = null;
  let byteSize: number | null = null;
  new ReadableStream({ start: (c) => void (defaultSize = c.desiredSize) });
  new ReadableStream({ type: "bytes", start: (c) => void (byteSize = c.desiredSize) });
  assert.is(defaultSize, 1);
  assert.is(byteSize, 0);
});

// --- underlying source protocol -------------------------------------------------------------

test("start: called synchronously once, with the controller and this = underlyingSource", () => {
  const calls: { self: unknown; args: unknown[] }[] = [];
  const source = {
    start(...args: unknown[]) {
      calls.push({ self: this, args });
    },
  };
  new ReadableStream(source);
  assert.is(calls.length, 1);
  assert.is(calls[0]!.self, source);
  assert.is(calls[0]!.args.length, 1);
  assert.instance(calls[0]!.args[0], ReadableStreamDefaultController);
});

test("start: a synchronous throw propagates out of the constructor with identity", () => {
  const theError = new Error("start");
  const err = syncError(
    () =>
      new ReadableStream({
        start() {
          throw theError;
        },
      }),
  );
  assert.is(err, theError);
});

test("start: a rejected start promise errors the stream with that reason", async () => {
  const theError = new Error("start rejected");
  const stream = new ReadableStream({ start: () => Promise.reject(theError) });
  const reader = stream.getReader();
  assert.is(await rejection(reader.read()), theError);
  assert.is(await rejection(reader.closed), theError);
});

test("pull: not called before start's promise settles, then called with the controller", async () => {
  const log: string[] = [];
  let resolveStart!: () => void;
  let pullController: unknown;
  let startController: unknown;
  const source = {
    start(c: ReadableStreamDefaultController<number>) {
      startController = c;
      log.push("start");
      return new Promise<void>((r) => (resolveStart = r));
    },
    pull(c: ReadableStreamDefaultController<number>) {
      assert.is(this, source);
      pullController = c;
      log.push("pull");
    },
  };
  new ReadableStream(source);
  await delay();
  assert.equal(log, ["start"]);
  resolveStart();
  await delay();
  assert.equal(log, ["start", "pull"]);
  assert.is(pullController, startController);
});

test("pull: called once after start when the queue is below the high-water mark, not again while full", async () => {
  let pulls = 0;
  new ReadableStream<number>({
    pull(c) {
      pulls++;
      c.enqueue(pulls);
    },
  });
  await delay();
  assert.is(pulls, 1, "HWM 1: one chunk fills the queue");
});

test("pull: not re-entered while a previous pull promise is pending", async () => {
  let pulls = 0;
  let finishPull!: () => void;
  const stream = new ReadableStream<number>(
    {
      pull() {
        pulls++;
        return new Promise<void>((r) => (finishPull = r));
      },
    },
    { highWaterMark: 10 },
  );
  await delay();
  assert.is(pulls, 1);
  const reader = stream.getReader();
  const pending = [reader.read(), reader.read()].map((p) => p.catch((e: unknown) => e));
  await delay();
  assert.is(pulls, 1, "still waiting for the first pull");
  finishPull();
  await delay();
  assert.is(pulls, 2, "pull again once the previous one settled and more is needed");
  reader.releaseLock();
  for (const err of await Promise.all(pending)) assert.instance(err, TypeError);
});

test("pull: a pull request made during a pending pull triggers exactly one more pull afterwards", async () => {
  let pulls = 0;
  let finishPull!: () => void;
  const stream = new ReadableStream<number>(
    {
      pull(c) {
        pulls++;
        return new Promise<void>((r) => (finishPull = r)).then(() => c.enqueue(pulls));
      },
    },
    { highWaterMark: 0 },
  );
  const reader = stream.getReader();
  const first = reader.read();
  await delay();
  assert.is(pulls, 1);
  const second = reader.read();
  await delay();
  assert.is(pulls, 1);
  finishPull();
  assert.equal(await first, { value: 1, done: false });
  await delay();
  assert.is(pulls, 2);
  finishPull();
  assert.equal(await second, { value: 2, done: false });
});

test("pull: a throw errors the stream with that error", async () => {
  const theError = new Error("pull");
  const stream = new ReadableStream({
    pull() {
      throw theError;
    },
  });
  const reader = stream.getReader();
  assert.is(await rejection(reader.read()), theError);
  assert.is(await rejection(reader.closed), theError);
});

test("pull: a rejected promise errors the stream with that reason", async () => {
  const theError = new Error("pull rejected");
  const stream = new ReadableStream({ pull: () => Promise.reject(theError) });
  assert.is(await rejection(stream.getReader().read()), theError);
});

// --- locked / getReader ----------------------------------------------------------------------

test("locked: false, true while a reader is held, false after releaseLock", () => {
  const stream = new ReadableStream();
  assert.is(stream.locked, false);
  const reader = stream.getReader();
  assert.is(stream.locked, true);
  reader.releaseLock();
  assert.is(stream.locked, false);
});

test("getReader: returns a ReadableStreamDefaultReader; a second getReader throws TypeError", () => {
  const stream = new ReadableStream();
  const reader = stream.getReader();
  assert.instance(reader, ReadableStreamDefaultReader);
  assert.instance(syncError(() => stream.getReader()), TypeError);
});

test("getReader: mode 'byob' on a default stream throws TypeError and leaves it unlocked", () => {
  const stream = new ReadableStream();
  assert.instance(syncError(() => stream.getReader({ mode: "byob" })), TypeError);
  assert.is(stream.locked, false);
});

test("getReader: an invalid mode throws TypeError; mode undefined gives a default reader", () => {
  const stream = new ReadableStream();
  assert.instance(syncError(() => stream.getReader({ mode: "default" } as never)), TypeError);
  assert.is(stream.locked, false);
  assert.instance(stream.getReader({ mode: undefined }), ReadableStreamDefaultReader);
});

// --- cancel -------------------------------------------------------------------------------------

test("cancel: calls source.cancel once with the reason and this = source; resolves undefined", async () => {
  const calls: { self: unknown; args: unknown[] }[] = [];
  const source = {
    cancel(...args: unknown[]) {
      calls.push({ self: this, args });
      return "ignored value";
    },
  };
  const stream = new ReadableStream(source as never);
  const reason = { why: "test" };
  assert.is(await stream.cancel(reason), undefined);
  assert.is(calls.length, 1);
  assert.is(calls[0]!.self, source);
  assert.equal(calls[0]!.args.length, 1);
  assert.is(calls[0]!.args[0], reason);
});

test("cancel: on a locked stream rejects with TypeError and does not call source.cancel", async () => {
  let cancelled = false;
  const stream = new ReadableStream({ cancel: () => void (cancelled = true) });
  stream.getReader();
  assert.instance(await rejection(stream.cancel()), TypeError);
  assert.is(cancelled, false);
});

test("cancel: a throwing or rejecting source.cancel rejects cancel() with that error", async () => {
  const e1 = new Error("throw");
  const e2 = new Error("reject");
  const s1 = new ReadableStream({
    cancel() {
      throw e1;
    },
  });
  const s2 = new ReadableStream({ cancel: () => Promise.reject(e2) });
  assert.is(await rejection(s1.cancel()), e1);
  assert.is(await rejection(s2.cancel()), e2);
});

test("cancel: discards queued chunks and closes the stream", async () => {
  const stream = new ReadableStream<number>({
    start(c) {
      c.enqueue(1);
      c.enqueue(2);
    },
  });
  await stream.cancel();
  const reader = stream.getReader();
  assert.equal(await reader.read(), { value: undefined, done: true });
  await reader.closed;
});

test("cancel: waits for source.cancel's promise", async () => {
  let finish!: () => void;
  let settled = false;
  const stream = new ReadableStream({ cancel: () => new Promise<void>((r) => (finish = r)) });
  const p = stream.cancel().then(() => void (settled = true));
  await delay();
  assert.is(settled, false);
  finish();
  await p;
  assert.is(settled, true);
});

test("cancel: on a closed stream resolves without calling source.cancel", async () => {
  let cancelled = false;
  const stream = new ReadableStream({ start: (c) => c.close(), cancel: () => void (cancelled = true) });
  assert.is(await stream.cancel("r"), undefined);
  assert.is(cancelled, false);
});

test("cancel: on an errored stream rejects with the stored error", async () => {
  const theError = new Error("stored");
  const stream = new ReadableStream({ start: (c) => c.error(theError) });
  assert.is(await rejection(stream.cancel()), theError);
});

test("cancel: source.cancel is not called after the stream was cancelled once", async () => {
  let calls = 0;
  const stream = new ReadableStream({ cancel: () => void calls++ });
  await stream.cancel("a");
  await stream.cancel("b");
  assert.is(calls, 1);
});

// --- backpressure ----------------------------------------------------------------------------

test("backpressure: pull fills the queue exactly up to the high-water mark, then stops", async () => {
  let pulls = 0;
  let controller!: ReadableStreamDefaultController<number>;
  new ReadableStream<number>(
    {
      start(c) {
        controller = c;
      },
      pull(c) {
        pulls++;
        c.enqueue(pulls);
      },
    },
    new CountQueuingStrategy({ highWaterMark: 4 }),
  );
  await delay();
  assert.is(pulls, 4);
  assert.is(controller.desiredSize, 0);
});

test("backpressure: a fast producer and a slow consumer keep the queue at the high-water mark", async () => {
  const HWM = 3;
  let pulls = 0;
  let controller!: ReadableStreamDefaultController<number>;
  const stream = new ReadableStream<number>(
    {
      start(c) {
        controller = c;
      },
      pull(c) {
        pulls++;
        c.enqueue(pulls);
      },
    },
    { highWaterMark: HWM },
  );
  const reader = stream.getReader();
  const got: number[] = [];
  await delay();
  for (let i = 1; i <= 6; i++) {
    const { value } = await reader.read();
    got.push(value!);
    await delay(2);
    assert.is(pulls, HWM + i, `after ${i} reads, pull ran HWM + reads times`);
    assert.is(controller.desiredSize, 0, "queue refilled to the HWM, never above");
  }
  assert.equal(got, [1, 2, 3, 4, 5, 6]);
});

test("backpressure: desiredSize reflects chunk sizes from the strategy's size()", () => {
  let controller!: ReadableStreamDefaultController<string>;
  new ReadableStream<string>({ start: (c) => void (controller = c) }, { highWaterMark: 10, size: (s) => s.length });
  controller.enqueue("abc");
  assert.is(controller.desiredSize, 7);
  controller.enqueue("defgh");
  assert.is(controller.desiredSize, 2);
  controller.enqueue("ijk");
  assert.is(controller.desiredSize, -1);
});

test("backpressure: the strategy's size() is called with the chunk only and this undefined", () => {
  const calls: { self: unknown; args: unknown[] }[] = [];
  let controller!: ReadableStreamDefaultController<string>;
  new ReadableStream<string>(
    { start: (c) => void (controller = c) },
    {
      size: function (this: unknown, ...args: unknown[]) {
        calls.push({ self: this, args });
        return 1;
      } as never,
    },
  );
  controller.enqueue("x");
  assert.is(calls.length, 1);
  assert.is(calls[0]!.self, undefined);
  assert.equal(calls[0]!.args, ["x"]);
});

test("highWaterMark 0: pull is called only when a read is pending", async () => {
  let pulls = 0;
  const stream = new ReadableStream<number>(
    {
      pull(c) {
        pulls++;
        c.enqueue(pulls);
      },
    },
    { highWaterMark: 0 },
  );
  await delay();
  assert.is(pulls, 0);
  const reader = stream.getReader();
  assert.equal(await reader.read(), { value: 1, done: false });
  await delay();
  assert.is(pulls, 1);
});

test("a stream with no source members stays open: a read stays pending", async () => {
  const reader = new ReadableStream().getReader();
  let settled = false;
  reader.read().then(
    () => (settled = true),
    () => (settled = true),
  );
  await delay(5);
  assert.is(settled, false);
  reader.releaseLock();
});

test.run();
