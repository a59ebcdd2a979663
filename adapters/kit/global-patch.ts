/**
 * The runtime-agnostic parts of `patchGlobalWebStreams()`: a patch built from named steps on a
 * {@link PatchTransaction} (all or nothing, exact restore), the steps every runtime shares, and the
 * runtime check. Each adapter passes in its runtime check and its own extra steps
 * (`createGlobalPatch({ ... })`), in the way a Hono adapter passes runtime primitives to the core.
 * @module
 */
import * as api from "../../core/internal.ts";
import type {
  IsGlobalWebStreamsPatched,
  PatchGlobalWebStreams,
  RuntimeName,
  UnpatchGlobalWebStreams,
} from "./contract.ts";
import { pipeThroughNativeCodec } from "./codec-through.ts";
import { bodyShellFor, isBodyShell, syncBodyShellOf, takeBodyForPipe } from "./body-shells.ts";
import { isNativeFed, markNativeFed } from "./native-fed.ts";
import { wrapBodyMethods } from "./body-methods.ts";
import { holdNativeOf, readableShell, releaseUnusedWritableShell, writableShell } from "./native-shells.ts";
import {
  isInstance,
  isNativeReadable,
  isNativeWritable,
  isOurReadable,
  isOurWritable,
  Native,
  ownerOf,
} from "./natives.ts";
import { PatchTransaction } from "./patch-transaction.ts";
import { type ResolvedPatchOptions, resolvePatchOptions, samePatchOptions } from "./patch-options.ts";
import { type BodyBridge, rememberBody, toNativeBody } from "./to-native.ts";

/**
 * The global names the patch replaces by fusestreams' classes (CompressionStream and DecompressionStream only
 * where the runtime has its own: ours compress with the runtime's codecs; edge-runtime has none).
 */
export const CLASS_NAMES = [
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
  "CompressionStream",
  "DecompressionStream",
  "TextEncoderStream",
  "TextDecoderStream",
] as const;

type ClassName = (typeof CLASS_NAMES)[number];
type AnyClass = abstract new (...args: never[]) => unknown;

/** Marks the global object while a copy of fusestreams has patched it (two copies must not both patch). */
const kPatched = Symbol.for("fusestreams.globalPatch");

/** One named step of a patch. */
export interface PatchStep {
  /** Named in the error when the step fails. */
  readonly name: string;
  /**
   * Makes the step's changes through `tx` (recorded, so they are undone if a later step fails), as `options` (the
   * patch's, checked) ask.
   */
  readonly run: (tx: PatchTransaction, options: ResolvedPatchOptions) => void;
}

/** What an adapter passes to {@link createGlobalPatch}. */
export interface GlobalPatchOptions {
  /** The adapter's runtime. */
  readonly runtime: RuntimeName;
  /**
   * Returns undefined when the code runs on the adapter's runtime, else a sentence saying what was found
   * instead (the patch then throws a `TypeError` with it and changes nothing).
   */
  readonly checkRuntime: () => string | undefined;
  /** Steps run before the shared ones (e.g. making the runtime load what captures the native classes). */
  readonly before?: readonly PatchStep[];
  /** Steps run after the shared ones. */
  readonly after?: readonly PatchStep[];
  /**
   * Which shared steps to run (default: all). `bodyInit` converts our streams given as bodies to native
   * ones; a runtime whose Response already takes our streams (Node.js: undici) turns it off. `bodies`
   * puts shells in front of native bodies; a runtime whose `Response.prototype.body` cannot be redefined
   * (Bun: non-configurable) turns it off, and its bodies stay native (still `instanceof` the patched
   * global, and piped into ours through a shell by the `pipes` step).
   */
  readonly shared?: { readonly bodyInit?: boolean; readonly bodies?: boolean };
  /**
   * The runtime's native source for our streams given as bodies (`new Response(ours)`, `Request`,
   * `fetch`), when it has a faster one than the default (Bun: a `type: "direct"` stream); see `BodyBridge`.
   */
  readonly bodyBridge?: BodyBridge;
  /**
   * Runs the native `Response`/`Request` constructor or `fetch` (`call`) taking `body` (after our streams
   * were converted), for a runtime whose body code needs something around it (Deno: the native
   * ReadableStream global while it makes a stream of an async-iterable body).
   */
  readonly aroundBodyInit?: BodyInitHook;
  /**
   * Called with each `Response`/`Request` made from one of our streams (`new Response(ours)`,
   * `new Request(url, { body: ours })`), that stream and the native stream the runtime was given for it
   * (Bun: the instance's `body` then answers ours, as Bun's own answers the stream it was given).
   */
  readonly onBodyMade?: BodyMadeHook;
  /**
   * Awaits the pipe of a native `pipeTo()` into one of ours, for a runtime whose own pipe gives an error a native
   * read created with no JavaScript frames the frames of the code awaiting the pipe (Bun: caller-stack.ts).
   * Without it, the pipe's promise is returned as it is, with no extra job before it settles.
   */
  readonly awaitNativePipe?: (pipe: Promise<void>) => Promise<void>;
  /**
   * For an adapter whose codec is the runtime's own compression streams (the edge adapter): NATIVE-CODEC-THROUGH
   * (codec-through.ts: a native stream or untouched body piped through one of our unopened compression streams
   * is piped by the runtime through its own) and NATIVE-CODEC-HANDBACK (an untouched DecompressionStream's output
   * given to a body is the runtime's own stream), while patched.
   */
  readonly codecThrough?: boolean;
}

