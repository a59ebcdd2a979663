/**
 * FP-CODEC-INTO: the bytes of a CompressionStream's or DecompressionStream's readable side read whole by one of
 * our consumers, made without a chunk per codec call: the codec copies its output straight into the consumer's
 * buffer (core/README.md has the row and its measurement).
 * @module
 */
import { ByteBuilder } from "../shared/byte-builder.ts";
import { readTakenOutput, type TakenOutput } from "../shared/taken-output.ts";
import { takeCodecNativeReadable, takeCodecOutput } from "./codec-transform.ts";

/**
 * When `stream` is the readable side of one of our CompressionStreams or DecompressionStreams that nothing has
 * read or locked and that holds no chunk: locks it (for good, as a body consumer leaves a body, unless released)
 * and collects every byte its codec makes from then on, in one Uint8Array over an ArrayBuffer of exactly their
 * length. Undefined for any other stream (nothing is changed then).
 */
export function takeCodecBytes(stream: unknown): TakenOutput | undefined {
  const builder = new ByteBuilder();
  return takeCodecOutput(stream, builder) ? readTakenOutput(stream, builder, "compression stream") : undefined;
}

/** {@link takeCodecBytes}'s bytes: a promise of them for such a stream, else undefined. */
export function collectCodecBytes(stream: unknown): Promise<Uint8Array<ArrayBuffer>> | undefined {
  return takeCodecBytes(stream)?.bytes;
}

/**
 * NATIVE-CODEC-HANDBACK: the runtime's own readable side behind `stream`, when `stream` is the untouched readable side
 * of one of our DecompressionStreams whose codec is the runtime's own stream, none of whose output has been read
 * (the caller then locks `stream` for good); undefined otherwise, and nothing changes. (Exported from here, not
 * from codec-transform.ts, whose declarations name the DOM library's BufferSource.)
 */
export function takeCodecNativeOutput(stream: unknown): globalThis.ReadableStream<Uint8Array> | undefined {
  return takeCodecNativeReadable(stream);
}
