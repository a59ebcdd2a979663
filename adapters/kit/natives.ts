/**
 * The runtime's own (native) stream classes and brand checks, captured when this module loads, before any
 * patch replaces the globals. Only web-standard globals are read.
 *
 * They are read as free identifiers (`ReadableStream`, not `globalThis.ReadableStream`), every stream class
 * name the patch replaces: a bundler that puts fusestreams' modules in one scope then gives our classes other
 * names. Without that, esbuild's ESM output declares `var ReadableStream = class ...` at its top level, and a
 * bundle evaluated as a classic script (edge-runtime's `new EdgeRuntime({ initialCode })`, as local emulators
 * take a bundled worker) would replace the runtime's own classes with ours before anything could capture
 * them: native bodies would not be recognised, and piping them into ours would fail.
 * @module
 */
import { ReadableStream as OurReadableStream, WritableStream as OurWritableStream } from "../../core/internal.ts";

/**
 * Never called: its free identifiers only make bundlers keep the names of the other stream globals the patch
 * replaces free (see the module's documentation; a minifier drops it, and renames everything anyway).
 */
export function reservedGlobalNames(): string[] {
  return [
    typeof ReadableStreamDefaultReader,
    typeof ReadableStreamBYOBReader,
    typeof ReadableStreamBYOBRequest,
    typeof ReadableByteStreamController,
    typeof ReadableStreamDefaultController,
    typeof WritableStreamDefaultWriter,
    typeof WritableStreamDefaultController,
    typeof TransformStream,
    typeof TransformStreamDefaultController,
    typeof ByteLengthQueuingStrategy,
    typeof CountQueuingStrategy,
  ];
}

/** The native classes (undefined where the runtime has none), read as free identifiers. */
export const Native: {
  readonly ReadableStream: typeof globalThis.ReadableStream;
  readonly WritableStream: typeof globalThis.WritableStream;
} = {
  ReadableStream: (typeof ReadableStream === "function" ? ReadableStream : undefined)!,
  WritableStream: (typeof WritableStream === "function" ? WritableStream : undefined)!,
};

const ordinaryHasInstance = Function.prototype[Symbol.hasInstance];

/** `value instanceof C` by the prototype chain only, ignoring any `Symbol.hasInstance` of `C`. */
export function isInstance(C: abstract new (...args: never[]) => unknown, value: unknown): boolean {
  return ordinaryHasInstance.call(C, value);
}

/** Whether `value` is one of our (fusestreams) ReadableStreams, by the prototype chain. */
export function isOurReadable(value: unknown): value is OurReadableStream {
  return isInstance(OurReadableStream, value);
}

/** Whether `value` is one of our (fusestreams) WritableStreams, by the prototype chain. */
export function isOurWritable(value: unknown): value is OurWritableStream {
  return isInstance(OurWritableStream, value);
}

const readableLocked = Native.ReadableStream === undefined
  ? undefined
  : Object.getOwnPropertyDescriptor(Native.ReadableStream.prototype, "locked")?.get;
const writableLocked = Native.WritableStream === undefined
  ? undefined
  : Object.getOwnPropertyDescriptor(Native.WritableStream.prototype, "locked")?.get;

/** Whether the native brand check `locked` accepts `value` (it throws for anything but a native stream). */
function brand(locked: (() => unknown) | undefined, value: unknown): boolean {
  if (locked === undefined || typeof value !== "object" || value === null) return false;
  try {
    locked.call(value);
    return true;
  } catch {
    return false;
  }
}

/** Whether `value` is a native ReadableStream (and not ours), by the native brand check. */
export function isNativeReadable(value: unknown): value is globalThis.ReadableStream {
  return !isOurReadable(value) && brand(readableLocked, value);
}

/** Whether `value` is a native WritableStream (and not ours), by the native brand check. */
export function isNativeWritable(value: unknown): value is globalThis.WritableStream {
  return !isOurWritable(value) && brand(writableLocked, value);
}

/** The object on `proto`'s prototype chain (itself included) that has `key` as an own property. */
export function ownerOf(proto: object | undefined, key: PropertyKey): object | undefined {
  let o: object | null | undefined = proto;
  while (o && !Object.hasOwn(o, key)) o = Object.getPrototypeOf(o) as object | null;
  return o ?? undefined;
}

/** Does nothing; marks promises as handled. */
export function noop(): void {}
