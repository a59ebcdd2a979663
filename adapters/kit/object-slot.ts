/**
 * A value the kit keeps with an object made per body or per stream (a Response, a shell, a bridge), where a
 * WeakMap keyed by the object would do: a private field of the slot's own, added to the object.
 *
 * SLOT-NOT-WEAKMAP: V8 (Node.js, Deno) treats a WeakMap's entries as strong in its young-generation GC, so every
 * key added since the last minor GC, and all its value reaches, survives it and is promoted to the old
 * generation, to wait for a full GC; JavaScriptCore (Bun) pays per entry too. Measured on Deno (bench/README.md,
 * "Steady state and the young generation"): a request body through a transform into a Response read to the end,
 * 12.7 % of the young generation surviving each minor GC with WeakMaps, 1.7 % with slots (4.2 ms per minor GC
 * against 0.9 ms).
 *
 * SLOT-PRIVATE: the field is added as a class adds its private fields to the object its base constructor returns
 * (a base that returns its argument), so nothing outside this module can see it: no key for `Reflect.ownKeys()`,
 * spread, `Object.assign()` or `structuredClone()`, no Proxy trap, no prototype lookup, and it stays writable on an
 * object frozen later. Where a symbol-keyed property with `Object.defineProperty()` took 280-440 ns per object on
 * Deno 2.9.6 and 174-194 ns on Node.js 26, the field takes 47-86 and 30-46 ns (Bun 1.4.5: 37-94 against 17-36;
 * bench/README.md, "SLOT-PRIVATE"). The standard lets a private field onto a frozen or sealed object too; an
 * engine that refuses one (a proposal would forbid it on non-extensible objects) gets a WeakMap entry instead.
 * @module
 */

/** A base class whose constructor returns the object it is given: a subclass's fields then go onto that object. */
class ReturnsItsArgument {
  constructor(owner: object) {
    return owner;
  }
}

/** One private field (a new class, so a new private name, per call): whether an object has it, read, write, add. */
function newField<T>() {
  return class Holder extends ReturnsItsArgument {
    #value: T | undefined;
    constructor(owner: object, value: T) {
      super(owner);
      this.#value = value;
    }
    static has(owner: object): boolean {
      return #value in owner;
    }
    static read(owner: object): T | undefined {
      return (owner as Holder).#value;
    }
    static write(owner: object, value: T | undefined): void {
      (owner as Holder).#value = value;
    }
  };
}

/** One kind of value kept with objects (see the module's documentation). */
export class ObjectSlot<T> {
  readonly #field = newField<T>();
  /** For objects that cannot take a property. */
  #fallback: WeakMap<object, T> | undefined = undefined;

  /** `description`: what the slot holds (for a reader of this code: nothing at run time shows it). */
  constructor(description: string) {
    void description;
  }

  /** The value kept with `owner`, or undefined. */
  get(owner: object): T | undefined {
    const field = this.#field;
    return field.has(owner) ? field.read(owner) : this.#fallback?.get(owner);
  }

  /** Whether a value is kept with `owner`. */
  has(owner: object): boolean {
    return this.get(owner) !== undefined;
  }

  /** Keeps `value` with `owner`, replacing what was kept with it. */
  set(owner: object, value: T): void {
    const field = this.#field;
    if (field.has(owner)) {
      field.write(owner, value);
      return;
    }
    try {
      new field(owner, value);
    } catch {
      // An object the engine lets take no private field (one made non-extensible, where the proposal is in force).
      (this.#fallback ??= new WeakMap()).set(owner, value);
    }
  }

  /** Forgets what was kept with `owner`. */
  delete(owner: object): void {
    const field = this.#field;
    if (field.has(owner)) field.write(owner, undefined);
    else this.#fallback?.delete(owner);
  }
}
