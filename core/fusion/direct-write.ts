/**
 * The direct write (FP-FUSE, core/README.md): a pipe between our streams hands a chunk straight to an idle
 * destination's sink algorithm (for a TransformStream's writable side: its transform, through the gate,
 * `gate.ts`) instead of queueing it through the writer and reacting to a promise per chunk. Each function
 * says what it skips and why nobody can see it; the pipe (core/readable/pipe-to.ts) acts on the result.
 * @module
 */
import { RingQueue } from "../shared/queue.ts";
import {
  WRITABLE,
  WritableStreamDefaultControllerAdvanceQueueIfNeeded,
  WritableStreamDefaultControllerGetBackpressure,
  WritableStreamDefaultControllerGetChunkSize,
  WritableStreamDefaultWriterWriteSized,
  WritableStreamExtras,
  type WritableStreamInternal,
  WritableStreamQueueForPush,
  WritableStreamUpdateBackpressure,
  WritableStreamUponWrite,
  type WriteRequest,
  type WriterInternal,
} from "../writable/stream-internal.ts";

/** The sink took the chunk and its write completed synchronously (fused). */
export const DIRECT_OK = 0;
/** The sink is a TransformStream whose readable side has backpressure: wait for `gate.onUnblock`. */
export const DIRECT_GATED = 1;
/** The write must take the spec path (not started, queued writes, closing, errored, backpressure). */
export const DIRECT_BUSY = 2;
/** The sink was called and returned a promise: the write goes on as the spec's ProcessWrite does. */
export const DIRECT_PENDING = 3;
/**
 * Earlier writes are queued or in flight (nothing else stands in the way): a pipe into a transform waits
 * for `onWriteDone` instead of queueing behind them when that would fill the queue to its high-water mark.
 */
export const DIRECT_WAIT = 4;
/** WritableStreamWriteDirect called size() and then wrote the chunk through the spec's path (see above). */
export const DIRECT_QUEUED = 5;

/** What {@link WritableStreamWriteDirect} did with a chunk (one of the DIRECT_* results above). */
export type DirectWriteResult =
  | typeof DIRECT_OK
  | typeof DIRECT_GATED
  | typeof DIRECT_BUSY
  | typeof DIRECT_PENDING
  | typeof DIRECT_WAIT
  | typeof DIRECT_QUEUED;

/**
 * FP-FUSE: a pipe's write into an idle writable, handed to the sink at once. When the stream is writable and
 * started, has no queued or in-flight operation and no backpressure (a size() strategy: see
 * WritableStreamWriteDirectSized), the spec's
 * WritableStreamDefaultWriterWrite would enqueue the chunk and process it immediately, so the sink sees the
 * same call; if the sink returns synchronously the write completes synchronously, which only the pipe (the
 * locked writer's owner) can observe. A promise result continues exactly as ProcessWrite does.
 */
export function WritableStreamWriteDirect(
  stream: WritableStreamInternal,
  chunk: unknown,
  request: WriteRequest,
  writer: WriterInternal,
): DirectWriteResult {
  const c = stream;
  if (stream.inFlightWriteRequest !== undefined || c.queue.size !== 0) {
    const idle = stream.state === WRITABLE && c.started && !c.hasSizeAlgorithm && stream.closeRequest === undefined;
    return idle ? DIRECT_WAIT : DIRECT_BUSY;
  }
  if (
    stream.state !== WRITABLE || !c.started || stream.backpressure ||
    stream.closeRequest !== undefined || stream.inFlightCloseRequest !== undefined
  ) {
    return DIRECT_BUSY;
  }
  if (c.hasSizeAlgorithm) return WritableStreamWriteDirectSized(stream, chunk, request, writer);
  const gate = stream.gate;
  if (gate !== undefined) {
    if (gate.backpressure) return DIRECT_GATED;
    if (gate.writeIdentity(chunk, request)) return DIRECT_OK; // FP-TS-IDENTITY
  }
  return WritableStreamWriteDirectNow(stream, chunk, undefined, request);
}

/**
 * The direct write itself, on an idle writable: the sink is called with the chunk as ProcessWrite calls it.
 * `chunkSize` is undefined without a size() strategy (the count strategy's size, 1).
 */
