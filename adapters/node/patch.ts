/**
 * `patchGlobalWebStreams` / `unpatchGlobalWebStreams`: replace the runtime's global stream classes by
 * fusestreams', and put everything back exactly.
 * @module
 */
import process from "node:process";
import { Duplex, Readable, Writable } from "node:stream";
import * as api from "../../mod.ts";
import { fromNodeDuplex, toNodeDuplex } from "./duplex.ts";
import { fromNodeReadable } from "./from-node-readable.ts";
import { fromNodeWritable } from "./from-node-writable.ts";
import { toNodeReadable } from "./to-node-readable.ts";
import { toNodeWritable } from "./to-node-writable.ts";
import {
  isInstance,
  isNativeReadable,
  Native,
  isNativeWritable,
  isOurReadable,
  isOurWritable,
  bodyShell,
  readableShell,
  takeBodyForPipe,
  writableShell,
} from "./native-shells.ts";
import { type Deferred, deferred, noop } from "./shared.ts";

/** The global names replaced by {@link patchGlobalWebStreams}. */
const CLASS_NAMES = [
  "ReadableStream",
  "ReadableStreamDefaultReader",
  "ReadableStreamBYOBReader",
  "ReadableStreamBYOBRequest",
  "ReadableByteStreamController",
  "ReadableStreamDefaultController",
  "WritableStream",
  "WritableStreamDefaultWriter",
  "WritableStreamDefaultController",
  "TransformStream",
  "TransformStreamDefaultController",
  "ByteLengthQueuingStrategy",
  "CountQueuingStrategy",
] as const;

type ClassName = (typeof CLASS_NAMES)[number];
type AnyClass = abstract new (...args: never[]) => unknown;

/** Registered symbols through which Node.js (`node:stream` utilities, undici) asks a web stream for its state. */
const kIsDisturbed = Symbol.for("nodejs.stream.disturbed");
const kIsErrored = Symbol.for("nodejs.stream.errored");
const kIsReadable = Symbol.for("nodejs.stream.readable");
const kIsWritable = Symbol.for("nodejs.stream.writable");
const kIsClosedPromise = Symbol.for("nodejs.webstream.isClosedPromise");
/** Marks the global object while a fusestreams copy has patched it (guards against two copies patching). */
const kPatched = Symbol.for("fusestreams.globalPatch");

/** One property changed by the patch, with what to put back. */
interface SavedProperty {
  target: object;
  key: PropertyKey;
  descriptor: PropertyDescriptor | undefined;
}

/** One [[Prototype]] changed by the patch. */
interface SavedPrototype {
  target: object;
  proto: object | null;
}

interface PatchState {
  properties: SavedProperty[];
  prototypes: SavedPrototype[];
}

let state: PatchState | undefined;

const getOwn = Object.getOwnPropertyDescriptor;

function save(s: PatchState, target: object, key: PropertyKey): PropertyDescriptor | undefined {
  const descriptor = getOwn(target, key);
  s.properties.push({ target, key, descriptor });
  return descriptor;
}

function defineValue(s: PatchState, target: object, key: PropertyKey, value: unknown, writable = true): void {
  const old = save(s, target, key);
  Object.defineProperty(target, key, {
    value,
    writable: old && "value" in old ? old.writable : writable,
    enumerable: old?.enumerable ?? false,
    configurable: true,
  });
}

function defineGetter(s: PatchState, target: object, key: PropertyKey, get: () => unknown): void {
  const old = save(s, target, key);
  Object.defineProperty(target, key, { get, enumerable: old?.enumerable ?? false, configurable: true });
}

function global(): Record<PropertyKey, unknown> {
  return globalThis as unknown as Record<PropertyKey, unknown>;
}

