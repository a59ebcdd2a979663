/**
 * ReadableStream async iteration: for await, values({ preventCancel }), next()/return() semantics.
 * Spec: https://streams.spec.whatwg.org/#rs-asynciterator (WebIDL async_iterable)
 *
 *   node tests/unit/async-iterator.test.ts   deno run -A tests/unit/async-iterator.test.ts   bun tests/unit/async-iterator.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ReadableStream, ReadableStreamDefaultController } from "../../mod.ts";

const delay = (ms = 0): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** `it.return(value)` with any value: the WebIDL iterator accepts one, the TypeScript declaration only `undefined`. */
function returnWith(it: AsyncIterator<unknown>, ...value: unknown[]): Promise<IteratorResult<unknown>> {
  return (it.return as (...args: unknown[]) => Promise<IteratorResult<unknown>>).apply(it, value);
}

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

/** The iterator is an async iterable at run time (%AsyncIteratorPrototype%); say so for the type checker. */
function iterable<T>(iterator: { next(): Promise<IteratorResult<T>> }): AsyncIterable<T> & AsyncIterator<T> {
  return iterator as unknown as AsyncIterable<T> & AsyncIterator<T>;
}

function source<T>(chunks: T[] = [], close = true) {
  const cancels: unknown[] = [];
  let controller!: ReadableStreamDefaultController<T>;
  const stream = new ReadableStream<T>({
    start(c) {
      controller = c;
      for (const chunk of chunks) c.enqueue(chunk);
      if (close) c.close();
    },
    cancel(reason) {
      cancels.push(reason);
    },
  });
  return { stream, cancels, controller };
}

test("for await: yields every chunk in order and releases the lock at the end", async () => {
  const { stream, cancels } = source([1, 2, 3]);
  const out: number[] = [];
  for await (const chunk of stream) out.push(chunk);
  assert.equal(out, [1, 2, 3]);
  assert.is(stream.locked, false);
  assert.equal(cancels, []);
});

test("for await: chunk identity is preserved", async () => {
  const obj = { id: "x" };
  const { stream } = source([obj]);
  for await (const chunk of stream) assert.is(chunk, obj);
});

test("for await: break cancels the stream with undefined and releases the lock", async () => {
  const { stream, cancels } = source([1, 2, 3], false);
  const out: number[] = [];
  for await (const chunk of stream) {
    out.push(chunk);
    if (chunk === 2) break;
  }
  assert.equal(out, [1, 2]);
  assert.equal(cancels, [undefined]);
  assert.is(stream.locked, false);
});

test("for await: an exception in the loop body cancels the stream", async () => {
  const { stream, cancels } = source(["a", "b"], false);
  const bodyError = new Error("body");
  let caught: unknown;
  try {
    for await (const _chunk of stream) throw bodyError;
  } catch (err) {
    caught = err;
  }
  assert.is(caught, bodyError);
  assert.equal(cancels, [undefined]);
});

test("for await: a stream error is thrown with its identity and the lock is released", async () => {
  const theError = new Error("stream error");
  const { stream, controller } = source<number>([1], false);
  const out: number[] = [];
  let caught: unknown;
  try {
    for await (const chunk of stream) {
      out.push(chunk);
      controller.error(theError);
    }
  } catch (err) {
    caught = err;
  }
  assert.equal(out, [1]);
  assert.is(caught, theError);
  assert.is(stream.locked, false);
});

test("values({ preventCancel: true }): break leaves the stream uncancelled and readable", async () => {
  const { stream, cancels } = source([1, 2, 3]);
  for await (const chunk of iterable(stream.values({ preventCancel: true }))) {
    assert.is(chunk, 1);
    break;
  }
  assert.equal(cancels, []);
  assert.is(stream.locked, false);
  const reader = stream.getReader();
  assert.equal(await reader.read(), { value: 2, done: false });
  assert.equal(await reader.read(), { value: 3, done: false });
});

test("values(): preventCancel defaults to false and is converted to boolean", async () => {
  const a = source([1], false);
  for await (const _ of iterable(a.stream.values())) break;
  assert.equal(a.cancels, [undefined]);
  const b = source([1], false);
  for await (const _ of iterable(b.stream.values({ preventCancel: "yes" as unknown as boolean }))) break;
  assert.equal(b.cancels, []);
});

test("values(): locks the stream immediately; a locked stream throws TypeError", () => {
  const { stream } = source([1]);
  stream.values();
  assert.is(stream.locked, true);
  assert.instance(syncError(() => stream.values()), TypeError);
  assert.instance(syncError(() => stream[Symbol.asyncIterator]()), TypeError);
});

