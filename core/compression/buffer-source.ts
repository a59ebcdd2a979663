/**
 * The chunk check of "compress and enqueue a chunk" / "decompress and enqueue a chunk" (Compression §4, §5):
 * a chunk must be a BufferSource (an ArrayBuffer, or a typed array or DataView over one; not a
 * SharedArrayBuffer: the IDL type has no [AllowShared]).
 * @module
 */
import {
  isArrayBuffer,
  IsDetachedBuffer,
  uint8ArrayBuffer,
  viewBuffer,
  viewByteLength,
  viewByteOffset,
} from "../shared/buffers.ts";
import { describeValue } from "../shared/describe.ts";
import { NativeUint8Array } from "../shared/primordials.ts";
import { typeError } from "../shared/webidl.ts";
import { isOwnBytes } from "../shared/own-bytes.ts";

const ArrayBufferIsView = ArrayBuffer.isView;
const EMPTY = new NativeUint8Array(0);

/**
 * The bytes of `chunk` as a Uint8Array (the chunk itself when it is one, else a view of the same bytes; empty
 * for a detached buffer, as "get a copy of the bytes held by the buffer source" gives), or the TypeError
 * `interfaceName` throws for anything that is not a BufferSource.
 */
export function bufferSourceBytes(chunk: unknown, interfaceName: string): Uint8Array {
  // OWN-BYTES: our encoder's chunk is a Uint8Array over an ArrayBuffer of its own, never shared.
  if (isOwnBytes(chunk)) return chunk;
  const buffer = uint8ArrayBuffer(chunk);
  if (buffer !== undefined && isArrayBuffer(buffer)) return chunk as Uint8Array;
  if (ArrayBufferIsView(chunk)) {
    const view = chunk as ArrayBufferView;
    const viewed = viewBuffer(view);
    if (!isArrayBuffer(viewed)) throw notBufferSource(chunk, interfaceName, " (it is backed by a SharedArrayBuffer)");
    if (IsDetachedBuffer(viewed)) return EMPTY;
    return new NativeUint8Array(viewed, viewByteOffset(view), viewByteLength(view));
  }
  if (isArrayBuffer(chunk)) return IsDetachedBuffer(chunk) ? EMPTY : new NativeUint8Array(chunk);
  throw notBufferSource(chunk, interfaceName, "");
}

function notBufferSource(chunk: unknown, interfaceName: string, why: string): TypeError {
  return typeError(
    `${interfaceName}: a chunk must be an ArrayBuffer or an ArrayBuffer view, not ${describeValue(chunk)}${why}`,
  );
}