/**
 * Replaces the global stream classes with fusestreams' for the whole process, so that code that uses
 * the globals (`new ReadableStream(...)`, `new Response(stream)`, `fetch(...).body`, ...) gets
 * fusestreams streams. Calling it again while patched does nothing.
 *
 * What it changes (all of it undone by {@link unpatchGlobalWebStreams}):
 *
 * - `globalThis.ReadableStream`, `WritableStream`, `TransformStream`, their readers, writers and
 *   controllers, `ReadableStreamBYOBRequest`, `ByteLengthQueuingStrategy` and `CountQueuingStrategy`
 *   become fusestreams' classes.
 * - `instanceof` keeps working both ways: a native stream is `instanceof` the patched global class
 *   (`Symbol.hasInstance` on fusestreams' classes), and a fusestreams stream is `instanceof` the native
 *   class (fusestreams' prototypes inherit from the native prototypes while patched, so Node.js's own
 *   checks, such as undici's body type check, accept them).
 * - `Response.prototype.body` and `Request.prototype.body` return a fusestreams stream: the body itself
 *   when undici created it after the patch (it then uses the global classes), otherwise a byte-stream
 *   shell that reads the native body (one native read per chunk).
 * - `pipeTo()` / `pipeThrough()` of native and fusestreams ReadableStreams accept a destination of the
 *   other kind (for example fusestreams streams piped through the native `CompressionStream`,
 *   `DecompressionStream`, `TextEncoderStream` or `TextDecoderStream`, which stay native).
 * - `new Response(fusestreamsStream)` works, and `text()`, `arrayBuffer()`, `json()` read it.
 *
 * ```ts
 * import { patchGlobalWebStreams } from "fusestreams/node";
 *
 * patchGlobalWebStreams();
 * const res = await fetch("http://127.0.0.1:8080/");
 * const upper = res.body!.pipeThrough(new TransformStream()); // fusestreams all the way
 * ```
 *
 * Node.js only: the same classes are available everywhere from `fusestreams` without any patch.
 */
export function patchGlobalWebStreams(): void {
  if (state !== undefined) return;
  const g = global();
  if (g[kPatched] !== undefined) {
    throw new Error("The global web streams are already patched by another copy of fusestreams");
  }
  const s: PatchState = { properties: [], prototypes: [] };
  // Node.js loads undici (fetch, Response, ...) lazily. Its clone() tees bodies with node:stream/web's
  // ReadableStreamTee (Node.js >= 26), captured when undici loads: teach it our streams first. Then
  // make undici load now, while the globals are the native classes, so that its type checks capture them.
  patchTee(s);
  void g["Response"];
  void g["fetch"];
  const ours = api as unknown as Record<ClassName, AnyClass>;
  patchStateSymbols(s);
  for (const name of CLASS_NAMES) {
    const Ours = ours[name];
    const Native = g[name] as AnyClass | undefined;
    if (Native === Ours) continue;
    if (typeof Native === "function") linkToNative(s, Ours, Native);
    defineValue(s, g, name, Ours);
  }
  patchLockedCancel(s);
  patchBodies(s);
  patchPipes(s);
  patchNodeStreamStatics(s);
  defineValue(s, g, kPatched, true, false);
  state = s;
}

/**
 * Undoes {@link patchGlobalWebStreams}: every global, prototype property and prototype link it changed
 * is put back exactly as it was (same values and property attributes). Does nothing when not patched.
 */
export function unpatchGlobalWebStreams(): void {
  const s = state;
  if (s === undefined) return;
  state = undefined;
  for (let i = s.properties.length - 1; i >= 0; i--) {
    const { target, key, descriptor } = s.properties[i]!;
    if (descriptor === undefined) delete (target as Record<PropertyKey, unknown>)[key];
    else Object.defineProperty(target, key, descriptor);
  }
  for (let i = s.prototypes.length - 1; i >= 0; i--) {
    const { target, proto } = s.prototypes[i]!;
    Object.setPrototypeOf(target, proto);
  }
}

/** Whether {@link patchGlobalWebStreams} is in effect (from this copy of fusestreams). */
export function isGlobalWebStreamsPatched(): boolean {
  return state !== undefined;
}

/**
 * Makes `ours instanceof Native` hold by the prototype chain and `native instanceof Ours` hold through
 * `Symbol.hasInstance`; hides the native prototype's symbol-keyed internals (Node.js's inspect hooks,
 * transfer hooks, state getters), which would otherwise be inherited and fail on our objects.
 */
function linkToNative(s: PatchState, Ours: AnyClass, Native: AnyClass): void {
  const ourProto = Ours.prototype as object;
  const nativeProto = Native.prototype as object;
  for (const key of Reflect.ownKeys(nativeProto)) {
    if (typeof key !== "symbol" || getOwn(ourProto, key) !== undefined) continue;
    defineValue(s, ourProto, key, undefined, false);
  }
  s.prototypes.push({ target: ourProto, proto: Object.getPrototypeOf(ourProto) as object | null });
  Object.setPrototypeOf(ourProto, nativeProto);
  defineValue(
    s,
    Ours,
    Symbol.hasInstance,
    function hasInstance(this: Function, value: unknown): boolean {
      // Subclasses inherit this static method: only the class itself also accepts native instances.
      if (this !== Ours) return isInstance(this, value);
      return isInstance(Ours, value) || isInstance(Native, value);
    },
    false,
  );
}

