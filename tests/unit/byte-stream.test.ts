/**
 * Readable byte streams: ReadableByteStreamController, ReadableStreamBYOBReader, ReadableStreamBYOBRequest,
 * autoAllocateChunkSize, read(view, { min }), buffer transfer.
 * Spec: https://streams.spec.whatwg.org/#rbs-controller-class, #byob-reader-class, #rs-byob-request-class
 *
 *   node tests/unit/byte-stream.test.ts   deno run -A tests/unit/byte-stream.test.ts   bun tests/unit/byte-stream.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  ReadableByteStreamController,
  ReadableStream,
  ReadableStreamBYOBReader,
  ReadableStreamBYOBRequest,
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

function byteStream(
  extra: { pull?: (c: ReadableByteStreamController) => void | Promise<void>; autoAllocateChunkSize?: number } = {},
  highWaterMark?: number,
): { stream: ReadableStream<Uint8Array<ArrayBuffer>>; controller: ReadableByteStreamController } {
  let controller!: ReadableByteStreamController;
  const stream = new ReadableStream(
    {
      type: "bytes",
      start(c: ReadableByteStreamController) {
        controller = c;
      },
      ...extra,
    },
    highWaterMark === undefined ? undefined : { highWaterMark },
  );
  return { stream, controller };
}

function byob(stream: ReadableStream<Uint8Array<ArrayBuffer>>): ReadableStreamBYOBReader {
  return stream.getReader({ mode: "byob" });
}

/**
 * Detaches `buffer` and returns a new buffer with its bytes: ArrayBuffer.prototype.transfer (ES2024), or
 * structuredClone with a transfer list where that is missing (Node 20).
 */
function transfer(buffer: ArrayBufferLike): ArrayBuffer {
  const b = buffer as ArrayBuffer & { transfer?: () => ArrayBuffer };
  if (typeof b.transfer === "function") return b.transfer();
  return structuredClone(b, { transfer: [b] });
}

/** The BYOB request's view; the standard always makes it a Uint8Array. */
function requestView(c: ReadableByteStreamController): Uint8Array<ArrayBuffer> {
  return c.byobRequest!.view as Uint8Array<ArrayBuffer>;
}

function detached(buffer: ArrayBufferLike): boolean {
  return buffer.byteLength === 0;
}

// --- construction -----------------------------------------------------------------------------

test("type 'bytes': start receives a ReadableByteStreamController with byobRequest null", () => {
  const { controller } = byteStream();
  assert.instance(controller, ReadableByteStreamController);
  assert.is(controller.byobRequest, null);
  assert.is(controller.desiredSize, 0);
});

test("autoAllocateChunkSize: 0 throws TypeError; negative, NaN and non-numbers throw TypeError", () => {
  for (const size of [0, -1, NaN, Infinity, "abc"]) {
    const err = syncError(() => new ReadableStream({ type: "bytes", autoAllocateChunkSize: size as number }));
    assert.instance(err, TypeError, `autoAllocateChunkSize ${String(size)}`);
  }
});

test("getReader({ mode: 'byob' }) returns a ReadableStreamBYOBReader; the constructor works too", () => {
  const s1 = byteStream().stream;
  assert.instance(byob(s1), ReadableStreamBYOBReader);
  const s2 = byteStream().stream;
  const reader = new ReadableStreamBYOBReader(s2);
  assert.instance(reader, ReadableStreamBYOBReader);
  assert.is(s2.locked, true);
});

test("ReadableStreamBYOBReader on a default (non-byte) stream throws TypeError", () => {
  const stream = new ReadableStream();
  assert.instance(syncError(() => new ReadableStreamBYOBReader(stream as never)), TypeError);
  assert.is(stream.locked, false);
});

test("a default reader works on a byte stream: reads queued bytes, a pending read gets the next enqueue, then done", async () => {
  const { stream, controller } = byteStream();
  const reader = stream.getReader();
  assert.instance(reader, ReadableStreamDefaultReader);
  controller.enqueue(new Uint8Array([1, 2, 3]));
  const first = await reader.read();
  assert.is(first.done, false);
  assert.instance(first.value, Uint8Array);
  assert.equal(Array.from(first.value!), [1, 2, 3]);
  const pending = reader.read();
  controller.enqueue(new Uint8Array([4, 5]));
  const second = await pending;
  assert.equal(Array.from(second.value!), [4, 5]);
  controller.close();
  const last = await reader.read();
  assert.is(last.done, true);
  assert.is(last.value, undefined);
});

// --- enqueue ---------------------------------------------------------------------------------

