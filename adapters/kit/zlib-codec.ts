/**
 * The codec behind CompressionStream and DecompressionStream on Node.js, Deno and Bun (ZLIB-SYNC): each
 * chunk goes through `node:zlib`'s native handle synchronously (`handle.writeSync`, the call zlib's own
 * `*Sync` functions make), in the transform call that received it, and its output is enqueued before that
 * call returns, as the standard's "compress and enqueue a chunk" does. No thread pool round trip, no
 * node:stream machinery, no promise per chunk: the fastest path measured on all three runtimes
 * (bench/README.md, codec rows).
 *
 * The file imports no runtime module: each adapter passes a loader of its `node:zlib`, called when the first
 * stream is made (loading zlib costs a few milliseconds a program that never compresses should not pay).
 *
 * Decompression ends where the standard says: gzip is parsed here around a raw inflate (header, CRC32 and
 * ISIZE checked), so a second member, trailing zeros or garbage after the first are the TypeError on every
 * runtime (zlib's own gunzip reads on into further members); for deflate, deflate-raw, brotli and zstd the
 * handle stops at the end of the stream and input left over is the TypeError. A stream that ends early is the
 * TypeError too: zlib reports it at the finishing call; where a brotli handle does not (Deno), one more byte
 * tells (ZLIB-END-PROBE); zstd, whose frames may follow each other, is left to the runtime's own stream there.
 * @module
 */
import {
  type CodecMode,
  type CodecSink,
  type CompressionCodec,
  type CompressionCodecFactory,
  type CompressionFormat,
  setCodecOutputQueue,
  setCompressionCodecFactory,
  setEncodeLending,
  typeError,
} from "../../core/internal.ts";
import type { PatchTransaction } from "./patch-transaction.ts";
import { type CreateZlib, newZlibObject, type ZlibHandle, type ZlibObject } from "./zlib-handle.ts";

/** The parts of `node:zlib` the codec uses. */
export interface ZlibModule {
  readonly createGzip: CreateZlib;
  readonly createDeflate: CreateZlib;
  readonly createDeflateRaw: CreateZlib;
  readonly createInflate: CreateZlib;
  readonly createInflateRaw: CreateZlib;
  readonly createBrotliCompress?: CreateZlib;
  readonly createBrotliDecompress?: CreateZlib;
  readonly createZstdCompress?: CreateZlib;
  readonly createZstdDecompress?: CreateZlib;
  readonly crc32?: (data: Uint8Array, value?: number) => number;
  /** zlib's constants, with the binding's modes (`GZIP`, `DEFLATE`, ...) where the runtime has them. */
  readonly constants?: { readonly [name: string]: unknown };
}

/** How an adapter configures the codec. */
export interface ZlibCodecOptions {
  /**
   * End every compressed chunk's output with a flush (zlib `Z_SYNC_FLUSH`, brotli's `FLUSH` operation), so
   * what was written so far can be decompressed at once: what Deno's own CompressionStream does. Off, the
   * compressor keeps its input until its buffers fill, as Node.js' and Bun's do.
   */
  readonly flushEachChunk?: boolean;
  /**
   * ZLIB-COALESCE (default on, and off with `flushEachChunk`): gather written chunks into 16 KiB before each
   * call into the compressor. Off, every chunk is its own call, as the runtime's own CompressionStream makes
   * them (with a zlib whose output depends on how its input is cut, such as Bun's, the same bytes as it).
   */
  readonly coalesce?: boolean;
  /**
   * How many output chunks a stream may hold unread before a write waits (its readable high-water mark; default
   * 0, the standard's). Node.js' and Bun's own classes resolve a write before anything is read, and their tests
   * count on it: their adapters allow a few chunks.
   */
  readonly outputQueue?: number;
  /**
   * The formats compressed with node:zlib (default: every one it has); others are left to the default codec.
   * Deno's own brotli compressor is a different one, many times faster than node:zlib's at its default quality.
   */
  readonly compressFormats?: readonly CompressionFormat[];
  /**
   * FP-ENCODE-LEND (default off): a TextEncoderStream piped into one of our compression streams lends each
   * chunk's UTF-8 from a shared pool instead of a new ArrayBuffer (this codec reads a chunk before `push()`
   * returns). On where a new ArrayBuffer costs more than the check (Deno).
   */
  readonly lendEncoderChunks?: boolean;
  /**
   * The OS byte of the gzip header the compressor writes (RFC 1952 §2.3.1; zlib writes the platform's, 3 on
   * Unix): Deno's own compressor writes 255 ("unknown"), and so must ours for the same bytes.
   */
  readonly gzipOs?: number;
  /**
   * ZLIB-REUSE: a gzip, deflate or deflate-raw compressor whose stream finished gives its handle back, reset,
   * for the next stream of the same format (a few kept per format), instead of closing it: making node:zlib's
   * stream object and its zlib state costs more than compressing a small body. Ignored with `flushEachChunk`.
   */
  readonly reuseCompressors?: boolean;
}