/**
 * The state Node.js reads from web streams through registered symbols: `isDisturbed()`, `isErrored()`,
 * `isReadable()` / `isWritable()` (undici relies on them for `bodyUsed` and to error a body when a fetch
 * is aborted) and `finished()` (undici waits with it for the end of every response body), answered from
 * the core's state views (`readableStreamState()`, `writableStreamState()`, `whenReadableStreamSettles()`),
 * so they are exact however the stream is consumed.
 *
 * Runs before the prototypes are linked to the native ones, so what the core defines itself is kept.
 */
function patchStateSymbols(s: PatchState): void {
  const rsProto = api.ReadableStream.prototype as object;
  const wsProto = api.WritableStream.prototype as object;
  const closedRecords = new WeakMap<object, Deferred>();
  const getters: [object, symbol, (this: object) => unknown][] = [
    [rsProto, kIsDisturbed, function (this: object) {
      return api.readableStreamState(this)?.disturbed ?? false;
    }],
    [rsProto, kIsErrored, function (this: object) {
      return api.readableStreamState(this)?.state === "errored";
    }],
    [rsProto, kIsReadable, function (this: object) {
      return api.readableStreamState(this)?.state === "readable";
    }],
    [rsProto, kIsClosedPromise, function (this: object) {
      let record = closedRecords.get(this);
      if (record === undefined) {
        const d = deferred();
        record = d;
        d.promise.then(undefined, noop);
        closedRecords.set(this, d);
        api.whenReadableStreamSettles(this, () => d.resolve(), (e) => d.reject(e));
      }
      return record;
    }],
    [wsProto, kIsErrored, function (this: object) {
      return api.writableStreamState(this)?.state === "errored";
    }],
    [wsProto, kIsWritable, function (this: object) {
      return api.writableStreamState(this)?.state === "writable";
    }],
  ];
  for (const [proto, key, get] of getters) {
    if (getOwn(proto, key) !== undefined) continue;
    defineGetter(s, proto, key, get);
  }
}

/**
 * undici (Node.js 20 and 22, and for request bodies 26) cancels the body of an aborted fetch and ignores
 * the failure only when its error has `code: "ERR_INVALID_STATE"`, as Node.js's own streams report a
 * locked stream; any other error becomes an unhandled rejection. While patched, cancelling a locked
 * fusestreams stream rejects with such a TypeError.
 */
function patchLockedCancel(s: PatchState): void {
  const proto = api.ReadableStream.prototype as unknown as { cancel: (this: unknown, reason?: unknown) => Promise<undefined> };
  const cancel = proto.cancel;
  defineValue(s, proto, "cancel", function cancel_(this: unknown, reason?: unknown) {
    if (isOurReadable(this) && this.locked) {
      const err = new TypeError("Cannot cancel a stream that is locked to a reader") as TypeError & { code?: string };
      err.code = "ERR_INVALID_STATE";
      return Promise.reject(err);
    }
    return cancel.call(this, reason);
  });
}

/** `Response.prototype.body` / `Request.prototype.body` hand out fusestreams streams. */
function patchBodies(s: PatchState): void {
  const shells = new WeakMap<object, api.ReadableStream>();
  for (const name of ["Response", "Request"]) {
    const C = global()[name] as { prototype: object } | undefined;
    const proto = C?.prototype;
    if (proto === undefined) continue;
    const original = getOwn(proto, "body");
    const get = original?.get;
    if (get === undefined) continue;
    save(s, proto, "body");
    Object.defineProperty(proto, "body", {
      get: function body(this: object) {
        const stream: unknown = get.call(this);
        if (!isNativeReadable(stream)) return stream;
        let shell = shells.get(stream);
        if (shell === undefined) {
          shell = bodyShell(stream as globalThis.ReadableStream<Uint8Array>);
          shells.set(stream, shell);
        }
        return shell;
      },
      set: original!.set,
      enumerable: original!.enumerable,
      configurable: true,
    });
  }
}