test("Symbol.asyncIterator is the same function as values", () => {
  assert.is(ReadableStream.prototype[Symbol.asyncIterator], ReadableStream.prototype.values);
});

test("iterator: next() results are { value, done } objects; done after close", async () => {
  const { stream } = source(["only"]);
  const it = stream.values();
  assert.equal(await it.next(), { value: "only", done: false });
  assert.equal(await it.next(), { value: undefined, done: true });
  assert.equal(await it.next(), { value: undefined, done: true });
});

test("iterator: return(value) cancels with value as the reason and resolves { value, done: true }", async () => {
  const { stream, cancels } = source([1], false);
  const it = stream.values();
  const reason = { r: 1 };
  const result = await returnWith(it, reason);
  assert.equal(result, { value: reason, done: true });
  assert.is((result as IteratorResult<unknown>).value, reason);
  assert.is(cancels.length, 1);
  assert.is(cancels[0], reason);
  assert.is(stream.locked, false);
  assert.equal(await it.next(), { value: undefined, done: true });
});

test("iterator: return() with preventCancel releases the lock only", async () => {
  const { stream, cancels } = source([1], false);
  const it = stream.values({ preventCancel: true });
  assert.equal(await returnWith(it, "x"), { value: "x", done: true });
  assert.equal(cancels, []);
  assert.is(stream.locked, false);
});

test("iterator: return() after the stream finished does not call cancel again", async () => {
  const { stream, cancels } = source([1]);
  const it = stream.values();
  await it.next();
  await it.next();
  assert.equal(await returnWith(it, "late"), { value: "late", done: true });
  assert.equal(cancels, []);
});

test("iterator: a rejecting source cancel makes return() reject with that error", async () => {
  const theError = new Error("cancel failed");
  const stream = new ReadableStream({ cancel: () => Promise.reject(theError) });
  const it = stream.values();
  assert.is(await rejection(returnWith(it)), theError);
});

test("iterator: concurrent next() calls resolve in order", async () => {
  const { stream, controller } = source<number>([], false);
  const it = stream.values();
  const p1 = it.next();
  const p2 = it.next();
  const p3 = it.next();
  await delay();
  controller.enqueue(1);
  controller.enqueue(2);
  controller.close();
  assert.equal(await Promise.all([p1, p2, p3]), [
    { value: 1, done: false },
    { value: 2, done: false },
    { value: undefined, done: true },
  ]);
});

test("iterator: return() while next() is pending runs after that next() settles", async () => {
  const { stream, controller, cancels } = source<string>([], false);
  const it = stream.values();
  const order: string[] = [];
  const pNext = it.next().then((r) => {
    order.push("next");
    return r;
  });
  const pReturn = returnWith(it, "bye").then((r) => {
    order.push("return");
    return r;
  });
  await delay();
  assert.equal(order, []);
  assert.equal(cancels, []);
  controller.enqueue("a");
  assert.equal(await pNext, { value: "a", done: false });
  assert.equal(await pReturn, { value: "bye", done: true });
  assert.equal(order, ["next", "return"]);
  assert.equal(cancels, ["bye"]);
});

test("iterator: after an error, next() rejects once and then reports done", async () => {
  const theError = new Error("iter error");
  const { stream, controller } = source<number>([], false);
  const it = stream.values();
  controller.error(theError);
  assert.is(await rejection(it.next()), theError);
  assert.equal(await it.next(), { value: undefined, done: true });
});

test("iterator: the prototype chain ends in %AsyncIteratorPrototype%", () => {
  const it = new ReadableStream().values();
  const asyncIteratorPrototype = Object.getPrototypeOf(Object.getPrototypeOf(async function* () {}).prototype);
  const proto = Object.getPrototypeOf(it);
  assert.is(Object.getPrototypeOf(proto), asyncIteratorPrototype);
  assert.type(proto.next, "function");
  assert.type(proto.return, "function");
  assert.is(iterable(it)[Symbol.asyncIterator](), it);
});

test("iterator prototype: @@toStringTag 'ReadableStream AsyncIterator'; next (length 0) and return (length 1) are enumerable methods", () => {
  const proto = Object.getPrototypeOf(new ReadableStream().values()) as object;
  assert.is(Object.prototype.toString.call(proto), "[object ReadableStream AsyncIterator]");
  for (
    const [key, length] of [
      ["next", 0],
      ["return", 1],
    ] as const
  ) {
    const desc = Object.getOwnPropertyDescriptor(proto, key)!;
    assert.type(desc.value, "function", key);
    assert.is((desc.value as () => unknown).length, length, `${key}.length`);
    assert.is((desc.value as () => unknown).name, key, `${key}.name`);
    assert.is(desc.writable, true);
    assert.is(desc.enumerable, true);
    assert.is(desc.configurable, true);
  }
});

