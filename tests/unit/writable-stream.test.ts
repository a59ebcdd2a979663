/**
 * WritableStream: constructor validation, underlying-sink call protocol, close(), abort(), locking.
 * Spec: https://streams.spec.whatwg.org/#ws-class
 *
 *   node tests/unit/writable-stream.test.ts   deno run -A tests/unit/writable-stream.test.ts   bun tests/unit/writable-stream.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { WritableStream, WritableStreamDefaultController, WritableStreamDefaultWriter } from "../../mod.ts";

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

interface Call {
  name: string;
  self: unknown;
  args: unknown[];
}

// --- constructor ------------------------------------------------------------------------------------

test("constructor: no arguments or an empty sink give an unlocked stream", () => {
  assert.is(new WritableStream().locked, false);
  assert.is(new WritableStream({}).locked, false);
});

test("constructor: null or a primitive sink throws TypeError", () => {
  for (const bad of [null, 0, "sink", false]) {
    assert.instance(syncError(() => new WritableStream(bad as never)), TypeError, String(bad));
  }
});

test("constructor: non-callable start, write, close or abort throws TypeError", () => {
  for (const member of ["start", "write", "close", "abort"]) {
    for (const value of [1, "f", {}, null]) {
      assert.instance(
        syncError(() => new WritableStream({ [member]: value } as never)),
        TypeError,
        `${member}: ${String(value)}`,
      );
    }
  }
});

test("constructor: any defined 'type' member throws RangeError; undefined is fine", () => {
  for (const type of ["bytes", "default", null, 0]) {
    assert.instance(syncError(() => new WritableStream({ type } as never)), RangeError, String(type));
  }
  new WritableStream({ type: undefined } as never);
});

test("constructor: a defined 'type' throws RangeError only after the whole sink dictionary is converted", () => {
  // §5.2.3: step 2 converts every member (abort, close, start, type, write); step 3 then checks type.
  const log: string[] = [];
  const sink = {
    type: "bytes",
    get write() {
      log.push("write");
      return 5;
    },
  };
  assert.instance(syncError(() => new WritableStream(sink as never)), TypeError, "write is converted first");
  assert.equal(log, ["write"]);
  const ok = {
    type: "bytes",
    get write() {
      log.push("write again");
      return () => {};
    },
  };
  assert.instance(syncError(() => new WritableStream(ok as never)), RangeError);
  assert.equal(log, ["write", "write again"]);
});

test("constructor: bad highWaterMark throws RangeError, non-callable size throws TypeError", () => {
  for (const hwm of [-1, NaN, "x"]) {
    assert.instance(syncError(() => new WritableStream({}, { highWaterMark: hwm as number })), RangeError);
  }
  assert.instance(syncError(() => new WritableStream({}, { size: 5 as never })), TypeError);
});

test("constructor: sink members are read in dictionary order (abort, close, start, type, write)", () => {
  const log: string[] = [];
  const sink = {};
  for (const key of ["write", "type", "start", "close", "abort"]) {
    Object.defineProperty(sink, key, {
      get() {
        log.push(key);
        return undefined;
      },
    });
  }
  new WritableStream(sink);
  assert.equal(log, ["abort", "close", "start", "type", "write"]);
});

// --- sink protocol ---------------------------------------------------------------------------------

test("start: called synchronously with the controller and this = sink", () => {
  const calls: Call[] = [];
  const sink = {
    start(...args: unknown[]) {
      calls.push({ name: "start", self: this, args });
    },
  };
  new WritableStream(sink);
  assert.is(calls.length, 1);
  assert.is(calls[0]!.self, sink);
  assert.is(calls[0]!.args.length, 1);
  assert.instance(calls[0]!.args[0], WritableStreamDefaultController);
});

test("start: a synchronous throw propagates out of the constructor", () => {
  const theError = new Error("start");
  assert.is(
    syncError(
      () =>
        new WritableStream({
          start() {
            throw theError;
          },
        }),
    ),
    theError,
  );
});

test("start: a rejected promise errors the stream; writes and closed reject with that reason", async () => {
  const theError = new Error("start rejected");
  const ws = new WritableStream({ start: () => Promise.reject(theError) });
  const writer = ws.getWriter();
  assert.is(await rejection(writer.write("a")), theError);
  assert.is(await rejection(writer.closed), theError);
});

test("write: not called before start settles", async () => {
  const log: string[] = [];
  let finishStart!: () => void;
  const ws = new WritableStream<string>({
    start: () => new Promise<void>((r) => (finishStart = r)),
    write: (chunk) => void log.push(chunk),
  });
  const writer = ws.getWriter();
  const w = writer.write("a");
  await delay();
  assert.equal(log, []);
  finishStart();
  await w;
  assert.equal(log, ["a"]);
});

test("write: called with (chunk, controller) and this = sink, in order, one at a time", async () => {
  const calls: Call[] = [];
  let controller: unknown;
  const resolvers: (() => void)[] = [];
  const sink = {
    start(c: WritableStreamDefaultController) {
      controller = c;
    },
    write(...args: unknown[]) {
      calls.push({ name: "write", self: this, args });
      return new Promise<void>((r) => resolvers.push(r));
    },
  };
  const ws = new WritableStream(sink, { highWaterMark: 10 });
  const writer = ws.getWriter();
  const w1 = writer.write("one");
  const w2 = writer.write("two");
  await delay();
  assert.is(calls.length, 1, "the second write waits for the first");
  assert.is(calls[0]!.self, sink);
  assert.equal(calls[0]!.args.length, 2);
  assert.is(calls[0]!.args[0], "one");
  assert.is(calls[0]!.args[1], controller);
  resolvers[0]!();
  await w1;
  await delay();
  assert.is(calls.length, 2);
  assert.is(calls[1]!.args[0], "two");
  resolvers[1]!();
  assert.is(await w2, undefined);
});

test("write: a sink write that throws errors the stream; later writes and close reject with that error", async () => {
  const theError = new Error("write");
  let writes = 0;
  const ws = new WritableStream<string>({
    write() {
      writes++;
      throw theError;
    },
  });
  const writer = ws.getWriter();
  const w1 = rejection(writer.write("a"));
  const w2 = rejection(writer.write("b"));
  const c = rejection(writer.close());
  assert.is(await w1, theError);
  assert.is(await w2, theError);
  assert.is(await c, theError);
  assert.is(writes, 1);
  assert.is(await rejection(writer.closed), theError);
});

test("close: sink.close is called with no arguments and this = sink, after pending writes", async () => {
  const calls: Call[] = [];
  let finishWrite!: () => void;
  const sink = {
    write(chunk: unknown) {
      calls.push({ name: `write ${String(chunk)}`, self: this, args: [] });
      return new Promise<void>((r) => (finishWrite = r));
    },
    close(...args: unknown[]) {
      calls.push({ name: "close", self: this, args });
    },
  };
  const ws = new WritableStream(sink);
  const writer = ws.getWriter();
  void writer.write("a");
  const closed = writer.close();
  await delay();
  assert.equal(calls.map((c) => c.name), ["write a"]);
  finishWrite();
  assert.is(await closed, undefined);
  assert.equal(calls.map((c) => c.name), ["write a", "close"]);
  assert.is(calls[1]!.self, sink);
  assert.equal(calls[1]!.args, []);
});

test("close: a throwing sink.close rejects close() and closed with that error", async () => {
  const theError = new Error("close");
  const ws = new WritableStream({
    close() {
      throw theError;
    },
  });
  const writer = ws.getWriter();
  assert.is(await rejection(writer.close()), theError);
  assert.is(await rejection(writer.closed), theError);
});

test("stream.close(): closes an unlocked stream; rejects with TypeError if locked or already closing", async () => {
  let closes = 0;
  const ws = new WritableStream({ close: () => void closes++ });
  const p = ws.close();
  assert.instance(await rejection(ws.close()), TypeError);
  assert.is(await p, undefined);
  assert.is(closes, 1);
  const locked = new WritableStream();
  locked.getWriter();
  assert.instance(await rejection(locked.close()), TypeError);
});

// --- abort ------------------------------------------------------------------------------------------------

test("abort: calls sink.abort once with the reason and this = sink; resolves undefined", async () => {
  const calls: Call[] = [];
  const sink = {
    abort(...args: unknown[]) {
      calls.push({ name: "abort", self: this, args });
      return "ignored";
    },
  };
  const ws = new WritableStream(sink as never);
  const reason = new Error("abort reason");
  assert.is(await ws.abort(reason), undefined);
  assert.is(calls.length, 1);
  assert.is(calls[0]!.self, sink);
  assert.equal(calls[0]!.args.length, 1);
  assert.is(calls[0]!.args[0], reason);
});

test("abort: on a locked stream rejects with TypeError without aborting", async () => {
  let aborted = false;
  const ws = new WritableStream({ abort: () => void (aborted = true) });
  ws.getWriter();
  assert.instance(await rejection(ws.abort()), TypeError);
  assert.is(aborted, false);
});

test("abort: a throwing or rejecting sink.abort rejects abort() with that error", async () => {
  const e1 = new Error("throw");
  const e2 = new Error("reject");
  const ws1 = new WritableStream({
    abort() {
      throw e1;
    },
  });
  const ws2 = new WritableStream({ abort: () => Promise.reject(e2) });
  assert.is(await rejection(ws1.abort()), e1);
  assert.is(await rejection(ws2.abort()), e2);
});

test("abort: the in-flight write completes first, then queued writes reject with the reason and sink.abort runs", async () => {
  const log: string[] = [];
  let finishWrite!: () => void;
  const ws = new WritableStream<string>(
    {
      write(chunk) {
        log.push(`write ${chunk}`);
        return new Promise<void>((r) => (finishWrite = r));
      },
      abort(reason) {
        log.push(`abort ${String(reason)}`);
      },
    },
    { highWaterMark: 5 },
  );
  const writer = ws.getWriter();
  const inFlight = writer.write("a");
  const queued = rejection(writer.write("b"));
  await delay();
  let queuedSettled = false;
  void queued.then(() => (queuedSettled = true));
  const aborted = writer.abort("stop");
  await delay();
  assert.equal(log, ["write a"], "sink.abort waits for the in-flight write");
  assert.is(queuedSettled, false, "queued writes are rejected once erroring finishes");
  finishWrite();
  assert.is(await inFlight, undefined);
  assert.is(await queued, "stop");
  await aborted;
  assert.equal(log, ["write a", "abort stop"]);
  assert.is(await rejection(writer.closed), "stop");
});

test("abort: on a closed or errored stream resolves undefined without calling sink.abort", async () => {
  let aborts = 0;
  const closed = new WritableStream({ abort: () => void aborts++ });
  await closed.close();
  assert.is(await closed.abort("x"), undefined);
  let controller!: WritableStreamDefaultController;
  const errored = new WritableStream({ start: (c) => void (controller = c), abort: () => void aborts++ });
  controller.error(new Error("e"));
  await delay();
  assert.is(await errored.abort("y"), undefined);
  assert.is(aborts, 0);
});

test("abort: a second abort while the first is pending does not call sink.abort again", async () => {
  const reasons: unknown[] = [];
  let finish!: () => void;
  const ws = new WritableStream({
    abort(reason) {
      reasons.push(reason);
      return new Promise<void>((r) => (finish = r));
    },
  });
  const p1 = ws.abort("first");
  const p2 = ws.abort("second");
  await delay();
  finish();
  assert.equal(await Promise.all([p1, p2]), [undefined, undefined]);
  assert.equal(reasons, ["first"]);
});

test("abort: after a completed close resolves undefined without calling sink.abort", async () => {
  const log: string[] = [];
  const ws = new WritableStream({
    close: () => void log.push("close"),
    abort: () => void log.push("abort"),
  });
  const writer = ws.getWriter();
  await writer.close();
  assert.is(await writer.abort("late"), undefined);
  assert.equal(log, ["close"]);
});

// --- locking ----------------------------------------------------------------------------------------------

test("locked / getWriter: getWriter locks; a second getWriter throws TypeError; releaseLock unlocks", () => {
  const ws = new WritableStream();
  assert.is(ws.locked, false);
  const writer = ws.getWriter();
  assert.instance(writer, WritableStreamDefaultWriter);
  assert.is(ws.locked, true);
  assert.instance(syncError(() => ws.getWriter()), TypeError);
  writer.releaseLock();
  assert.is(ws.locked, false);
  assert.instance(ws.getWriter(), WritableStreamDefaultWriter);
});

test("strategy: size() is called once per write with the chunk; the result counts against desiredSize", async () => {
  const sizes: unknown[] = [];
  const ws = new WritableStream<string>(
    { write: () => new Promise(() => {}) },
    {
      highWaterMark: 10,
      size(chunk) {
        sizes.push(chunk);
        return chunk.length;
      },
    },
  );
  const writer = ws.getWriter();
  void writer.write("abc");
  void writer.write("de");
  assert.equal(sizes, ["abc", "de"]);
  assert.is(writer.desiredSize, 5);
});

test("an invalid chunk size errors the stream with the intrinsic RangeError, not a replaced global one", async () => {
  const RealRangeError = RangeError;
  const g = globalThis as unknown as { RangeError: unknown };
  let calls = 0;
  const ws = new WritableStream({}, { size: () => -1 });
  const writer = ws.getWriter();
  let write!: Promise<void>;
  try {
    g.RangeError = function FakeRangeError() {
      calls++;
    };
    write = writer.write("x");
  } finally {
    g.RangeError = RealRangeError;
  }
  const error = await write.then(() => undefined, (e: unknown) => e);
  assert.is(calls, 0);
  assert.instance(error, RealRangeError);
});

test("writes queued behind an in-flight write are rejected in order when the sink errors; later writes fail too", async () => {
  let finishFirst!: (e: unknown) => void;
  const seen: unknown[] = [];
  const ws = new WritableStream<number>(
    {
      write(chunk) {
        seen.push(chunk);
        return new Promise((_, reject) => {
          finishFirst = reject;
        });
      },
    },
    { highWaterMark: 8 },
  );
  const writer = ws.getWriter();
  await delay();
  const order: string[] = [];
  const w1 = writer.write(1).catch((e) => order.push(`w1 ${e}`));
  const w2 = writer.write(2).catch((e) => order.push(`w2 ${e}`));
  const w3 = writer.write(3).catch((e) => order.push(`w3 ${e}`));
  await delay();
  assert.equal(seen, [1]);
  finishFirst("boom");
  await Promise.all([w1, w2, w3]);
  assert.equal(order, ["w1 boom", "w2 boom", "w3 boom"]);
  assert.equal(seen, [1]);
  let late: unknown;
  await writer.write(4).catch((e) => (late = e));
  assert.is(late, "boom");
});

test("a queued write after an in-flight one reaches the sink once the first completes, with the sink as this", async () => {
  const calls: [unknown, unknown, boolean][] = [];
  let finish!: () => void;
  const sink = {
    write(this: unknown, chunk: unknown, controller: unknown) {
      calls.push([this, chunk, controller instanceof WritableStreamDefaultController]);
      if (calls.length === 1) return new Promise<void>((resolve) => (finish = resolve));
      return undefined;
    },
    close(this: unknown) {
      calls.push([this, "close", arguments.length === 0]);
    },
  };
  const ws = new WritableStream(sink);
  const writer = ws.getWriter();
  await delay();
  const done = [writer.write("a"), writer.write("b"), writer.close()];
  await delay();
  assert.is(calls.length, 1);
  finish();
  await Promise.all(done);
  assert.equal(calls, [
    [sink, "a", true],
    [sink, "b", true],
    [sink, "close", true],
  ]);
});

test.run();
