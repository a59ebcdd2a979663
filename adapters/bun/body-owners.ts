/**
 * A `Response` or `Request` made from one of our streams while patched keeps answering that stream as its
 * `body`, as Bun's own answers the very stream it was given (`new Response(stream).body === stream`): the
 * runtime reads the native stream made for it (BUN-DIRECT, direct-body.ts), JavaScript reads ours itself
 * (its own chunks, read no further ahead than its reader asks, every chunk before an error, its own `tee()`,
 * pipes and iteration).
 *
 * - `onBodyMade` (the kit's hook): the instance gets own `body` and `bodyUsed` accessors (Bun defines them
 *   non-configurable on the prototypes). `body` answers ours while the native stream is still the instance's
 *   body (after `clone()` Bun gives it a branch of a tee, answered as it is); `bodyUsed` is also true once ours
 *   was read or cancelled.
 * - The patch step `bun-body-owners`: the methods that read or tee a body (`text()`, `json()`, `bytes()`,
 *   `arrayBuffer()`, `blob()`, `formData()`, `clone()` of `Response.prototype` and `Request.prototype`) first
 *   show Bun the state ours is in, when ours was used by JavaScript: a native stream Bun has not pulled is
 *   locked for the call when ours is locked, and emptied (read once, closed) when ours was read, so Bun throws
 *   its own error for a locked or used body; a body read whole leaves ours locked, as Bun leaves its stream.
 *   Before `clone()` tees it, it is marked as read one `read()` at a time (direct-body.ts), so the branches
 *   pull ours no further than they read.
 * @module
 */
import { type ReadableStream, readableStreamState } from "../../mod.ts";
import { noop, ownerOf } from "../kit/natives.ts";
import type { PatchTransaction } from "../kit/patch-transaction.ts";
import {
  emptyDirectBody,
  isDirectBody,
  isDirectBodyPulled,
  readDirectBodyAsText,
  readDirectBodyByReads,
} from "./direct-body.ts";
import { ObjectSlot } from "../kit/object-slot.ts";
import { BODY_METHODS } from "../kit/body-methods.ts";

type Getter = (this: unknown) => unknown;
type Method = (this: unknown, ...args: unknown[]) => unknown;

/** The stream of ours and the native stream of each Response/Request made from one of ours. */
interface MadeBody {
  readonly ours: ReadableStream<unknown>;
  readonly native: globalThis.ReadableStream<Uint8Array>;
  /** The prototype's own `body` and `bodyUsed` getters (Bun's). */
  readonly body: Getter;
  readonly bodyUsed: Getter;
}

const madeBodies = new ObjectSlot<MadeBody>("fusestreams made body");

/**
 * The getters of non-configurable accessors already looked up, by key and by the prototype that owns them (they
 * cannot change; Bun's `body` and `bodyUsed`): a descriptor per lookup cost a Response of ours about 0.4 µs.
 */
const fixedGetters: Record<"body" | "bodyUsed", WeakMap<object, Getter>> = {
  body: new WeakMap(),
  bodyUsed: new WeakMap(),
};

/** The prototype getter `key` of `owner` (Bun's `body` / `bodyUsed`), or undefined. */
function protoGetter(owner: object, key: "body" | "bodyUsed"): Getter | undefined {
  const proto = ownerOf(Object.getPrototypeOf(owner) as object, key);
  if (proto === undefined) return undefined;
  const known = fixedGetters[key].get(proto);
  if (known !== undefined) return known;
  const descriptor = Object.getOwnPropertyDescriptor(proto, key);
  const get = descriptor?.get as Getter | undefined;
  if (get !== undefined && descriptor!.configurable === false) fixedGetters[key].set(proto, get);
  return get;
}

/** The made body of `owner` while its native stream is still its body, else undefined. */
function currentMadeBody(owner: unknown): MadeBody | undefined {
  const made = typeof owner === "object" && owner !== null ? madeBodies.get(owner) : undefined;
  return made !== undefined && made.body.call(owner) === made.native ? made : undefined;
}

/** The instance's `body` (shared by every instance made from ours). */
function body(this: object): unknown {
  const made = madeBodies.get(this);
  if (made === undefined) throw new TypeError("Illegal invocation");
  const current = made.body.call(this);
  return current === made.native ? made.ours : current;
}