/** See {@link GlobalPatchOptions.aroundBodyInit}. */
export type BodyInitHook = <T>(body: unknown, call: () => T) => T;

/** See {@link GlobalPatchOptions.onBodyMade}. */
export type BodyMadeHook = (
  owner: object,
  ours: api.ReadableStream<unknown>,
  native: globalThis.ReadableStream<Uint8Array>,
) => void;

/** The three patch functions of an adapter. */
export interface GlobalPatch {
  /** Runs the runtime check, then every step, all or nothing (see the contract's `PatchGlobalWebStreams`). */
  readonly patchGlobalWebStreams: PatchGlobalWebStreams;
  /** Puts back everything the patch changed; does nothing when not patched. */
  readonly unpatchGlobalWebStreams: UnpatchGlobalWebStreams;
  /** Whether this patch is in effect. */
  readonly isGlobalWebStreamsPatched: IsGlobalWebStreamsPatched;
}

function global(): Record<PropertyKey, unknown> {
  return globalThis as unknown as Record<PropertyKey, unknown>;
}

/**
 * Builds an adapter's `patchGlobalWebStreams` / `unpatchGlobalWebStreams` / `isGlobalWebStreamsPatched`
 * from its runtime check and its steps, around the shared steps: `classes` (the globals, `instanceof`
 * both ways), `pipes` (native and our streams pipe into each other), `bodies` (`Response`/`Request`
 * bodies are seen through shells) and `body-init` (our streams given as bodies are handed over as native
 * streams).
 */
export function createGlobalPatch(options: GlobalPatchOptions): GlobalPatch {
  const label = `patchGlobalWebStreams (fusestreams/${options.runtime})`;
  let tx: PatchTransaction | undefined;
  let active: ResolvedPatchOptions | undefined;
  const steps: PatchStep[] = [
    ...(options.before ?? []),
    { name: "classes", run: replaceClasses },
    { name: "pipes", run: (t: PatchTransaction) => patchPipes(t, options.awaitNativePipe, options.codecThrough) },
    ...(options.codecThrough === true ? [{ name: "codec-handback", run: handBackNativeCodecs }] : []),
    ...(options.shared?.bodies === false ? [] : [{ name: "bodies", run: patchBodyGetters }]),
    ...(options.shared?.bodyInit === false ? [] : [{
      name: "body-init",
      run: (t: PatchTransaction) => patchBodyInit(t, options.bodyBridge, options.aroundBodyInit, options.onBodyMade),
    }]),
    ...(options.after ?? []),
  ];
  return {
    patchGlobalWebStreams(patchOptions?: unknown): void {
      const resolved = resolvePatchOptions(label, patchOptions);
      if (tx !== undefined) {
        if (samePatchOptions(resolved, active!)) return;
        throw new TypeError(
          `${label}: already patched with other options (${
            JSON.stringify(active)
          }); unpatch first; nothing was changed`,
        );
      }
      const mismatch = options.checkRuntime();
      if (mismatch !== undefined) throw new TypeError(`${label}: ${mismatch}; nothing was changed`);
      if (global()[kPatched] !== undefined) {
        throw new TypeError(
          `${label}: the globals are already patched by another copy of fusestreams; nothing was changed`,
        );
      }
      const t = new PatchTransaction(label);
      for (const step of steps) t.step(step.name, (t2) => step.run(t2, resolved));
      t.step("mark", (t2) => t2.defineValue(global(), kPatched, options.runtime, false));
      tx = t;
      active = resolved;
    },
    unpatchGlobalWebStreams(): void {
      const t = tx;
      if (t === undefined) return;
      tx = undefined;
      active = undefined;
      t.restore();
    },
    isGlobalWebStreamsPatched(): boolean {
      return tx !== undefined;
    },
  };
}

