/**
 * The TransformStream behind a CompressionStream or DecompressionStream (the GenericTransformStream's
 * [[transform]], Compression §4, §5): one of our TransformStreams, so a pipe chain through it fuses like
 * any other, whose transformer checks each chunk, hands its bytes to the stream's codec and enqueues what
 * comes out.
 *
 * Its queuing strategies are those of "set up a TransformStream" (writable high-water mark 1, readable 0) unless
 * the runtime's adapter allows a few output chunks ahead (output-queue.ts): a write waits while the output
 * queue is full, so a consumer that stops reading stops the producer.
 * The codec is released when the stream ends, errors, is cancelled or aborted.
 * @module
 */
import { PromisePrototypeThen, ReflectApply } from "../shared/primordials.ts";
import type { ByteBuilder } from "../shared/byte-builder.ts";
import { untouchedTransformReadable } from "../transform/untouched-readable.ts";
import { TransformStream } from "../transform/transform-stream.ts";
import type { Transformer } from "../types.ts";
import { bufferSourceBytes } from "./buffer-source.ts";
import {
  type CodecSink,
  type CompressionCodec,
  type CompressionCodecFactory,
  createCodec,
  installedCodecFactory,
} from "./codec.ts";
import type { CodecMode, CompressionFormat } from "./formats.ts";
import { codecOutputQueue } from "./output-queue.ts";
import { giveBack } from "../shared/lent-bytes.ts";

type Controller = TransformStreamDefaultController<Uint8Array>;

const sliceMethod = Uint8Array.prototype.slice;

/** One stream's codec and the controller its output goes to; the codec's sink. */
class CodecState implements CodecSink {
  readonly codec: CompressionCodec;
  readonly interfaceName: string;
  controller: Controller | undefined = undefined;
  /** An error the codec reported before the stream's first transform or flush call. */
  failure: { reason: unknown } | undefined = undefined;
  onRejected: ((reason: unknown) => never) | undefined = undefined;

  constructor(format: CompressionFormat, mode: CodecMode, factory: CompressionCodecFactory | undefined) {
    this.interfaceName = mode === "compress" ? "CompressionStream" : "DecompressionStream";
    this.codec = createCodec(format, mode, this, factory);
  }

  /** FP-CODEC-INTO: set once the readable side's only reader takes the output whole (see takeCodecOutput). */
  collector: ByteBuilder | undefined = undefined;

  enqueue(chunk: Uint8Array): void {
    const collector = this.collector;
    if (collector === undefined) this.controller!.enqueue(chunk);
    else collector.append(chunk, chunk.byteLength);
  }

  copy(from: Uint8Array, length: number): void {
    const collector = this.collector;
    if (collector === undefined) this.controller!.enqueue(ReflectApply(sliceMethod, from, [0, length]) as Uint8Array);
    else collector.append(from, length);
  }

  error(reason: unknown): void {
    const controller = this.controller;
    if (controller === undefined) this.failure = { reason };
    else controller.error(reason);
    this.codec.release();
  }
}

/** The codec's promise, if any; a rejection releases the codec before it errors the stream. */
function settled(state: CodecState, result: Promise<void> | undefined): Promise<void> | undefined {
  if (result === undefined) return undefined;
  return PromisePrototypeThen(
    result,
    undefined,
    state.onRejected ??= (reason: unknown): never => {
      state.codec.release();
      throw reason;
    },
  );
}

/** "compress and enqueue a chunk" / "decompress and enqueue a chunk". */
function transformChunk(state: CodecState, chunk: unknown, controller: Controller): Promise<void> | undefined {
  state.controller = controller;
  if (state.failure !== undefined) throw state.failure.reason;
  try {
    const bytes = bufferSourceBytes(chunk, state.interfaceName);
    if (bytes.byteLength === 0) return undefined;
    let result: Promise<void> | undefined;
    try {
      result = state.codec.push(bytes);
    } finally {
      // FP-ENCODE-LEND: the codec has read the bytes (the codec contract), or failed: a lent view is free again.
      giveBack(bytes);
    }
    return settled(state, result);
  } catch (e) {
    state.codec.release();
    throw e;
  }
}

