/**
 * What a runtime's own code does to a stream from outside its reader, writer or controller, as the adapters
 * need to let it do it to ours (Deno: its internal operations on ours through native stand-ins, its
 * node:stream's `addAbortSignal()` on a TransformStream or a byte stream, its inspector), from the core's
 * private entry point.
 * @module
 */
export {
  abortWritableStream,
  cancelReadableStream,
  closeWritableStream,
  errorReadableStream,
  errorTransformStream,
  isReadableByteStream,
} from "../../core/internal.ts";
