/**
 * ByteLengthQueuingStrategy and CountQueuingStrategy.
 * Spec: https://streams.spec.whatwg.org/#qs
 *
 *   node tests/unit/queuing-strategies.test.ts   deno run -A tests/unit/queuing-strategies.test.ts   bun tests/unit/queuing-strategies.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  ByteLengthQueuingStrategy,
  CountQueuingStrategy,
  ReadableStream,
  ReadableStreamDefaultController,
  WritableStream,
} from "../../mod.ts";

function syncError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  assert.unreachable("expected the call to throw");
}

type StrategyClass = typeof ByteLengthQueuingStrategy | typeof CountQueuingStrategy;
const classes: [string, StrategyClass][] = [
  ["ByteLengthQueuingStrategy", ByteLengthQueuingStrategy],
  ["CountQueuingStrategy", CountQueuingStrategy],
];

for (const [name, Strategy] of classes) {
  test(`${name}: highWaterMark returns the init value`, () => {
    assert.is(new Strategy({ highWaterMark: 16 }).highWaterMark, 16);
    assert.is(new Strategy({ highWaterMark: 0 }).highWaterMark, 0);
    assert.is(new Strategy({ highWaterMark: Infinity }).highWaterMark, Infinity);
  });

  test(`${name}: highWaterMark is converted to a double but not validated`, () => {
    assert.is(new Strategy({ highWaterMark: -1 }).highWaterMark, -1);
    assert.ok(Number.isNaN(new Strategy({ highWaterMark: NaN }).highWaterMark));
    assert.is(new Strategy({ highWaterMark: "4" as unknown as number }).highWaterMark, 4);
    assert.is(new Strategy({ highWaterMark: { valueOf: () => 9 } as unknown as number }).highWaterMark, 9);
    assert.ok(Number.isNaN(new Strategy({ highWaterMark: "abc" as unknown as number }).highWaterMark));
  });

  test(`${name}: a missing init or highWaterMark throws TypeError`, () => {
    assert.instance(syncError(() => new (Strategy as new () => unknown)()), TypeError);
    assert.instance(syncError(() => new Strategy({} as never)), TypeError);
    assert.instance(syncError(() => new Strategy(null as never)), TypeError);
    assert.instance(syncError(() => new Strategy({ highWaterMark: undefined } as never)), TypeError);
  });

  test(`${name}: a non-object init throws TypeError`, () => {
    assert.instance(syncError(() => new Strategy(5 as never)), TypeError);
  });

  test(`${name}: highWaterMark is read from init exactly once`, () => {
    let reads = 0;
    const init = {
      get highWaterMark() {
        reads++;
        return 3;
      },
    };
    const strategy = new Strategy(init);
    assert.is(strategy.highWaterMark, 3);
    assert.is(strategy.highWaterMark, 3);
    assert.is(reads, 1);
  });

  test(`${name}: an exception from the init getter propagates`, () => {
    const theError = new Error("getter");
    const init = {
      get highWaterMark(): number {
        throw theError;
      },
    };
    assert.is(syncError(() => new Strategy(init)), theError);
  });

  test(`${name}: size is the same function for every instance, named "size", not own`, () => {
    const a = new Strategy({ highWaterMark: 1 });
    const b = new Strategy({ highWaterMark: 2 });
    assert.type(a.size, "function");
    assert.is(a.size, b.size);
    assert.is(a.size.name, "size");
    assert.not.ok(Object.prototype.hasOwnProperty.call(a, "size"));
    assert.not.ok(Object.prototype.hasOwnProperty.call(a, "highWaterMark"));
  });

  test(`${name}: size and highWaterMark are prototype getters with no setters`, () => {
    const proto = Strategy.prototype;
    for (const key of ["size", "highWaterMark"]) {
      const desc = Object.getOwnPropertyDescriptor(proto, key)!;
      assert.ok(desc, key);
      assert.type(desc.get, "function", `${key} getter`);
      assert.is(desc.set, undefined, `${key} setter`);
      assert.is(desc.enumerable, true);
      assert.is(desc.configurable, true);
    }
  });

  test(`${name}: getters throw TypeError on a foreign this`, () => {
    const proto = Strategy.prototype;
    for (const key of ["size", "highWaterMark"]) {
      const getter = Object.getOwnPropertyDescriptor(proto, key)!.get!;
      assert.instance(syncError(() => getter.call({})), TypeError, key);
      assert.instance(syncError(() => getter.call(undefined)), TypeError, key);
    }
  });

  test(`${name}: size is not a constructor`, () => {
    const size = new Strategy({ highWaterMark: 1 }).size as unknown as new (x: unknown) => unknown;
    assert.instance(syncError(() => new size({ byteLength: 1 })), TypeError);
    assert.not.ok("prototype" in size);
  });

  test(`${name}: Symbol.toStringTag is "${name}"`, () => {
    const strategy = new Strategy({ highWaterMark: 1 });
    assert.is(Object.prototype.toString.call(strategy), `[object ${name}]`);
    const desc = Object.getOwnPropertyDescriptor(Strategy.prototype, Symbol.toStringTag)!;
    assert.is(desc.value, name);
    assert.is(desc.writable, false);
    assert.is(desc.enumerable, false);
    assert.is(desc.configurable, true);
  });

  test(`${name}: the constructor has length 1 and requires new`, () => {
    assert.is(Strategy.length, 1);
    assert.is(Strategy.name, name);
    assert.instance(syncError(() => (Strategy as unknown as (x: unknown) => unknown)({ highWaterMark: 1 })), TypeError);
  });

  test(`${name}: an instance passes as a stream strategy`, () => {
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) }, new Strategy({ highWaterMark: 7 }));
    assert.is(controller.desiredSize, 7);
  });
}

test("ByteLengthQueuingStrategy: size(chunk) returns chunk.byteLength, ignores this, has length 1", () => {
  const { size } = new ByteLengthQueuingStrategy({ highWaterMark: 1 });
  assert.is(size.length, 1);
  assert.is(size(new Uint8Array(5)), 5);
  assert.is(size(new ArrayBuffer(3) as never), 3);
  assert.is(size({ byteLength: 42 } as never), 42);
  assert.is(size({ byteLength: "not a number" } as never), "not a number" as never);
  assert.is(size({} as never), undefined as never);
  assert.is(size.call(undefined, new Uint16Array(2)), 4);
});

test("ByteLengthQueuingStrategy: size(undefined) or size(null) throws TypeError; a byteLength getter error propagates", () => {
  const { size } = new ByteLengthQueuingStrategy({ highWaterMark: 1 });
  assert.instance(syncError(() => size(undefined as never)), TypeError);
  assert.instance(syncError(() => size(null as never)), TypeError);
  const theError = new Error("byteLength getter");
  const chunk = {
    get byteLength(): number {
      throw theError;
    },
  };
  assert.is(syncError(() => size(chunk as never)), theError);
});

test("CountQueuingStrategy: size() returns 1 for anything, ignores this, has length 0", () => {
  const size = new CountQueuingStrategy({ highWaterMark: 1 }).size as (this: unknown, chunk?: unknown) => number;
  assert.is(size.length, 0);
  assert.is(size(), 1);
  assert.is(size("x"), 1);
  assert.is(size(new Uint8Array(100)), 1);
  assert.is(size.call({ not: "a strategy" }, undefined), 1);
});

test("the two strategies have different size functions", () => {
  assert.is.not(
    new ByteLengthQueuingStrategy({ highWaterMark: 1 }).size as unknown,
    new CountQueuingStrategy({ highWaterMark: 1 }).size as unknown,
  );
});

test("ByteLengthQueuingStrategy drives a WritableStream's desiredSize by byte count", () => {
  const writable = new WritableStream<Uint8Array>(
    { write: () => new Promise(() => {}) },
    new ByteLengthQueuingStrategy({ highWaterMark: 10 }),
  );
  const writer = writable.getWriter();
  void writer.write(new Uint8Array(4));
  assert.is(writer.desiredSize, 6);
  void writer.write(new Uint8Array(8));
  assert.is(writer.desiredSize, -2);
});

test("a strategy with an invalid highWaterMark makes the stream constructor throw RangeError", () => {
  assert.instance(syncError(() => new ReadableStream({}, new CountQueuingStrategy({ highWaterMark: -1 }))), RangeError);
  assert.instance(
    syncError(() => new WritableStream({}, new ByteLengthQueuingStrategy({ highWaterMark: NaN }))),
    RangeError,
  );
});

test.run();