function WritableStreamWriteDirectNow(
  stream: WritableStreamInternal,
  chunk: unknown,
  chunkSize: number | undefined,
  request: WriteRequest,
): DirectWriteResult {
  const c = stream;
  stream.inFlightWriteRequest = request;
  // The chunk joins [[queue]] only if the write does not complete synchronously: nothing reads the queue of a
  // writable whose writer is the pipe's while its one write is in flight (erroring waits for the write).
  const result = c.algorithms!.write(chunk);
  if (result === undefined) {
    // Completed synchronously: WritableStreamFinishInFlightWrite, DequeueValue, AdvanceQueueIfNeeded. The
    // backpressure flag never changed (the spec raises and lowers it around the write; only the pipe sees it).
    stream.inFlightWriteRequest = undefined;
    request.resolve();
    if (stream.state !== WRITABLE || c.queue.size !== 0) WritableStreamDefaultControllerAdvanceQueueIfNeeded(c);
    return DIRECT_OK;
  }
  WritableStreamQueueForPush(c).push(chunk);
  if (chunkSize === undefined) {
    c.queueTotalSize++;
  } else {
    ((c.ext ??= new WritableStreamExtras()).sizes ??= new RingQueue()).push(chunkSize);
    c.queueTotalSize += chunkSize;
  }
  if (stream.closeRequest === undefined && stream.state === WRITABLE) {
    WritableStreamUpdateBackpressure(stream, WritableStreamDefaultControllerGetBackpressure(c));
  }
  WritableStreamUponWrite(c, result);
  return DIRECT_PENDING;
}

/** Why WritableStreamWriteDirect would not hand a chunk to the sink now, in words (inspectPipeChain()). */
export function WritableStreamDirectWriteObstacle(stream: WritableStreamInternal): string {
  const c = stream;
  if (stream.state !== WRITABLE) return "the destination is erroring, errored or closed";
  if (!c.started) return "the destination's start() has not finished";
  if (stream.closeRequest !== undefined || stream.inFlightCloseRequest !== undefined) {
    return "the destination is closing";
  }
  if (stream.inFlightWriteRequest !== undefined) {
    return "the destination's previous write (its sink's write() or transform()) returned a promise that has not settled";
  }
  if (c.queue.size !== 0 || stream.backpressure) return "earlier writes are queued at the destination";
  if (stream.gate?.backpressure) {
    return c.hasSizeAlgorithm
      ? "the destination transform's readable side has backpressure (chunks sized by a size() strategy queue as the spec queues them)"
      : "the destination transform's readable side has backpressure";
  }
  if (c.hasSizeAlgorithm) {
    return "the destination's size() function changed the stream's state or returned an invalid size";
  }
  return "the destination was busy";
}

/** After DIRECT_WAIT: whether queueing one more chunk (of size 1: no size() here) leaves no desired size. */
export function WritableStreamWriteWouldFill(stream: WritableStreamInternal): boolean {
  const c = stream;
  return c.strategyHWM - c.queueTotalSize - 1 <= 0;
}

/**
 * FP-FUSE with a size() strategy: the destination is idle, so the spec's write computes the chunk's size (user
 * code, which may change anything), enqueues it and processes it at once; the sink is called directly when
 * nothing changed and the size is valid. Otherwise the write goes on as the spec's, with the size already
 * computed (size() is called once per chunk either way), and DIRECT_QUEUED tells the pipe.
 */
function WritableStreamWriteDirectSized(
  stream: WritableStreamInternal,
  chunk: unknown,
  request: WriteRequest,
  writer: WriterInternal,
): DirectWriteResult {
  const c = stream;
  const gate = stream.gate;
  if (gate !== undefined && gate.backpressure) return DIRECT_BUSY; // queued as the spec queues it, not held
  const chunkSize = WritableStreamDefaultControllerGetChunkSize(c, chunk);
  if (
    !(chunkSize >= 0) || chunkSize === Infinity || writer.stream !== stream || stream.state !== WRITABLE ||
    stream.inFlightWriteRequest !== undefined || c.queue.size !== 0 || stream.backpressure ||
    stream.closeRequest !== undefined || stream.inFlightCloseRequest !== undefined ||
    (gate !== undefined && gate.backpressure)
  ) {
    WritableStreamDefaultWriterWriteSized(writer, stream, chunk, chunkSize, request);
    return DIRECT_QUEUED;
  }
  return WritableStreamWriteDirectNow(stream, chunk, chunkSize, request);
}
