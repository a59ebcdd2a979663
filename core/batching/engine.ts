/**
 * Batched reads of a fusestreams ReadableStream, for `readMany()`, `batches()`, the consumers of
 * core/consumers/ and the runtime adapters (through core/batching/batch-reader.ts).
 *
 * A batch read takes every chunk queued now, in one step, as that many `read()` calls made back to back would
 * (each dequeue runs the same close and pull-if-needed steps). When nothing is queued it waits like a `read()`
 * (a read request that takes the next chunk), and, while a source's synchronous `pull()` calls follow one
 * another (one per pull reaction job), keeps collecting the chunk each of them delivers before it answers
 * (FP-BATCH-HOLD, core/README.md): the source sees what a read loop would show it. On a reader no user code can
 * reach, a batch answered outside a pull() (a push source's first chunk of a burst) also takes, in the job right
 * before its consumer's, what was enqueued after that chunk (FP-BATCH-BURST).
 * @module
 */
import { MathFloor, NativeArray, NativePromise, PromiseReject } from "../shared/primordials.ts";
import { newPendingPromise, pendingReject, pendingResolve, SHARED_EXECUTOR } from "../shared/promise.ts";
import type { AlgorithmResult } from "../shared/promise.ts";
import { JobQueue } from "../shared/jobs.ts";
import type { ByteControllerInternal } from "../readable/byte-controller.ts";
import type { DefaultControllerInternal } from "../readable/default-controller.ts";
import { NO_SOURCE_ALGORITHMS, type SourceAlgorithms } from "../readable/source-algorithms.ts";
import {
  CLOSED,
  ERRORED,
  NO_CHUNK,
  READABLE,
  type ReadableStreamInternal,
  type ReaderInternal,
  type ReadRequest,
} from "../readable/stream-internal.ts";

/** What a batch read gives once the stream has closed and every chunk has been read. */
export const BATCH_DONE: unique symbol = Symbol("end of stream");

/** The chunks of one batch (at least one), or BATCH_DONE. */
export type BatchResult = unknown[] | typeof BATCH_DONE;

/**
 * How a batch read answers: the value a waiting read's promise is resolved with is the caller's own result
 * object, so the caller hands that promise on as it is and its consumer runs in the job right after the answer
 * (an extra reaction would let the pull reaction that follows run first and leave the consumer a chunk behind).
 */
export interface BatchAnswer<R> {
  /**
   * The answer for `held`, one or more chunks. The answer must hold the array itself and not read it yet: a batch
   * answered outside a pull() may still take chunks (and have its length set) in the job before its consumer's
   * reaction (FP-BATCH-BURST).
   */
  chunks(held: unknown[]): R;
  /** The answer once the stream has closed (the reader may be released here). */
  end(): R;
  /** Called before a batch read rejects with `e` (the reader may be released here). */
  error(e: unknown): void;
  /**
   * Whether a waiting batch read that has just taken `chunk` from a synchronous pull() may wait for more
   * (FP-BATCH-HOLD): a consumer with a budget (a Node.js Readable's high-water mark) says no once it is spent.
   * Absent: up to BATCH_HOLD_LIMIT chunks.
   */
  hold?(chunk: unknown): boolean;
}

function ignore(): void {}

/** Answers with the chunks themselves, and BATCH_DONE at the end. */
export const RAW_BATCH_ANSWER: BatchAnswer<BatchResult> = {
  chunks: (held) => held,
  end: () => BATCH_DONE,
  error: ignore,
};

/**
 * The most chunks a waiting batch read collects from a synchronous pull() chain before it answers: bounds the
 * memory a batch holds and how long the consumer waits (the chain runs in microtasks, one chunk per job).
 */
export const BATCH_HOLD_LIMIT = 64;

/**
 * FP-BATCH-TAKE: takes every chunk queued in the stream `controller` controls, each with the steps a `read()` that finds it
 * queued runs (ReadableStreamDefaultControllerPullSteps / ReadableByteStreamControllerPullSteps), or returns
 * undefined when none is queued. A synchronous pull() called by those steps may enqueue more: they are taken too.
 */