// Flush values of zlib (Z_*), brotli (BROTLI_OPERATION_*) and zstd (ZSTD_e_*).
const Z_NO_FLUSH = 0;
const Z_SYNC_FLUSH = 2;
const Z_FINISH = 4;
const BROTLI_PROCESS = 0;
const BROTLI_FLUSH = 1;
const BROTLI_FINISH = 2;
const ZSTD_CONTINUE = 0;
const ZSTD_FLUSH = 1;
const ZSTD_END = 2;

/** The size of the scratch output buffer: the largest output chunk. */
const OUT_BYTES = 64 * 1024;
const EMPTY = new Uint8Array(0);

/**
 * The scratch buffer zlib writes into, one for every stream: what a call produced is copied out of it before
 * anything else runs (an output chunk handed on may make another stream's codec run, synchronously, in a fused
 * chain), so no stream keeps 64 KiB of its own between calls.
 */
let scratch: Uint8Array | undefined;

/** Where {@link ZlibRunner.run} hands output: the first `length` bytes of `from` (see CodecSink's `copy`). */
type Output = (from: Uint8Array, length: number) => void;

/** One format's zlib object and flush values. */
interface Engine {
  readonly create: CreateZlib;
  /** ZLIB-HANDLE: the binding's mode of the format (a zlib format whose mode the runtime names), else undefined. */
  readonly mode?: number;
  /** ZLIB-HANDLE: a decompressor's compressing counterpart (what makes the probe's input). */
  readonly counterpart?: CreateZlib;
  /** A zlib (deflate) format: a handle reset after its stream finished starts the next one afresh. */
  readonly resettable?: boolean;
  readonly process: number;
  readonly flush: number;
  readonly finish: number;
}

function engineFor(zlib: ZlibModule, format: CompressionFormat, mode: CodecMode): Engine | undefined {
  const compress = mode === "compress";
  switch (format) {
    case "gzip":
      // Decompression: a raw inflate inside the gzip member parsed by GzipCodec.
      return compress ? zlibEngine(zlib.createGzip, zlibMode(zlib, "GZIP")) : zlibEngine(
        zlib.crc32 === undefined ? undefined : zlib.createInflateRaw,
        zlibMode(zlib, "INFLATERAW"),
        zlib.createDeflateRaw,
      );
    case "deflate":
      return compress
        ? zlibEngine(zlib.createDeflate, zlibMode(zlib, "DEFLATE"))
        : zlibEngine(zlib.createInflate, zlibMode(zlib, "INFLATE"), zlib.createDeflate);
    case "deflate-raw":
      return compress
        ? zlibEngine(zlib.createDeflateRaw, zlibMode(zlib, "DEFLATERAW"))
        : zlibEngine(zlib.createInflateRaw, zlibMode(zlib, "INFLATERAW"), zlib.createDeflateRaw);
    case "brotli": {
      const create = compress ? zlib.createBrotliCompress : zlib.createBrotliDecompress;
      return create && { create, process: BROTLI_PROCESS, flush: BROTLI_FLUSH, finish: BROTLI_FINISH };
    }
    case "zstd": {
      const create = compress ? zlib.createZstdCompress : zlib.createZstdDecompress;
      return create && { create, process: ZSTD_CONTINUE, flush: ZSTD_FLUSH, finish: ZSTD_END };
    }
  }
}

function zlibEngine(create: CreateZlib | undefined, mode?: number, counterpart?: CreateZlib): Engine | undefined {
  return create &&
    { create, mode, counterpart, resettable: true, process: Z_NO_FLUSH, flush: Z_SYNC_FLUSH, finish: Z_FINISH };
}

/** The binding's mode `name` (`GZIP`, `INFLATERAW`, ...) in `zlib.constants`, or undefined. */
function zlibMode(zlib: ZlibModule, name: string): number | undefined {
  const mode = zlib.constants?.[name];
  return typeof mode === "number" ? mode : undefined;
}

