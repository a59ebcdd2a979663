/**
 * The default codec: the runtime's own CompressionStream / DecompressionStream, driven in batches
 * (NATIVE-CODEC-BATCH): while one native write is in flight, the chunks pushed meanwhile are gathered and
 * go in as one write when it completes, so a burst of small chunks costs a few native writes instead of
 * one each. The native output is read as soon as it comes and handed to the sink.
 *
 * Backpressure: at most one native write is in flight, and once `BATCH_BYTES` wait behind it `push()`
 * returns a promise that settles when they have gone in; the stream around the codec stops calling `push()`
 * while its readable side is full, so a consumer that stops reading stops the producer after at most the
 * output of one batch.
 * @module
 */
import { NativeTypeError, NativeUint8Array, PromisePrototypeThen } from "../shared/primordials.ts";
import type { CodecSink, CompressionCodec } from "./codec.ts";
import type { CodecMode, CompressionFormat } from "./formats.ts";
import { nativeCodecClass } from "./native-classes.ts";

/** The bytes gathered behind an in-flight native write before `push()` makes the producer wait. */
const BATCH_BYTES = 64 * 1024;

/** The TypeError for a failure of the native stream (Node.js 20 rejects with plain Errors). */
function asTypeError(reason: unknown): TypeError {
  if (reason instanceof NativeTypeError) return reason;
  const message = reason instanceof Error ? reason.message : String(reason);
  return new NativeTypeError(message, { cause: reason });
}

function ignore(): void {}

/** Concatenates `chunks` (total `length` bytes) into one new Uint8Array. */
function concatenate(chunks: Uint8Array<ArrayBuffer>[], length: number): Uint8Array<ArrayBuffer> {
  const out = new NativeUint8Array(length);
  let offset = 0;
  for (let i = 0; i < chunks.length; i++) {
    const chunk = chunks[i]!;
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

class NativeCodec implements CompressionCodec {
  readonly #sink: CodecSink;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array<ArrayBuffer>>;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  /** Chunks pushed while a native write is in flight (copies), and their total length. */
  #batch: Uint8Array<ArrayBuffer>[] = [];
  #batchBytes = 0;
  /** The native write in flight, settling once the batch behind it (if any) has been written too. */
  #writing: Promise<void> | undefined = undefined;
  /**
   * Settles when the native readable side has closed (or failed); made by the first `push()` or `finish()`, which
   * starts reading it (nothing comes out before the first write).
   */
  #drained: Promise<void> | undefined = undefined;
  /** The native readable side (read here from the first `push()` or `finish()` on, unless handed back). */
  readonly #output: ReadableStream<Uint8Array>;
  /** NATIVE-CODEC-HANDBACK: the native readable side was handed back. */
  #handedBack = false;
  #failure: TypeError | undefined = undefined;
  #released = false;

  /** NATIVE-CODEC-HANDBACK is offered (decompression only: workerd's html-gzip measured no better with it). */
  readonly #handsBack: boolean;

  constructor(
    Native: NonNullable<ReturnType<typeof nativeCodecClass>>,
    format: string,
    sink: CodecSink,
    handsBack: boolean,
  ) {
    const native = new Native(format);
    this.#handsBack = handsBack;
    this.#sink = sink;
    this.#writer = native.writable.getWriter();
    this.#reader = native.readable.getReader();
    this.#output = native.readable;
  }

  takeNativeOutput(): ReadableStream<Uint8Array> | undefined {
    if (!this.#handsBack || this.#drained !== undefined || this.#failure !== undefined || this.#released) {
      return undefined;
    }
    this.#handedBack = true;
    this.#reader.releaseLock();
    // Nothing is read here from now on: the native stream's consumer reads it; `finish()` waits for the writer.
    this.#drained = PromisePrototypeThen(this.#writer.closed, ignore, ignore);
    return this.#output;
  }

  push(bytes: Uint8Array): Promise<void> | undefined {
    if (this.#failure !== undefined) throw this.#failure;
    this.#drained ??= this.#pump();
    // A copy: the native stream may read its chunk after this returns, and the caller's buffer is theirs.
    this.#batch.push(new NativeUint8Array(bytes));
    this.#batchBytes += bytes.byteLength;
    if (this.#writing === undefined) {
      this.#writeBatch();
      return undefined;
    }
    return this.#batchBytes >= BATCH_BYTES ? this.#writing : undefined;
  }

  async finish(): Promise<void> {
    this.#drained ??= this.#pump();
    while (this.#writing !== undefined) await this.#writing;
    if (this.#failure !== undefined) throw this.#failure;
    try {
      await this.#writer.close();
    } catch (e) {
      this.#fail(e);
    }
    await this.#drained;
    if (this.#failure !== undefined) throw this.#failure;
  }

  release(reason?: unknown): void {
    if (this.#released) return;
    this.#released = true;
    this.#batch = [];
    this.#writer.abort(reason).catch(ignore);
    // A readable side handed back is its consumer's: the abort ends it.
    if (!this.#handedBack) this.#reader.cancel(reason).catch(ignore);
  }

  /** NATIVE-CODEC-BATCH: writes every chunk gathered so far as one native write. */
  #writeBatch(): void {
    const batch = this.#batch;
    const chunk = batch.length === 1 ? batch[0]! : concatenate(batch, this.#batchBytes);
    this.#batch = [];
    this.#batchBytes = 0;
    this.#writing = PromisePrototypeThen(this.#writer.write(chunk), () => {
      if (this.#batchBytes !== 0 && this.#failure === undefined && !this.#released) {
        this.#writeBatch();
        return this.#writing;
      }
      this.#writing = undefined;
    }, (e: unknown) => {
      this.#writing = undefined;
      this.#fail(e);
    });
  }

  async #pump(): Promise<void> {
    const reader = this.#reader;
    try {
      for (;;) {
        const result = await reader.read();
        if (result.done || this.#released) return;
        if (result.value.byteLength !== 0) this.#sink.enqueue(result.value);
      }
    } catch (e) {
      this.#fail(e);
    }
  }

  #fail(reason: unknown): void {
    if (this.#failure !== undefined || this.#released) return;
    const failure = this.#failure = asTypeError(reason);
    this.#sink.error(failure);
    this.release();
  }
}

/** Whether decompressors made from now on offer NATIVE-CODEC-HANDBACK (an adapter's choice, while patched). */
let handback = false;

/** Turns NATIVE-CODEC-HANDBACK on or off for the default codec's decompressors made from now on. */
export function setNativeCodecHandback(on: boolean): void {
  handback = on;
}

/**
 * The default codec: the runtime's own stream class for `mode`, driven in batches. Throws a TypeError where
 * the runtime has none.
 */
export function createNativeCodec(format: CompressionFormat, mode: CodecMode, sink: CodecSink): CompressionCodec {
  const Native = nativeCodecClass(mode);
  if (Native === undefined) {
    throw new NativeTypeError(`This runtime has no ${mode === "compress" ? "Compression" : "Decompression"}Stream`);
  }
  return new NativeCodec(Native, format, sink, handback && mode === "decompress");
}