test("enqueue: transfers (detaches) the source buffer; the reader gets the bytes in a new buffer", async () => {
  const { stream, controller } = byteStream();
  const chunk = new Uint8Array([1, 2, 3]);
  const originalBuffer = chunk.buffer;
  controller.enqueue(chunk);
  assert.ok(detached(originalBuffer), "the enqueued buffer is detached");
  assert.is(chunk.byteLength, 0);
  const { value, done } = await stream.getReader().read();
  assert.is(done, false);
  assert.instance(value, Uint8Array);
  assert.equal(Array.from(value!), [1, 2, 3]);
  assert.is.not(value!.buffer, originalBuffer);
});

test("enqueue: a default reader always gets a Uint8Array with the chunk's byteOffset and byteLength", async () => {
  const { stream, controller } = byteStream();
  const buffer = new ArrayBuffer(8);
  new Uint8Array(buffer).set([0, 1, 2, 3, 4, 5, 6, 7]);
  controller.enqueue(new Uint16Array(buffer, 2, 2));
  const { value } = await stream.getReader().read();
  assert.is(value!.constructor, Uint8Array);
  assert.is(value!.byteOffset, 2);
  assert.is(value!.byteLength, 4);
  assert.is(value!.buffer.byteLength, 8);
  assert.equal(Array.from(value!), [2, 3, 4, 5]);
});

test("enqueue: a zero-length view or a view on a zero-length buffer throws TypeError", () => {
  const { controller } = byteStream();
  assert.instance(syncError(() => controller.enqueue(new Uint8Array(0))), TypeError);
  assert.instance(syncError(() => controller.enqueue(new Uint8Array(new ArrayBuffer(4), 4, 0))), TypeError);
});

test("enqueue: a non-ArrayBufferView chunk throws TypeError", () => {
  const { controller } = byteStream();
  for (const bad of [new ArrayBuffer(4), [1, 2], "ab", 5]) {
    assert.instance(syncError(() => controller.enqueue(bad as never)), TypeError);
  }
});

test("enqueue: a view over a detached buffer throws TypeError", () => {
  const { controller } = byteStream();
  const view = new Uint8Array(4);
  transfer(view.buffer);
  assert.instance(syncError(() => controller.enqueue(view)), TypeError);
});

test("enqueue: a SharedArrayBuffer-backed view throws TypeError and nothing is queued", async () => {
  const { stream, controller } = byteStream();
  const err = syncError(() =>
    controller.enqueue(new Uint8Array(new SharedArrayBuffer(4)) as unknown as Uint8Array<ArrayBuffer>)
  );
  assert.instance(err, TypeError);
  assert.match((err as TypeError).message, /SharedArrayBuffer/);
  assert.is(controller.desiredSize, 0);
  controller.enqueue(new Uint8Array([1, 2]));
  controller.close();
  const reader = stream.getReader();
  assert.equal(Array.from((await reader.read()).value!), [1, 2]);
  assert.is((await reader.read()).done, true);
});

test("enqueue: a chunk's buffer, offset and length come from its internal slots; patched getters and own properties are not consulted", async () => {
  const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype) as object;
  const keys = ["buffer", "byteOffset", "byteLength"] as const;
  const saved = keys.map((k) => Object.getOwnPropertyDescriptor(TypedArrayPrototype, k)!);
  const calls: string[] = [];
  const { stream, controller } = byteStream();
  const chunk = new Uint8Array([1, 2, 3, 4]).subarray(1, 3);
  const buffer = chunk.buffer;
  for (const k of keys) {
    Object.defineProperty(chunk, k, { get: () => (calls.push(`own ${k}`), 0), configurable: true });
  }
  try {
    for (const k of keys) {
      Object.defineProperty(TypedArrayPrototype, k, { get: () => (calls.push(`proto ${k}`), 0), configurable: true });
    }
    controller.enqueue(chunk);
  } finally {
    keys.forEach((k, i) => Object.defineProperty(TypedArrayPrototype, k, saved[i]!));
  }
  assert.equal(calls, []);
  assert.is(buffer.byteLength, 0, "the chunk's buffer is detached");
  controller.close();
  const { value } = await stream.getReader().read();
  assert.is(value!.byteOffset, 1);
  assert.equal(Array.from(value!), [2, 3]);
});