/** The instance's `bodyUsed`. */
function bodyUsed(this: object): unknown {
  const made = madeBodies.get(this);
  if (made === undefined) throw new TypeError("Illegal invocation");
  if (made.bodyUsed.call(this) === true) return true;
  return made.body.call(this) === made.native && readableStreamState(made.ours)?.disturbed === true;
}

/** The instances' own accessors (one descriptor each, shared: defineProperty only reads it). */
const BODY: PropertyDescriptor = Object.freeze({ get: body, enumerable: false, configurable: true });
const BODY_USED: PropertyDescriptor = Object.freeze({ get: bodyUsed, enumerable: false, configurable: true });

/** See the module's documentation (the kit's `onBodyMade` hook). */
export function ownBody(
  owner: object,
  ours: ReadableStream<unknown>,
  native: globalThis.ReadableStream<Uint8Array>,
): void {
  if (!isDirectBody(native)) return;
  const getBody = protoGetter(owner, "body");
  const getBodyUsed = protoGetter(owner, "bodyUsed");
  if (getBody === undefined || getBodyUsed === undefined) return;
  madeBodies.set(owner, { ours, native, body: getBody, bodyUsed: getBodyUsed });
  Object.defineProperty(owner, "body", BODY);
  Object.defineProperty(owner, "bodyUsed", BODY_USED);
}

/**
 * Calls `original` (Bun's body method) on `owner` with `args`, the native stream of `made` (not pulled yet) in
 * the state JavaScript left ours in (see the module's documentation).
 */
function withBodyState(
  owner: unknown,
  made: MadeBody,
  method: string,
  original: Method,
  args: IArguments,
): unknown {
  const state = readableStreamState(made.ours)!;
  if (state.locked) {
    const reader = made.native.getReader();
    try {
      return original.apply(owner, args as unknown as unknown[]);
    } finally {
      reader.releaseLock();
    }
  }
  if (state.disturbed) {
    emptyDirectBody(made.native);
    const reader = made.native.getReader();
    reader.read().then(undefined, noop);
    reader.releaseLock();
  } else if (method === "clone") {
    readDirectBodyByReads(made.native);
    return original.apply(owner, args as unknown as unknown[]);
  } else if (method === "text" || method === "json") {
    readDirectBodyAsText(made.native);
  }
  const result = original.apply(owner, args as unknown as unknown[]);
  // Bun leaves the stream of a body it read whole locked, as it is: ours too, once the bridge let it go.
  const keepLocked = (): void => {
    if (!made.ours.locked) made.ours.getReader();
  };
  if (result instanceof Promise) result.then(keepLocked, keepLocked);
  return result;
}

/** See the module's documentation. */
export function patchBodyOwners(tx: PatchTransaction): void {
  const g = globalThis as unknown as Record<string, { prototype?: object } | undefined>;
  const done: unknown[] = [];
  for (const name of ["Response", "Request"]) {
    const classProto = g[name]?.prototype;
    for (const method of BODY_METHODS) {
      const owner = ownerOf(classProto, method) as Record<string, unknown> | undefined;
      const original = owner?.[method];
      if (owner === undefined || typeof original !== "function" || done.includes(original)) continue;
      done.push(original);
      // Every body method call of the process comes through here: one with no made body (or one Bun has
      // pulled already) goes straight on, with no closure or argument array.
      const wrapped = function (this: unknown): unknown {
        const made = currentMadeBody(this);
        if (made === undefined || isDirectBodyPulled(made.native)) {
          return (original as Method).apply(this, arguments as unknown as unknown[]);
        }
        return withBodyState(this, made, method, original as Method, arguments);
      };
      Object.defineProperty(wrapped, "name", { value: original.name });
      Object.defineProperty(wrapped, "length", { value: original.length });
      // Bun defines them writable and non-configurable: assigned (recorded, and assigned back on unpatch).
      tx.record(owner, method);
      owner[method] = wrapped;
      if (owner[method] !== wrapped) throw new TypeError(`${name}.prototype.${method} could not be replaced`);
    }
  }
}