/** How many reset handles ZLIB-REUSE keeps per `create` function. */
const POOL_SIZE = 4;

/** ZLIB-REUSE's reset handles' objects, by the `create` function that made them. */
const pools = new Map<CreateZlib, ZlibObject[]>();

// The codec's errors are the core's TypeErrors (`typeError`), so a runtime's patch sees them as it sees the core's
// (the Deno adapter gives them Deno's texts); each names its format.

/** The TypeError of a zlib failure (`what`: e.g. "Invalid gzip data"). */
function zlibError(what: string, message: string, code: string | undefined): TypeError {
  return typeError(`${what}: ${message}${code === undefined ? "" : ` (${code})`}`);
}

function trailingData(format: CompressionFormat): TypeError {
  return typeError(`Trailing data after the end of the ${format} stream`);
}

function truncated(format: CompressionFormat): TypeError {
  return typeError(`The ${format} stream ended early (unexpected end of input)`);
}

/**
 * One stream's zlib handle, run synchronously. `run()` feeds it input with a flush value and hands every
 * output byte to `output` before it returns.
 */
class ZlibRunner {
  readonly #object: ZlibObject;
  readonly #handle: ZlibHandle;
  readonly #state: Uint32Array;
  #error: TypeError | undefined = undefined;
  #closed = false;
  /** Decompression: the handle stopped at the end of the stream (input was left over). */
  ended = false;
  /** How many bytes of the last input the handle left unread (after the end of the stream). */
  leftOver = 0;

  readonly #create: CreateZlib;

  /** `what`: how a zlib failure starts its message (the format, compressed or decompressed). */
  constructor(engine: Pick<Engine, "create" | "mode" | "counterpart">, what: string) {
    const create = engine.create;
    this.#create = create;
    // ZLIB-HANDLE: a handle made by itself where one proved itself for this format.
    const object = pools.get(create)?.pop() ?? newZlibObject(create, engine.mode, engine.counterpart);
    const handle = object._handle;
    if (handle === null || typeof handle.writeSync !== "function") {
      throw new TypeError("node:zlib has no synchronous handle here");
    }
    this.#object = object;
    this.#handle = handle;
    this.#state = object._writeState;
    // zlib reports a failure by calling this during writeSync (replacing the stream's handler, which would
    // emit an 'error' event later).
    handle.onerror = (message, _errno, code) => {
      this.#error ??= zlibError(what, message, code);
    };
  }

