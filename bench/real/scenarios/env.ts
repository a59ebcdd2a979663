/**
 * What a row's scenario gets from the worker: the runtime's own classes as they were before any patch, and
 * the shape of a built in-process row.
 * @module
 */

/** The runtime's classes, captured by the worker before the patch (for the rows' native bodies). */
export interface Natives {
  ReadableStream: typeof ReadableStream;
}

/** One in-process row, built once per worker process. */
export interface InprocRow {
  /** one iteration, as timed: throws when the output is wrong (size and checksum, or gzip trailer) */
  run(): Promise<void>;
  /** one iteration with the full check of every byte (run before and after the timing, untimed) */
  verify(): Promise<void>;
}

/**
 * A native body of `chunks` (one chunk per pull), as `fetch()` or a request hands it over: a native stream given
 * to the global `Response` (with the patch on, the adapter's `Response`), its `body` taken.
 */
export function nativeBody(natives: Natives, chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  const source = new natives.ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!);
      else controller.close();
    },
  });
  return new Response(source).body!;
}

/** All bytes of a body, as the rows drain them. */
export async function drain(body: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(body).arrayBuffer());
}

/** The global TextDecoderStream, typed for a pipe of Uint8Array chunks. */
export function textDecoder(): TransformStream<Uint8Array, string> {
  return new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>;
}

/** The global CompressionStream("gzip"), typed for a pipe of Uint8Array chunks. */
export function gzip(): TransformStream<Uint8Array, Uint8Array> {
  return new CompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>;
}