type PipeTo = (this: unknown, destination: unknown, options?: unknown) => Promise<undefined>;
type PipeThrough = (this: unknown, transform: unknown, options?: unknown) => unknown;
interface Pair {
  readable: unknown;
  writable: unknown;
}

/** Lets native and fusestreams streams pipe into each other (through shells at the boundary). */
function patchPipes(s: PatchState): void {
  const ourProto = api.ReadableStream.prototype as unknown as { pipeTo: PipeTo; pipeThrough: PipeThrough };
  const ourPipeTo = ourProto.pipeTo;
  const ourPipeThrough = ourProto.pipeThrough;
  // Our streams: native destinations are wrapped in shells.
  // A native body not read yet is piped from a default-stream shell (see takeBodyForPipe).
  defineValue(s, ourProto, "pipeTo", function pipeTo(this: unknown, destination: unknown, options?: unknown) {
    const dest = isNativeWritable(destination) ? writableShell(destination) : destination;
    const writable = isOurWritable(dest) && !dest.locked;
    const source = (writable && takeBodyForPipe(this, options)) || this;
    return ourPipeTo.call(source, dest, options);
  });
  defineValue(s, ourProto, "pipeThrough", function pipeThrough(this: unknown, transform: unknown, options?: unknown) {
    const pair = ourPair(transform);
    const writable = isPair(pair) && isOurWritable(pair.writable) && !pair.writable.locked && isOurReadable(pair.readable);
    const source = (writable && takeBodyForPipe(this, options)) || this;
    return ourPipeThrough.call(source, pair, options);
  });

  // Native streams: when the destination is ours, pipe from a shell of the native stream.
  const nativeProto = Native.ReadableStream?.prototype as { pipeTo?: PipeTo; pipeThrough?: PipeThrough } | undefined;
  if (nativeProto === undefined || (nativeProto as unknown) === ourProto) return;
  const nativePipeTo = nativeProto.pipeTo;
  const nativePipeThrough = nativeProto.pipeThrough;
  if (typeof nativePipeTo !== "function" || typeof nativePipeThrough !== "function") return;
  defineValue(s, nativeProto, "pipeTo", function pipeTo(this: unknown, destination: unknown, options?: unknown) {
    if (isNativeReadable(this) && isOurWritable(destination)) {
      return ourPipeTo.call(readableShell(this, false), destination, options);
    }
    return nativePipeTo.call(this, destination, options);
  });
  defineValue(s, nativeProto, "pipeThrough", function pipeThrough(this: unknown, transform: unknown, options?: unknown) {
    if (isNativeReadable(this) && isPair(transform) && (isOurWritable(transform.writable) || isOurReadable(transform.readable))) {
      return ourPipeThrough.call(readableShell(this, false), ourPair(transform), options);
    }
    return nativePipeThrough.call(this, transform, options);
  });
}

function isPair(value: unknown): value is Pair {
  return typeof value === "object" && value !== null;
}

/** A readable/writable pair with native sides replaced by shells (the pair itself when nothing is native). */
function ourPair(transform: unknown): unknown {
  if (!isPair(transform)) return transform;
  const { readable, writable } = transform;
  const nativeR = isNativeReadable(readable);
  const nativeW = isNativeWritable(writable);
  if (!nativeR && !nativeW) return transform;
  return {
    readable: nativeR ? readableShell(readable, false) : readable,
    writable: nativeW ? writableShell(writable) : writable,
  };
}

type Tee = (stream: unknown, cloneForBranch2?: boolean) => [unknown, unknown];

/**
 * node:stream/web's `ReadableStreamTee(stream, cloneForBranch2)` (Node.js >= 26; undici's
 * `Response.prototype.clone()` uses it) accepts only native streams: route ours to our `tee()`, with
 * chunks of the second branch structured-cloned when asked to. Only effective for undici when it
 * loads after the patch.
 */
function patchTee(s: PatchState): void {
  const getBuiltinModule = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  const web = getBuiltinModule?.call(process, "node:stream/web") as Record<string, unknown> | undefined;
  const original = web?.["ReadableStreamTee"] as Tee | undefined;
  if (web === undefined || typeof original !== "function") return;
  defineValue(s, web, "ReadableStreamTee", function ReadableStreamTee(stream: unknown, cloneForBranch2 = false) {
    if (!isOurReadable(stream)) return original(stream, cloneForBranch2);
    const [a, b] = stream.tee();
    if (!cloneForBranch2) return [a, b];
    const clone = new api.TransformStream({
      transform(chunk, controller) {
        controller.enqueue(structuredClone(chunk));
      },
    });
    return [a, b.pipeThrough(clone)];
  });
}

