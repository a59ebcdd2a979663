/**
 * ReadableStream.from(asyncIterable).
 * Spec: https://streams.spec.whatwg.org/#rs-from, #readable-stream-from-iterable
 *
 *   node tests/unit/from.test.ts   deno run -A tests/unit/from.test.ts   bun tests/unit/from.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ReadableStream } from "../../mod.ts";

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

async function readAll<T>(stream: ReadableStream<T>): Promise<T[]> {
  const reader = stream.getReader();
  const out: T[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

test("from: an array gives its elements in order, then closes", async () => {
  const stream = ReadableStream.from([1, "two", { three: 3 }]);
  assert.instance(stream, ReadableStream);
  assert.equal(await readAll(stream), [1, "two", { three: 3 }]);
});

test("from: an array of promises yields the resolved values", async () => {
  const stream = ReadableStream.from([Promise.resolve("a"), Promise.resolve("b")]);
  assert.equal(await readAll(stream), ["a", "b"]);
});

test("from: a rejected promise in a sync iterable errors the stream with its reason", async () => {
  const theError = new Error("element rejected");
  const rejected = Promise.reject(theError);
  rejected.catch(() => {});
  const reader = ReadableStream.from([Promise.resolve(1), rejected]).getReader();
  assert.equal(await reader.read(), { value: 1, done: false });
  assert.is(await rejection(reader.read()), theError);
});

test("from: a sync generator", async () => {
  function* gen(): Generator<number> {
    yield 1;
    yield 2;
    yield 3;
  }
  assert.equal(await readAll(ReadableStream.from(gen())), [1, 2, 3]);
});

test("from: an async generator", async () => {
  async function* gen(): AsyncGenerator<string> {
    yield "a";
    await delay();
    yield "b";
  }
  assert.equal(await readAll(ReadableStream.from(gen())), ["a", "b"]);
});

test("from: a Set and a Map", async () => {
  assert.equal(await readAll(ReadableStream.from(new Set(["x", "y"]))), ["x", "y"]);
  assert.equal(await readAll(ReadableStream.from(new Map([["k", 1]]))), [["k", 1]]);
});

test("from: Symbol.asyncIterator is preferred over Symbol.iterator", async () => {
  const iterable = {
    *[Symbol.iterator]() {
      yield "sync";
    },
    async *[Symbol.asyncIterator]() {
      yield "async";
    },
  };
  assert.equal(await readAll(ReadableStream.from(iterable)), ["async"]);
});

test("from: another ReadableStream (an async iterable) is read through", async () => {
  const inner = ReadableStream.from([1, 2]);
  const outer = ReadableStream.from(inner);
  assert.is(inner.locked, true);
  assert.equal(await readAll(outer), [1, 2]);
});

test("from: the iterator method is called synchronously; next() only when a read needs it", async () => {
  const log: string[] = [];
  let n = 0;
  const iterable = {
    [Symbol.asyncIterator]() {
      log.push("open");
      return {
        next() {
          log.push("next");
          n++;
          return Promise.resolve(n <= 2 ? { value: n, done: false } : { value: undefined, done: true });
        },
      };
    },
  };
  const stream = ReadableStream.from(iterable);
  assert.equal(log, ["open"]);
  await delay();
  assert.equal(log, ["open"], "high-water mark 0: no eager next()");
  const reader = stream.getReader();
  assert.equal(await reader.read(), { value: 1, done: false });
  assert.equal(log, ["open", "next"]);
});

test("from: non-iterable or primitive-free garbage throws TypeError synchronously", () => {
  for (const bad of [undefined, null, 1, true, {}, { [Symbol.iterator]: 1 }, { [Symbol.asyncIterator]: "no" }]) {
    assert.instance(syncError(() => ReadableStream.from(bad as never)), TypeError, String(bad));
  }
  // null and undefined are named as such (Bun's own message, which Bun's tests check)
  for (const bad of [undefined, null]) {
    assert.match(String(syncError(() => ReadableStream.from(bad as never))), /takes a non-null value/);
  }
});

// whatwg/streams#1372 (July 2026): the argument is a Web IDL async_sequence<any>, which must be an object, so a
// string throws instead of giving its code points; a String object is an object with @@iterator and still does.
test("from: a string throws a TypeError saying what to pass instead; a String object is iterated", async () => {
  for (const text of ["abc", ""]) {
    const err = syncError(() => ReadableStream.from(text as never));
    assert.instance(err, TypeError, JSON.stringify(text));
    assert.match((err as TypeError).message, "takes no string since 2026: pass [text]");
  }
  assert.equal(await readAll(ReadableStream.from(new String("ab") as never)), ["a", "b"]);
});

test("from: an iterator method returning a non-object throws TypeError synchronously", () => {
  const iterable = {
    [Symbol.asyncIterator]() {
      return 42;
    },
  };
  assert.instance(syncError(() => ReadableStream.from(iterable as never)), TypeError);
});

test("from: an iterator method that throws propagates that error synchronously", () => {
  const theError = new Error("open failed");
  const iterable = {
    [Symbol.iterator]() {
      throw theError;
    },
  };
  assert.is(syncError(() => ReadableStream.from(iterable as never)), theError);
});

test("from: next() rejecting errors the stream with the reason", async () => {
  const theError = new Error("next failed");
  const iterable = {
    [Symbol.asyncIterator]() {
      return { next: () => Promise.reject(theError) };
    },
  };
  const reader = ReadableStream.from(iterable).getReader();
  assert.is(await rejection(reader.read()), theError);
  assert.is(await rejection(reader.closed), theError);
});

test("from: next() throwing synchronously errors the stream with that error", async () => {
  const theError = new Error("next threw");
  const iterable = {
    [Symbol.asyncIterator]() {
      return {
        next() {
          throw theError;
        },
      };
    },
  };
  assert.is(await rejection(ReadableStream.from(iterable).getReader().read()), theError);
});

test("from: next() resolving a non-object errors the stream with TypeError", async () => {
  const iterable = {
    [Symbol.asyncIterator]() {
      return { next: () => Promise.resolve(7) };
    },
  };
  assert.instance(await rejection(ReadableStream.from(iterable as never).getReader().read()), TypeError);
});

test("from: a generator's thrown error errors the stream with it", async () => {
  const theError = new Error("gen threw");
  async function* gen(): AsyncGenerator<number> {
    yield 1;
    throw theError;
  }
  const reader = ReadableStream.from(gen()).getReader();
  assert.equal(await reader.read(), { value: 1, done: false });
  assert.is(await rejection(reader.read()), theError);
});

test("from: cancel() calls the iterator's return() with the reason", async () => {
  const calls: { self: unknown; args: unknown[] }[] = [];
  const iterator = {
    next: () => Promise.resolve({ value: 1, done: false }),
    return(...args: unknown[]) {
      calls.push({ self: this, args });
      return Promise.resolve({ value: undefined, done: true });
    },
  };
  const stream = ReadableStream.from({ [Symbol.asyncIterator]: () => iterator });
  const reason = new Error("stop");
  assert.is(await stream.cancel(reason), undefined);
  assert.is(calls.length, 1);
  assert.is(calls[0]!.self, iterator);
  assert.is(calls[0]!.args[0], reason);
});

test("from: cancel() without a return() method resolves", async () => {
  const stream = ReadableStream.from({
    [Symbol.asyncIterator]: () => ({ next: () => Promise.resolve({ value: 1, done: false }) }),
  });
  assert.is(await stream.cancel("r"), undefined);
});

test("from: cancel() rejects when return() throws, rejects or resolves a non-object", async () => {
  const theError = new Error("return failed");
  const make = (ret: () => unknown) =>
    ReadableStream.from({
      [Symbol.asyncIterator]: () => ({ next: () => Promise.resolve({ value: 1, done: false }), return: ret }),
    } as never);
  assert.is(
    await rejection(
      make(() => {
        throw theError;
      }).cancel(),
    ),
    theError,
  );
  assert.is(await rejection(make(() => Promise.reject(theError)).cancel()), theError);
  assert.instance(await rejection(make(() => Promise.resolve(5)).cancel()), TypeError);
});

test("from: cancelling runs a generator's finally block", async () => {
  let finalized = false;
  async function* gen(): AsyncGenerator<number> {
    try {
      yield 1;
      yield 2;
    } finally {
      finalized = true;
    }
  }
  const stream = ReadableStream.from(gen());
  const reader = stream.getReader();
  await reader.read();
  await reader.cancel();
  assert.is(finalized, true);
});

test("from: cancelling a sync-iterable stream forwards to the sync iterator's return()", async () => {
  const returned: unknown[] = [];
  const iterable = {
    [Symbol.iterator]() {
      return {
        next: () => ({ value: "v", done: false }),
        return: (v: unknown) => {
          returned.push(v);
          return { value: v, done: true };
        },
      };
    },
  };
  const stream = ReadableStream.from(iterable);
  const reader = stream.getReader();
  assert.equal(await reader.read(), { value: "v", done: false });
  await reader.cancel("why");
  assert.equal(returned, ["why"]);
});

test("a non-callable @@asyncIterator throws TypeError without calling a replaced global String", () => {
  const RealString = String;
  const g = globalThis as unknown as { String: unknown };
  let calls = 0;
  let thrown: unknown;
  try {
    g.String = function FakeString() {
      calls++;
      return "";
    };
    try {
      ReadableStream.from({ [Symbol.asyncIterator]: 1 } as never);
    } catch (e) {
      thrown = e;
    }
  } finally {
    g.String = RealString;
  }
  assert.is(calls, 0);
  assert.instance(thrown, TypeError);
});

/**
 * How many microtask jobs run before `promise`'s own reaction (started now; a counter job re-queues itself
 * until the promise settles). Pins the job the standard settles a promise in.
 */
