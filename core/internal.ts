/**
 * The core's private entry point: the whole public API (`mod.ts`) plus what only the runtime kit
 * (`adapters/kit/`) needs from the core. It is not part of the package's exports and no user should import
 * it; the kit imports the core through this module alone, and the npm build makes it the one copy of the
 * core in a process (`dist/core/internal.js`; `dist/mod.js` re-exports its public names).
 * @module
 */
export * from "./mod.ts";
// Batched reading of any ReadableStream, for the body bridges and `toNodeReadable`.
export {
  acquireBatchReader,
  type Batch,
  BATCH_DONE,
  type BatchAnswer,
  type BatchReader,
  batchReaderOf,
  type DefaultReaderLike,
  drainQueuedOf,
  isBatchPromise,
  isTransformReadable,
  type ReadableStreamLike,
} from "./batching/batch-reader.ts";
// The steps of a read request (the standard's §4.3.2), for a bridge's own request (`BatchReader.readPush`).
export type { ReadRequest } from "./readable/stream-internal.ts";
// Reading a whole byte stream (the kit's body consumers).
export { collectBytes, type CollectedBytes } from "./consumers/collect.ts";
// Fetch's "clone a body" for a runtime Response that keeps its stream object (the Node.js patch's clone()).
export { ReadableStreamTeeInPlace } from "./readable/readable-stream.ts";
// How a bad value is named in error messages.
export { describeValue } from "./shared/describe.ts";
// The codec behind CompressionStream and DecompressionStream: its contract, the hook by which an adapter
// installs its runtime's fastest codec, and the runtime's own classes (the patch captures them before it puts
// ours in their place).
export {
  type CodecSink,
  type CompressionCodec,
  type CompressionCodecFactory,
  setCompressionCodecFactory,
} from "./compression/codec.ts";
export type { CodecMode } from "./compression/formats.ts";
export { setCodecOutputQueue } from "./compression/output-queue.ts";
export { nativeAcceptsFormat, nativeCodecClass, nativeCompressionClasses } from "./compression/native-classes.ts";
export { type CodecPairSlot, unopenedCodecPair } from "./compression/codec-pair.ts";
// The default codec (the runtime's own streams in batches), for a factory that hands some streams to it.
export { createNativeCodec, setNativeCodecHandback } from "./compression/native-codec.ts";
// TextEncoderStream's encoder for short strings in JavaScript and the limit up to which it is used
// (FP-ENCODE-SHORT), installed by an adapter from measurement.
export { setShortEncoder } from "./codecs/short-encode-hook.ts";
export { utf8EncodeShort } from "./codecs/utf8-encode.ts";
// FP-ENCODE-LEND: a TextEncoderStream piped into our codec lends its UTF-8 from a pool, on an adapter's word.
export { setEncodeLending } from "./codecs/encode-lend.ts";
// OWN-BYTES's slot (its unit test asks it).
export { isOwnBytes } from "./shared/own-bytes.ts";
// FP-ENCODE-INTO: a TextEncoderStream's bytes read whole by a body consumer, with no chunk per string.
export { collectEncodedText, takeEncodedText, type TakenEncodedText } from "./codecs/encoded-text.ts";
// FP-CODEC-INTO: a compression stream's bytes read whole by a body consumer, with no chunk per codec call.
export { collectCodecBytes, takeCodecBytes, takeCodecNativeOutput } from "./compression/codec-output.ts";
// A WritableStream's end, and erroring a stream as its controller would (node:stream's finished() and
// addAbortSignal() on our streams).
export { isReadableStreamClosingWithQueue, whenWritableStreamSettles } from "./stream-state.ts";
export { errorReadableStream, type ErrorReadableStreamOptions, errorWritableStream } from "./stream-error.ts";
// A runtime's own code acting on a stream from outside its reader or writer (Deno's stand-ins).
export {
  abortWritableStream,
  cancelReadableStream,
  closeWritableStream,
  errorTransformStream,
  isReadableByteStream,
} from "./stream-control.ts";
// Underlying-source types of a runtime's own (Bun's "direct"), registered by its adapter's patch,
// and readers a runtime makes for its own streams given to our reader classes.
export {
  type ForeignReaderMaker,
  foreignReaders,
  type ReadableSourceTypeMaker,
  readableSourceTypes,
} from "./readable/source-types.ts";
// The errors the core raises, as a runtime adapter's patch sees them (Node.js: its error codes); the kit makes its
// own TypeErrors with `typeError` so that the patch sees them too.
export { errorHooks, typeError } from "./shared/webidl.ts";
// ReadableStream.from() of a string, while a patch stands in for a runtime whose own from() takes one.
export { setReadableStreamFromTakesStrings } from "./readable/from.ts";