test("a subclassed Uint8Array chunk or view: no @@toStringTag, constructor or @@species lookup, its own getters unused", async () => {
  // Spec: enqueue() reads [[ViewedArrayBuffer]], [[ByteOffset]], [[ByteLength]]; read(view) makes its views with
  // the intrinsic constructor named by [[TypedArrayName]]: nothing is looked up on the chunk or its prototypes.
  const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype) as object;
  const TypedArray = Object.getPrototypeOf(Uint8Array) as object;
  const calls: string[] = [];
  class Sub extends Uint8Array {
    override get buffer(): ArrayBuffer {
      calls.push("Sub buffer");
      return super.buffer as ArrayBuffer;
    }
    override get byteLength(): number {
      calls.push("Sub byteLength");
      return super.byteLength;
    }
    static get [Symbol.species](): typeof Sub {
      calls.push("Sub @@species");
      return Sub;
    }
  }
  const savedTag = Object.getOwnPropertyDescriptor(TypedArrayPrototype, Symbol.toStringTag)!;
  const savedSpecies = Object.getOwnPropertyDescriptor(TypedArray, Symbol.species)!;
  const chunk = new Sub(new Uint8Array([1, 2, 3, 4]).buffer, 1, 2);
  const target = new Sub(4);
  const { stream, controller } = byteStream();
  const reader = byob(stream);
  let value: ArrayBufferView | undefined;
  try {
    Object.defineProperty(TypedArrayPrototype, Symbol.toStringTag, {
      get(this: unknown) {
        calls.push("@@toStringTag");
        return savedTag.get!.call(this);
      },
      configurable: true,
    });
    Object.defineProperty(TypedArray, Symbol.species, {
      get() {
        calls.push("%TypedArray% @@species");
        return this;
      },
      configurable: true,
    });
    Object.defineProperty(chunk, "constructor", {
      get: () => (calls.push("constructor"), Sub),
      configurable: true,
    });
    controller.enqueue(chunk);
    const pending = reader.read(target);
    ({ value } = await pending);
  } finally {
    Object.defineProperty(TypedArrayPrototype, Symbol.toStringTag, savedTag);
    Object.defineProperty(TypedArray, Symbol.species, savedSpecies);
  }
  assert.equal(calls, []);
  assert.ok(Object.getPrototypeOf(value) === Uint8Array.prototype, "read(view) answers with a plain Uint8Array");
  assert.equal(Array.from(value as Uint8Array), [2, 3]);
});

test("views are told apart by their internal slots, not their prototype", async () => {
  // A DataView dressed as a Uint8Array and a Uint8Array dressed as a DataView are still what they are.
  const dv = new DataView(new Uint8Array([1, 2, 3, 4]).buffer, 1, 2);
  Object.setPrototypeOf(dv, Uint8Array.prototype);
  const u8 = new Uint8Array([5, 6, 7]).subarray(1);
  Object.setPrototypeOf(u8, DataView.prototype);
  const { stream, controller } = byteStream();
  controller.enqueue(dv as unknown as Uint8Array<ArrayBuffer>);
  controller.enqueue(u8 as Uint8Array<ArrayBuffer>);
  controller.close();
  const reader = stream.getReader();
  const a = await reader.read();
  const b = await reader.read();
  assert.ok(a.value instanceof Uint8Array && b.value instanceof Uint8Array);
  assert.equal(Array.from(a.value!), [2, 3]);
  assert.equal(Array.from(b.value!), [6, 7]);
  assert.is((await reader.read()).done, true);
  // BYOB: a DataView with Uint8Array's prototype is filled and handed back as a DataView.
  const pair = byteStream();
  const byob = pair.stream.getReader({ mode: "byob" });
  const target = new DataView(new ArrayBuffer(4), 1, 3);
  Object.setPrototypeOf(target, Uint8Array.prototype);
  const pending = byob.read(target as unknown as Uint8Array<ArrayBuffer>);
  pair.controller.enqueue(new Uint8Array([9, 8, 7]));
  const { value } = await pending;
  assert.ok(Object.prototype.toString.call(value) === "[object DataView]");
  assert.is((value as unknown as DataView).byteOffset, 1);
  assert.equal(Array.from(new Uint8Array((value as unknown as DataView).buffer, 1, 3)), [9, 8, 7]);
});

test("byob read: respond() detaches the request's view; the result is a new view over a buffer nobody else holds", async () => {
  let requestView: Uint8Array | undefined;
  const { stream } = byteStream({
    pull(c) {
      requestView = c.byobRequest!.view as Uint8Array;
      requestView.set([4, 5, 6]);
      c.byobRequest!.respond(3);
    },
  });
  const reader = stream.getReader({ mode: "byob" });
  const mine = new Uint8Array(8);
  const { value } = await reader.read(mine);
  assert.is(mine.byteLength, 0, "the reader's view is detached by read()");
  assert.is(requestView!.byteLength, 0, "the request's view is detached by respond()");
  assert.is.not(value!.buffer, mine.buffer);
  assert.is.not(value!.buffer, requestView!.buffer);
  assert.equal(Array.from(value!), [4, 5, 6]);
  assert.is(value!.buffer.byteLength, 8);
  // Reusing the result's buffer for the next read detaches it in turn.
  const next = reader.read(new Uint8Array(value!.buffer));
  assert.is(value!.byteLength, 0);
  assert.equal(Array.from((await next).value!), [4, 5, 6]);
});

