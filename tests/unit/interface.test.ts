/**
 * WebIDL surface of every Streams Standard interface: constructors, prototype members (kind, length, name,
 * property attributes), Symbol.toStringTag, brand checks, subclassing.
 * Spec: https://streams.spec.whatwg.org/ (IDL blocks) and https://webidl.spec.whatwg.org/#es-interfaces
 *
 *   node tests/unit/interface.test.ts   deno run -A tests/unit/interface.test.ts   bun tests/unit/interface.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  ByteLengthQueuingStrategy,
  CountQueuingStrategy,
  ReadableByteStreamController,
  ReadableStream,
  ReadableStreamBYOBReader,
  ReadableStreamBYOBRequest,
  ReadableStreamDefaultController,
  ReadableStreamDefaultReader,
  TransformStream,
  TransformStreamDefaultController,
  WritableStream,
  WritableStreamDefaultController,
  WritableStreamDefaultWriter,
} from "../../mod.ts";

const delay = (ms = 0): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

type AnyFunction = (...args: unknown[]) => unknown;
type AnyClass = abstract new (...args: never[]) => unknown;

interface Member {
  kind: "method" | "getter";
  length?: number;
  /** Operations and attributes typed Promise<T> reject instead of throwing on a bad this. */
  promise?: boolean;
}

interface InterfaceSpec {
  name: string;
  ctor: AnyClass;
  constructible: boolean;
  length: number;
  members: Record<string, Member>;
  asyncIterable?: boolean;
  statics?: Record<string, number>;
}

const m = (length: number, promise = false): Member => ({ kind: "method", length, promise });
const g = (promise = false): Member => ({ kind: "getter", promise });

const INTERFACES: InterfaceSpec[] = [
  {
    name: "ReadableStream",
    ctor: ReadableStream,
    constructible: true,
    length: 0,
    members: {
      locked: g(),
      cancel: m(0, true),
      getReader: m(0),
      pipeThrough: m(1),
      pipeTo: m(1, true),
      tee: m(0),
      values: m(0),
    },
    asyncIterable: true,
    statics: { from: 1 },
  },
  {
    name: "ReadableStreamDefaultReader",
    ctor: ReadableStreamDefaultReader,
    constructible: true,
    length: 1,
    members: { closed: g(true), cancel: m(0, true), read: m(0, true), releaseLock: m(0) },
  },
  {
    name: "ReadableStreamBYOBReader",
    ctor: ReadableStreamBYOBReader,
    constructible: true,
    length: 1,
    members: { closed: g(true), cancel: m(0, true), read: m(1, true), releaseLock: m(0) },
  },
  {
    name: "ReadableStreamDefaultController",
    ctor: ReadableStreamDefaultController,
    constructible: false,
    length: 0,
    members: { desiredSize: g(), close: m(0), enqueue: m(0), error: m(0) },
  },
  {
    name: "ReadableByteStreamController",
    ctor: ReadableByteStreamController,
    constructible: false,
    length: 0,
    members: { byobRequest: g(), desiredSize: g(), close: m(0), enqueue: m(1), error: m(0) },
  },
  {
    name: "ReadableStreamBYOBRequest",
    ctor: ReadableStreamBYOBRequest,
    constructible: false,
    length: 0,
    members: { view: g(), respond: m(1), respondWithNewView: m(1) },
  },
  {
    name: "WritableStream",
    ctor: WritableStream,
    constructible: true,
    length: 0,
    members: { locked: g(), abort: m(0, true), close: m(0, true), getWriter: m(0) },
  },
  {
    name: "WritableStreamDefaultWriter",
    ctor: WritableStreamDefaultWriter,
    constructible: true,
    length: 1,
    members: {
      closed: g(true),
      desiredSize: g(),
      ready: g(true),
      abort: m(0, true),
      close: m(0, true),
      releaseLock: m(0),
      write: m(0, true),
    },
  },
  {
    name: "WritableStreamDefaultController",
    ctor: WritableStreamDefaultController,
    constructible: false,
    length: 0,
    members: { signal: g(), error: m(0) },
  },
  {
    name: "TransformStream",
    ctor: TransformStream,
    constructible: true,
    length: 0,
    members: { readable: g(), writable: g() },
  },
  {
    name: "TransformStreamDefaultController",
    ctor: TransformStreamDefaultController,
    constructible: false,
    length: 0,
    members: { desiredSize: g(), enqueue: m(0), error: m(0), terminate: m(0) },
  },
  {
    name: "ByteLengthQueuingStrategy",
    ctor: ByteLengthQueuingStrategy,
    constructible: true,
    length: 1,
    members: { highWaterMark: g(), size: g() },
  },
  {
    name: "CountQueuingStrategy",
    ctor: CountQueuingStrategy,
    constructible: true,
    length: 1,
    members: { highWaterMark: g(), size: g() },
  },
];

