/**
 * The codecs the adapters could have installed behind CompressionStream / DecompressionStream, measured
 * against the one they do install (adapters/kit/zlib-codec.ts, ZLIB-SYNC) by the codec rows (bench/README.md):
 *
 * - `zlib-sync`: the installed codec (node:zlib's handle run synchronously; compression gathers chunks
 *   into 16 KiB before each `writeSync`, ZLIB-COALESCE);
 * - `zlib-sync-each`: the same handle with a `writeSync` per chunk;
 * - `zlib-sync-noflush` (Deno only): `zlib-sync` without the flush after each chunk Deno's adapter asks for (what
 *   keeping the same bytes as Deno's own stream costs);
 * - `zlib-stream`: a node:zlib stream (`createGzip()` & co.), its work done on the thread pool, chunks
 *   written as they come and output taken from its 'data' events;
 * - `native-batched`: the core's default, the runtime's own stream driven in batches (NATIVE-CODEC-BATCH);
 * - `native-each`: the runtime's own stream, one native write per chunk (what a plain wrapper does).
 *
 * Each is a codec factory for `setCompressionCodecFactory()`.
 * @module
 */
import process from "node:process";
import type {
  CodecMode,
  CodecSink,
  CompressionCodec,
  CompressionCodecFactory,
  CompressionFormat,
} from "../../core/internal.ts";
import { nativeCodecClass } from "../../core/compression/native-classes.ts";
import { zlibCodecFactory } from "../../adapters/kit/zlib-codec.ts";

/** The candidates' names, in table order. */
export const CODEC_CANDIDATES = [
  "zlib-sync",
  "zlib-sync-each",
  "zlib-sync-noflush",
  "zlib-stream",
  "native-batched",
  "native-each",
] as const;
export type CodecCandidate = (typeof CODEC_CANDIDATES)[number];

interface NodeZlibStream {
  write(chunk: Uint8Array): boolean;
  end(): void;
  destroy(): void;
  on(event: string, listener: (...args: never[]) => void): void;
  once(event: string, listener: (...args: never[]) => void): void;
}
type NodeZlib = Record<string, (options?: object) => NodeZlibStream>;

function nodeZlib(): NodeZlib {
  return process.getBuiltinModule("node:zlib") as unknown as NodeZlib;
}

const STREAM_MAKERS: Record<string, [string, string]> = {
  gzip: ["createGzip", "createGunzip"],
  deflate: ["createDeflate", "createInflate"],
  "deflate-raw": ["createDeflateRaw", "createInflateRaw"],
  brotli: ["createBrotliCompress", "createBrotliDecompress"],
};

/** zlib-stream: a node:zlib stream; `push()` waits for 'drain' when `write()` says so. */
class ZlibStreamCodec implements CompressionCodec {
  readonly #stream: NodeZlibStream;
  #error: unknown = undefined;
  #ended: Promise<void>;

  constructor(stream: NodeZlibStream, sink: CodecSink) {
    this.#stream = stream;
    stream.on("data", (chunk: Uint8Array) => sink.enqueue(new Uint8Array(chunk)));
    this.#ended = new Promise((resolve, reject) => {
      stream.once("end", () => resolve());
      stream.once("error", (e: unknown) => {
        this.#error = new TypeError(String(e));
        reject(this.#error);
        sink.error(this.#error);
      });
    });
    this.#ended.catch(() => {});
  }

  push(bytes: Uint8Array): Promise<void> | undefined {
    if (this.#error !== undefined) throw this.#error;
    if (this.#stream.write(new Uint8Array(bytes))) return undefined;
    return new Promise((resolve) => this.#stream.once("drain", () => resolve()));
  }

  finish(): Promise<void> {
    this.#stream.end();
    return this.#ended;
  }

  release(): void {
    this.#stream.destroy();
  }
}

/** native-each: the runtime's own stream, one write per chunk. */
class NativeEachCodec implements CompressionCodec {
  readonly #writer: WritableStreamDefaultWriter<BufferSource>;
  readonly #drained: Promise<void>;

  constructor(format: string, mode: CodecMode, sink: CodecSink) {
    const Native = nativeCodecClass(mode)!;
    const native = new Native(format);
    this.#writer = native.writable.getWriter();
    const reader = native.readable.getReader();
    this.#drained = (async () => {
      for (;;) {
        const result = await reader.read();
        if (result.done) return;
        sink.enqueue(result.value);
      }
    })();
    this.#drained.catch((e: unknown) => sink.error(e));
  }

  push(bytes: Uint8Array): Promise<void> {
    return this.#writer.write(new Uint8Array(bytes));
  }

  async finish(): Promise<void> {
    await this.#writer.close();
    await this.#drained;
  }

  release(): void {
    this.#writer.abort().catch(() => {});
  }
}

/** The factory of a candidate (undefined: the core's default, native-batched). */
export function codecCandidate(name: CodecCandidate, flushEachChunk = false): CompressionCodecFactory | undefined {
  const loadZlib = () => process.getBuiltinModule("node:zlib");
  switch (name) {
    case "zlib-sync":
      return zlibCodecFactory(loadZlib, { flushEachChunk });
    case "zlib-sync-each":
      return zlibCodecFactory(loadZlib, { flushEachChunk, coalesce: false });
    case "zlib-sync-noflush":
      return zlibCodecFactory(loadZlib);
    case "zlib-stream":
      return (format: CompressionFormat, mode: CodecMode, sink: CodecSink) => {
        const make = STREAM_MAKERS[format]?.[mode === "compress" ? 0 : 1];
        const create = make === undefined ? undefined : nodeZlib()[make];
        return create === undefined ? undefined : new ZlibStreamCodec(create(), sink);
      };
    case "native-batched":
      return undefined;
    case "native-each":
      return (format: CompressionFormat, mode: CodecMode, sink: CodecSink) => new NativeEachCodec(format, mode, sink);
  }
}