test("enqueue: after close() or error() throws TypeError", () => {
  const a = byteStream();
  a.controller.close();
  assert.instance(syncError(() => a.controller.enqueue(new Uint8Array(1))), TypeError);
  const b = byteStream();
  b.controller.error(new Error("x"));
  assert.instance(syncError(() => b.controller.enqueue(new Uint8Array(1))), TypeError);
});

test("desiredSize: high-water mark minus queued bytes", () => {
  const { controller } = byteStream({}, 10);
  assert.is(controller.desiredSize, 10);
  controller.enqueue(new Uint8Array(4));
  assert.is(controller.desiredSize, 6);
  controller.enqueue(new Uint32Array(3));
  assert.is(controller.desiredSize, -6);
});

test("close: a second close() throws TypeError; close after error throws TypeError", () => {
  const a = byteStream();
  a.controller.close();
  assert.instance(syncError(() => a.controller.close()), TypeError);
  const b = byteStream();
  b.controller.error(new Error("x"));
  assert.instance(syncError(() => b.controller.close()), TypeError);
});

test("close: queued bytes are still delivered before done", async () => {
  const { stream, controller } = byteStream();
  controller.enqueue(new Uint8Array([9, 8]));
  controller.close();
  const reader = stream.getReader();
  const first = await reader.read();
  assert.equal(Array.from(first.value!), [9, 8]);
  assert.equal(await reader.read(), { value: undefined, done: true });
});

test("error: reads reject with the exact error", async () => {
  const theError = new Error("bytes");
  const { stream, controller } = byteStream();
  const reader = byob(stream);
  const read = rejection(reader.read(new Uint8Array(4)));
  controller.error(theError);
  assert.is(await read, theError);
  assert.is(await rejection(reader.closed), theError);
});

// --- BYOB reads --------------------------------------------------------------------------------

test("byob read: detaches the passed view's buffer synchronously and resolves a view of the same type", async () => {
  const { stream, controller } = byteStream();
  const reader = byob(stream);
  const view = new Uint16Array(4);
  const originalBuffer = view.buffer;
  const read = reader.read(view);
  assert.ok(detached(originalBuffer), "read(view) transfers view.buffer");
  controller.enqueue(new Uint8Array([1, 0, 2, 0]));
  const { value, done } = await read;
  assert.is(done, false);
  assert.instance(value, Uint16Array);
  assert.is(value!.length, 2);
  assert.equal(Array.from(value!), [1, 2]);
  assert.is(value!.buffer.byteLength, 8, "the result reuses the (transferred) 8-byte buffer");
});

test("byob read: serves from queued bytes first; the rest stays queued", async () => {
  const { stream, controller } = byteStream();
  controller.enqueue(new Uint8Array([1, 2, 3, 4, 5]));
  const reader = byob(stream);
  const first = await reader.read(new Uint8Array(3));
  assert.equal(Array.from(first.value!), [1, 2, 3]);
  const second = await reader.read(new Uint8Array(3));
  assert.equal(Array.from(second.value!), [4, 5]);
  assert.is(second.value!.byteLength, 2);
});

test("byob read: the result keeps the view's byteOffset within the buffer", async () => {
  const { stream, controller } = byteStream();
  controller.enqueue(new Uint8Array([7, 7]));
  const reader = byob(stream);
  const { value } = await reader.read(new Uint8Array(new ArrayBuffer(10), 4, 3));
  assert.is(value!.byteOffset, 4);
  assert.is(value!.byteLength, 2);
  assert.is(value!.buffer.byteLength, 10);
});

test("byob read: DataView views work and come back as DataView", async () => {
  const { stream, controller } = byteStream();
  controller.enqueue(new Uint8Array([0x12, 0x34]));
  const { value } = await byob(stream).read(new DataView(new ArrayBuffer(2)));
  assert.instance(value, DataView);
  assert.is((value as unknown as DataView).getUint16(0), 0x1234);
});

test("byob read: a zero-length view or zero-length buffer rejects with TypeError", async () => {
  const reader = byob(byteStream().stream);
  assert.instance(await rejection(reader.read(new Uint8Array(0))), TypeError);
  assert.instance(await rejection(reader.read(new Uint8Array(new ArrayBuffer(4), 2, 0))), TypeError);
});