function syncError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  assert.unreachable("expected the call to throw");
}

/** One real instance of every interface, to use as a "wrong this" for the others. */
async function instances(): Promise<Map<string, object>> {
  const map = new Map<string, object>();
  let rsController!: ReadableStreamDefaultController<unknown>;
  const rs = new ReadableStream({ start: (c) => void (rsController = c) });
  map.set("ReadableStream", rs);
  map.set("ReadableStreamDefaultController", rsController);
  map.set("ReadableStreamDefaultReader", new ReadableStream().getReader());
  let byteController!: ReadableByteStreamController;
  const bytes = new ReadableStream({ type: "bytes", start: (c) => void (byteController = c) });
  map.set("ReadableByteStreamController", byteController);
  const byobReader = bytes.getReader({ mode: "byob" });
  map.set("ReadableStreamBYOBReader", byobReader);
  void byobReader.read(new Uint8Array(1)).catch(() => {});
  map.set("ReadableStreamBYOBRequest", byteController.byobRequest!);
  let wsController!: WritableStreamDefaultController;
  map.set("WritableStream", new WritableStream({ start: (c) => void (wsController = c) }));
  map.set("WritableStreamDefaultController", wsController);
  map.set("WritableStreamDefaultWriter", new WritableStream().getWriter());
  let tsController!: TransformStreamDefaultController<unknown>;
  map.set("TransformStream", new TransformStream({ start: (c) => void (tsController = c) }));
  map.set("TransformStreamDefaultController", tsController);
  map.set("ByteLengthQueuingStrategy", new ByteLengthQueuingStrategy({ highWaterMark: 1 }));
  map.set("CountQueuingStrategy", new CountQueuingStrategy({ highWaterMark: 1 }));
  await delay();
  return map;
}

test("every interface object is a function with the right name and length", () => {
  for (const spec of INTERFACES) {
    assert.type(spec.ctor, "function", spec.name);
    assert.is(spec.ctor.name, spec.name, `${spec.name}.name`);
    assert.is(spec.ctor.length, spec.length, `${spec.name}.length`);
  }
});

test("interface objects' prototype property: non-writable, non-enumerable, non-configurable; constructor link", () => {
  for (const spec of INTERFACES) {
    const desc = Object.getOwnPropertyDescriptor(spec.ctor, "prototype")!;
    assert.is(desc.writable, false, `${spec.name}.prototype writable`);
    assert.is(desc.enumerable, false, `${spec.name}.prototype enumerable`);
    assert.is(desc.configurable, false, `${spec.name}.prototype configurable`);
    const ctorDesc = Object.getOwnPropertyDescriptor(spec.ctor.prototype, "constructor")!;
    assert.is(ctorDesc.value, spec.ctor, `${spec.name}.prototype.constructor`);
    assert.is(ctorDesc.enumerable, false);
    assert.is(ctorDesc.writable, true);
    assert.is(ctorDesc.configurable, true);
    assert.is(Object.getPrototypeOf(spec.ctor.prototype), Object.prototype, `${spec.name} inherits from Object`);
  }
});

test("interface objects cannot be called without new", () => {
  for (const spec of INTERFACES) {
    const err = syncError(() => (spec.ctor as unknown as AnyFunction)());
    assert.instance(err, TypeError, spec.name);
  }
});

test("controllers and the BYOB request cannot be constructed (TypeError)", () => {
  for (const spec of INTERFACES.filter((s) => !s.constructible)) {
    const Ctor = spec.ctor as unknown as new (...args: unknown[]) => unknown;
    assert.instance(syncError(() => new Ctor()), TypeError, spec.name);
    assert.instance(syncError(() => new Ctor({})), TypeError, spec.name);
  }
});