async function jobsUntilSettled(
  promise: Promise<unknown>,
): Promise<{ jobs: number; value?: unknown; error?: unknown }> {
  let jobs = 0;
  let settled = false;
  const count = (): void => {
    if (settled) return;
    jobs++;
    queueMicrotask(count);
  };
  queueMicrotask(count);
  return promise.then(
    (value) => {
      settled = true;
      return { jobs, value };
    },
    (error: unknown) => {
      settled = true;
      return { jobs, error };
    },
  );
}

// ECMAScript §27.1.6.2.1: the async-from-sync iterator's next() turns a throwing next() into a rejected
// promise (IfAbruptRejectPromise), and Streams §4.9.1 pull then takes it through "a promise resolved with" (2
// jobs) and its reaction (1 job) before the controller's reaction to the pull promise (1 job) errors the
// stream: the read's rejection is seen 5 jobs after read(). (Was 2: the throw skipped those steps, so a
// writer fed from such a stream saw the error, and aborted, 3 jobs early; fuzz seed 213587485.)
test("from: a sync iterator whose next() throws errors the stream when the async-from-sync iterator's rejection would (5 jobs)", async () => {
  const boom = new Error("boom");
  const reader = ReadableStream.from({
    [Symbol.iterator]: () => ({
      next(): never {
        throw boom;
      },
    }),
  }).getReader();
  const { jobs, error } = await jobsUntilSettled(reader.read());
  assert.is(error, boom);
  assert.is(jobs, 5);
});