test("byob read: a detached view rejects with TypeError", async () => {
  const reader = byob(byteStream().stream);
  const view = new Uint8Array(4);
  transfer(view.buffer);
  assert.instance(await rejection(reader.read(view)), TypeError);
});

test("byob read: a non-ArrayBufferView argument rejects with TypeError", async () => {
  const reader = byob(byteStream().stream);
  for (const bad of [undefined, new ArrayBuffer(4), [1, 2, 3], {}]) {
    assert.instance(await rejection(reader.read(bad as never)), TypeError);
  }
});

test("byob read({ min }): min 0 rejects with TypeError, min above the element count rejects with RangeError", async () => {
  const reader = byob(byteStream().stream);
  assert.instance(await rejection(reader.read(new Uint8Array(4), { min: 0 })), TypeError);
  assert.instance(await rejection(reader.read(new Uint16Array(4), { min: 5 })), RangeError);
  assert.instance(await rejection(reader.read(new DataView(new ArrayBuffer(4)), { min: 5 })), RangeError);
});

test("byob read({ min }): waits until at least min elements are filled", async () => {
  const { stream, controller } = byteStream();
  const reader = byob(stream);
  let settled = false;
  const read = reader.read(new Uint8Array(8), { min: 4 }).then((r) => {
    settled = true;
    return r;
  });
  controller.enqueue(new Uint8Array([1, 2]));
  await delay();
  assert.is(settled, false, "2 of 4 required bytes");
  controller.enqueue(new Uint8Array([3, 4, 5]));
  const { value, done } = await read;
  assert.is(done, false);
  assert.equal(Array.from(value!), [1, 2, 3, 4, 5]);
});

test("byob read({ min }): min counts elements, not bytes", async () => {
  const { stream, controller } = byteStream();
  const reader = byob(stream);
  let settled = false;
  const read = reader.read(new Uint16Array(4), { min: 2 }).then((r) => {
    settled = true;
    return r;
  });
  controller.enqueue(new Uint8Array([1, 0, 2]));
  await delay();
  assert.is(settled, false, "3 bytes are 1.5 elements");
  controller.enqueue(new Uint8Array([0]));
  const { value } = await read;
  assert.equal(Array.from(value!), [1, 2]);
});

test("byob read({ min }): close with fewer than min elements; respond(0) resolves the filled bytes with done true", async () => {
  const { stream, controller } = byteStream();
  const reader = byob(stream);
  let settled = false;
  const read = reader.read(new Uint8Array(8), { min: 4 }).then((r) => {
    settled = true;
    return r;
  });
  controller.enqueue(new Uint8Array([1, 2]));
  controller.close();
  await delay();
  assert.is(settled, false, "the pending pull-into waits for the source's respond(0)");
  controller.byobRequest!.respond(0);
  const { value, done } = await read;
  assert.is(done, true);
  assert.equal(Array.from(value!), [1, 2]);
});

test("byob read: on a closed stream resolves done with an empty view of the same type and buffer size", async () => {
  const { stream, controller } = byteStream();
  controller.close();
  const view = new Uint32Array(new ArrayBuffer(16), 4, 2);
  const { value, done } = await byob(stream).read(view);
  assert.is(done, true);
  assert.instance(value, Uint32Array);
  assert.is(value!.length, 0);
  assert.is(value!.byteOffset, 4);
  assert.is(value!.buffer.byteLength, 16);
  assert.ok(detached(view.buffer));
});

test("byob read: a close with a pending read resolves done with an empty view", async () => {
  const { stream, controller } = byteStream();
  const read = byob(stream).read(new Uint8Array(4));
  controller.close();
  controller.byobRequest!.respond(0);
  const { value, done } = await read;
  assert.is(done, true);
  assert.is(value!.byteLength, 0);
  assert.is(value!.buffer.byteLength, 4);
});

test("byob releaseLock: pending read-into requests reject with TypeError", async () => {
  const { stream } = byteStream();
  const reader = byob(stream);
  const read = rejection(reader.read(new Uint8Array(4)));
  reader.releaseLock();
  assert.instance(await read, TypeError);
  assert.instance(await rejection(reader.closed), TypeError);
  assert.is(stream.locked, false);
});

test("byob cancel: reaches source.cancel with the reason; a pending read resolves done", async () => {
  const reasons: unknown[] = [];
  const stream = new ReadableStream({ type: "bytes", cancel: (r) => void reasons.push(r) });
  const reader = byob(stream);
  const read = reader.read(new Uint8Array(2));
  const reason = new Error("cancel");
  assert.is(await reader.cancel(reason), undefined);
  const result = await read;
  assert.is(result.done, true);
  assert.is(reasons.length, 1);
  assert.is(reasons[0], reason);
});

