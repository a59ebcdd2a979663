/**
 * Transferring our streams (the patch's `transfer` step): `structuredClone(ours, { transfer: [ours] })`,
 * `port.postMessage(message, [ours])` and `worker.postMessage(...)` hand the runtime, for each of our streams in
 * the transfer list, a native stand-in (`transfer-streams.ts`) wherever the stream sits in the message (nested in
 * objects, arrays, Maps and Sets, shared or on a cycle), so the runtime transfers its own stream in its place.
 * A stream of ours found in a message but not listed for transfer is refused with a `DataCloneError`, as the
 * runtime refuses its own (unpatched, the runtime would clone it as an empty object).
 *
 * The message is not copied: the places that hold our streams are pointed at the stand-ins for the duration of
 * the native call (it serializes the message synchronously) and put back right after, whatever happens. Every
 * other value is the caller's own, untouched.
 *
 * Cost: a call whose transfer list holds none of our streams (the common case) walks the message looking for
 * a stray stream of ours, looking at no more than {@link SEARCH_LIMIT} values (typed arrays and buffers are not
 * looked into), then makes the native call with the caller's own arguments. Measured in bench/README.md.
 * @module
 */
import { isOurStream, nativeStandIn, type StandIn } from "./transfer-streams.ts";
import type { PatchTransaction } from "./patch-transaction.ts";
import { Native, ownerOf } from "./natives.ts";

/**
 * How many values (properties, elements, entries) of a message without our streams in its transfer list are
 * looked at for a stream of ours left out of that list; beyond them, the message goes to the runtime as it is,
 * where such a stream would be cloned as an empty object. It bounds what the check costs a large message.
 */
export const SEARCH_LIMIT = 10_000;

const getPrototypeOf = Object.getPrototypeOf;
const getOwn = Object.getOwnPropertyDescriptor;
const isArray = Array.isArray;
const isView = ArrayBuffer.isView;
const ObjectProto = Object.prototype;
const ArrayProto = Array.prototype;
const MapProto = Map.prototype;
const SetProto = Set.prototype;

/** The DataCloneError the runtime throws for what it cannot clone or transfer. */
function dataCloneError(message: string): Error {
  const Ctor = (globalThis as { DOMException?: new (message: string, name: string) => Error }).DOMException;
  if (typeof Ctor === "function") return new Ctor(message, "DataCloneError");
  const err = new TypeError(message);
  err.name = "DataCloneError";
  return err;
}

/** One place in a message that holds one of our streams. */
type Place =
  | { readonly kind: "property"; readonly target: object; readonly key: string }
  | { readonly kind: "map" | "set"; readonly target: Map<unknown, unknown> | Set<unknown> };

/** Called for each place holding one of our streams (a Map or Set once, whatever it holds): see {@link Place}. */
type Found = (kind: Place["kind"], target: object, key: string | undefined, stream: object) => void;

/**
 * Walks the whole of `message` and calls `found` for each place holding one of our streams. What is walked is what structured cloning reads: the own enumerable string-keyed properties
 * of objects and arrays, and the entries of Maps and Sets; typed arrays and buffers are not looked into.
 */
function findOurStreams(message: object, found: Found): void {
  const seen = new Set<object>();
  const stack: object[] = [message];
  while (stack.length > 0) {
    const o = stack.pop()!;
    if (seen.has(o)) continue;
    seen.add(o);
    const proto = getPrototypeOf(o) as object | null;
    if (proto === ArrayProto || isArray(o)) {
      const a = o as unknown[];
      for (let i = 0; i < a.length; i++) {
        const v = a[i];
        if (typeof v !== "object" || v === null) continue;
        if (isOurStream(v)) found("property", a, String(i), v);
        else stack.push(v);
      }
    } else if (proto === MapProto || proto === SetProto || o instanceof Map || o instanceof Set) {
      const kind = o instanceof Map ? "map" : "set";
      let reported = false;
      const each = (x: unknown): void => {
        if (typeof x !== "object" || x === null) return;
        if (!isOurStream(x)) stack.push(x);
        else if (!reported) {
          reported = true;
          found(kind, o, undefined, x);
        }
      };
      if (kind === "map") {
        for (const [k, v] of o as Map<unknown, unknown>) {
          each(k);
          each(v);
        }
      } else for (const x of o as Set<unknown>) each(x);
    } else if (proto === ObjectProto || proto === null || !(isView(o) || o instanceof ArrayBuffer)) {
      const record = o as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        const v = record[key];
        if (typeof v !== "object" || v === null) continue;
        if (isOurStream(v)) found("property", record, key, v);
        else stack.push(v);
      }
    }
  }
}

