/**
 * The runtime's `TextEncoder` and `TextDecoder` (web-standard globals), captured once at module load as
 * `shared/primordials.ts` captures the built-ins: what the text codecs call does not change when a script later
 * replaces the globals or their prototype methods. Everything here is made on first use, so a bundle that does
 * not use the codecs does not keep it (the module has no load-time work but reading the globals).
 * @module
 */
import { JAVASCRIPTCORE, ObjectGetOwnPropertyDescriptor, ReflectApply } from "../shared/primordials.ts";

const NativeTextEncoder: typeof TextEncoder = globalThis.TextEncoder;
const NativeTextDecoder: typeof TextDecoder = globalThis.TextDecoder;
const encodeMethod: TextEncoder["encode"] = NativeTextEncoder.prototype.encode;
const decodeMethod: TextDecoder["decode"] = NativeTextDecoder.prototype.decode;
const encodingGetter: (() => string) | undefined = ObjectGetOwnPropertyDescriptor(
  NativeTextDecoder.prototype,
  "encoding",
)?.get;

const FunctionPrototypeCall = Function.prototype.call;
const FunctionPrototypeBind = Function.prototype.bind;

/**
 * `fn` called with `this` first and up to two arguments, in the call form each engine runs fastest (see
 * `uncurryThis` in primordials.ts: a bound `Function.prototype.call` on V8, ReflectApply with the list written
 * at the call on JavaScriptCore). The native methods' `length` (0 in Node.js: defaulted parameters) does not
 * say how many arguments they take, so the count is fixed here.
 */
function uncurry2<T, A, B, R>(fn: (this: T, a: A, b: B) => R): (self: T, a: A, b: B) => R {
  if (!JAVASCRIPTCORE) return ReflectApply(FunctionPrototypeBind, FunctionPrototypeCall, [fn]) as never;
  return (self: T, a: A, b: B): R => ReflectApply(fn, self, [a, b]) as R;
}

function uncurry1<T, A, R>(fn: (this: T, a: A) => R): (self: T, a: A) => R {
  if (!JAVASCRIPTCORE) return ReflectApply(FunctionPrototypeBind, FunctionPrototypeCall, [fn]) as never;
  return (self: T, a: A): R => ReflectApply(fn, self, [a]) as R;
}

let encoder: TextEncoder | undefined;
let encodeCall: ((self: TextEncoder, input: string) => Uint8Array<ArrayBuffer>) | undefined;

/**
 * UTF-8 encode (Encoding §9.1.1 `encode()`): `input`'s code units as UTF-8 in a new `Uint8Array` over an
 * ArrayBuffer of its own, a lone surrogate as U+FFFD (the USVString conversion).
 */
export function utf8Encode(input: string): Uint8Array<ArrayBuffer> {
  if (encodeCall === undefined) {
    encoder = new NativeTextEncoder();
    encodeCall = uncurry1(encodeMethod as (this: TextEncoder, input: string) => Uint8Array<ArrayBuffer>);
  }
  return encodeCall(encoder!, input);
}

/** The runtime's decoder for `label` (a string): its RangeError when the runtime does not support the label. */
export function newTextDecoder(label: string, fatal: boolean, ignoreBOM: boolean): TextDecoder {
  return new NativeTextDecoder(label, { fatal, ignoreBOM });
}

/** A decoder's encoding name (lowercased), read with the getter captured at load. */
export function textDecoderEncoding(decoder: TextDecoder): string {
  return encodingGetter === undefined ? decoder.encoding : ReflectApply(encodingGetter, decoder, []) as string;
}

type Decode = (self: TextDecoder, input: AllowSharedBufferSource | undefined, options: TextDecodeOptions) => string;
let decodeCall: Decode | undefined;
const STREAM: TextDecodeOptions = { stream: true };
const END: TextDecodeOptions = { stream: false };

/** `decoder.decode(input, { stream: true })`: the characters `input` completes; an incomplete one is kept. */
export function decodeStream(decoder: TextDecoder, input: AllowSharedBufferSource): string {
  return (decodeCall ??= uncurry2(decodeMethod as never) as Decode)(decoder, input, STREAM);
}

/**
 * `decoder.decode(input)` (`input` may be undefined): the rest of the stream, with an incomplete character at
 * the end an error (U+FFFD, or the runtime's TypeError when the decoder is fatal); the decoder starts over.
 */
export function decodeEnd(decoder: TextDecoder, input: AllowSharedBufferSource | undefined): string {
  return (decodeCall ??= uncurry2(decodeMethod as never) as Decode)(decoder, input, END);
}
