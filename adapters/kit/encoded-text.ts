/**
 * The core's FP-ENCODE-INTO (`core/codecs/encoded-text.ts`) and FP-CODEC-INTO (`core/compression/codec-output.ts`):
 * a TextEncoderStream's or compression stream's readable side read whole by an adapter's body consumer, its bytes
 * made with no chunk per string or codec call. Adapters reach the core's internals only through the kit.
 * @module
 */
export { collectEncodedText, takeEncodedText, type TakenEncodedText } from "../../core/internal.ts";
export { collectCodecBytes, takeCodecBytes } from "../../core/internal.ts";