/**
 * How the runtime refuses one of its own streams in a message that does not list it for transfer (a
 * DataCloneError; Node.js 20: a TypeError), learnt by the patch step from the runtime itself.
 */
let refusal: { readonly name: string; readonly Ctor: new (message: string) => Error } | undefined;

/** Learns {@link refusal} from the runtime's structuredClone of a native stream (cheap: it throws at once). */
function learnRefusal(structuredCloneFn: unknown): void {
  refusal = undefined;
  if (typeof structuredCloneFn !== "function" || typeof Native.ReadableStream !== "function") return;
  try {
    (structuredCloneFn as (value: unknown) => unknown)(new Native.ReadableStream());
  } catch (e) {
    if (e instanceof TypeError) refusal = { name: "TypeError", Ctor: TypeError };
  }
}

/** The error for a stream of ours in a message that does not list it for transfer: the runtime's own kind. */
function refuseUntransferred(): never {
  const message = "A ReadableStream, WritableStream or TransformStream in the message must be transferred";
  if (refusal !== undefined) throw new refusal.Ctor(message);
  throw dataCloneError(message);
}

/**
 * Whether `message` holds one of our streams, looking at no more than `limit` values (properties, elements and
 * entries; a value shared or on a cycle is met again and counted again, so the limit ends every walk). The fast
 * check of a message that lists none of ours for transfer: no record of where the streams are, no set of the
 * objects seen.
 */
function holdsOurStream(message: object, limit: number): boolean {
  const stack: object[] = [message];
  let budget = limit;
  const push = (v: unknown): void => {
    if (typeof v === "object" && v !== null) stack.push(v);
  };
  while (stack.length > 0 && budget > 0) {
    const o = stack.pop()!;
    const proto = getPrototypeOf(o) as object | null;
    if (proto === ObjectProto) {
      // for-in reads what Object.keys would (a plain object inherits nothing enumerable), without an array.
      for (const key in o) {
        if (--budget < 0) return false;
        push((o as Record<string, unknown>)[key]);
      }
    } else if (proto === ArrayProto) {
      const a = o as unknown[];
      const n = a.length;
      if ((budget -= n) < 0) return false;
      for (let i = 0; i < n; i++) push(a[i]);
    } else if (isOurStream(o)) {
      return true;
    } else if (isView(o) || o instanceof ArrayBuffer) {
      budget--;
    } else if (o instanceof Map) {
      if ((budget -= 2 * o.size) < 0) return false;
      for (const [k, v] of o) {
        push(k);
        push(v);
      }
    } else if (o instanceof Set) {
      if ((budget -= o.size) < 0) return false;
      for (const v of o) push(v);
    } else {
      const keys = Object.keys(o);
      if ((budget -= keys.length) < 0) return false;
      for (const key of keys) push((o as Record<string, unknown>)[key]);
    }
  }
  return false;
}

/** The stand-ins made for one call: each stream of ours once, whatever the number of places it sits in. */
class StandIns {
  readonly #made = new Map<object, StandIn>();
  readonly #listed: ReadonlySet<object>;

  constructor(listed: ReadonlySet<object>) {
    this.#listed = listed;
  }

