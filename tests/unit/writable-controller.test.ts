/**
 * WritableStreamDefaultController: signal and error().
 * Spec: https://streams.spec.whatwg.org/#ws-default-controller-class
 *
 *   node tests/unit/writable-controller.test.ts   deno run -A tests/unit/writable-controller.test.ts   bun tests/unit/writable-controller.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { WritableStream, WritableStreamDefaultController } from "../../mod.ts";

const delay = (ms = 0): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      assert.unreachable("expected the promise to reject");
    },
    (err: unknown) => err,
  );
}

function withController<T>(sink: Partial<UnderlyingSinkLike<T>> = {}, hwm = 1) {
  let controller!: WritableStreamDefaultController;
  const stream = new WritableStream<T>(
    {
      ...sink,
      start(c) {
        controller = c;
      },
    },
    { highWaterMark: hwm },
  );
  return { stream, controller };
}

interface UnderlyingSinkLike<T> {
  write(chunk: T, controller: WritableStreamDefaultController): void | Promise<void>;
  close(): void | Promise<void>;
  abort(reason: unknown): void | Promise<void>;
}

test("signal: an AbortSignal, not aborted, the same object on every access", () => {
  const { controller } = withController();
  const signal = controller.signal;
  assert.instance(signal, AbortSignal);
  assert.is(signal.aborted, false);
  assert.is(controller.signal, signal);
});

test("signal: abort(reason) aborts it synchronously with that reason, before sink.abort runs", async () => {
  const log: string[] = [];
  const { stream, controller } = withController({ abort: () => void log.push("sink.abort") });
  controller.signal.addEventListener("abort", () => log.push("abort event"));
  await delay();
  const reason = new Error("why");
  const p = stream.abort(reason);
  assert.is(controller.signal.aborted, true);
  assert.is(controller.signal.reason, reason);
  assert.equal(
    log,
    ["abort event", "sink.abort"],
    "with nothing in flight, sink.abort runs synchronously after the signal",
  );
  assert.is(await p, undefined);
});

test("signal: an in-flight write can observe the abort and the reason", async () => {
  const seen: unknown[] = [];
  const { stream } = withController<string>({
    write(_chunk, c) {
      return new Promise<void>((resolve) => {
        c.signal.addEventListener("abort", () => {
          seen.push(c.signal.reason);
          resolve();
        });
      });
    },
  });
  const writer = stream.getWriter();
  const w = writer.write("a");
  await delay();
  const reason = { stop: true };
  const aborted = writer.abort(reason);
  assert.is(await w, undefined, "the in-flight write finished normally");
  await aborted;
  assert.equal(seen.length, 1);
  assert.is(seen[0], reason);
});

test("signal: abort() with no reason gives an AbortError DOMException reason", async () => {
  const { stream, controller } = withController();
  await stream.abort();
  assert.is(controller.signal.aborted, true);
  assert.instance(controller.signal.reason, DOMException);
  assert.is((controller.signal.reason as DOMException).name, "AbortError");
});

test("signal: not aborted by close() or by controller.error()", async () => {
  const a = withController();
  await a.stream.close();
  assert.is(a.controller.signal.aborted, false);
  const b = withController();
  b.controller.error(new Error("x"));
  await delay();
  assert.is(b.controller.signal.aborted, false);
});

test("error(e): errors the stream; writes reject and closed rejects with e", async () => {
  const theError = new Error("controller");
  const { stream, controller } = withController<string>();
  const writer = stream.getWriter();
  await delay();
  controller.error(theError);
  assert.is(await rejection(writer.write("a")), theError);
  assert.is(await rejection(writer.closed), theError);
  assert.is(writer.desiredSize, null);
});

test("error(e): neither sink.abort nor sink.close is called; a later close() rejects with TypeError", async () => {
  const theError = new Error("no sink calls");
  const log: string[] = [];
  const { stream, controller } = withController({
    close: () => void log.push("close"),
    abort: () => void log.push("abort"),
  });
  await delay();
  controller.error(theError);
  await delay();
  const writer = stream.getWriter();
  assert.instance(await rejection(writer.close()), TypeError, "close() on an errored stream");
  assert.is(await rejection(writer.closed), theError);
  assert.equal(log, []);
});

test("error(): with no argument errors with undefined", async () => {
  const { stream, controller } = withController();
  controller.error();
  const writer = stream.getWriter();
  let caught: unknown = "not rejected";
  await writer.closed.catch((e: unknown) => (caught = e));
  assert.is(caught, undefined);
});

test("error(e): during an in-flight write, that write still fulfils; queued writes reject with e", async () => {
  const theError = new Error("mid-write");
  let finish!: () => void;
  const { stream, controller } = withController<string>(
    {
      write: () => new Promise<void>((r) => (finish = r)),
    },
    5,
  );
  const writer = stream.getWriter();
  const w1 = writer.write("a");
  const w2 = rejection(writer.write("b"));
  await delay();
  controller.error(theError);
  finish();
  assert.is(await w1, undefined);
  assert.is(await w2, theError);
  assert.is(await rejection(writer.closed), theError);
});

test("error(e): a second error() keeps the first error", async () => {
  const first = new Error("first");
  const { stream, controller } = withController();
  await delay();
  controller.error(first);
  controller.error(new Error("second"));
  assert.is(await rejection(stream.getWriter().closed), first);
});

test("error(e): after the stream closed it is a no-op", async () => {
  const { stream, controller } = withController();
  const writer = stream.getWriter();
  await writer.close();
  controller.error(new Error("too late"));
  assert.is(await writer.closed, undefined);
  assert.is(writer.desiredSize, 0);
});

test("error(e): called inside write() errors the stream; that write still fulfils", async () => {
  const theError = new Error("from write");
  const { stream } = withController<string>({
    write(_chunk, c) {
      c.error(theError);
    },
  });
  const writer = stream.getWriter();
  assert.is(await writer.write("a"), undefined, "the in-flight write itself fulfils");
  assert.is(await rejection(writer.write("b")), theError);
  assert.is(await rejection(writer.closed), theError);
});

test("the controller has no desiredSize (removed from the standard)", () => {
  const { controller } = withController();
  assert.not.ok("desiredSize" in controller);
});

test("signal: made lazily after an abort, it comes from the captured AbortController methods, not patched ones", async () => {
  const proto = AbortController.prototype;
  const signalDesc = Object.getOwnPropertyDescriptor(proto, "signal")!;
  const abortDesc = Object.getOwnPropertyDescriptor(proto, "abort")!;
  let controller!: WritableStreamDefaultController;
  const ws = new WritableStream({
    start(c) {
      controller = c;
    },
  });
  await delay();
  const reason = new Error("aborted");
  await ws.abort(reason);
  let calls = 0;
  let signal: AbortSignal | undefined;
  try {
    Object.defineProperty(proto, "signal", {
      ...signalDesc,
      get(this: AbortController) {
        calls++;
        return signalDesc.get!.call(this);
      },
    });
    Object.defineProperty(proto, "abort", {
      ...abortDesc,
      value: function (this: AbortController, r?: unknown) {
        calls++;
        return Reflect.apply(abortDesc.value as (r?: unknown) => void, this, [r]);
      },
    });
    signal = controller.signal;
  } finally {
    Object.defineProperty(proto, "signal", signalDesc);
    Object.defineProperty(proto, "abort", abortDesc);
  }
  assert.is(calls, 0);
  assert.is(signal!.aborted, true);
  assert.is(signal!.reason, reason);
});

test.run();
