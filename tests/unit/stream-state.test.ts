/**
 * readableStreamState(), writableStreamState(), whenReadableStreamSettles(): read-only views of a stream's
 * internal state for runtime adapters (core/stream-state.ts).
 *
 *   node tests/unit/stream-state.test.ts   deno run -A tests/unit/stream-state.test.ts   bun tests/unit/stream-state.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  ReadableStream,
  type ReadableStreamDefaultController,
  readableStreamState,
  TransformStream,
  whenReadableStreamSettles,
  WritableStream,
  writableStreamState,
} from "../../mod.ts";

const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

test("readableStreamState(): state, disturbed, locked and the stored error, through every transition", async () => {
  const boom = new Error("boom");
  let controller!: ReadableStreamDefaultController<number>;
  const stream = new ReadableStream<number>({ start: (c) => void (controller = c) });
  assert.equal(readableStreamState(stream), {
    state: "readable",
    disturbed: false,
    locked: false,
    storedError: undefined,
  });
  const reader = stream.getReader();
  assert.equal(readableStreamState(stream)?.locked, true);
  assert.equal(readableStreamState(stream)?.disturbed, false);
  controller.enqueue(1);
  await reader.read();
  assert.equal(readableStreamState(stream)?.disturbed, true);
  controller.error(boom);
  const view = readableStreamState(stream)!;
  assert.is(view.state, "errored");
  assert.is(view.storedError, boom);

  const closed = new ReadableStream({ start: (c) => c.close() });
  assert.is(readableStreamState(closed)?.state, "closed");
  assert.is(readableStreamState({}), undefined);
  assert.is(readableStreamState(new WritableStream()), undefined);
});

test("writableStreamState(): writable, erroring, errored, closed", async () => {
  const boom = new Error("boom");
  const ws = new WritableStream({ write: () => new Promise<void>(() => {}) });
  assert.equal(writableStreamState(ws), { state: "writable", locked: false, storedError: undefined });
  const writer = ws.getWriter();
  await tick();
  void writer.write("a").catch(() => {});
  void writer.abort(boom).catch(() => {});
  assert.is(writableStreamState(ws)?.state, "erroring", "abort with a write in flight: erroring");
  assert.is(writableStreamState(ws)?.storedError, boom);

  const closing = new WritableStream();
  await closing.close();
  assert.is(writableStreamState(closing)?.state, "closed");
  const failed = new WritableStream({ start: (c) => c.error(boom) });
  assert.is(writableStreamState(failed)?.state, "erroring", "errored during start(): erroring until start() finishes");
  await tick();
  assert.is(writableStreamState(failed)?.state, "errored");
  assert.is(writableStreamState(new ReadableStream()), undefined);
});

test("whenReadableStreamSettles(): called once, after the end, however the stream is consumed", async () => {
  const events: string[] = [];
  const piped = new ReadableStream<number>({ start: (c) => (c.enqueue(1), c.close()) });
  assert.ok(whenReadableStreamSettles(piped, () => events.push("piped closed"), () => events.push("piped errored")));
  const boom = new Error("boom");
  const failing = new ReadableStream({ pull: () => Promise.reject(boom) });
  let seen: unknown;
  whenReadableStreamSettles(failing, () => events.push("failing closed"), (e) => (seen = e));
  await piped.pipeThrough(new TransformStream()).pipeTo(new WritableStream());
  await failing.getReader().read().catch(() => {});
  await tick();
  assert.equal(events, ["piped closed"]);
  assert.is(seen, boom);
  // Already settled: reported in a microtask, not synchronously.
  let late = false;
  whenReadableStreamSettles(piped, () => (late = true), () => {});
  assert.not.ok(late);
  await tick();
  assert.ok(late);
  assert.not.ok(whenReadableStreamSettles({}, () => {}, () => {}));
});

test.run();