test("iterator: next() with a foreign this rejects with TypeError", async () => {
  const it = new ReadableStream().values();
  const next = Object.getPrototypeOf(it).next as (this: unknown) => Promise<unknown>;
  assert.instance(await rejection(next.call({})), TypeError);
});

test("iterator: a queued chunk's result settles one job after the reaction to the pull() its read called", async () => {
  // Spec (§4.2.5 "get the next iteration result" + WebIDL next()): the read dequeues "a" and calls pull()
  // synchronously; pull's fulfillment reaction (job 1) is queued when pull() returns, then the reaction to the
  // read (job 2) that fulfills next()'s promise. Here job 1 calls pull() again ([[pullAgain]] was set by the
  // enqueue in pull 1's microtask), so "pull 2 microtask" is queued before the result's reaction.
  const log: string[] = [];
  let n = 0;
  let armed = false;
  const stream = new ReadableStream<string>(
    {
      start(c) {
        c.enqueue("a");
      },
      pull(c) {
        if (!armed) return;
        const k = ++n;
        log.push(`pull ${k}`);
        queueMicrotask(() => {
          log.push(`pull ${k} microtask`);
          c.enqueue(`chunk ${k}`);
        });
      },
    },
    { highWaterMark: 2 },
  );
  const it = stream.values();
  await delay();
  armed = true;
  const p = it.next();
  log.push("next called");
  void p.then((r) => log.push(`result ${r.value}`));
  queueMicrotask(() => log.push("outside job"));
  await delay();
  assert.equal(log, [
    "pull 1",
    "next called",
    "pull 1 microtask",
    "pull 2",
    "outside job",
    "pull 2 microtask",
    "result a",
  ]);
});

test("iterator: a next() called from inside pull() during next() gets the following chunk, each its own", async () => {
  // Spec: next() #1 reads "a" (PullSteps dequeues it, then calls pull() synchronously); pull() calls next() #2
  // while next() #1 has not set its ongoing promise yet, so #2 reads "b" at once. #1's chunk steps then
  // resolve its promise with "a".
  // deno-lint-ignore prefer-const -- pull() refers to it before it is made
  let it!: ReturnType<ReadableStream<string>["values"]>;
  let inner: Promise<IteratorResult<string>> | undefined;
  let armed = false;
  const stream = new ReadableStream<string>(
    {
      start(c) {
        c.enqueue("a");
        c.enqueue("b");
        c.enqueue("c");
      },
      pull() {
        if (armed && inner === undefined) inner = it.next();
      },
    },
    { highWaterMark: 3 },
  );
  it = stream.values();
  await delay();
  armed = true;
  const outer = it.next();
  assert.ok(inner !== undefined, "pull() ran inside next()");
  const order: string[] = [];
  void outer.then(() => order.push("outer"));
  void inner.then(() => order.push("inner"));
  assert.equal(await outer, { value: "a", done: false });
  assert.equal(await inner, { value: "b", done: false });
  assert.equal(order, ["inner", "outer"], "#2's result reaction was queued inside pull(), before #1's");
  assert.equal(await it.next(), { value: "c", done: false });
});

test("iterator: a return() called from inside pull() during next(): the chunk is delivered and pull() still settles", async () => {
  // Spec: next() dequeues "a" and calls pull(); pull() calls return() (preventCancel), which releases the
  // reader; next() still resolves with "a", and the pull reaction clears [[pulling]], so a new reader's read()
  // calls pull() again.
  // deno-lint-ignore prefer-const -- pull() refers to it before it is made
  let it!: ReturnType<ReadableStream<string>["values"]>;
  let pulls = 0;
  let returned: Promise<IteratorResult<string>> | undefined;
  const stream = new ReadableStream<string>({
    start(c) {
      c.enqueue("a");
    },
    pull(c) {
      pulls++;
      if (pulls === 1) returned = it.return!();
      else c.enqueue(`pull ${pulls}`);
    },
  });
  it = stream.values({ preventCancel: true });
  assert.equal(await it.next(), { value: "a", done: false });
  assert.equal(await returned, { value: undefined, done: true });
  const reader = stream.getReader();
  const read = await Promise.race([reader.read(), delay(50).then(() => "timeout")]);
  assert.equal(read, { value: "pull 2", done: false });
});

test.run();