// --- byobRequest -----------------------------------------------------------------------------

test("byobRequest: exposes the pending view region (offset + bytes filled) and is stable until used", async () => {
  let request: ReadableStreamBYOBRequest | null = null;
  let again: ReadableStreamBYOBRequest | null = null;
  const { stream } = byteStream({
    pull(c) {
      request = c.byobRequest;
      again = c.byobRequest;
    },
  });
  const reader = byob(stream);
  void reader.read(new Uint8Array(new ArrayBuffer(12), 2, 8)).catch(() => {});
  await delay();
  assert.instance(request, ReadableStreamBYOBRequest);
  assert.is(request, again);
  const view = request!.view as Uint8Array;
  assert.instance(view, Uint8Array);
  assert.is(view.byteOffset, 2);
  assert.is(view.byteLength, 8);
  assert.is(view.buffer.byteLength, 12);
  reader.releaseLock();
});

test("byobRequest: respond(n) fulfils the read with the first n bytes written into the view", async () => {
  const { stream } = byteStream({
    pull(c) {
      const view = requestView(c);
      view[0] = 10;
      view[1] = 20;
      view[2] = 30;
      c.byobRequest!.respond(3);
    },
  });
  const { value, done } = await byob(stream).read(new Uint8Array(5));
  assert.is(done, false);
  assert.equal(Array.from(value!), [10, 20, 30]);
  assert.is(value!.buffer.byteLength, 5);
});

test("byobRequest: respond detaches the request view's buffer and invalidates the request", async () => {
  let view!: Uint8Array;
  let request!: ReadableStreamBYOBRequest;
  const { stream } = byteStream({
    pull(c) {
      request = c.byobRequest!;
      view = request.view as Uint8Array;
      view[0] = 1;
      request.respond(1);
    },
  });
  await byob(stream).read(new Uint8Array(4));
  assert.ok(detached(view.buffer));
  assert.is(request.view, null);
  assert.instance(syncError(() => request.respond(1)), TypeError);
});

test("byobRequest: respond with partial elements keeps the read pending until a whole element is filled", async () => {
  const responses: number[] = [];
  const { stream } = byteStream({
    pull(c) {
      const view = requestView(c);
      responses.push(view.byteLength);
      view[0] = 5;
      c.byobRequest!.respond(1);
    },
  });
  const { value } = await byob(stream).read(new Uint16Array(1));
  assert.equal(responses, [2, 1], "the second pull asks for the remaining byte");
  assert.equal(Array.from(new Uint8Array(value!.buffer, value!.byteOffset, 2)), [5, 5]);
});

test("byobRequest: respond(0) on a readable stream throws TypeError", async () => {
  let err: unknown;
  const { stream } = byteStream({
    pull(c) {
      err = syncError(() => c.byobRequest!.respond(0));
    },
  });
  const reader = byob(stream);
  void reader.read(new Uint8Array(4)).catch(() => {});
  await delay();
  assert.instance(err, TypeError);
  reader.releaseLock();
});

test("byobRequest: respond(n) beyond the view's byteLength throws RangeError", async () => {
  let err: unknown;
  const { stream } = byteStream({
    pull(c) {
      err = syncError(() => c.byobRequest!.respond(5));
    },
  });
  const reader = byob(stream);
  void reader.read(new Uint8Array(4)).catch(() => {});
  await delay();
  assert.instance(err, RangeError);
  reader.releaseLock();
});

test("byobRequest: respond(n > 0) after close throws TypeError", async () => {
  const { stream, controller } = byteStream();
  const read = byob(stream).read(new Uint8Array(4));
  controller.close();
  const request = controller.byobRequest!;
  assert.instance(syncError(() => request.respond(1)), TypeError);
  request.respond(0);
  assert.is((await read).done, true);
});

test("byobRequest: respond on a view whose buffer was detached by the source throws TypeError", async () => {
  let err: unknown;
  const { stream } = byteStream({
    pull(c) {
      transfer(requestView(c).buffer);
      err = syncError(() => c.byobRequest!.respond(1));
    },
  });
  const reader = byob(stream);
  void reader.read(new Uint8Array(4)).catch(() => {});
  await delay();
  assert.instance(err, TypeError);
  reader.releaseLock();
});

