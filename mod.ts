/**
 * fusestreams — BOOTSTRAP PLACEHOLDER: re-exports the runtime's native classes until core/ lands.
 * @module
 */
export const ReadableStream: typeof globalThis.ReadableStream = globalThis.ReadableStream;
export const WritableStream: typeof globalThis.WritableStream = globalThis.WritableStream;
export const TransformStream: typeof globalThis.TransformStream = globalThis.TransformStream;
export const ByteLengthQueuingStrategy: typeof globalThis.ByteLengthQueuingStrategy = globalThis.ByteLengthQueuingStrategy;
export const CountQueuingStrategy: typeof globalThis.CountQueuingStrategy = globalThis.CountQueuingStrategy;
export const ReadableStreamDefaultReader: typeof globalThis.ReadableStreamDefaultReader = globalThis.ReadableStreamDefaultReader;
export const ReadableStreamBYOBReader: typeof globalThis.ReadableStreamBYOBReader = globalThis.ReadableStreamBYOBReader;
export const ReadableStreamDefaultController: typeof globalThis.ReadableStreamDefaultController = globalThis.ReadableStreamDefaultController;
export const ReadableByteStreamController: typeof globalThis.ReadableByteStreamController = globalThis.ReadableByteStreamController;
export const ReadableStreamBYOBRequest: typeof globalThis.ReadableStreamBYOBRequest = globalThis.ReadableStreamBYOBRequest;
export const WritableStreamDefaultWriter: typeof globalThis.WritableStreamDefaultWriter = globalThis.WritableStreamDefaultWriter;
export const WritableStreamDefaultController: typeof globalThis.WritableStreamDefaultController = globalThis.WritableStreamDefaultController;
export const TransformStreamDefaultController: typeof globalThis.TransformStreamDefaultController = globalThis.TransformStreamDefaultController;