  /**
   * Feeds `input` with `flush`; each output chunk goes to `output` as the first `length` bytes of the scratch
   * buffer, which is written again once `output` returns (the sink's `copy`). Throws the TypeError of a zlib
   * failure.
   */
  run(input: Uint8Array, flush: number, output: Output): void {
    const handle = this.#handle;
    const state = this.#state;
    const out = scratch ??= new Uint8Array(OUT_BYTES);
    let inOffset = 0;
    let inLength = input.byteLength;
    for (;;) {
      handle.writeSync(flush, input, inOffset, inLength, out, 0, OUT_BYTES);
      if (this.#error !== undefined) throw this.#error;
      const outLeft = state[0]!;
      const inLeft = state[1]!;
      const produced = OUT_BYTES - outLeft;
      inOffset += inLength - inLeft;
      inLength = inLeft;
      if (produced !== 0) output(out, produced);
      if (outLeft === 0) continue; // the scratch buffer was filled: there may be more
      // Output room was left: zlib took all the input it will take. Some left means the stream ended.
      this.leftOver = inLength;
      if (inLength !== 0) this.ended = true;
      return;
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#object.close();
  }

  /**
   * ZLIB-REUSE: after a stream that finished without an error, the handle reset (zlib's `deflateReset`: the
   * same parameters, a new stream) and kept for the next runner of the same `create`; otherwise closed.
   * Unobservable: a reset handle is in the state a new one starts in, so it makes the same bytes, and no
   * runner holds it any more.
   */
  recycle(): void {
    if (this.#closed) return;
    let pool = pools.get(this.#create);
    if (this.#error !== undefined || (pool !== undefined && pool.length >= POOL_SIZE)) return this.close();
    try {
      this.#handle.reset();
    } catch {
      return this.close();
    }
    this.#closed = true;
    this.#handle.onerror = null;
    if (pool === undefined) pools.set(this.#create, pool = []);
    pool.push(this.#object);
  }
}

/** Decompression of deflate, deflate-raw, brotli and zstd. */
class ZlibDecompressor implements CompressionCodec {
  readonly #runner: ZlibRunner;
  readonly #engine: Engine;
  readonly #probeEnd: boolean;
  readonly #format: CompressionFormat;
  readonly #output: Output;

  /**
   * `probeEnd`: the handle does not report a stream that ended early (Deno's brotli); the end is then checked
   * with one more byte after the finishing call (ZLIB-END-PROBE): a decoder whose stream is complete leaves it
   * unread, one that still waits for data reads it.
   */
  constructor(format: CompressionFormat, engine: Engine, sink: CodecSink, probeEnd: boolean) {
    this.#runner = new ZlibRunner(engine, `Invalid ${format} data`);
    this.#engine = engine;
    this.#probeEnd = probeEnd;
    this.#format = format;
    this.#output = (from, length) => sink.copy(from, length);
  }

  push(bytes: Uint8Array): undefined {
    const runner = this.#runner;
    if (runner.ended) throw trailingData(this.#format);
    runner.run(bytes, this.#engine.process, this.#output);
    if (runner.ended) throw trailingData(this.#format);
    return undefined;
  }

  finish(): undefined {
    // zlib reports a stream that ended early as an error of the finishing call.
    const runner = this.#runner;
    runner.run(EMPTY, this.#engine.finish, this.#output);
    if (this.#probeEnd && !runner.ended) {
      runner.run(END_PROBE, this.#engine.process, ignoreOutput);
      if (runner.leftOver !== 1) throw truncated(this.#format);
    }
    return undefined;
  }

  release(): void {
    this.#runner.close();
  }
}

const END_PROBE = new Uint8Array(1);

/** `sink`, with the gzip header's OS byte (the 10th byte of the output) set to `os` when given. */
function gzipHeaderSink(sink: CodecSink, os: number | undefined): CodecSink {
  if (os === undefined) return sink;
  let offset = 0;
  const mark = (chunk: Uint8Array, length: number): void => {
    if (offset <= 9 && offset + length > 9) chunk[9 - offset] = os;
    offset += length;
  };
  return {
    enqueue(chunk: Uint8Array): void {
      mark(chunk, chunk.byteLength);
      sink.enqueue(chunk);
    },
    copy(from: Uint8Array, length: number): void {
      mark(from, length);
      sink.copy(from, length);
    },
    error: (reason: unknown) => sink.error(reason),
  };
}

/** The bytes ZLIB-COALESCE gathers before each call into zlib. */
const STAGE_BYTES = 16 * 1024;

/**
 * Compression, in any format. ZLIB-COALESCE: without a flush per chunk, chunks are gathered into
 * `STAGE_BYTES` before they go into zlib (a call per 16 KiB instead of one per chunk); the compressor would
 * have kept them in its own buffers anyway, so no output comes later than a bounded amount of input would
 * make it. With Node.js' zlib the bytes are the same as chunk by chunk (bench/README.md).
 */
class ZlibCompressor implements CompressionCodec {
  readonly #runner: ZlibRunner;
  readonly #engine: Engine;
  /** The flush value of a call per chunk (no ZLIB-COALESCE), else undefined. */
  readonly #eachChunk: number | undefined;
  readonly #output: Output;
  /** ZLIB-REUSE on, for a resettable format. */
  readonly #reuse: boolean;
  /** The finishing call returned (the stream is complete). */
  #finished = false;
  #stage: Uint8Array = EMPTY;
  #staged = 0;

  constructor(format: CompressionFormat, engine: Engine, sink: CodecSink, options: ZlibCodecOptions) {
    this.#runner = new ZlibRunner(engine, `${format} compression failed`);
    this.#engine = engine;
    // Not with a flush per chunk: Chromium's zlib (Node.js, Deno) then makes other bytes after a reset than a
    // new handle makes (13 streams in 150 on Node 26); without one, 0 in 150 there and on Bun (either way).
    this.#reuse = options.reuseCompressors === true && engine.resettable === true && options.flushEachChunk !== true;
    this.#eachChunk = options.flushEachChunk === true
      ? engine.flush
      : options.coalesce === false
      ? engine.process
      : undefined;
    this.#output = (from, length) => sink.copy(from, length);
  }

  push(bytes: Uint8Array): undefined {
    if (this.#eachChunk !== undefined) {
      this.#runner.run(bytes, this.#eachChunk, this.#output);
      return undefined;
    }
    const length = bytes.byteLength;
    if (this.#staged + length > STAGE_BYTES) {
      this.#drain();
      if (length >= STAGE_BYTES) {
        this.#runner.run(bytes, this.#engine.process, this.#output);
        return undefined;
      }
    }
    if (this.#stage.byteLength === 0) this.#stage = new Uint8Array(STAGE_BYTES);
    this.#stage.set(bytes, this.#staged);
    this.#staged += length;
    return undefined;
  }

  finish(): undefined {
    this.#drain();
    this.#runner.run(EMPTY, this.#engine.finish, this.#output);
    this.#finished = true;
    return undefined;
  }

  release(): void {
    this.#stage = EMPTY;
    this.#staged = 0;
    if (this.#reuse && this.#finished) this.#runner.recycle();
    else this.#runner.close();
  }

  #drain(): void {
    if (this.#staged === 0) return;
    const staged = this.#stage.subarray(0, this.#staged);
    this.#staged = 0;
    this.#runner.run(staged, this.#engine.process, this.#output);
  }
}

// The gzip member (RFC 1952 §2.3): FLG bits and the parser's states.
const FHCRC = 2;
const FEXTRA = 4;
const FNAME = 8;
const FCOMMENT = 16;
const FRESERVED = 0xe0;
const HEADER = 0;
const EXTRA_LENGTH = 1;
const EXTRA = 2;
const NAME = 3;
const COMMENT = 4;
const HEADER_CRC = 5;
const BODY = 6;
const TRAILER = 7;
const DONE = 8;

/**
 * gzip decompression: the member's header and trailer parsed here, the deflate data between them inflated
 * raw. One member only (Compression §2: "A gzip stream may only contain one member"); anything after it is
 * the TypeError.
 */
class GzipCodec implements CompressionCodec {
  readonly #runner: ZlibRunner;
  readonly #crc32: (data: Uint8Array, value?: number) => number;
  readonly #output: Output;
  #state = HEADER;
  /** Header and trailer bytes collected while a fixed-size field is incomplete. */
  readonly #field = new Uint8Array(10);
  #fieldLength = 0;
  #flags = 0;
  /** Bytes of the FEXTRA field still to skip. */
  #extraLeft = 0;
  /** CRC32 of the header bytes so far (for FHCRC). */
  #headerCrc = 0;
  /** CRC32 and length (mod 2^32) of the decompressed data. */
  #crc = 0;
  #size = 0;

  constructor(runner: ZlibRunner, crc32: (data: Uint8Array, value?: number) => number, sink: CodecSink) {
    this.#runner = runner;
    this.#crc32 = crc32;
    this.#output = (from, length) => {
      this.#crc = crc32(from.subarray(0, length), this.#crc);
      this.#size = (this.#size + length) >>> 0;
      sink.copy(from, length);
    };
  }

  push(bytes: Uint8Array): undefined {
    let offset = 0;
    const length = bytes.byteLength;
    while (offset < length) {
      const state = this.#state;
      if (state === BODY) {
        const runner = this.#runner;
        const input = offset === 0 ? bytes : bytes.subarray(offset);
        runner.run(input, Z_NO_FLUSH, this.#output);
        if (!runner.ended) return undefined;
        offset = length - runner.leftOver;
        this.#state = TRAILER;
      } else if (state === DONE) {
        throw trailingData("gzip");
      } else {
        offset = this.#frame(bytes, offset);
      }
    }
    return undefined;
  }

  finish(): undefined {
    if (this.#state === BODY) {
      // The deflate data may have ended exactly at the end of the last chunk: a finishing call tells.
      this.#runner.run(EMPTY, Z_FINISH, this.#output);
      this.#state = TRAILER;
    }
    if (this.#state !== DONE) throw truncated("gzip");
    return undefined;
  }

  release(): void {
    this.#runner.close();
  }

  /** Parses header or trailer bytes from `bytes[offset]` on; returns the offset after what it took. */
  #frame(bytes: Uint8Array, offset: number): number {
    const length = bytes.byteLength;
    switch (this.#state) {
      case HEADER: {
        const end = this.#collect(bytes, offset, 10);
        this.#headerCrc = this.#crc32(bytes.subarray(offset, end), this.#headerCrc);
        if (this.#fieldLength === 10) {
          const h = this.#field;
          if (h[0] !== 0x1f || h[1] !== 0x8b || h[2] !== 8 || (h[3]! & FRESERVED) !== 0) {
            throw typeError("Invalid gzip header");
          }
          this.#flags = h[3]!;
          this.#fieldLength = 0;
          this.#next();
        }
        return end;
      }
      case EXTRA_LENGTH: {
        const end = this.#collect(bytes, offset, 2);
        this.#headerCrc = this.#crc32(bytes.subarray(offset, end), this.#headerCrc);
        if (this.#fieldLength === 2) {
          this.#extraLeft = this.#field[0]! | (this.#field[1]! << 8);
          this.#fieldLength = 0;
          this.#state = EXTRA;
          if (this.#extraLeft === 0) this.#next();
        }
        return end;
      }
      case EXTRA: {
        const end = Math.min(length, offset + this.#extraLeft);
        this.#headerCrc = this.#crc32(bytes.subarray(offset, end), this.#headerCrc);
        this.#extraLeft -= end - offset;
        if (this.#extraLeft === 0) this.#next();
        return end;
      }
      case NAME:
      case COMMENT: {
        const zero = bytes.indexOf(0, offset);
        const end = zero === -1 ? length : zero + 1;
        this.#headerCrc = this.#crc32(bytes.subarray(offset, end), this.#headerCrc);
        if (zero !== -1) this.#next();
        return end;
      }
      case HEADER_CRC: {
        const end = this.#collect(bytes, offset, 2);
        if (this.#fieldLength === 2) {
          if ((this.#field[0]! | (this.#field[1]! << 8)) !== (this.#headerCrc & 0xffff)) {
            throw typeError("Invalid gzip header: its CRC does not match");
          }
          this.#fieldLength = 0;
          this.#state = BODY;
        }
        return end;
      }
      default: { // TRAILER
        const end = this.#collect(bytes, offset, 8);
        if (this.#fieldLength === 8) {
          const t = this.#field;
          const crc = (t[0]! | (t[1]! << 8) | (t[2]! << 16) | (t[3]! << 24)) >>> 0;
          const size = (t[4]! | (t[5]! << 8) | (t[6]! << 16) | (t[7]! << 24)) >>> 0;
          if (crc !== this.#crc >>> 0) throw typeError("Invalid gzip data: the CRC32 does not match");
          if (size !== this.#size) throw typeError("Invalid gzip data: the length (ISIZE) does not match");
          this.#state = DONE;
        }
        return end;
      }
    }
  }

  /** Copies up to `size - collected` bytes into the field buffer; returns the offset after them. */
  #collect(bytes: Uint8Array, offset: number, size: number): number {
    const end = Math.min(bytes.byteLength, offset + size - this.#fieldLength);
    this.#field.set(bytes.subarray(offset, end), this.#fieldLength);
    this.#fieldLength += end - offset;
    return end;
  }

  /** After a header field: the next one the flags announce, or the deflate data. */
  #next(): void {
    const flags = this.#flags;
    const state = this.#state;
    if (state === HEADER && (flags & FEXTRA) !== 0) this.#state = EXTRA_LENGTH;
    else if (state < NAME && (flags & FNAME) !== 0) this.#state = NAME;
    else if (state < COMMENT && (flags & FCOMMENT) !== 0) this.#state = COMMENT;
    else if (state < HEADER_CRC && (flags & FHCRC) !== 0) this.#state = HEADER_CRC;
    else this.#state = BODY;
  }
}

/**
 * A stream in each format whose decompressor is tried once for truncation (the last byte is left out):
 * some handles report nothing at the end of an incomplete brotli or zstd stream (Deno's brotli, Bun's zstd,
 * where the runtime's own DecompressionStream does report it). zlib's own formats are reported everywhere.
 */
const TRUNCATION_PROBES: Partial<Record<CompressionFormat, readonly number[]>> = {
  brotli: [0x0b, 0x05, 0x80, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x20, 0x77, 0x6f, 0x72, 0x6c, 0x64],
  zstd: [
    0x28,
    0xb5,
    0x2f,
    0xfd,
    0x20,
    0x0b,
    0x59,
    0x00,
    0x00,
    0x68,
    0x65,
    0x6c,
    0x6c,
    0x6f,
    0x20,
    0x77,
    0x6f,
    0x72,
    0x6c,
  ],
};

/** Whether `engine` (a decompressor) reports the end of a truncated stream (true without a probe). */
function reportsTruncation(engine: Engine, format: CompressionFormat): boolean {
  const probe = TRUNCATION_PROBES[format];
  if (probe === undefined) return true;
  const runner = new ZlibRunner(engine, `Invalid ${format} data`);
  try {
    runner.run(new Uint8Array(probe), engine.process, ignoreOutput);
    runner.run(EMPTY, engine.finish, ignoreOutput);
    return false;
  } catch {
    return true;
  } finally {
    runner.close();
  }
}

function ignoreOutput(): void {}

/**
 * The codec factory of an adapter whose runtime has `node:zlib` (Node.js, Deno, Bun): `loadZlib` is called
 * once, when the first stream is made. A format `node:zlib` cannot do there, or cannot check the end of, is
 * left to the default codec.
 */
export function zlibCodecFactory(
  loadZlib: () => ZlibModule | undefined,
  options: ZlibCodecOptions = {},
): CompressionCodecFactory {
  let zlib: ZlibModule | null | undefined;
  const decompressors: Partial<Record<CompressionFormat, { engine: Engine; probeEnd: boolean } | null>> = {};
  return (format: CompressionFormat, mode: CodecMode, sink: CodecSink): CompressionCodec | undefined => {
    if (zlib === undefined) zlib = usableZlib(loadZlib);
    if (zlib === null) return undefined;
    if (mode === "compress") {
      if (options.compressFormats !== undefined && options.compressFormats.indexOf(format) === -1) return undefined;
      const engine = engineFor(zlib, format, mode);
      if (engine === undefined) return undefined;
      return new ZlibCompressor(
        format,
        engine,
        format === "gzip" ? gzipHeaderSink(sink, options.gzipOs) : sink,
        options,
      );
    }
    let decompressor = decompressors[format];
    if (decompressor === undefined) {
      const engine = engineFor(zlib, format, mode);
      decompressor = decompressors[format] = engine === undefined ? null : {
        engine,
        // ZLIB-END-PROBE where the handle does not report truncation; zstd, whose frames may follow each other,
        // cannot be checked so (the byte would start a new frame): left to the default codec.
        probeEnd: !reportsTruncation(engine, format),
      };
      if (decompressor !== null && decompressor.probeEnd && format === "zstd") {
        decompressor = decompressors[format] = null;
      }
    }
    if (decompressor === null) return undefined;
    if (format === "gzip") {
      return new GzipCodec(new ZlibRunner(decompressor.engine, "Invalid gzip data"), zlib.crc32!, sink);
    }
    return new ZlibDecompressor(format, decompressor.engine, sink, decompressor.probeEnd);
  };
}

/** The module `loadZlib` gives when its handles can be run synchronously here, else null (tried once). */
function usableZlib(loadZlib: () => ZlibModule | undefined): ZlibModule | null {
  try {
    const zlib = loadZlib();
    if (zlib === undefined) return null;
    new ZlibRunner({ create: zlib.createDeflateRaw }, "deflate-raw").close();
    return zlib;
  } catch {
    return null;
  }
}

/**
 * Installs {@link zlibCodecFactory}`(loadZlib, options)` as the codec of every CompressionStream and
 * DecompressionStream made from now on (an adapter does it when it loads).
 */
export function installZlibCodec(loadZlib: () => ZlibModule | undefined, options?: ZlibCodecOptions): void {
  setCompressionCodecFactory(zlibCodecFactory(loadZlib, options));
  setCodecOutputQueue(options?.outputQueue ?? 0);
  setEncodeLending(options?.lendEncoderChunks === true);
}

/**
 * The patch option `compression: "batched"` (the contract's `PatchOptions`), as a patch step: until `tx` is
 * undone, new streams get {@link zlibCodecFactory}`(loadZlib, options)` with chunks gathered (ZLIB-COALESCE) and
 * no flush per chunk; then the codec installed before comes back. `options` are those the adapter installed.
 */
export function batchZlibCodec(
  tx: PatchTransaction,
  loadZlib: () => ZlibModule | undefined,
  options: ZlibCodecOptions,
): void {
  const batched: ZlibCodecOptions = { ...options, flushEachChunk: false, coalesce: true };
  const previous = setCompressionCodecFactory(zlibCodecFactory(loadZlib, batched));
  tx.afterRestore("the compression codec", () => {
    setCompressionCodecFactory(previous);
  });
}
