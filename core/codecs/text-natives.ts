/**
 * The runtime's `TextEncoder` and `TextDecoder` (web-standard globals), captured once at module load as
 * `shared/primordials.ts` captures the built-ins: what the text codecs call does not change when a script later
 * replaces the globals or their prototype methods.
 * @module
 */
import { NativeUint8Array, ObjectGetOwnPropertyDescriptor, ReflectApply } from "../shared/primordials.ts";
import { encodeShort } from "./short-encode-hook.ts";

const NativeTextEncoder: typeof TextEncoder = globalThis.TextEncoder;
const NativeTextDecoder: typeof TextDecoder = globalThis.TextDecoder;
const encodeMethod: TextEncoder["encode"] = NativeTextEncoder.prototype.encode;
const encodeIntoMethod: TextEncoder["encodeInto"] = NativeTextEncoder.prototype.encodeInto;
const decodeMethod: TextDecoder["decode"] = NativeTextDecoder.prototype.decode;
const encodingGetter: (() => string) | undefined = ObjectGetOwnPropertyDescriptor(
  NativeTextDecoder.prototype,
  "encoding",
)?.get;

let encoder: TextEncoder | undefined;

/**
 * UTF-8 encode (Encoding §9.1.1 `encode()`): `input`'s code units as UTF-8 in a new `Uint8Array` over an
 * ArrayBuffer of its own, a lone surrogate as U+FFFD (the USVString conversion). A string up to the adapter's
 * limit is encoded in JavaScript (FP-ENCODE-SHORT), any other by the runtime's encoder.
 */
export function utf8Encode(input: string): Uint8Array<ArrayBuffer> {
  const short = encodeShort(input);
  if (short !== undefined) return short;
  return ReflectApply(encodeMethod, encoder ??= new NativeTextEncoder(), [input]) as Uint8Array<ArrayBuffer>;
}

/**
 * `TextEncoder.encodeInto(input, destination)`: `input`'s UTF-8 written at the start of `destination` (which must
 * hold 3 bytes per code unit for all of it to fit); returns the number of bytes written.
 */
export function utf8EncodeInto(input: string, destination: Uint8Array): number {
  return (ReflectApply(encodeIntoMethod, encoder ??= new NativeTextEncoder(), [input, destination]) as {
    written: number;
  }).written;
}

/** The runtime's decoder for `label` (a string): its RangeError when the runtime does not support the label. */
export function newTextDecoder(label: string, fatal: boolean, ignoreBOM: boolean): TextDecoder {
  return new NativeTextDecoder(label, { fatal, ignoreBOM });
}

/** A decoder's encoding name (lowercased), read with the getter captured at load. */
export function textDecoderEncoding(decoder: TextDecoder): string {
  return encodingGetter === undefined ? decoder.encoding : ReflectApply(encodingGetter, decoder, []) as string;
}

const STREAM: TextDecodeOptions = { stream: true };
const END: TextDecodeOptions = { stream: false };

/** `decoder.decode(input, { stream: true })`: the characters `input` completes; an incomplete one is kept. */
export function decodeStream(decoder: TextDecoder, input: AllowSharedBufferSource): string {
  return ReflectApply(decodeMethod, decoder, [input, STREAM]) as string;
}

/**
 * `decoder.decode(input)` (`input` may be undefined): the rest of the stream, with an incomplete character at
 * the end an error (U+FFFD, or the runtime's TypeError when the decoder is fatal); the decoder starts over.
 */
export function decodeEnd(decoder: TextDecoder, input: AllowSharedBufferSource | undefined): string {
  return ReflectApply(decodeMethod, decoder, [input, END]) as string;
}

const Uint8ArrayPrototype = Uint8Array.prototype;
const subarrayMethod = Uint8ArrayPrototype.subarray;
const sliceMethod = Uint8ArrayPrototype.slice;
const setMethod = Uint8ArrayPrototype.set;
const lengthGetter = ObjectGetOwnPropertyDescriptor(Object.getPrototypeOf(Uint8ArrayPrototype), "length")!.get!;

/** `bytes.length`, read with the intrinsic getter. */
export function bytesLength(bytes: Uint8Array): number {
  return ReflectApply(lengthGetter, bytes, []) as number;
}

/** `bytes.subarray(start, end)` with the intrinsic method: a view of the same bytes. */
export function bytesSubarray(bytes: Uint8Array, start: number, end: number): Uint8Array {
  return ReflectApply(subarrayMethod, bytes, [start, end]) as Uint8Array;
}

/** `bytes.slice(start)` with the intrinsic method: a copy. */
export function bytesSliceFrom(bytes: Uint8Array, start: number): Uint8Array {
  return ReflectApply(sliceMethod, bytes, [start]) as Uint8Array;
}

/** The bytes of `a` followed by those of `b`, in a new Uint8Array. */
export function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const aLength = bytesLength(a);
  const out = new NativeUint8Array(aLength + bytesLength(b));
  ReflectApply(setMethod, out, [a, 0]);
  ReflectApply(setMethod, out, [b, aLength]);
  return out;
}
