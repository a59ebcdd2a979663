/**
 * The core's kit-only helpers for runtime utilities handed one of our streams (core/stream-state.ts,
 * core/stream-error.ts): whenWritableStreamSettles(), where a writer's `closed` would settle however the stream
 * is written to, and errorReadableStream() / errorWritableStream(), a controller's `error(e)` from outside.
 * On every runtime.
 *
 *   node tests/unit/stream-error.test.ts   deno run -A tests/unit/stream-error.test.ts   bun tests/unit/stream-error.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  errorReadableStream,
  errorWritableStream,
  ReadableStream,
  readableStreamState,
  TransformStream,
  whenWritableStreamSettles,
  WritableStream,
  writableStreamState,
} from "../../core/internal.ts";

const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** Records the one outcome whenWritableStreamSettles reports, with the order it came in among `log`. */
function watch(stream: unknown, log: string[]): boolean {
  return whenWritableStreamSettles(
    stream,
    () => void log.push("closed"),
    (e) => void log.push(`errored ${String((e as Error)?.message ?? e)}`),
  );
}

test("whenWritableStreamSettles(): closed by a writer: once, in the same turn as the writer's closed promise", async () => {
  const log: string[] = [];
  const ws = new WritableStream();
  assert.ok(watch(ws, log));
  const writer = ws.getWriter();
  void writer.closed.then(() => void log.push("writer.closed"));
  const closing = writer.close();
  assert.equal(log, [], "not synchronously");
  await closing;
  await tick();
  assert.equal(log.sort(), ["closed", "writer.closed"]);
  assert.ok(watch(ws, log), "an already closed stream is reported too");
  assert.equal(log.length, 2, "in a job");
  await tick();
  assert.equal(log, ["closed", "writer.closed", "closed"]);
});

test("whenWritableStreamSettles(): errored by the sink, by abort() (after the sink's abort settles), by a pipe", async () => {
  const log: string[] = [];
  const failing = new WritableStream({
    write() {
      throw new Error("sink");
    },
  });
  watch(failing, log);
  await failing.getWriter().write(1).catch(() => {});
  await tick();
  assert.equal(log, ["errored sink"]);

  let release!: () => void;
  const aborted = new WritableStream({ abort: () => new Promise<void>((resolve) => (release = resolve)) });
  const log2: string[] = [];
  watch(aborted, log2);
  const abort = aborted.abort(new Error("reason"));
  await tick();
  assert.is(writableStreamState(aborted)?.state, "errored");
  assert.equal(log2, [], "not before the sink's abort() settled, as a writer's closed promise");
  release();
  await abort;
  await tick();
  assert.equal(log2, ["errored reason"]);

  const log3: string[] = [];
  const dest = new WritableStream();
  watch(dest, log3);
  await new ReadableStream({ start: (c) => c.error(new Error("source")) }).pipeTo(dest).catch(() => {});
  await tick();
  assert.equal(log3, ["errored source"]);
  assert.not.ok(whenWritableStreamSettles(new ReadableStream(), () => {}, () => {}), "not a WritableStream");
  assert.not.ok(whenWritableStreamSettles({}, () => {}, () => {}));
});

test("whenWritableStreamSettles(): a TransformStream's writable side, closed and errored, every callback once", async () => {
  const log: string[] = [];
  const ts = new TransformStream();
  watch(ts.writable, log);
  watch(ts.writable, log);
  const writer = ts.writable.getWriter();
  void ts.readable.getReader().read();
  await writer.write("x");
  await writer.close();
  await tick();
  assert.equal(log, ["closed", "closed"]);
  const errored = new TransformStream({ start: (c) => c.error(new Error("ts")) });
  const log2: string[] = [];
  watch(errored.writable, log2);
  await tick();
  assert.equal(log2, ["errored ts"]);
});

test("errorReadableStream(): a pending read rejects with the error; nothing happens once closed or errored", async () => {
  const boom = new Error("boom");
  const stream = new ReadableStream({ pull() {} });
  const read = stream.getReader().read();
  assert.ok(errorReadableStream(stream, boom));
  await read.then(() => assert.unreachable("read fulfilled"), (e) => assert.is(e, boom));
  assert.is(readableStreamState(stream)?.storedError, boom);
  assert.ok(errorReadableStream(stream, new Error("second")));
  assert.is(readableStreamState(stream)?.storedError, boom, "the first error stays");
  const closed = new ReadableStream({ start: (c) => c.close() });
  errorReadableStream(closed, boom);
  assert.is(readableStreamState(closed)?.state, "closed");
  assert.not.ok(errorReadableStream(new WritableStream(), boom));
});

test("errorReadableStream(): a byte stream errors unless `bytes: false`; a TransformStream's readable side errors", async () => {
  const boom = new Error("boom");
  const bytes = new ReadableStream({ type: "bytes" });
  assert.not.ok(errorReadableStream(bytes, boom, { bytes: false }));
  assert.is(readableStreamState(bytes)?.state, "readable");
  assert.ok(errorReadableStream(bytes, boom));
  assert.is(readableStreamState(bytes)?.state, "errored");
  const ts = new TransformStream();
  const read = ts.readable.getReader().read();
  errorReadableStream(ts.readable, boom);
  await read.then(() => assert.unreachable("read fulfilled"), (e) => assert.is(e, boom));
});

test("errorWritableStream(): the stream errors with the error (the sink's abort() is not called); closed stays closed", async () => {
  const boom = new Error("boom");
  const aborts: unknown[] = [];
  const ws = new WritableStream({ abort: (r) => void aborts.push(r) });
  const writer = ws.getWriter();
  assert.ok(errorWritableStream(ws, boom));
  await writer.closed.then(() => assert.unreachable("closed fulfilled"), (e) => assert.is(e, boom));
  assert.equal(aborts, []);
  const closed = new WritableStream();
  await closed.close();
  errorWritableStream(closed, boom);
  assert.is(writableStreamState(closed)?.state, "closed");
  assert.not.ok(errorWritableStream(new ReadableStream(), boom));
});

test.run();