test("constructible readers and writers can be built from a stream", () => {
  const rs = new ReadableStream();
  assert.instance(new ReadableStreamDefaultReader(rs), ReadableStreamDefaultReader);
  const bytes = new ReadableStream({ type: "bytes" });
  assert.instance(new ReadableStreamBYOBReader(bytes), ReadableStreamBYOBReader);
  const ws = new WritableStream();
  assert.instance(new WritableStreamDefaultWriter(ws), WritableStreamDefaultWriter);
});

test("prototype members: exact own names, kinds, lengths, names and WebIDL property attributes", () => {
  for (const spec of INTERFACES) {
    const proto = spec.ctor.prototype as object;
    const expectedNames = ["constructor", ...Object.keys(spec.members)].sort();
    assert.equal(Object.getOwnPropertyNames(proto).sort(), expectedNames, `${spec.name} own property names`);
    for (const [key, member] of Object.entries(spec.members)) {
      const where = `${spec.name}.prototype.${key}`;
      const desc = Object.getOwnPropertyDescriptor(proto, key)!;
      assert.is(desc.enumerable, true, `${where} enumerable`);
      assert.is(desc.configurable, true, `${where} configurable`);
      if (member.kind === "method") {
        assert.type(desc.value, "function", where);
        assert.is(desc.writable, true, `${where} writable`);
        assert.is((desc.value as AnyFunction).length, member.length, `${where}.length`);
        assert.is((desc.value as AnyFunction).name, key, `${where}.name`);
      } else {
        assert.type(desc.get, "function", `${where} getter`);
        assert.is(desc.set, undefined, `${where} setter`);
        assert.is(desc.get!.name, `get ${key}`, `${where} getter name`);
        assert.is(desc.get!.length, 0, `${where} getter length`);
      }
    }
  }
});

test("Symbol.toStringTag: the interface name; non-writable, non-enumerable, configurable", () => {
  for (const spec of INTERFACES) {
    const proto = spec.ctor.prototype as object;
    const desc = Object.getOwnPropertyDescriptor(proto, Symbol.toStringTag)!;
    assert.ok(desc, `${spec.name} has @@toStringTag`);
    assert.is(desc.value, spec.name);
    assert.is(desc.writable, false);
    assert.is(desc.enumerable, false);
    assert.is(desc.configurable, true);
  }
});

test("Object.prototype.toString on real instances gives [object <Interface>]", async () => {
  const map = await instances();
  for (const [name, obj] of map) {
    assert.is(Object.prototype.toString.call(obj), `[object ${name}]`);
  }
});

test("own symbol properties: only @@toStringTag, plus @@asyncIterator on ReadableStream (registered Symbol.for hooks aside)", () => {
  for (const spec of INTERFACES) {
    // Symbol.for(...) keys (e.g. a runtime's inspect hook) are tolerated; any other symbol is an extra.
    const symbols = Object.getOwnPropertySymbols(spec.ctor.prototype)
      .filter((s) => Symbol.keyFor(s) === undefined)
      .map((s) => s.toString())
      .sort();
    const expected = [Symbol.toStringTag.toString()];
    if (spec.asyncIterable) expected.push(Symbol.asyncIterator.toString());
    assert.equal(symbols, expected.sort(), spec.name);
  }
});

test("ReadableStream.prototype[Symbol.asyncIterator]: the values function, writable, non-enumerable, configurable", () => {
  const desc = Object.getOwnPropertyDescriptor(ReadableStream.prototype, Symbol.asyncIterator)!;
  assert.is(desc.value, ReadableStream.prototype.values);
  assert.is(desc.writable, true);
  assert.is(desc.enumerable, false);
  assert.is(desc.configurable, true);
});

test("static members: ReadableStream.from is an enumerable, writable, configurable method of length 1", () => {
  for (const spec of INTERFACES) {
    const expectedStatics = Object.keys(spec.statics ?? {});
    const ownStatics = Object.getOwnPropertyNames(spec.ctor).filter((k) =>
      !["length", "name", "prototype"].includes(k)
    );
    assert.equal(ownStatics.sort(), expectedStatics.sort(), `${spec.name} statics`);
    for (const [key, length] of Object.entries(spec.statics ?? {})) {
      const desc = Object.getOwnPropertyDescriptor(spec.ctor, key)!;
      assert.type(desc.value, "function");
      assert.is((desc.value as AnyFunction).length, length);
      assert.is((desc.value as AnyFunction).name, key);
      assert.is(desc.enumerable, true);
      assert.is(desc.writable, true);
      assert.is(desc.configurable, true);
    }
  }
});