export function ReadableStreamTakeQueued(controller: ReadableStreamInternal): unknown[] | undefined {
  const chunk = controller.readSync();
  if (chunk === NO_CHUNK) return undefined;
  // Made for what a default stream has queued now (its queue exists once a chunk was read from it).
  const batch = new NativeArray(controller.isByte ? 1 : (controller as DefaultControllerInternal).queue!.size + 1);
  batch[0] = chunk;
  const count = ReadableStreamTakeQueuedInto(controller, batch, 1);
  if (count !== batch.length) batch.length = count;
  return batch;
}

/**
 * ReadableStreamTakeQueued, writing into `batch` from index `at`; returns the index after the last chunk.
 *
 * On a default stream without a size() strategy, a dequeue that leaves the desired size at or below zero with no
 * read waiting and chunks still queued runs no step but the dequeue: ShouldCallPull is false, so CallPullIfNeeded
 * returns at once, and the close waits for the last chunk. Those dequeues (the first ones, when more than the
 * high-water mark is queued) are made without them.
 */
function ReadableStreamTakeQueuedInto(controller: ReadableStreamInternal, batch: unknown[], at: number): number {
  if (!controller.isByte) {
    const c = controller as DefaultControllerInternal;
    const queue = c.queue;
    const total = c.queueTotalSize;
    if (queue !== undefined && total > c.strategyHWM && c.ext?.sized === undefined && c.reader?.size === 0) {
      let n = MathFloor(total - c.strategyHWM);
      if (n >= total) n = total - 1;
      c.queueTotalSize = total - n;
      while (n-- > 0) batch[at++] = queue.shift();
    }
  }
  let chunk;
  while ((chunk = controller.readSync()) !== NO_CHUNK) batch[at++] = chunk;
  return at;
}

/**
 * The state a batch reader keeps across its batch reads when no user code can reach its reader (batches(), the
 * consumers, the helpers, the adapters): only batch reads are made on such a reader, one at a time, so a batch
 * answered outside a pull() may take what is queued right after it (FP-BATCH-BURST).
 */
export interface BatchSession {
  /** The batch read whose burst job may still add chunks; any later batch read clears it. */
  burst: object | undefined;
  /** Whether the last burst job took chunks: the next batch answered outside a pull() is made with room for more. */
  wide: boolean;
}

/**
 * A batch read from a default reader: `answer`'s value for the chunks queued now (synchronously), for the end
 * when the stream is closed, or a promise of either when it has to wait; a promise rejected with the stored
 * error when it is errored. The reader must hold a stream (the caller checks for a released reader). `session`:
 * given when the reader is one no user code can reach, and only batch reads are made on it (FP-BATCH-BURST).
 */
export function ReadableStreamDefaultReaderReadBatch<R>(
  reader: ReaderInternal,
  answer: BatchAnswer<R>,
  session?: BatchSession,
): R | Promise<R> {
  if (session !== undefined) session.burst = undefined; // a burst job still queued must not add to an earlier batch
  const stream = reader.stream!;
  stream.disturbed = true;
  const state = stream.state;
  if (state === CLOSED) return answer.end();
  if (state === ERRORED) {
    const e = stream.storedError;
    answer.error(e);
    return PromiseReject(e);
  }
  const controller = stream; // the stream is its own controller
  // With reads waiting, nothing is queued: this read waits behind them.
  if (reader.size === 0) {
    const queued = ReadableStreamTakeQueued(controller);
    if (queued !== undefined) return answer.chunks(queued);
  }
  const request = new BatchReadRequest<R>(reader, controller, answer, session);
  // Only the first read waiting holds chunks, one at a time; not from a source without pull() (nothing comes
  // inside a pull()), nor on a byte stream with autoAllocateChunkSize (its read requests come with a pull-into
  // descriptor, which a read cannot leave behind).
  const c = controller as DefaultControllerInternal | ByteControllerInternal;
  const source = c.algorithms;
  if (
    reader.size === 0 && source !== undefined && !(source instanceof BatchReadRequest) &&
    source !== NO_SOURCE_ALGORITHMS &&
    !(source === c && c.pullFn === undefined) && !(c.isByte && c.ext?.autoAllocateChunkSize !== undefined)
  ) {
    request.watch(c, source);
  }
  controller.pullStepsEmpty(request);
  return request.promise;
}

/** The burst jobs of batch reads (FP-BATCH-BURST). */
const burstJobs: JobQueue<{ takeBurst(): void }> = new JobQueue(() => burstJobs.shift().takeBurst());