/** "compress flush and enqueue" / "decompress flush and enqueue". */
function flushCodec(state: CodecState, controller: Controller): Promise<void> | undefined {
  state.controller = controller;
  if (state.failure !== undefined) throw state.failure.reason;
  let result: Promise<void> | undefined;
  try {
    result = settled(state, state.codec.finish());
  } catch (e) {
    state.codec.release();
    throw e;
  }
  if (result === undefined) {
    state.codec.release();
    return undefined;
  }
  return PromisePrototypeThen(result, () => state.codec.release());
}

/** The transformer of a codec's TransformStream: its methods are called with it as `this`. */
interface CodecTransformer {
  __proto__: null;
  readonly state: CodecState;
  transform: typeof codecTransform;
  flush: typeof codecFlush;
  cancel: typeof codecCancel;
}

function codecTransform(this: CodecTransformer, chunk: unknown, controller: Controller): Promise<void> | undefined {
  return transformChunk(this.state, chunk, controller);
}

function codecFlush(this: CodecTransformer, controller: Controller): Promise<void> | undefined {
  return flushCodec(this.state, controller);
}

function codecCancel(this: CodecTransformer, reason: unknown): void {
  this.state.codec.release(reason);
}

/**
 * FP-ENCODE-LEND: whether `transformFn` (a TransformStream's transform, from its internal slot) is a codec's, which
 * reads each chunk before it returns and keeps none of it. The function is this module's own and reaches no user
 * code, so no user's transformer can pass for one.
 */
export function IsCodecTransform(transformFn: unknown): boolean {
  return transformFn === codecTransform;
}

/**
 * FP-CODEC-INTO: when `readable` is the readable side of one of our codecs' TransformStreams that nothing has read
 * or locked and that holds no chunk, hands every byte its codec makes from now on to `collector` instead of
 * enqueuing chunks, and returns true (the readable side then only closes or errors); otherwise returns false and
 * changes nothing. For a consumer that locks `readable` at once, before any user code runs, and wants only its
 * bytes joined: no chunk it would have seen is made.
 */
export function takeCodecOutput(readable: unknown, collector: ByteBuilder): boolean {
  const transform = untouchedTransformReadable(readable, codecTransform);
  if (transform === undefined) return false;
  const state = (transform.transformer as CodecTransformer).state;
  if (state.collector !== undefined) return false;
  state.collector = collector;
  return true;
}

/**
 * NATIVE-CODEC-HANDBACK: when `readable` is the readable side of one of our codecs' TransformStreams that nothing
 * has read or locked and that holds no chunk, whose codec is a stream of the runtime's own none of whose output has
 * been read: that stream's readable side, which the codec no longer reads (the caller locks `readable` for good:
 * it only closes or errors from then on); otherwise undefined and nothing changes.
 */
export function takeCodecNativeReadable(readable: unknown): globalThis.ReadableStream<Uint8Array> | undefined {
  const transform = untouchedTransformReadable(readable, codecTransform);
  if (transform === undefined) return undefined;
  const state = (transform.transformer as CodecTransformer).state;
  if (state.collector !== undefined) return undefined;
  return state.codec.takeNativeOutput?.();
}

/**
 * A new TransformStream that compresses (`mode` "compress") or decompresses `format`, with `queue` output
 * chunks allowed ahead (output-queue.ts) and its codec from `factory` (by default the adapter's settings now).
 */
export function createCodecTransform(
  format: CompressionFormat,
  mode: CodecMode,
  queue: number = codecOutputQueue(),
  factory: CompressionCodecFactory | undefined = installedCodecFactory(),
): TransformStream<BufferSource, Uint8Array> {
  const state = new CodecState(format, mode, factory);
  // No prototype: the TransformStream reads the transformer's members by name, and nothing a script added
  // to Object.prototype may be taken for one.
  const transformer: CodecTransformer = {
    __proto__: null,
    state,
    transform: codecTransform,
    flush: codecFlush,
    cancel: codecCancel,
  };
  const transformerOf = transformer as Transformer<BufferSource, Uint8Array>;
  if (queue === 0) return new TransformStream<BufferSource, Uint8Array>(transformerOf);
  return new TransformStream<BufferSource, Uint8Array>(transformerOf, undefined, { highWaterMark: queue });
}