/**
 * Step `classes`: the globals become our classes. `instanceof` holds both ways: our prototypes inherit
 * from the native ones (so a runtime's own `instanceof` checks accept our streams), and our classes
 * accept native instances through `Symbol.hasInstance`. The native prototypes' symbol-keyed members
 * (engine internals such as inspect hooks or brand getters) are shadowed on ours, since they would fail
 * on our objects.
 */
export function replaceClasses(tx: PatchTransaction): void {
  const g = global();
  // Our CompressionStream and DecompressionStream may drive the runtime's own: read them before they go (recorded
  // first: Node.js 20's lazy globals turn into plain values when read).
  tx.record(g, "CompressionStream");
  tx.record(g, "DecompressionStream");
  api.nativeCompressionClasses();
  // Named one by one, not read off the namespace object: a bundler then keeps only what is used of it.
  const ours: Record<ClassName, unknown> = {
    ReadableStream: api.ReadableStream,
    ReadableStreamDefaultReader: api.ReadableStreamDefaultReader,
    ReadableStreamBYOBReader: api.ReadableStreamBYOBReader,
    ReadableStreamBYOBRequest: api.ReadableStreamBYOBRequest,
    ReadableByteStreamController: api.ReadableByteStreamController,
    ReadableStreamDefaultController: api.ReadableStreamDefaultController,
    WritableStream: api.WritableStream,
    WritableStreamDefaultWriter: api.WritableStreamDefaultWriter,
    WritableStreamDefaultController: api.WritableStreamDefaultController,
    TransformStream: api.TransformStream,
    TransformStreamDefaultController: api.TransformStreamDefaultController,
    ByteLengthQueuingStrategy: api.ByteLengthQueuingStrategy,
    CountQueuingStrategy: api.CountQueuingStrategy,
    CompressionStream: api.CompressionStream,
    DecompressionStream: api.DecompressionStream,
    TextEncoderStream: api.TextEncoderStream,
    TextDecoderStream: api.TextDecoderStream,
  };
  for (const name of CLASS_NAMES) {
    const Ours = ours[name] as AnyClass;
    // Recorded before it is read: some runtimes define these globals as accessors that replace themselves.
    tx.record(g, name);
    const NativeClass = g[name] as AnyClass | undefined;
    if (NativeClass === Ours) continue;
    if (NativeClass === undefined && (name === "CompressionStream" || name === "DecompressionStream")) continue;
    if (typeof NativeClass === "function") linkToNative(tx, Ours, NativeClass);
    tx.defineValue(g, name, Ours);
    if (name === "ReadableStream") fromStringsAsNative(tx, NativeClass);
  }
}

/**
 * ReadableStream.from() of a string, while patched, as the runtime's own class takes it: Node.js 26 and Bun 1.4
 * still stream its code points (the standard before whatwg/streams#1372), Deno 2.9 throws the TypeError ours
 * throws by the current text. Code written for the runtime then keeps working; unpatch puts the setting back.
 */
function fromStringsAsNative(tx: PatchTransaction, NativeClass: AnyClass | undefined): void {
  const from = (NativeClass as { from?: unknown } | undefined)?.from;
  if (typeof from !== "function") return;
  try {
    Reflect.apply(from, NativeClass, [""]);
  } catch {
    return;
  }
  const previous = api.setReadableStreamFromTakesStrings(true);
  tx.afterRestore("ReadableStream.from() of a string", () => void api.setReadableStreamFromTakesStrings(previous));
}

function linkToNative(tx: PatchTransaction, Ours: AnyClass, NativeClass: AnyClass): void {
  const ourProto = Ours.prototype as object;
  const nativeProto = NativeClass.prototype as object;
  for (const key of Reflect.ownKeys(nativeProto)) {
    if (typeof key !== "symbol" || Object.getOwnPropertyDescriptor(ourProto, key) !== undefined) continue;
    tx.defineValue(ourProto, key, undefined, false);
  }
  tx.setPrototype(ourProto, nativeProto);
  tx.defineValue(
    Ours,
    Symbol.hasInstance,
    function hasInstance(this: AnyClass, value: unknown): boolean {
      // Subclasses inherit this static method: only the class itself also accepts native instances.
      if (this !== Ours) return isInstance(this, value);
      return isInstance(Ours, value) || isInstance(NativeClass, value);
    },
    false,
  );
}