test("byobRequest: respondWithNewView with the same buffer region fulfils the read", async () => {
  const { stream } = byteStream({
    pull(c) {
      const old = requestView(c);
      const offset = old.byteOffset;
      const fresh = new Uint8Array(transfer(old.buffer), offset, 2);
      fresh.set([42, 43]);
      c.byobRequest!.respondWithNewView(fresh);
    },
  });
  const { value } = await byob(stream).read(new Uint8Array(new ArrayBuffer(6), 1, 4));
  assert.equal(Array.from(value!), [42, 43]);
  assert.is(value!.byteOffset, 1);
});

test("byobRequest: respondWithNewView with a wrong byteOffset or buffer size throws RangeError", async () => {
  const errors: unknown[] = [];
  const { stream } = byteStream({
    pull(c) {
      const old = requestView(c);
      errors.push(
        syncError(() => c.byobRequest!.respondWithNewView(new Uint8Array(old.buffer, old.byteOffset + 1, 1))),
      );
      errors.push(
        syncError(() =>
          c.byobRequest!.respondWithNewView(
            new Uint8Array(new ArrayBuffer(old.buffer.byteLength + 1), old.byteOffset, 1),
          )
        ),
      );
      errors.push(
        syncError(() =>
          c.byobRequest!.respondWithNewView(
            new Uint8Array(new ArrayBuffer(old.buffer.byteLength), old.byteOffset, old.byteLength + 1),
          )
        ),
      );
    },
  });
  const reader = byob(stream);
  void reader.read(new Uint8Array(new ArrayBuffer(8), 2, 4)).catch(() => {});
  await delay();
  assert.is(errors.length, 3);
  for (const err of errors) assert.instance(err, RangeError);
  reader.releaseLock();
});

test("byobRequest: respondWithNewView with a non-view throws TypeError; an empty view on a readable stream throws TypeError", async () => {
  const errors: unknown[] = [];
  const { stream } = byteStream({
    pull(c) {
      const old = requestView(c);
      errors.push(syncError(() => c.byobRequest!.respondWithNewView(new ArrayBuffer(4) as never)));
      errors.push(syncError(() => c.byobRequest!.respondWithNewView(new Uint8Array(old.buffer, old.byteOffset, 0))));
    },
  });
  const reader = byob(stream);
  void reader.read(new Uint8Array(4)).catch(() => {});
  await delay();
  assert.instance(errors[0], TypeError);
  assert.instance(errors[1], TypeError);
  reader.releaseLock();
});

test("byobRequest: enqueue while a BYOB read is pending copies into it and invalidates the request", async () => {
  let request!: ReadableStreamBYOBRequest;
  const { stream, controller } = byteStream({
    pull(c) {
      request = c.byobRequest!;
    },
  });
  const read = byob(stream).read(new Uint8Array(4));
  await delay();
  assert.ok(request);
  controller.enqueue(new Uint8Array([3, 4]));
  assert.is(request.view, null);
  assert.is(controller.byobRequest, null);
  const { value } = await read;
  assert.equal(Array.from(value!), [3, 4]);
  assert.is(value!.buffer.byteLength, 4);
});

test("close: with a partially filled multi-byte element pending, close throws TypeError and errors the stream", async () => {
  let pulls = 0;
  const { stream, controller } = byteStream({
    pull(c) {
      if (pulls++ > 0) return;
      requestView(c)[0] = 1;
      c.byobRequest!.respond(1);
    },
  });
  const reader = byob(stream);
  const read = rejection(reader.read(new Uint16Array(2)));
  await delay();
  const err = syncError(() => controller.close());
  assert.instance(err, TypeError);
  assert.is(await read, err);
});

// --- autoAllocateChunkSize ---------------------------------------------------------------------

test("autoAllocateChunkSize: a default read gets a byobRequest of that size and respond(n) yields n bytes", async () => {
  const sizes: number[] = [];
  const { stream } = byteStream({
    autoAllocateChunkSize: 16,
    pull(c) {
      const view = requestView(c);
      sizes.push(view.byteLength, view.byteOffset, view.buffer.byteLength);
      view.set([1, 2, 3]);
      c.byobRequest!.respond(3);
    },
  });
  const { value, done } = await stream.getReader().read();
  assert.is(done, false);
  assert.equal(sizes, [16, 0, 16]);
  assert.instance(value, Uint8Array);
  assert.equal(Array.from(value!), [1, 2, 3]);
});

test("autoAllocateChunkSize: without it a default read gives byobRequest null", async () => {
  let request: unknown = "unset";
  const { stream } = byteStream({
    pull(c) {
      request = c.byobRequest;
      c.enqueue(new Uint8Array([1]));
    },
  });
  const { value } = await stream.getReader().read();
  assert.is(request, null);
  assert.equal(Array.from(value!), [1]);
});

