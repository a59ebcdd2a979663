/**
 * An all-or-nothing change of globals and prototypes: every property definition and prototype link is
 * recorded with what to put back, steps are named, and a failing step puts everything back before the
 * error (naming the step) is thrown. The adapters' `patchGlobalWebStreams()` are built on it.
 * @module
 */

/** One property changed by a transaction, with what to put back (`undefined`: the property did not exist). */
interface SavedProperty {
  readonly target: object;
  readonly key: PropertyKey;
  readonly descriptor: PropertyDescriptor | undefined;
}

/** One [[Prototype]] changed by a transaction. */
interface SavedPrototype {
  readonly target: object;
  readonly proto: object | null;
}

const getOwn = Object.getOwnPropertyDescriptor;
const defineProperty = Object.defineProperty;
const getPrototypeOf = Object.getPrototypeOf;

function message(err: unknown): string {
  if (typeof err === "object" && err !== null && "message" in err) return String((err as { message: unknown }).message);
  return String(err);
}

/** A recorded, reversible set of changes to globals and prototypes. */
export class PatchTransaction {
  readonly #properties: SavedProperty[] = [];
  readonly #prototypes: SavedPrototype[] = [];
  readonly #afterRestore: { readonly name: string; readonly fn: () => void }[] = [];
  readonly #label: string;

  /** `label` names the operation in error messages (e.g. `"patchGlobalWebStreams (deno)"`). */
  constructor(label: string) {
    this.#label = label;
  }

  /**
   * Runs one named step. If it throws, every change recorded so far (by this step and the ones before it)
   * is put back, and an error of the same kind (`TypeError` stays `TypeError`) is thrown whose message
   * names the step, with the original error as its `cause`.
   */
  step(name: string, fn: (tx: PatchTransaction) => void): void {
    try {
      fn(this);
    } catch (err) {
      const left = this.#putBack();
      const Ctor = err instanceof TypeError ? TypeError : Error;
      const outcome = left.length === 0 ? "changed nothing" : `could not put back ${left.join(", ")}`;
      throw new Ctor(`${this.#label} failed at step "${name}" and ${outcome}: ${message(err)}`, { cause: err });
    }
  }

  /** The own property descriptor of `target[key]` before this transaction first changed it. */
  #save(target: object, key: PropertyKey): PropertyDescriptor | undefined {
    const descriptor = getOwn(target, key);
    this.#properties.push({ target, key, descriptor });
    return descriptor;
  }

  /**
   * Defines `target[key]` as a data property holding `value`, configurable, keeping the enumerability and
   * writability of the property it replaces (new properties: not enumerable, `writable` as given).
   * A non-configurable but writable data property (edge-runtime defines its globals so) only gets the
   * new value, its attributes unchanged, which is all the engine allows and enough to put it back.
   */
  defineValue(target: object, key: PropertyKey, value: unknown, writable = true): void {
    const old = getOwn(target, key);
    defineProperty(
      target,
      key,
      old?.configurable === false && old.writable ? { value } : {
        value,
        writable: old !== undefined && "value" in old ? old.writable : writable,
        enumerable: old?.enumerable ?? false,
        configurable: true,
      },
    );
    this.#properties.push({ target, key, descriptor: old });
  }

  /** Defines `target[key]` as an accessor (the replaced property's enumerability is kept). */
  defineAccessor(
    target: object,
    key: PropertyKey,
    get: (this: never) => unknown,
    set?: (this: never, value: never) => void,
  ): void {
    const old = getOwn(target, key);
    defineProperty(target, key, { get, set, enumerable: old?.enumerable ?? false, configurable: true });
    this.#properties.push({ target, key, descriptor: old });
  }

  /** Records `target[key]` so that {@link restore} puts it back, for a change made by other means. */
  record(target: object, key: PropertyKey): PropertyDescriptor | undefined {
    return this.#save(target, key);
  }

  /** Sets the [[Prototype]] of `target` (recorded). Throws a `TypeError` if the engine refuses. */
  setPrototype(target: object, proto: object | null): void {
    const old = getPrototypeOf(target) as object | null;
    if (!Reflect.setPrototypeOf(target, proto)) throw new TypeError("the prototype of an object could not be changed");
    this.#prototypes.push({ target, proto: old });
  }

  /**
   * Registers `fn` to run once everything recorded has been put back (by {@link restore}, or when a step
   * fails): for what the runtime derives from the properties the patch changed and must derive again from
   * the restored ones (Node.js: `syncBuiltinESMExports()` after a builtin module's exports were put back).
   * Such functions run newest first; one that throws is named among what could not be put back.
   */
  afterRestore(name: string, fn: () => void): void {
    this.#afterRestore.push({ name, fn });
  }

  /**
   * Puts back everything recorded, newest first, and forgets it. Safe to call more than once. What the
   * engine refuses to put back (something made it non-configurable or froze it meanwhile) does not stop
   * the rest: a `TypeError` naming it is thrown once everything else is back.
   */
  restore(): void {
    const left = this.#putBack();
    if (left.length > 0) throw new TypeError(`${this.#label}: could not put back ${left.join(", ")}`);
  }

  /** Puts back what it can (see {@link restore}) and returns what it could not, named. */
  #putBack(): string[] {
    const properties = this.#properties;
    const prototypes = this.#prototypes;
    const left: string[] = [];
    for (let i = prototypes.length - 1; i >= 0; i--) {
      const { target, proto } = prototypes[i]!;
      if (!Reflect.setPrototypeOf(target, proto)) left.push("a prototype link");
    }
    for (let i = properties.length - 1; i >= 0; i--) {
      const { target, key, descriptor } = properties[i]!;
      const done = descriptor === undefined
        ? Reflect.deleteProperty(target, key)
        : Reflect.defineProperty(target, key, descriptor);
      if (!done) left.push(`property ${JSON.stringify(String(key))}`);
    }
    const after = this.#afterRestore;
    for (let i = after.length - 1; i >= 0; i--) {
      const { name, fn } = after[i]!;
      try {
        fn();
      } catch {
        left.push(name);
      }
    }
    properties.length = 0;
    prototypes.length = 0;
    after.length = 0;
    return left;
  }
}