/** Step `codec-handback` (see {@link GlobalPatchOptions.codecThrough}): NATIVE-CODEC-HANDBACK while patched. */
function handBackNativeCodecs(tx: PatchTransaction): void {
  api.setNativeCodecHandback(true);
  tx.afterRestore("NATIVE-CODEC-HANDBACK", () => api.setNativeCodecHandback(false));
}

type PipeTo = (this: unknown, destination: unknown, options?: unknown) => Promise<undefined>;
type PipeThrough = (this: unknown, transform: unknown, options?: unknown) => unknown;
interface Pair {
  readable: unknown;
  writable: unknown;
}

function isPair(value: unknown): value is Pair {
  return typeof value === "object" && value !== null;
}

/**
 * The sides of a `pipeThrough()` pair, each read once, `readable` first, as the standard's dictionary conversion
 * reads them (a getter runs once; the pipe then reads this plain object); anything else as it is.
 */
function readPair(transform: unknown): unknown {
  if (!isPair(transform)) return transform;
  const readable = transform.readable;
  return { readable, writable: transform.writable };
}

/** A pair read by {@link readPair} with native sides replaced by shells (the pair itself when nothing is native). */
function ourPair(pair: unknown): unknown {
  if (!isPair(pair)) return pair;
  const { readable, writable } = pair;
  const nativeR = isNativeReadable(readable);
  const nativeW = isNativeWritable(writable);
  if (!nativeR && !nativeW) return pair;
  return {
    readable: nativeR ? readableShell(readable, false) : readable,
    writable: nativeW ? writableShell(writable) : writable,
  };
}

/**
 * Step `pipes`: native and our streams pipe into each other. Our `pipeTo`/`pipeThrough` write into a
 * native destination through a shell, and an untouched native body piped by ours is read by a
 * default-stream shell; native `pipeTo`/`pipeThrough` with one of our destinations pipe from a shell of
 * the native stream (one native read per chunk at the boundary, our pipe machinery after it).
 */
export function patchPipes(
  tx: PatchTransaction,
  awaitNativePipe?: (pipe: Promise<void>) => Promise<void>,
  codecThrough = false,
): void {
  const ourProto = api.ReadableStream.prototype as unknown as { pipeTo: PipeTo; pipeThrough: PipeThrough };
  const ourPipeTo = ourProto.pipeTo;
  const ourPipeThrough = ourProto.pipeThrough;
  const NativeRS = Native.ReadableStream as { prototype: object } | undefined;
  const nativeProto = (NativeRS === (api.ReadableStream as unknown) ? undefined : NativeRS?.prototype) as
    | { pipeTo?: PipeTo; pipeThrough?: PipeThrough }
    | undefined;
  const nativePipeTo = nativeProto?.pipeTo;
  /** NATIVE-CODEC-THROUGH, where the adapter asked for it (before anything reads `transform`'s sides). */
  const throughNativeCodec = (source: unknown, transform: unknown, options: unknown) =>
    codecThrough && typeof nativePipeTo === "function"
      ? pipeThroughNativeCodec(source, transform, options, nativePipeTo as never)
      : undefined;
  tx.defineValue(ourProto, "pipeTo", function pipeTo(this: unknown, destination: unknown, options?: unknown) {
    const dest = isNativeWritable(destination) ? writableShell(destination) : destination;
    const writable = isOurWritable(dest) && !dest.locked;
    const taken = writable ? takeBodyForPipe(this, options) : undefined;
    const promise = ourPipeTo.call(taken ?? this, dest, options);
    holdNativeOf(taken);
    // A pipe that failed before it started leaves a native destination unlocked, as natively.
    if (dest !== destination) releaseUnusedWritableShell(dest);
    return promise;
  });
  tx.defineValue(ourProto, "pipeThrough", function pipeThrough(this: unknown, transform: unknown, options?: unknown) {
    const through = throughNativeCodec(this, transform, options);
    if (through !== undefined) return through;
    const read = readPair(transform);
    const pair = ourPair(read);
    const writable = isPair(pair) && isOurWritable(pair.writable) && !pair.writable.locked &&
      isOurReadable(pair.readable);
    const taken = writable ? takeBodyForPipe(this, options) : undefined;
    try {
      const readable = ourPipeThrough.call(taken ?? this, pair, options);
      if (taken !== undefined || isBodyShell(this) || isNativeFed(this)) markNativeFed(readable);
      return readable;
    } finally {
      holdNativeOf(taken);
      // A pipe that failed before it started leaves a native writable side unlocked, as natively.
      if (isPair(pair) && pair !== read) releaseUnusedWritableShell(pair.writable);
    }
  });

  if (nativeProto === undefined) return;
  const nativePipeThrough = nativeProto.pipeThrough;
  if (typeof nativePipeTo !== "function" || typeof nativePipeThrough !== "function") return;
  tx.defineValue(nativeProto, "pipeTo", function pipeTo(this: unknown, destination: unknown, options?: unknown) {
    if (isOurWritable(destination) && isNativeReadable(this)) {
      // The native stream is locked at once when the pipe starts, as by the native pipeTo.
      const shell = readableShell(this, false);
      const promise = ourPipeTo.call(shell, destination, options);
      holdNativeOf(shell);
      return awaitNativePipe === undefined ? promise : awaitNativePipe(promise);
    }
    return nativePipeTo.call(this, destination, options);
  });
  tx.defineValue(
    nativeProto,
    "pipeThrough",
    function pipeThrough(this: unknown, transform: unknown, options?: unknown) {
      const through = throughNativeCodec(this, transform, options);
      if (through !== undefined) return through;
      if (!isNativeReadable(this) || !isPair(transform)) return nativePipeThrough.call(this, transform, options);
      const read = readPair(transform) as Pair;
      if (!isOurWritable(read.writable) && !isOurReadable(read.readable)) {
        return nativePipeThrough.call(this, read, options);
      }
      const shell = readableShell(this, false);
      const pair = ourPair(read);
      try {
        const readable = ourPipeThrough.call(shell, pair, options);
        markNativeFed(readable);
        return readable;
      } finally {
        holdNativeOf(shell);
        if (isPair(pair) && pair !== read) releaseUnusedWritableShell(pair.writable);
      }
    },
  );
}