function hasQueuedChunk(c: DefaultControllerInternal | ByteControllerInternal): boolean {
  if (c.isByte) return c.queueTotalSize > 0;
  const queue = c.queue;
  return queue !== undefined && queue.size > 0;
}

/**
 * The read request of a batch read that waits. Outside a pull() of its stream, it answers with the chunk it is
 * given, as a read request does.
 *
 * FP-BATCH-HOLD: when it is the first read waiting, it stands in for its controller's pull algorithm while it
 * waits (`watch()`), to see each pull() start and return. Given a chunk inside a pull(), it keeps the chunk and
 * decides when that pull() returns: if the pull() was synchronous, nothing else is queued, no other read waits
 * and fewer than BATCH_HOLD_LIMIT chunks are held, it takes its place again as the first waiting read (what a
 * read loop's next `read()` does, in the job its read's fulfillment queued, before the pull reaction runs);
 * otherwise it answers with the chunks held. A pull() that returns without giving it a chunk while it holds
 * some (the source has nothing more for now) makes it answer too, and so do the stream's close and error
 * (held chunks first; the end is seen by the next read).
 *
 * FP-BATCH-BURST: with a session (a reader no user code can reach), a chunk given outside a pull() is answered
 * with at once, and a burst job queued just before the answer adds what is queued by the time it runs.
 */
class BatchReadRequest<R> implements ReadRequest, SourceAlgorithms {
  readonly promise: Promise<R>;
  readonly #reader: ReaderInternal;
  readonly #controller: ReadableStreamInternal;
  readonly #answer: BatchAnswer<R>;
  readonly #session: BatchSession | undefined;
  #resolve: ((v: R) => void) | undefined = undefined;
  #reject: ((e: unknown) => void) | undefined = undefined;
  /**
   * The chunks taken and not yet answered with (the first `#count` slots): made for BATCH_HOLD_LIMIT chunks
   * when the first comes inside a pull() (a chain that may go on), else for the one chunk.
   */
  #held: unknown[] | undefined = undefined;
  #count = 0;
  /** In the reader's list of read requests. */
  #waiting = true;
  /** The controller's pull algorithm this request stands in for while it waits (FP-BATCH-HOLD). */
  #source: SourceAlgorithms | undefined = undefined;
  #inPull = false;
  /** Took a chunk during the pull() that is running. */
  #tookInPull = false;
  /** FP-BATCH-BURST: the chunks it answered with (the first `#burstCount` slots), until its burst job has run. */
  #burst: unknown[] | undefined = undefined;
  #burstCount = 0;

  constructor(
    reader: ReaderInternal,
    controller: ReadableStreamInternal,
    answer: BatchAnswer<R>,
    session: BatchSession | undefined,
  ) {
    this.#reader = reader;
    this.#controller = controller;
    this.#answer = answer;
    this.#session = session;
    if (SHARED_EXECUTOR) {
      this.promise = newPendingPromise<R>();
      this.#resolve = pendingResolve;
      this.#reject = pendingReject;
    } else {
      this.promise = new NativePromise<R>((res, rej) => {
        this.#resolve = res;
        this.#reject = rej;
      });
    }
  }

  /** Stands in for `c`'s source algorithms until this read answers (FP-BATCH-HOLD). */
  watch(c: DefaultControllerInternal | ByteControllerInternal, source: SourceAlgorithms): void {
    this.#source = source;
    c.algorithms = this;
  }