test("from: a sync iterator's next() returning a non-object errors the stream with a TypeError after the same 5 jobs", async () => {
  const reader = ReadableStream.from({ [Symbol.iterator]: () => ({ next: () => 42 as never }) }).getReader();
  const { jobs, error } = await jobsUntilSettled(reader.read());
  assert.instance(error, TypeError);
  assert.is(jobs, 5);
});

// ECMAScript §27.1.6.2.2: the async-from-sync iterator always has a return(); without one on the sync
// iterator it fulfills with { value, done: true }, which the cancel algorithm adopts (2 jobs) and reacts to
// (1 job): 3 jobs more than a source whose cancel() returns nothing (1), so 4. (Was 1: no return() was taken
// as "nothing to do".) A return() that throws rejects after the same steps.
test("from: cancel() of a sync iterable without return() fulfills after the async-from-sync iterator's return() (4 jobs)", async () => {
  const reader = ReadableStream.from({ [Symbol.iterator]: () => ({ next: () => ({ value: 1, done: false }) }) })
    .getReader();
  const { jobs, error } = await jobsUntilSettled(reader.cancel("why"));
  assert.is(error, undefined);
  assert.is(jobs, 4);
});

test("from: cancel() of a sync iterable whose return() throws rejects after the same 4 jobs", async () => {
  const boom = new Error("boom");
  const iterator = {
    next: () => ({ value: 1, done: false }),
    return(): never {
      throw boom;
    },
  };
  const reader = ReadableStream.from({ [Symbol.iterator]: () => iterator }).getReader();
  const { jobs, error } = await jobsUntilSettled(reader.cancel("why"));
  assert.is(error, boom);
  assert.is(jobs, 4);
});

// Streams §4.9.1 pullAlgorithm step 2: IteratorNext of an async iterator is abrupt when next() throws or returns
// a non-object (IteratorNext's own TypeError): the pull promise is rejected at once, no "promise resolved with".
test("from: an async iterator's next() returning a non-object errors the stream at once (2 jobs), with a TypeError", async () => {
  const reader = ReadableStream.from({ [Symbol.asyncIterator]: () => ({ next: () => 42 as never }) }).getReader();
  const { jobs, error } = await jobsUntilSettled(reader.read());
  assert.instance(error, TypeError);
  assert.is(jobs, 2);
});

test("from: an async iterator's next() throwing errors the stream at once (2 jobs)", async () => {
  const boom = new Error("boom");
  const reader = ReadableStream.from({
    [Symbol.asyncIterator]: () => ({
      next(): never {
        throw boom;
      },
    }),
  }).getReader();
  const { jobs, error } = await jobsUntilSettled(reader.read());
  assert.is(error, boom);
  assert.is(jobs, 2);
});

test.run();