type FromWeb = (stream: unknown, options?: unknown) => unknown;
type ToWeb = (stream: unknown, options?: unknown) => unknown;

/** Options of a `toWeb()` call that fusestreams handles the same way: none, or a plain high-water mark. */
function simpleToWebOptions(options: unknown): { highWaterMark?: number } | undefined {
  if (options === undefined) return {};
  if (typeof options !== "object" || options === null) return undefined;
  const keys = Object.keys(options);
  if (keys.length === 0) return {};
  const strategy = (options as { strategy?: unknown }).strategy;
  if (keys.length !== 1 || typeof strategy !== "object" || strategy === null) return undefined;
  const { highWaterMark, size } = strategy as { highWaterMark?: unknown; size?: unknown };
  if (size !== undefined || (highWaterMark !== undefined && typeof highWaterMark !== "number")) return undefined;
  return highWaterMark === undefined ? {} : { highWaterMark };
}

/**
 * `Readable.fromWeb()`, `Writable.fromWeb()` and `Duplex.fromWeb()` of node:stream accept only native
 * streams: while patched (when `response.body` and friends are fusestreams streams) they route ours to
 * the adapter's converters. `toWeb()` returns fusestreams streams when called without options (or with
 * just `strategy.highWaterMark`), and native ones otherwise.
 */
function patchNodeStreamStatics(s: PatchState): void {
  const statics = (C: object) => C as { fromWeb: FromWeb; toWeb: ToWeb };
  const R = statics(Readable);
  const W = statics(Writable);
  const D = statics(Duplex);
  const readableFromWeb = R.fromWeb;
  const readableToWeb = R.toWeb;
  const writableFromWeb = W.fromWeb;
  const writableToWeb = W.toWeb;
  const duplexFromWeb = D.fromWeb;
  const duplexToWeb = D.toWeb;
  if (typeof readableFromWeb === "function") {
    defineValue(s, Readable, "fromWeb", function fromWeb(stream: unknown, options?: unknown) {
      if (!isOurReadable(stream)) return readableFromWeb.call(Readable, stream, options);
      return toNodeReadable(stream, options as Parameters<typeof toNodeReadable>[1]);
    });
  }
  if (typeof readableToWeb === "function") {
    defineValue(s, Readable, "toWeb", function toWeb(readable: unknown, options?: unknown) {
      const simple = simpleToWebOptions(options);
      if (simple === undefined || !(readable instanceof Readable)) return readableToWeb.call(Readable, readable, options);
      return fromNodeReadable(readable, simple);
    });
  }
  if (typeof writableFromWeb === "function") {
    defineValue(s, Writable, "fromWeb", function fromWeb(stream: unknown, options?: unknown) {
      if (!isOurWritable(stream)) return writableFromWeb.call(Writable, stream, options);
      return toNodeWritable(stream, options as Parameters<typeof toNodeWritable>[1]);
    });
  }
  if (typeof writableToWeb === "function") {
    defineValue(s, Writable, "toWeb", function toWeb(writable: unknown, options?: unknown) {
      const simple = simpleToWebOptions(options);
      if (simple === undefined || !(writable instanceof Writable)) return writableToWeb.call(Writable, writable, options);
      return fromNodeWritable(writable, simple);
    });
  }
  if (typeof duplexFromWeb === "function") {
    defineValue(s, Duplex, "fromWeb", function fromWeb(pair: unknown, options?: unknown) {
      if (!isPair(pair) || !isOurReadable(pair.readable) || !isOurWritable(pair.writable)) {
        return duplexFromWeb.call(Duplex, pair, options);
      }
      return toNodeDuplex({ readable: pair.readable, writable: pair.writable }, options as Parameters<typeof toNodeDuplex>[1]);
    });
  }
  if (typeof duplexToWeb === "function") {
    defineValue(s, Duplex, "toWeb", function toWeb(duplex: unknown, options?: unknown) {
      if (options !== undefined || !(duplex instanceof Duplex)) return duplexToWeb.call(Duplex, duplex, options);
      return fromNodeDuplex(duplex);
    });
  }
}