/**
 * Step `bodies`: `Response.prototype.body` and `Request.prototype.body` (where they are defined: workerd
 * has one getter on the prototype both inherit) return our streams: a native body is seen through a shell
 * of its kind (the same shell every time for the same body, see `bodyShellOf`), which reads it only when
 * read itself. The shell's lock and the native body's follow each other (`syncBodyShell`): a native body
 * locked by the runtime's own consumer (`text()`, `clone()`...) gives a locked shell, and the methods that
 * read or tee a body (`text()`, `clone()`..., wherever they are defined) first lock the native body when
 * a reader of ours holds its shell, so they refuse it as they refuse a locked native body.
 */
export function patchBodyGetters(tx: PatchTransaction): void {
  const done: object[] = [];
  for (const name of ["Response", "Request"]) {
    // Recorded before it is read: Node.js 20 defines these globals as accessors that replace themselves.
    tx.record(global(), name);
    // The getter may be inherited: workerd defines it once, on the Body.prototype both classes extend.
    const classProto = (global()[name] as { prototype?: object } | undefined)?.prototype;
    const proto = ownerOf(classProto, "body");
    const original = proto === undefined ? undefined : Object.getOwnPropertyDescriptor(proto, "body");
    const get = original?.get;
    if (proto === undefined || get === undefined) continue;
    if (!done.includes(proto)) {
      done.push(proto);
      tx.defineAccessor(
        proto,
        "body",
        function body(this: object) {
          const stream: unknown = get.call(this);
          if (!isNativeReadable(stream)) return stream;
          return bodyShellFor(this, stream as globalThis.ReadableStream<Uint8Array>);
        } as (this: never) => unknown,
        original!.set as ((this: never, value: never) => void) | undefined,
      );
    }
    wrapBodyMethods(tx, classProto, done, (fn, self, args) => {
      syncBodyShellOf(self);
      return fn.apply(self, args);
    });
  }
}

/**
 * `init` with `body` replaced by the native stream made for one of our streams, and that stream; `init`
 * itself (and undefined) when its body is not one of ours. The replacement is a view of `init` that
 * answers every other member from `init` itself (a copy of its own enumerable members would lose
 * inherited and non-enumerable ones, and getters that need `init` as `this`), since the runtime's
 * dictionary conversion reads each member with [[Get]].
 */
