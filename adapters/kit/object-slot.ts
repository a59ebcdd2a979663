/**
 * A value the kit keeps with an object made per body or per stream (a Response, a shell, a bridge), where a
 * WeakMap keyed by the object would do: a non-enumerable property under a symbol private to the slot.
 *
 * SLOT-NOT-WEAKMAP: V8 (Node.js, Deno) treats a WeakMap's entries as strong in its young-generation GC, so every
 * key added since the last minor GC, and all its value reaches, survives it and is promoted to the old
 * generation, to wait for a full GC; JavaScriptCore (Bun) pays per entry too. Measured on Deno (bench/README.md,
 * "Steady state and the young generation"): a request body through a transform into a Response read to the end,
 * 12.7 % of the young generation surviving each minor GC with WeakMaps, 1.7 % with slots (4.2 ms per minor GC
 * against 0.9 ms). Unobservable to the web platform: the property is non-enumerable (no spread or `Object.assign()`
 * copies it) and its symbol is reachable only through reflection (`Object.getOwnPropertySymbols()`). An object
 * that cannot take a property (frozen, sealed) is kept in a WeakMap instead.
 * @module
 */

/**
 * What the property holds: a box, so that an owner frozen after it took the slot can still have it changed, and
 * that names its owner, so that a Proxy of the owner (whose traps forward to it) does not pass for the owner.
 */
interface Box<T> {
  value: T | undefined;
  readonly owner: object;
}

/** One kind of value kept with objects (see the module's documentation). */
export class ObjectSlot<T> {
  readonly #key: symbol;
  /** For objects that cannot take a property. */
  #fallback: WeakMap<object, T> | undefined = undefined;

  /** `description`: the symbol's description, as seen by reflection. */
  constructor(description: string) {
    this.#key = Symbol(description);
  }

  /** The value kept with `owner`, or undefined. */
  get(owner: object): T | undefined {
    return this.#box(owner)?.value ?? this.#fallback?.get(owner);
  }

  /** The box `owner` holds itself, or undefined. */
  #box(owner: object): Box<T> | undefined {
    if (!Object.hasOwn(owner, this.#key)) return undefined;
    const box = (owner as Record<symbol, Box<T>>)[this.#key]!;
    return box.owner === owner ? box : undefined;
  }

  /** Whether a value is kept with `owner`. */
  has(owner: object): boolean {
    return this.get(owner) !== undefined;
  }

  /** Keeps `value` with `owner`, replacing what was kept with it. */
  set(owner: object, value: T): void {
    const held = this.#box(owner);
    if (held !== undefined) {
      held.value = value;
    } else if (Object.isExtensible(owner) && !Object.hasOwn(owner, this.#key)) {
      const box: Box<T> = { value, owner };
      Object.defineProperty(owner, this.#key, { value: box, writable: false, configurable: true, enumerable: false });
    } else {
      (this.#fallback ??= new WeakMap()).set(owner, value);
    }
  }

  /** Forgets what was kept with `owner`. */
  delete(owner: object): void {
    const held = this.#box(owner);
    if (held !== undefined) held.value = undefined;
    else this.#fallback?.delete(owner);
  }
}
