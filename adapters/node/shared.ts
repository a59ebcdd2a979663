/**
 * Internal helpers shared by the Node.js adapter modules (not exported from the adapter).
 * @module
 */

/** Does nothing; used to mark promises as handled. */
export function noop(): void {}

/** Size of a chunk for byte accounting: bytes of a view or buffer, UTF-16 units of a string, else 1. */
export function chunkSize(chunk: unknown): number {
  if (typeof chunk === "string") return chunk.length;
  if (ArrayBuffer.isView(chunk)) return chunk.byteLength;
  if (chunk instanceof ArrayBuffer) return chunk.byteLength;
  return 1;
}

/** The error used when a Node.js stream closes before it ended or finished, as Node.js reports it. */
export function prematureClose(): Error {
  const err = new Error("Premature close");
  (err as Error & { code?: string }).code = "ERR_STREAM_PREMATURE_CLOSE";
  return err;
}

/** A promise and its settle functions, created on demand. */
export interface Deferred<T = void> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (reason: unknown) => void;
}

/** Creates a promise together with its resolve and reject functions. */
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