test("pull: a byte stream pulls only when a read is pending (default high-water mark 0)", async () => {
  let pulls = 0;
  const { stream } = byteStream({
    pull(c) {
      pulls++;
      c.enqueue(new Uint8Array([pulls]));
    },
  });
  await delay();
  assert.is(pulls, 0);
  const reader = stream.getReader();
  const { value } = await reader.read();
  assert.equal(Array.from(value!), [1]);
  await delay();
  assert.is(pulls, 1);
});

test("BYOB: filling pending reads (enqueue, respond in the closed state) calls no patched Array.prototype.push", async () => {
  const saved = Object.getOwnPropertyDescriptor(Array.prototype, "push")!;
  let calls = 0;
  const patch = (): void => {
    Object.defineProperty(Array.prototype, "push", {
      ...saved,
      value: function (this: unknown[], ...items: unknown[]) {
        calls++;
        return Reflect.apply(saved.value as (...a: unknown[]) => number, this, items);
      },
    });
  };
  const restore = (): void => {
    Object.defineProperty(Array.prototype, "push", saved);
  };
  let controller!: ReadableByteStreamController;
  const stream = new ReadableStream({
    type: "bytes",
    start(c) {
      controller = c;
    },
  });
  await Promise.resolve();
  const reader = stream.getReader({ mode: "byob" });
  const first = reader.read(new Uint8Array(4));
  try {
    patch();
    controller.enqueue(new Uint8Array([1, 2, 3])); // ProcessPullIntoDescriptorsUsingQueue fills the read
  } finally {
    restore();
  }
  const r1 = await first;
  assert.equal(Array.from(r1.value!), [1, 2, 3]);
  const second = reader.read(new Uint8Array(4));
  await Promise.resolve();
  controller.close();
  try {
    patch();
    controller.byobRequest!.respond(0); // ReadableByteStreamControllerRespondInClosedState
  } finally {
    restore();
  }
  const r2 = await second;
  assert.is(r2.done, true);
  assert.is(calls, 0);
});

test("[EnforceRange] conversions do not read a replaced global Number (autoAllocateChunkSize, read({ min }))", async () => {
  const RealNumber = Number;
  const g = globalThis as unknown as { Number: unknown };
  let thrown: unknown;
  let stream!: ReadableStream<Uint8Array>;
  let read: Promise<unknown> | undefined;
  try {
    g.Number = { MAX_SAFE_INTEGER: 1, isNaN: RealNumber.isNaN };
    try {
      stream = new ReadableStream({
        type: "bytes",
        autoAllocateChunkSize: 16,
        pull(c) {
          const v = c.byobRequest!.view as Uint8Array;
          v.set([5, 6, 7, 8]);
          c.byobRequest!.respond(4);
        },
      });
      read = stream.getReader({ mode: "byob" }).read(new Uint8Array(8), { min: 4 });
    } catch (e) {
      thrown = e;
    }
  } finally {
    g.Number = RealNumber;
  }
  assert.is(thrown, undefined);
  const result = (await read) as { value?: Uint8Array };
  assert.equal(Array.from(result.value!), [5, 6, 7, 8]);
});

test("respond(0) after close: a reader released by a `then` getter during the first fulfillment is left alone", async () => {
  // Script on Object.prototype.then runs while a read-into result is resolved; releasing the reader there
  // rejects the other pending read, and the remaining descriptors must not be committed to a reader that is gone.
  let releaseNow: (() => void) | undefined;
  Object.defineProperty(Object.prototype, "then", {
    configurable: true,
    get() {
      const release = releaseNow;
      releaseNow = undefined;
      release?.();
      return undefined;
    },
  });
  let outcomes: string[];
  try {
    let controller!: ReadableByteStreamController;
    const stream = new ReadableStream({
      type: "bytes",
      start(c) {
        controller = c;
      },
    });
    const reader = stream.getReader({ mode: "byob" });
    const a = reader.read(new Uint8Array(4)).then((r) => `a: done ${r.done}`, (e: Error) => `a: ${e.name}`);
    const b = reader.read(new Uint8Array(4)).then((r) => `b: done ${r.done}`, (e: Error) => `b: ${e.name}`);
    controller.close();
    releaseNow = () => reader.releaseLock();
    controller.byobRequest!.respond(0);
    outcomes = await Promise.all([a, b]);
  } finally {
    delete (Object.prototype as { then?: unknown }).then;
  }
  assert.equal(outcomes, ["a: done true", "b: TypeError"]);
});

test.run();
