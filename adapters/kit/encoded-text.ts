/**
 * The core's FP-ENCODE-INTO (`core/codecs/encoded-text.ts`): a TextEncoderStream's readable side read whole by
 * an adapter's body consumer, its bytes made with no chunk per string. Adapters reach the core's internals only
 * through the kit.
 * @module
 */
export { collectEncodedText, takeEncodedText, type TakenEncodedText } from "../../core/internal.ts";
