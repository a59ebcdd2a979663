/**
 * The runtime's own stream classes, captured when this module is evaluated. The worker imports it first,
 * so the `native` implementation is what the runtime shipped, whatever a later import patches.
 * @module
 */
import type { Shared, WebImpl } from "./scenarios/web.ts";
import type { NativeCodecs } from "./scenarios/text-codecs.ts";

/** The runtime's ReadableStream / WritableStream / TransformStream. */
export const NATIVE: WebImpl = {
  ReadableStream: globalThis.ReadableStream,
  WritableStream: globalThis.WritableStream,
  TransformStream: globalThis.TransformStream,
  CompressionStream: globalThis.CompressionStream,
  DecompressionStream: globalThis.DecompressionStream,
  TextEncoderStream: globalThis.TextEncoderStream,
};

/** Native classes every implementation uses unchanged (the gzip stage of the mixed chain). */
export const SHARED: Shared = {
  CompressionStream: globalThis.CompressionStream,
  DecompressionStream: globalThis.DecompressionStream,
};

/** The runtime's text codecs (and its ReadableStream), for the text codec scenarios (group 14). */
export const CODECS: NativeCodecs = {
  ReadableStream: globalThis.ReadableStream,
  TextEncoderStream: globalThis.TextEncoderStream,
  TextDecoderStream: globalThis.TextDecoderStream,
};
