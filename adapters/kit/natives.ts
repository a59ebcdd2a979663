/**
 * The runtime's own (native) stream classes and brand checks, captured when this module loads, before any
 * patch replaces the globals. Only web-standard globals are read.
 * @module
 */
import { ReadableStream, WritableStream } from "../../core/internal.ts";

/** The native classes (undefined where the runtime has none). */
export const Native: {
  readonly ReadableStream: typeof globalThis.ReadableStream;
  readonly WritableStream: typeof globalThis.WritableStream;
} = {
  ReadableStream: globalThis.ReadableStream,
  WritableStream: globalThis.WritableStream,
};

const ordinaryHasInstance = Function.prototype[Symbol.hasInstance];

/** `value instanceof C` by the prototype chain only, ignoring any `Symbol.hasInstance` of `C`. */
export function isInstance(C: abstract new (...args: never[]) => unknown, value: unknown): boolean {
  return ordinaryHasInstance.call(C, value);
}

/** Whether `value` is one of our (fusestreams) ReadableStreams, by the prototype chain. */
export function isOurReadable(value: unknown): value is ReadableStream {
  return isInstance(ReadableStream, value);
}

/** Whether `value` is one of our (fusestreams) WritableStreams, by the prototype chain. */
export function isOurWritable(value: unknown): value is WritableStream {
  return isInstance(WritableStream, value);
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
  while (o && !Object.getOwnPropertyDescriptor(o, key)) o = Object.getPrototypeOf(o) as object | null;
  return o ?? undefined;
}

/** Does nothing; marks promises as handled. */
export function noop(): void {}
