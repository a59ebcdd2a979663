/**
 * The chunk conversion of "decode and enqueue a chunk" (Encoding §7.3): a chunk written to a TextDecoderStream is
 * converted to an `AllowSharedBufferSource`, an ArrayBuffer, a SharedArrayBuffer, or a typed array or DataView
 * over either; anything else is a TypeError.
 * @module
 */
import {
  isArrayBuffer,
  IsDetachedBuffer,
  isUint8Array,
  viewBuffer,
  viewByteLength,
  viewByteOffset,
} from "../shared/buffers.ts";
import { describeValue } from "../shared/describe.ts";
import { NativeTypeError, NativeUint8Array, ReflectApply } from "../shared/primordials.ts";

const ArrayBufferIsView = ArrayBuffer.isView;
const sharedByteLength: (() => number) | undefined = typeof SharedArrayBuffer === "function"
  ? Object.getOwnPropertyDescriptor(SharedArrayBuffer.prototype, "byteLength")?.get
  : undefined;

function isSharedArrayBuffer(x: unknown): x is SharedArrayBuffer {
  if (sharedByteLength === undefined) return false;
  try {
    ReflectApply(sharedByteLength, x, []);
    return true;
  } catch {
    return false;
  }
}

/**
 * The bytes of `chunk` as a Uint8Array: the chunk itself when it is a Uint8Array (over any buffer), else a view of
 * the same bytes (none for a detached ArrayBuffer, as "get a copy of the bytes held by the buffer source" gives).
 * Throws the TypeError of the conversion for anything that is not an AllowSharedBufferSource. Like the
 * `TextDecoder` and `TextDecoderStream` of Node.js, Deno and Bun, it accepts a resizable ArrayBuffer (and a view
 * over one), which the IDL type, having no `[AllowResizable]`, would reject.
 */
export function allowSharedBufferSourceBytes(chunk: unknown): Uint8Array {
  // FP-DECODE-BRAND: a Uint8Array over any buffer is taken as it is (shared ones too: AllowShared), known by its
  // [[TypedArrayName]]; its `buffer` is not read (JavaScriptCore copies a small typed array out of its heap then).
  if (isUint8Array(chunk)) return chunk;
  if (ArrayBufferIsView(chunk)) {
    const view = chunk as ArrayBufferView;
    const buffer = viewBuffer(view);
    if (isArrayBuffer(buffer) && IsDetachedBuffer(buffer)) return new NativeUint8Array(0);
    return new NativeUint8Array(buffer, viewByteOffset(view), viewByteLength(view));
  }
  if (isArrayBuffer(chunk)) return IsDetachedBuffer(chunk) ? new NativeUint8Array(0) : new NativeUint8Array(chunk);
  if (isSharedArrayBuffer(chunk)) return new NativeUint8Array(chunk);
  throw new NativeTypeError(
    `TextDecoderStream: a chunk must be an ArrayBuffer, a SharedArrayBuffer or a view on one, not ${
      describeValue(chunk)
    }`,
  );
}
