/**
 * WebIDL interface shape for our classes: members on prototypes are enumerable, `Symbol.toStringTag`
 * names the interface, and the constructor's `name` is the interface name.
 * @module
 */
import {
  type Callable,
  ObjectDefineProperty,
  ObjectGetOwnPropertyDescriptor,
  SymbolToStringTag,
} from "./primordials.ts";

const ownKeys = Reflect.ownKeys;

function makeEnumerable(target: object): void {
  for (const key of ownKeys(target)) {
    if (key === "constructor" || key === "prototype" || key === "length" || key === "name") continue;
    const desc = ObjectGetOwnPropertyDescriptor(target, key)!;
    if (!desc.enumerable) {
      desc.enumerable = true;
      ObjectDefineProperty(target, key, desc);
    }
  }
}

/** Applies WebIDL interface conventions to a class (prototype and static members). */
export function defineInterface(ctor: Callable, name: string): void {
  // Bundlers may rename a class that refers to itself (`var X = class _X {}`); the interface name stands.
  ObjectDefineProperty(ctor, "name", {
    value: name.split(" ")[0],
    writable: false,
    enumerable: false,
    configurable: true,
  });
  makeEnumerable(ctor.prototype);
  makeEnumerable(ctor);
  ObjectDefineProperty(ctor.prototype, SymbolToStringTag, {
    value: name,
    writable: false,
    enumerable: false,
    configurable: true,
  });
}