test("brand checks: synchronous members throw TypeError for a plain object or another interface's instance", async () => {
  const map = await instances();
  for (const spec of INTERFACES) {
    const proto = spec.ctor.prototype as object;
    const foreign = [{}, map.get(spec.name === "ReadableStream" ? "WritableStream" : "ReadableStream")!];
    for (const [key, member] of Object.entries(spec.members)) {
      if (member.promise) continue;
      const desc = Object.getOwnPropertyDescriptor(proto, key)!;
      const fn = (member.kind === "method" ? desc.value : desc.get) as AnyFunction;
      for (const self of foreign) {
        const err = syncError(() => fn.call(self));
        assert.instance(err, TypeError, `${spec.name}.${key} on ${Object.prototype.toString.call(self)}`);
      }
      assert.instance(syncError(() => fn.call(undefined)), TypeError, `${spec.name}.${key} on undefined`);
    }
  }
});

test("brand checks: promise-returning members reject with TypeError (no synchronous throw)", async () => {
  const map = await instances();
  for (const spec of INTERFACES) {
    const proto = spec.ctor.prototype as object;
    for (const [key, member] of Object.entries(spec.members)) {
      if (!member.promise) continue;
      const desc = Object.getOwnPropertyDescriptor(proto, key)!;
      const fn = (member.kind === "method" ? desc.value : desc.get) as AnyFunction;
      for (const self of [{}, map.get("TransformStream")!]) {
        const where = `${spec.name}.${key} on ${Object.prototype.toString.call(self)}`;
        let result: unknown;
        try {
          result = fn.call(self);
        } catch (err) {
          assert.unreachable(`${where} threw synchronously: ${String(err)}`);
        }
        assert.instance(result, Promise, where);
        const err = await (result as Promise<unknown>).then(
          () => "fulfilled",
          (e: unknown) => e,
        );
        assert.instance(err, TypeError, where);
      }
    }
  }
});

test("brand checks: the methods work on their own instances (control for the checks above)", async () => {
  const map = await instances();
  const rs = map.get("ReadableStream") as ReadableStream;
  assert.is(Object.getOwnPropertyDescriptor(ReadableStream.prototype, "locked")!.get!.call(rs), false);
  const ws = map.get("WritableStream") as WritableStream;
  assert.is(Object.getOwnPropertyDescriptor(WritableStream.prototype, "locked")!.get!.call(ws), false);
  const ctrl = map.get("ReadableStreamDefaultController") as ReadableStreamDefaultController<unknown>;
  assert.is(
    Object.getOwnPropertyDescriptor(ReadableStreamDefaultController.prototype, "desiredSize")!.get!.call(ctrl),
    1,
  );
});

test("subclassing: ReadableStream, WritableStream and TransformStream can be extended", async () => {
  class MyReadable extends ReadableStream<number> {
    extra(): string {
      return "readable";
    }
  }
  class MyWritable extends WritableStream<number> {}
  class MyTransform extends TransformStream<number, number> {}
  const r = new MyReadable({
    start(c) {
      c.enqueue(1);
      c.close();
    },
  });
  assert.instance(r, MyReadable);
  assert.instance(r, ReadableStream);
  assert.is(r.extra(), "readable");
  const w = new MyWritable();
  const t = new MyTransform();
  assert.instance(w, WritableStream);
  assert.instance(t, TransformStream);
  await r.pipeThrough(t).pipeTo(w);
  assert.is(w.locked, false);
});

test("ReadableStream.from ignores its this value and returns a plain ReadableStream", async () => {
  class Sub extends ReadableStream<number> {}
  const s = (ReadableStream.from as (this: unknown, x: Iterable<number>) => ReadableStream<number>).call(Sub, [1]);
  assert.is(Object.getPrototypeOf(s), ReadableStream.prototype);
  const s2 = (ReadableStream.from as (this: unknown, x: Iterable<number>) => ReadableStream<number>).call(undefined, [
    1,
  ]);
  assert.instance(s2, ReadableStream);
});

test.run();