  /** The pull algorithm: the source's, watched. */
  pull(): AlgorithmResult {
    this.#inPull = true;
    let result: AlgorithmResult;
    try {
      result = this.#source!.pull();
    } finally {
      this.#inPull = false;
    }
    if (this.#tookInPull) {
      // It took a chunk in this pull(): hold on if the pull() returned synchronously (its reaction is queued next).
      this.#tookInPull = false;
      if (result !== undefined || !this.#holdOn()) this.#answerHeld();
    } else if (this.#held !== undefined) {
      this.#pullGaveNothing();
    }
    return result;
  }

  /** The cancel algorithm: the source's. */
  cancel(reason: unknown): AlgorithmResult {
    return this.#source!.cancel(reason);
  }

  chunkSteps(chunk: unknown): void {
    this.#waiting = false;
    const session = this.#session;
    const held = this.#held;
    if (held !== undefined) {
      held[this.#count] = chunk;
    } else if (this.#inPull || (session !== undefined && session.wide)) {
      // a pull() chain that may go on, or a burst like the last one: room for the chunks that may follow
      (this.#held = new NativeArray(BATCH_HOLD_LIMIT))[0] = chunk;
    } else {
      this.#held = [chunk];
    }
    this.#count++;
    if (this.#inPull) {
      this.#tookInPull = true; // decided when pull() returns
      return;
    }
    if (session === undefined) {
      this.#answerHeld();
      return;
    }
    // FP-BATCH-BURST: the burst job is queued right before the consumer's reaction to the answer (nothing runs
    // between them), so it takes the queued chunks where the consumer's next batch read would take them, and no
    // other read can come first on this reader; the array answered with is seen by nobody before that reaction.
    session.burst = this;
    const burst = this.#burst = this.#held!;
    this.#burstCount = this.#count;
    this.#held = undefined;
    this.#count = 0;
    burstJobs.queue(this);
    this.#settle(burst, undefined, 0);
  }

  /**
   * FP-BATCH-BURST, the burst job: adds to the chunks answered (the array the answer holds, which its consumer
   * has not seen yet: its reaction is the next job) every chunk queued since, each taken as a read() would
   * take it (FP-BATCH-TAKE); nothing when another batch read has been made or the reader was released.
   */
  takeBurst(): void {
    const burst = this.#burst!;
    this.#burst = undefined;
    let count = this.#burstCount;
    const session = this.#session!;
    if (session.burst === this) {
      session.burst = undefined;
      const stream = this.#reader.stream;
      if (stream !== undefined) count = ReadableStreamTakeQueuedInto(stream, burst, count);
      session.wide = count > 1;
    }
    if (burst.length !== count) burst.length = count;
  }

  closeSteps(): void {
    this.#waiting = false;
    if (this.#held !== undefined) this.#answerHeld();
    else this.#settle(undefined, undefined, 1);
  }

  errorSteps(e: unknown): void {
    this.#waiting = false;
    // Chunks already taken are delivered; the next read sees the error (or the released reader).
    if (this.#held !== undefined) this.#answerHeld();
    else this.#settle(undefined, e, 2);
  }

  /**
   * FP-BATCH-HOLD: after a synchronous pull() that gave it a chunk, goes back into the reader's list as the first
   * waiting read if nothing else is queued or waiting, the stream is readable and the limits allow; whether it did.
   */
  #holdOn(): boolean {
    const count = this.#count;
    const reader = this.#reader;
    const controller = this.#controller as DefaultControllerInternal | ByteControllerInternal;
    if (
      count >= BATCH_HOLD_LIMIT || reader.stream === undefined || controller.state !== READABLE || reader.size !== 0 ||
      hasQueuedChunk(controller)
    ) {
      return false;
    }
    const hold = this.#answer.hold;
    if (hold !== undefined && !hold(this.#held![count - 1])) return false;
    // The read a read loop makes next, now instead of in the job queued when its read was fulfilled: both come
    // before the pull reaction job queued next, and the source cannot tell them apart.
    this.#waiting = true;
    controller.pullStepsEmpty(this);
    return true;
  }

  /** A pull() returned without giving it a chunk while it holds some: it answers with those. */
  #pullGaveNothing(): void {
    // Waiting again: it went back into an empty list, so it is still the first waiting read.
    if (this.#waiting) {
      this.#reader.shift();
      this.#waiting = false;
    }
    this.#answerHeld();
  }

  #answerHeld(): void {
    const held = this.#held!;
    this.#held = undefined;
    if (held.length !== this.#count) held.length = this.#count;
    this.#count = 0;
    this.#settle(held, undefined, 0);
  }

  /** Settles the promise: with the answer for `held` (how 0), for the end (1), or rejected with `error` (2). */
  #settle(held: unknown[] | undefined, error: unknown, how: 0 | 1 | 2): void {
    const source = this.#source;
    if (source !== undefined) {
      this.#source = undefined;
      const c = this.#controller as DefaultControllerInternal | ByteControllerInternal;
      if (c.algorithms === this) c.algorithms = source; // not when the controller has cleared its algorithms
    }
    const resolve = this.#resolve!;
    const reject = this.#reject!;
    this.#resolve = this.#reject = undefined;
    const answer = this.#answer;
    if (how === 0) {
      resolve(answer.chunks(held!));
    } else if (how === 1) {
      resolve(answer.end());
    } else {
      answer.error(error);
      reject(error);
    }
  }
}