function withNativeBody(
  init: unknown,
  context: string,
  bridge: BodyBridge | undefined,
): [unknown, globalThis.ReadableStream<Uint8Array>?] {
  if (typeof init !== "object" || init === null) return [init];
  const body = (init as { body?: unknown }).body;
  if (!isOurReadable(body)) return [init];
  const native = toNativeBody(body, context, bridge);
  const view = new Proxy(init, {
    get: (target, key) => (key === "body" ? native : Reflect.get(target, key)),
  });
  return [view, native];
}

/** `init.body`, when `init` is an object. */
function bodyOf(init: unknown): unknown {
  return typeof init === "object" && init !== null ? (init as { body?: unknown }).body : undefined;
}

/**
 * Step `body-init`: `new Response(ours)`, `new Request(url, { body: ours })` and
 * `fetch(url, { body: ours })` hand the runtime a native stream reading ours (bytes checked, see
 * `toNativeBody`), since a runtime's own body code reads native internals. `Response`/`Request` become
 * proxies of the native classes whose construction converts the body first: the instances, the
 * prototypes, the statics and `instanceof` are the native ones. The native stream made for a
 * Response/Request is remembered (`bodyMadeFor`).
 */
export function patchBodyInit(
  tx: PatchTransaction,
  bridge?: BodyBridge,
  around?: BodyInitHook,
  made?: BodyMadeHook,
): void {
  const g = global();
  const forBody: BodyInitHook = around ?? ((_body, call) => call());
  for (const name of ["Response", "Request", "fetch"]) tx.record(g, name);
  const NativeResponse = g["Response"] as (new (...args: unknown[]) => object) | undefined;
  if (typeof NativeResponse === "function") {
    const proxy: typeof NativeResponse = new Proxy(NativeResponse, {
      construct(target, args, newTarget): object {
        let native: globalThis.ReadableStream<Uint8Array> | undefined;
        const ours = args[0];
        if (args.length > 0 && isOurReadable(ours)) {
          native = toNativeBody(ours, "Response", bridge);
          // The trap's own argument list (made for this call), handed on to Reflect.construct.
          args[0] = native;
        }
        const to = newTarget === proxy ? target : newTarget;
        // No closure per Response without a hook (every `new Response()` of the process comes through here).
        const response = around === undefined
          ? Reflect.construct(target, args, to) as object
          : around(args[0], () => Reflect.construct(target, args, to) as object);
        if (native !== undefined) {
          rememberBody(response, native);
          made?.(response, ours as api.ReadableStream<unknown>, native);
        }
        return response;
      },
    });
    tx.defineValue(g, "Response", proxy);
  }
  const NativeRequest = g["Request"] as (new (...args: unknown[]) => object) | undefined;
  if (typeof NativeRequest === "function") {
    const proxy: typeof NativeRequest = new Proxy(NativeRequest, {
      construct(target, args, newTarget): object {
        let native: globalThis.ReadableStream<Uint8Array> | undefined;
        // A Request given as input: its native body must be locked if a reader of ours holds its shell.
        syncBodyShellOf(args[0]);
        // The body is in `init`, or (Bun) in a first argument that is an object but no Request.
        const at = args.length > 1 ? 1 : isInstance(target, args[0]) ? -1 : 0;
        const ours = at < 0 ? undefined : bodyOf(args[at]);
        if (at >= 0) {
          const [init, made] = withNativeBody(args[at], "Request", bridge);
          native = made;
          args = [...args.slice(0, at), init, ...args.slice(at + 1)];
        }
        const request = forBody(
          bodyOf(args[at < 0 ? 1 : at]),
          () => Reflect.construct(target, args, newTarget === proxy ? target : newTarget) as object,
        );
        if (native !== undefined) {
          rememberBody(request, native);
          made?.(request, ours as api.ReadableStream<unknown>, native);
        }
        return request;
      },
    });
    tx.defineValue(g, "Request", proxy);
  }
  const nativeFetch = g["fetch"] as ((...args: unknown[]) => Promise<unknown>) | undefined;
  if (typeof nativeFetch === "function") {
    tx.defineValue(g, "fetch", function fetch(this: unknown, input: unknown, init?: unknown) {
      syncBodyShellOf(input);
      if (arguments.length < 2) return nativeFetch.call(this, input);
      const converted = withNativeBody(init, "fetch", bridge)[0];
      return forBody(bodyOf(converted), () => nativeFetch.call(this, input, converted));
    });
  }
}
