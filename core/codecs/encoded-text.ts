/**
 * FP-ENCODE-INTO: the bytes of a TextEncoderStream's readable side read whole by one of our consumers, made
 * without a chunk per string: the encoder hands each string to {@link collectEncodedText}'s buffer, which
 * `TextEncoder.encodeInto()` fills in place (core/README.md has the row and its measurement).
 * @module
 */
import { ByteBuilder } from "../shared/byte-builder.ts";
import { readTakenOutput, type TakenOutput } from "../shared/taken-output.ts";
import { takeEncoderText } from "./text-encoder-stream.ts";
import { utf8EncodeInto } from "./text-natives.ts";

/** A TextEncoderStream's readable side taken by {@link takeEncodedText}. */
export type TakenEncodedText = TakenOutput;

/**
 * When `stream` is the readable side of one of our TextEncoderStreams that nothing has read or locked and that
 * holds no chunk: locks it (for good, as a body consumer leaves a body, unless released) and collects all the
 * bytes its encoder makes from then on, in one Uint8Array over an ArrayBuffer of exactly their length.
 * Undefined for any other stream (nothing is changed then).
 */
export function takeEncodedText(stream: unknown): TakenEncodedText | undefined {
  const builder = new ByteBuilder();
  // Room for 3 bytes per code unit: a lone surrogate becomes U+FFFD (3 bytes), as `encode()` makes it.
  const taken = takeEncoderText(stream, (input) => {
    builder.advance(utf8EncodeInto(input, builder.room(input.length * 3)));
  });
  return taken ? readTakenOutput(stream, builder, "TextEncoderStream") : undefined;
}

/** {@link takeEncodedText}'s bytes: a promise of them for such a stream, else undefined. */
export function collectEncodedText(stream: unknown): Promise<Uint8Array<ArrayBuffer>> | undefined {
  return takeEncodedText(stream)?.bytes;
}
