/**
 * adapters/kit/object-slot.ts (SLOT-NOT-WEAKMAP): what the kit keeps with a Response, a shell or a bridge in
 * place of a WeakMap entry. It answers as a WeakMap would, is invisible to enumeration, reflection and copying
 * (spread, `Object.assign()`, `Object.keys()`, `Reflect.ownKeys()`, JSON, `for…in`; SLOT-PRIVATE), never runs a
 * Proxy's trap, is not inherited by an object made with the owner as its prototype, and keeps working for an object
 * that cannot take a property (frozen, sealed, non-extensible) and for the runtime's own objects (a native stream,
 * a Response).
 *
 *   node tests/unit/object-slot.test.ts   deno run -A tests/unit/object-slot.test.ts   bun tests/unit/object-slot.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ObjectSlot } from "../../adapters/kit/object-slot.ts";

test("answers what was set, per object and per slot, and forgets on delete", () => {
  const a = new ObjectSlot<string>("a");
  const b = new ObjectSlot<string>("b");
  const x = {};
  const y = {};
  assert.is(a.get(x), undefined);
  assert.is(a.has(x), false);
  a.set(x, "ax");
  b.set(x, "bx");
  a.set(y, "ay");
  assert.is(a.get(x), "ax");
  assert.is(b.get(x), "bx");
  assert.is(a.get(y), "ay");
  assert.is(b.get(y), undefined);
  a.set(x, "ax2");
  assert.is(a.get(x), "ax2");
  a.delete(x);
  assert.is(a.get(x), undefined);
  assert.is(a.has(x), false);
  assert.is(b.get(x), "bx");
  a.set(x, "ax3");
  assert.is(a.get(x), "ax3");
});

test("invisible to enumeration and copying", () => {
  const slot = new ObjectSlot<{ secret: number }>("hidden");
  const owner: Record<string, unknown> = { visible: 1 };
  slot.set(owner, { secret: 42 });
  assert.equal(Object.keys(owner), ["visible"]);
  assert.is(JSON.stringify(owner), '{"visible":1}');
  const keys: string[] = [];
  for (const key in owner) keys.push(key);
  assert.equal(keys, ["visible"]);
  const spread = { ...owner };
  const assigned = Object.assign({}, owner);
  assert.is(slot.get(spread), undefined);
  assert.is(slot.get(assigned), undefined);
  assert.equal(Object.getOwnPropertySymbols(spread), []);
  assert.equal(Object.getOwnPropertySymbols(assigned), []);
  assert.is(structuredClone(owner).visible, 1);
  assert.equal(Object.getOwnPropertySymbols(structuredClone(owner)), []);
});

test("invisible to reflection (SLOT-PRIVATE): no key, no descriptor, the same keys as an object that never took it", () => {
  const slot = new ObjectSlot<string>("reflected");
  const owner = { visible: 1 };
  const untouched = { visible: 1 };
  slot.set(owner, "kept");
  assert.equal(Reflect.ownKeys(owner), Reflect.ownKeys(untouched));
  assert.equal(Object.getOwnPropertySymbols(owner), []);
  assert.equal(Object.getOwnPropertyDescriptors(owner), Object.getOwnPropertyDescriptors(untouched));
  const response = new Response("x");
  const before = Reflect.ownKeys(response);
  slot.set(response, "response");
  assert.equal(Reflect.ownKeys(response), before);
  assert.is(slot.get(response), "response");
});

test("runs no Proxy trap, on set, get or delete", () => {
  const slot = new ObjectSlot<string>("trapped");
  const trapped: string[] = [];
  const handler: ProxyHandler<object> = {};
  for (
    const name of [
      "getOwnPropertyDescriptor",
      "defineProperty",
      "has",
      "get",
      "set",
      "isExtensible",
      "preventExtensions",
      "ownKeys",
      "getPrototypeOf",
    ] as const
  ) {
    (handler as Record<string, unknown>)[name] = (...args: unknown[]) => {
      trapped.push(name);
      return (Reflect[name] as (...a: unknown[]) => unknown)(...args);
    };
  }
  const proxy = new Proxy({}, handler);
  assert.is(slot.get(proxy), undefined);
  slot.set(proxy, "one");
  slot.set(proxy, "two");
  assert.is(slot.get(proxy), "two");
  slot.delete(proxy);
  assert.is(slot.get(proxy), undefined);
  assert.equal(trapped, []);
});

test("not inherited through the prototype chain", () => {
  const slot = new ObjectSlot<number>("own only");
  const owner = {};
  slot.set(owner, 7);
  const derived = Object.create(owner) as object;
  assert.is(slot.get(derived), undefined);
  assert.is(slot.has(derived), false);
});

test("a Proxy of the owner is not the owner, as for a WeakMap", () => {
  const slot = new ObjectSlot<string>("proxied");
  const owner = {};
  slot.set(owner, "owner's");
  const proxy = new Proxy(owner, {});
  assert.is(slot.get(proxy), undefined);
  slot.set(proxy, "proxy's");
  assert.is(slot.get(proxy), "proxy's");
  assert.is(slot.get(owner), "owner's");
  slot.delete(proxy);
  assert.is(slot.get(proxy), undefined);
  assert.is(slot.get(owner), "owner's");
  // everything reflection can copy off the owner does not make another object the owner
  const copy = {};
  for (const key of Reflect.ownKeys(owner)) {
    Object.defineProperty(copy, key, Object.getOwnPropertyDescriptor(owner, key)!);
  }
  assert.is(slot.get(copy), undefined);
});

test("frozen, sealed and non-extensible objects", () => {
  const slot = new ObjectSlot<string>("fallback");
  const frozen = Object.freeze({});
  const sealed = Object.seal({});
  const closed = Object.preventExtensions({});
  slot.set(frozen, "f");
  slot.set(sealed, "s");
  slot.set(closed, "c");
  assert.is(slot.get(frozen), "f");
  assert.is(slot.get(sealed), "s");
  assert.is(slot.get(closed), "c");
  assert.equal(Reflect.ownKeys(frozen), []);
  slot.delete(sealed);
  assert.is(slot.get(sealed), undefined);
  assert.is(slot.get(frozen), "f");
  // an object frozen after it took the slot keeps it
  const later = {};
  slot.set(later, "before");
  Object.freeze(later);
  assert.is(slot.get(later), "before");
  slot.set(later, "after");
  assert.is(slot.get(later), "after");
  slot.delete(later);
  assert.is(slot.get(later), undefined);
});

test("the runtime's own objects take it", () => {
  const slot = new ObjectSlot<string>("native");
  const stream = new ReadableStream();
  const response = new Response("x");
  slot.set(stream, "stream");
  slot.set(response, "response");
  assert.is(slot.get(stream), "stream");
  assert.is(slot.get(response), "response");
  assert.is(stream.locked, false);
  assert.equal(Object.keys(response), []);
});

test.run();
