/**
 * FP-LAZY (release): releasing a reader or writer rejects its promises with a TypeError made only when one of
 * them is asked for; a promise already handed out is rejected at once, as the spec does.
 * Spec: https://streams.spec.whatwg.org/#readable-stream-reader-generic-release,
 * https://streams.spec.whatwg.org/#writable-stream-default-writer-release
 *
 *   node tests/unit/lazy-release.test.ts   deno run -A tests/unit/lazy-release.test.ts   bun tests/unit/lazy-release.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ReadableStream, WritableStream } from "../../mod.ts";
import { errorHooks } from "../../core/internal.ts";

/** Runs `fn` counting the TypeErrors and RangeErrors the core makes meanwhile. */
async function countingErrors(fn: () => Promise<void> | void): Promise<number> {
  let made = 0;
  const before = errorHooks.decorate;
  errorHooks.decorate = (error) => {
    made++;
    before?.(error);
  };
  try {
    await fn();
  } finally {
    errorHooks.decorate = before;
  }
  return made;
}

function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(() => assert.unreachable("expected the promise to reject"), (error: unknown) => error);
}

test("a released reader's closed promise: the TypeError is made when it is asked for, once", async () => {
  const reader = new ReadableStream().getReader();
  assert.is(await countingErrors(() => reader.releaseLock()), 0);
  let closed!: Promise<unknown>;
  assert.is(
    await countingErrors(() => {
      closed = reader.closed;
    }),
    1,
  );
  assert.is(reader.closed, closed, "the same promise every time");
  const error = await rejection(closed);
  assert.instance(error, TypeError);
  assert.match((error as TypeError).message, /released/);
});

test("a reader's closed promise handed out before the release is rejected by the release itself", async () => {
  const reader = new ReadableStream().getReader();
  const closed = reader.closed;
  let seen: unknown;
  closed.then(undefined, (error: unknown) => (seen = error));
  assert.is(await countingErrors(() => reader.releaseLock()), 1);
  await Promise.resolve();
  assert.instance(seen, TypeError);
  assert.is(reader.closed, closed, "still the promise handed out");
});

test("a reader released after its stream closed gets a new promise rejected with a TypeError", async () => {
  const stream = new ReadableStream({
    start(c) {
      c.close();
    },
  });
  const reader = stream.getReader();
  const before = reader.closed;
  assert.is(await before, undefined);
  assert.is(await countingErrors(() => reader.releaseLock()), 0);
  assert.is.not(reader.closed, before);
  assert.instance(await rejection(reader.closed), TypeError);
});

test("for await over a stream makes no TypeError for the reader it releases", async () => {
  const stream = new ReadableStream<number>({
    start(c) {
      c.enqueue(1);
      c.enqueue(2);
      c.close();
    },
  });
  const got: number[] = [];
  assert.is(
    await countingErrors(async () => {
      for await (const chunk of stream) got.push(chunk);
    }),
    0,
  );
  assert.equal(got, [1, 2]);
  assert.not.ok(stream.locked);
});

test("breaking out of for await makes none either, and cancels the stream", async () => {
  let cancelled = false;
  const stream = new ReadableStream<number>({
    start(c) {
      c.enqueue(1);
      c.enqueue(2);
    },
    cancel() {
      cancelled = true;
    },
  });
  assert.is(
    await countingErrors(async () => {
      for await (const _ of stream) break;
    }),
    0,
  );
  assert.ok(cancelled);
  assert.not.ok(stream.locked);
});

test("a released writer: ready and closed reject with one TypeError, made when first asked for", async () => {
  const writer = new WritableStream().getWriter();
  await writer.ready;
  assert.is(await countingErrors(() => writer.releaseLock()), 0);
  let made = 0;
  let ready!: unknown;
  let closed!: unknown;
  made += await countingErrors(async () => {
    ready = await rejection(writer.ready);
    closed = await rejection(writer.closed);
  });
  assert.is(made, 1, "one TypeError for both");
  assert.instance(ready, TypeError);
  assert.is(closed, ready, "the spec's one releasedError");
});

test("a writer's pending ready promise handed out before the release is rejected by it", async () => {
  const writer = new WritableStream({}, { highWaterMark: 0 }).getWriter();
  const ready = writer.ready;
  let seen: unknown;
  ready.then(undefined, (error: unknown) => (seen = error));
  assert.is(await countingErrors(() => writer.releaseLock()), 1);
  await Promise.resolve();
  assert.instance(seen, TypeError);
  assert.is(await rejection(writer.closed), seen, "closed is rejected with the same error");
});

test.run();
