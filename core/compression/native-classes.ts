/**
 * The runtime's own CompressionStream and DecompressionStream: the globals as they were when the core loaded,
 * read on first use (reading them loads the runtime's compression code, a cost a program that never
 * compresses should not pay), and never our own classes (the global patch, or a test runner, may have put
 * ours in their place by then).
 * @module
 */
import type { CodecMode } from "./formats.ts";

/** A native CompressionStream or DecompressionStream constructor. */
export type NativeCodecClass = new (format: string) => {
  readonly readable: ReadableStream<Uint8Array>;
  readonly writable: WritableStream<Uint8Array<ArrayBuffer>>;
};

/** The runtime's own classes (undefined where it has none). */
export interface NativeCompressionClasses {
  readonly CompressionStream: NativeCodecClass | undefined;
  readonly DecompressionStream: NativeCodecClass | undefined;
}

type GlobalName = "CompressionStream" | "DecompressionStream";

/** Where a global was found when this module loaded: its owner (the global object or a prototype) and descriptor. */
interface Found {
  readonly owner: object;
  readonly descriptor: PropertyDescriptor;
}

const getOwnDescriptor = Object.getOwnPropertyDescriptor;
const getPrototypeOf = Object.getPrototypeOf;
const defineProperty = Object.defineProperty;

function find(name: GlobalName): Found | undefined {
  for (let o: object | null = globalThis; o !== null; o = getPrototypeOf(o) as object | null) {
    const descriptor = getOwnDescriptor(o, name);
    if (descriptor !== undefined) return { owner: o, descriptor };
  }
  return undefined;
}

// The globals as they are when the core loads, by descriptor: reading a lazy global (Node.js defines these as
// accessors that load the runtime's compression code) is left to the first use, but what is read then is what
// was there now, even if a patch or a test runner has put something else (ours) in its place meanwhile.
const atLoad: Readonly<Record<GlobalName, Found | undefined>> = {
  CompressionStream: /* @__PURE__ */ find("CompressionStream"),
  DecompressionStream: /* @__PURE__ */ find("DecompressionStream"),
};

let natives: NativeCompressionClasses | undefined;
const ours: unknown[] = [];
const accepted: Record<string, boolean | undefined> = { __proto__: null } as unknown as Record<
  string,
  boolean | undefined
>;

/** Registers one of our classes, so that it is never taken for the runtime's own. */
export function registerOwnCodecClass(ctor: abstract new (...args: never[]) => unknown): void {
  ours.push(ctor);
}

function nativeGlobal(name: GlobalName): NativeCodecClass | undefined {
  const found = atLoad[name];
  if (found === undefined) return undefined;
  const { owner, descriptor } = found;
  let value: unknown = descriptor.value;
  if (descriptor.get !== undefined) {
    // A lazy accessor: its getter gives the runtime's class (and may redefine the global as a plain value, as
    // reading it would). What has replaced it since is put back.
    const now = getOwnDescriptor(owner, name);
    value = descriptor.get.call(globalThis);
    if (now !== undefined && now.get !== descriptor.get) {
      try {
        defineProperty(owner, name, now);
      } catch {
        // not configurable: left as the getter made it
      }
    }
  }
  if (typeof value !== "function" || ours.indexOf(value) !== -1) return undefined;
  return value as NativeCodecClass;
}

/**
 * The runtime's own classes, read the first time this is called (the global patch calls it before it puts
 * ours in their place, so that a lazy global is read while it is still the runtime's).
 */
export function nativeCompressionClasses(): NativeCompressionClasses {
  return natives ??= {
    CompressionStream: nativeGlobal("CompressionStream"),
    DecompressionStream: nativeGlobal("DecompressionStream"),
  };
}

/** The runtime's own class for `mode`. */
export function nativeCodecClass(mode: CodecMode): NativeCodecClass | undefined {
  const classes = nativeCompressionClasses();
  return mode === "compress" ? classes.CompressionStream : classes.DecompressionStream;
}

/** Whether the runtime's own class for `mode` accepts `format` (tried once per format and mode). */
export function nativeAcceptsFormat(format: string, mode: CodecMode): boolean {
  const key = `${mode} ${format}`;
  let result = accepted[key];
  if (result === undefined) {
    const Native = nativeCodecClass(mode);
    result = false;
    if (Native !== undefined) {
      try {
        const probe = new Native(format);
        result = true;
        probe.writable.abort().catch(() => {});
      } catch {
        // not a format of this runtime
      }
    }
    accepted[key] = result;
  }
  return result;
}
