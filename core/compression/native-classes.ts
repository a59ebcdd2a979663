/**
 * The runtime's own CompressionStream and DecompressionStream: read from the globals on first use (reading
 * them loads the runtime's compression code, a cost a program that never compresses should not pay), and
 * never our own classes (the global patch installs ours; it captures the natives first, through
 * {@link nativeCompressionClasses}).
 * @module
 */
import type { CodecMode } from "./formats.ts";

/** A native CompressionStream or DecompressionStream constructor. */
export type NativeCodecClass = new (format: string) => {
  readonly readable: ReadableStream<Uint8Array>;
  readonly writable: WritableStream<BufferSource>;
};

/** The runtime's own classes (undefined where it has none). */
export interface NativeCompressionClasses {
  readonly CompressionStream: NativeCodecClass | undefined;
  readonly DecompressionStream: NativeCodecClass | undefined;
}

let natives: NativeCompressionClasses | undefined;
const ours: Function[] = [];
const accepted: Record<string, boolean | undefined> = { __proto__: null } as unknown as Record<
  string,
  boolean | undefined
>;

/** Registers one of our classes, so that it is never taken for the runtime's own. */
export function registerOwnCodecClass(ctor: Function): void {
  ours.push(ctor);
}

function nativeGlobal(name: "CompressionStream" | "DecompressionStream"): NativeCodecClass | undefined {
  const value = (globalThis as Record<string, unknown>)[name];
  if (typeof value !== "function" || ours.indexOf(value) !== -1) return undefined;
  return value as NativeCodecClass;
}

/**
 * The runtime's own classes, read from the globals the first time this is called. The global patch calls it
 * before it puts ours in their place.
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