  /** The native stand-in for `stream`; a DataCloneError when it is not listed for transfer. */
  of(stream: object): object {
    let standIn = this.#made.get(stream);
    if (standIn !== undefined) return standIn.native;
    if (!this.#listed.has(stream)) refuseUntransferred();
    standIn = nativeStandIn(stream);
    if (standIn === undefined) throw dataCloneError("This runtime cannot transfer this stream");
    this.#made.set(stream, standIn);
    return standIn.native;
  }

  /** Stands in for `value` when it is one of ours. */
  swap(value: unknown): unknown {
    return typeof value === "object" && value !== null && isOurStream(value) ? this.of(value) : value;
  }

  /**
   * Tells every stand-in the runtime's answer. When the runtime refused the call, a stand-in it left unlocked
   * unlocks ours again, and one it locked (a runtime that had begun transferring before it refused, as Deno
   * does) keeps ours locked, as the runtime leaves its own streams.
   */
  settle(succeeded: boolean): void {
    for (const standIn of this.#made.values()) {
      if (succeeded || isLocked(standIn.native)) standIn.transferred();
      else standIn.refused();
    }
  }
}

/** Whether a native stream (a TransformStream: either side) is locked. */
function isLocked(native: object): boolean {
  const { locked, readable, writable } = native as {
    locked?: boolean;
    readable?: { locked: boolean };
    writable?: { locked: boolean };
  };
  return locked ?? (readable!.locked || writable!.locked);
}

/** Points every place at the stand-ins; returns the function that puts them back. */
function standIn(places: readonly Place[], standIns: StandIns): () => void {
  const undo: (() => void)[] = [];
  const putBack = (): void => {
    for (let i = undo.length - 1; i >= 0; i--) undo[i]!();
  };
  try {
    for (const place of places) {
      if (place.kind === "property") {
        const { target, key } = place;
        const old = getOwn(target, key)!;
        if (!("value" in old)) throw dataCloneError("A stream returned by a getter cannot be transferred");
        const value = standIns.swap(old.value);
        if (old.writable) (target as Record<string, unknown>)[key] = value;
        else if (old.configurable) Object.defineProperty(target, key, { value });
        else throw dataCloneError("A stream held by a read-only property cannot be transferred");
        undo.push(() => Object.defineProperty(target, key, old));
      } else if (place.kind === "map") {
        const map = place.target as Map<unknown, unknown>;
        const entries = [...map];
        map.clear();
        undo.push(() => {
          map.clear();
          for (const [k, v] of entries) map.set(k, v);
        });
        for (const [k, v] of entries) map.set(standIns.swap(k), standIns.swap(v));
      } else {
        const set = place.target as Set<unknown>;
        const values = [...set];
        set.clear();
        undo.push(() => {
          set.clear();
          for (const v of values) set.add(v);
        });
        for (const v of values) set.add(standIns.swap(v));
      }
    }
  } catch (error) {
    putBack();
    throw error;
  }
  return putBack;
}

/** A transfer list as an array (a WebIDL sequence may be any iterable); undefined when it is not one. */
function asList(transfer: unknown): unknown[] | undefined {
  if (isArray(transfer)) return transfer;
  if (typeof transfer !== "object" || transfer === null) return undefined;
  if (typeof (transfer as { [Symbol.iterator]?: unknown })[Symbol.iterator] !== "function") return undefined;
  return [...(transfer as Iterable<unknown>)];
}

/**
 * Where a call's transfer list is: `structuredClone(value, { transfer })`, `postMessage(message, transfer)`,
 * `postMessage(message, { transfer })` and a window's `postMessage(message, targetOrigin, transfer)`.
 */
interface TransferArgs {
  /** The transfer list, as an array. */
  readonly list: unknown[];
  /** Whether `list` is the caller's own array (else it was made from an iterable, which is read only once). */
  readonly own: boolean;
  /** The call's arguments with `list` replaced by `replacement`. */
  readonly with: (replacement: unknown[]) => unknown[];
}

function transferArgs(args: unknown[], optionsOnly: boolean): TransferArgs | undefined {
  const second = args[1];
  if (!optionsOnly && typeof second === "string") {
    const list = asList(args[2]);
    return list && { list, own: list === args[2], with: (r) => [args[0], second, r, ...args.slice(3)] };
  }
  if (!optionsOnly && isArray(second)) {
    return { list: second, own: true, with: (r) => [args[0], r, ...args.slice(2)] };
  }
  if (typeof second !== "object" || second === null) return undefined;
  const given = (second as { transfer?: unknown }).transfer;
  const list = asList(given);
  if (list === undefined) return undefined;
  return {
    list,
    own: list === given,
    with: (r) => {
      // The options as the runtime reads them (member by member), but for `transfer`.
      const options = new Proxy(second, { get: (t, key) => (key === "transfer" ? r : Reflect.get(t, key)) });
      return [args[0], options, ...args.slice(2)];
    },
  };
}

/**
 * Calls `native` (structuredClone or a postMessage) with our streams in `args` replaced by native stand-ins
 * (see the module's description). `optionsOnly`: the second argument is an options dictionary only
 * (structuredClone), never a list.
 */
export function callWithStandIns(
  native: (...args: unknown[]) => unknown,
  self: unknown,
  args: unknown[],
  optionsOnly: boolean,
): unknown {
  const message = args[0];
  const transfer = args.length > 1 ? transferArgs(args, optionsOnly) : undefined;
  let listed: Set<object> | undefined;
  if (transfer !== undefined) {
    for (const item of transfer.list) if (isOurStream(item)) (listed ??= new Set()).add(item as object);
  }
  if (listed === undefined) {
    // Nothing of ours to transfer: only refuse a stream of ours the message holds, as the runtime refuses its own.
    if (typeof message === "object" && message !== null && holdsOurStream(message, SEARCH_LIMIT)) {
      refuseUntransferred();
    }
    return Reflect.apply(native, self, transfer === undefined || transfer.own ? args : transfer.with(transfer.list));
  }
  const standIns = new StandIns(listed);
  const places: Place[] = [];
  let root = message;
  if (typeof message === "object" && message !== null) {
    if (isOurStream(message)) root = standIns.of(message);
    else {
      findOurStreams(message, (kind, target, key) => {
        places.push(
          kind === "property" ? { kind, target, key: key! } : { kind, target: target as Map<unknown, unknown> },
        );
      });
    }
  }
  let putBack: (() => void) | undefined;
  let result: unknown;
  try {
    const list = transfer!.list.map((item) => standIns.swap(item));
    putBack = standIn(places, standIns);
    const callArgs = transfer!.with(list);
    callArgs[0] = root;
    result = Reflect.apply(native, self, callArgs);
  } catch (error) {
    putBack?.();
    standIns.settle(false);
    throw error;
  }
  putBack();
  standIns.settle(true);
  return result;
}

/** Replaces the function `owner[key]` (recorded) by one that calls it through {@link callWithStandIns}. */
function wrapMethod(tx: PatchTransaction, owner: object, key: string, optionsOnly: boolean): void {
  const native = (owner as Record<string, unknown>)[key];
  if (typeof native !== "function") return;
  const wrapped = {
    [key](this: unknown, ...args: unknown[]): unknown {
      return callWithStandIns(native as (...a: unknown[]) => unknown, this, args, optionsOnly);
    },
  }[key]!;
  Object.defineProperty(wrapped, "length", { value: (native as (...a: unknown[]) => unknown).length });
  tx.defineValue(owner, key, wrapped);
}

/**
 * Patch step `transfer` (Node.js and Deno, whose streams are transferable): `structuredClone`, and the
 * `postMessage` of `MessagePort`, `Worker`, `BroadcastChannel` and of a worker's global scope (wherever each is
 * defined) transfer our streams through native stand-ins. Node's `worker_threads` Worker posts through its
 * MessagePort, so it is covered too.
 */
export function patchTransfer(tx: PatchTransaction): void {
  const g = globalThis as unknown as Record<string, unknown>;
  tx.record(g, "structuredClone");
  learnRefusal(g["structuredClone"]);
  wrapMethod(tx, g, "structuredClone", true);
  for (const name of ["MessagePort", "Worker", "BroadcastChannel"]) {
    // Recorded before it is read: Node.js 20 defines some of these globals as accessors that replace themselves.
    tx.record(g, name);
    const proto = (g[name] as { prototype?: object } | undefined)?.prototype;
    const owner = ownerOf(proto, "postMessage");
    if (owner !== undefined) wrapMethod(tx, owner, "postMessage", false);
  }
  // A worker's global scope (Deno, browsers): its own postMessage, wherever on its prototype chain.
  if (typeof g["postMessage"] === "function") {
    const owner = ownerOf(globalThis, "postMessage");
    if (owner !== undefined) wrapMethod(tx, owner, "postMessage", false);
  }
}
