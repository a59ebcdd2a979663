/**
 * The compression workloads, written against whatever classes they are given: the pipeline of issue 25
 * (the `html-gzip` row of the main benchmark, bench/scenarios/web.ts) and the codec rows (bench/codecs.ts).
 * Every run checks its output: the compressed stream decompresses (node:zlib where there is one, else
 * the runtime's own DecompressionStream) to the input's bytes, and a decompressed stream has the input's
 * length and checksum.
 * @module
 */

import type { ReadableStreamConstructor } from "../../mod.ts";

/** The classes a workload runs on (an implementation's, or the runtime's own). */
export interface CompressionClasses {
  /** (typed as ours: lib.dom's constructor type has no `from`) */
  ReadableStream: ReadableStreamConstructor;
  TransformStream: typeof TransformStream;
  CompressionStream: typeof CompressionStream;
  DecompressionStream: typeof DecompressionStream;
  /** When undefined, the encoder is a TransformStream calling TextEncoder.encode() (said in the row's note). */
  TextEncoderStream?: typeof TextEncoderStream;
}

/** The 4,000 HTML strings of the pipeline (about 330 KB of UTF-8). */
export const HTML_STRINGS: readonly string[] = (() => {
  const out: string[] = [];
  const words = ["stream", "fused", "chunk", "zlib", "gzip", "patch", "edge", "node", "deno", "bun", "écrit"];
  for (let i = 0; i < 4000; i++) {
    const text = words.slice(i % 5, (i % 5) + 3 + (i % 7)).join(" ");
    out.push(`<li class="item item-${i % 13}"><a href="/items/${i}">Item ${i}</a> <span>${text}</span></li>\n`);
  }
  return out;
})();

const encoder = new TextEncoder();
const HTML_BYTES = encoder.encode(HTML_STRINGS.join(""));

/** Text-like bytes (compressible), `n` of them. */
export function textBytes(n: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i += HTML_BYTES.length) out.set(HTML_BYTES.subarray(0, Math.min(HTML_BYTES.length, n - i)), i);
  // vary it, so that repeats are not whole pages apart
  let x = 0x9e3779b9;
  for (let i = 0; i < n; i += 64) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = 97 + ((x >>> 0) % 26);
  }
  return out;
}

/** `data` cut into `size`-byte chunks (views). */
export function chunksOf(data: Uint8Array<ArrayBuffer>, size: number): Uint8Array<ArrayBuffer>[] {
  const out: Uint8Array<ArrayBuffer>[] = [];
  for (let i = 0; i < data.length; i += size) out.push(data.subarray(i, i + size));
  return out;
}

/** Order-sensitive checksum and length of a byte sequence given in chunks (how it is cut does not matter). */
export function checksum(chunks: Iterable<Uint8Array>): string {
  let h = 0;
  let n = 0;
  for (const c of chunks) {
    for (let i = 0; i < c.length; i++) h = (h * 31 + c[i]!) | 0;
    n += c.length;
  }
  return `${n}:${h >>> 0}`;
}

const TEXT_EXPECTED = checksum([HTML_BYTES]);

/** An identity transform with a `transform()` (the pipeline's three stages). */
function stage<T>(TS: typeof TransformStream): TransformStream<T, T> {
  return new TS<T, T>({
    transform(chunk, controller) {
      controller.enqueue(chunk);
    },
  });
}

function textEncoder(c: CompressionClasses): TransformStream<string, Uint8Array> {
  if (c.TextEncoderStream !== undefined) return new c.TextEncoderStream() as TransformStream<string, Uint8Array>;
  return new c.TransformStream<string, Uint8Array>({
    transform(chunk, controller) {
      controller.enqueue(encoder.encode(chunk));
    },
  });
}

/** Decompresses `bytes` (gzip) to check a run's output. */
export type Gunzip = (bytes: Uint8Array) => Uint8Array | Promise<Uint8Array>;

/** The strings through the pipeline's 3 TransformStreams and a TextEncoderStream (both html rows' start). */
function htmlEncoded(c: CompressionClasses): ReadableStream<Uint8Array> {
  let s = c.ReadableStream.from(HTML_STRINGS);
  for (let i = 0; i < 3; i++) s = s.pipeThrough(stage<string>(c.TransformStream));
  return s.pipeThrough(textEncoder(c));
}

/**
 * Issue 25's pipeline: 4,000 HTML strings -> 3 TransformStreams -> TextEncoderStream ->
 * CompressionStream("gzip"), drained by `new Response(stream).arrayBuffer()`. Returns the gzip bytes.
 */
export async function htmlGzip(c: CompressionClasses): Promise<Uint8Array<ArrayBuffer>> {
  const gz = htmlEncoded(c).pipeThrough(
    new c.CompressionStream("gzip") as unknown as ReadableWritablePair<Uint8Array, Uint8Array>,
  );
  return new Uint8Array(await new Response(gz as unknown as BodyInit).arrayBuffer());
}

/**
 * `pipe-html` (bench/real): the same strings through the same transforms and TextEncoderStream, drained by
 * `new Response(stream).arrayBuffer()` with no compression. Returns the bytes.
 */
export async function htmlText(c: CompressionClasses): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await new Response(htmlEncoded(c) as unknown as BodyInit).arrayBuffer());
}

/** Checks {@link htmlText}'s output; throws when it is not the strings' UTF-8. */
export function checkHtmlText(bytes: Uint8Array): void {
  const got = checksum([bytes]);
  if (got !== TEXT_EXPECTED) throw new Error(`html-text: ${got}, expected ${TEXT_EXPECTED}`);
}

/** Checks a pipeline's output; throws when it does not decompress to the strings. */
export async function checkHtmlGzip(bytes: Uint8Array, gunzip: Gunzip): Promise<void> {
  const got = checksum([await gunzip(bytes)]);
  if (got !== TEXT_EXPECTED) throw new Error(`html-gzip: decompressed to ${got}, expected ${TEXT_EXPECTED}`);
}

/** Compresses `chunks` with `format`, read by a reader loop; the output's chunks. */
export async function compressChunks(
  c: CompressionClasses,
  format: string,
  chunks: readonly Uint8Array<ArrayBuffer>[],
): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  const reader = c.ReadableStream.from(chunks)
    .pipeThrough(
      new c.CompressionStream(format as CompressionFormat) as unknown as ReadableWritablePair<Uint8Array, Uint8Array>,
    )
    .getReader();
  for (;;) {
    const r = await reader.read();
    if (r.done) return out;
    out.push(r.value);
  }
}

/** Decompresses `chunks` with `format`, read by a reader loop; the output's checksum. */
export async function decompressChunks(
  c: CompressionClasses,
  format: string,
  chunks: readonly Uint8Array<ArrayBuffer>[],
): Promise<string> {
  const out: Uint8Array[] = [];
  const reader = c.ReadableStream.from(chunks)
    .pipeThrough(
      new c.DecompressionStream(format as CompressionFormat) as unknown as ReadableWritablePair<Uint8Array, Uint8Array>,
    )
    .getReader();
  for (;;) {
    const r = await reader.read();
    if (r.done) return checksum(out);
    out.push(r.value);
  }
}
