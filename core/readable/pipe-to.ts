/**
 * ReadableStreamPipeTo (Streams §4.9.1), promise-light: one persistent read request and write request
 * (the pipe object itself) for the pipe's whole life, chunks already queued in the source are drained in a
 * loop while the destination has no backpressure (FP-PIPE-BATCH), and the writer's `ready` is waited on
 * through an internal hook instead of a promise reaction (FP-PIPE-READY).
 * @module
 */
import { type Deferred, FULFILLED, newDeferred, PENDING, REJECTED, uponPromise } from "../shared/promise.ts";
import { addAbortAlgorithm, signalAbortReason, signalIsAborted } from "../shared/abort-signal.ts";
import { PromisePrototypeThen, PromiseResolve, queueMicrotask } from "../shared/primordials.ts";
import { typeError } from "../shared/webidl.ts";
import {
  AcquireWritableStreamDefaultWriter,
  WritableStreamDefaultWriterCloseWithErrorPropagation,
  WritableStreamDefaultWriterRelease,
} from "../writable/default-writer.ts";
import {
  CLOSED as W_CLOSED,
  ERRORED as W_ERRORED,
  WRITABLE,
  WritableStreamAbort,
  WritableStreamCloseQueuedOrInFlight,
  WritableStreamDefaultWriterWriteInternal,
  type WritableStreamInternal,
  type WriteRequest,
  type WriterInternal,
  type WriterOwner,
} from "../writable/stream-internal.ts";
import {
  DIRECT_GATED,
  DIRECT_OK,
  DIRECT_PENDING,
  DIRECT_QUEUED,
  DIRECT_WAIT,
  type DirectWriteResult,
  WritableStreamDirectWriteObstacle,
  WritableStreamWriteDirect,
  WritableStreamWriteWouldFill,
} from "../fusion/direct-write.ts";
import { HasDirectWriteGate } from "../fusion/gate.ts";
import {
  cancelHeldWrite,
  cancelWriterReady,
  whenGateUnblocks,
  whenWriteDone,
  whenWriterReady,
} from "../fusion/hooks.ts";
import { RecordPipe } from "../fusion/pipe-record.ts";
import {
  AcquireReadableStreamDefaultReader,
  ReadableStreamDefaultReaderRead,
  ReadableStreamReaderRelease,
} from "./reader-ops.ts";
import { AddPullTurnUser, DeferToPullReaction, type PullTurnJob, RemovePullTurnUser } from "./pull-turn.ts";
import {
  CLOSED,
  ERRORED,
  READABLE,
  ReadableStreamAddRequest,
  ReadableStreamCancel,
  type ReadableStreamInternal,
  type ReaderInternal,
  type ReaderOwner,
  type ReadRequest,
} from "./stream-internal.ts";

/** An action of pipeTo's shutdown: performing it gives a promise. */
export type Action = () => Promise<unknown>;

/** The TypeError a pipe's reader and writer are released with (see Pipe.finalize). */
let pipeReleasedError: TypeError | undefined = undefined;

/**
 * A pipe. It owns its reader and writer (ReaderOwner, WriterOwner): instead of reacting to their closed
 * promises, which are never made, it is told when those promises would settle and queues the reaction's job
 * then (FP-LAZY). The job is where the spec's reactions would run: the pipe's two reactions to the reader's
 * closed promise are adjacent jobs of which one does nothing, and a reaction to the writer's closed promise
 * being fulfilled does nothing. The closures the pipe needs while chunks move are made when they first do.
 */
class Pipe implements ReadRequest, WriteRequest, ReaderOwner, WriterOwner, PullTurnJob {
  readonly source: ReadableStreamInternal;
  readonly dest: WritableStreamInternal;
  readonly reader: ReaderInternal;
  readonly writer: WriterInternal;
  readonly preventClose: boolean;
  readonly preventAbort: boolean;
  readonly preventCancel: boolean;
  readonly signal: AbortSignal | undefined;
  /** The promise pipeTo() returns; undefined for pipeThrough(), whose promise nobody can see. */
  readonly result: Deferred<undefined> | undefined;
  shuttingDown = false;
  reading = false;
  inPump = false;
  pendingWrites = 0;
  onWritesFinished: (() => void) | undefined = undefined;
  /** Removes the abort algorithm from the signal ("remove abortAlgorithm from signal" on finalize). */
  removeAbortAlgorithm: (() => void) | undefined = undefined;
  pumpFn: (() => void) | undefined = undefined;
  flushFn: (() => void) | undefined = undefined;
  /**
   * Chunks read but not yet written (at most two): they wait for their microtask (a plain sink is never
   * written inside the producer's enqueue()), or for the destination transform's backpressure to clear.
   */
  waiting = 0;
  waitFirst: unknown = undefined;
  waitSecond: unknown = undefined;
  /** Introspection (core/fusion/inspect.ts): writes handed straight to the sink, writes that took the spec path, why. */
  active = true;
  directWrites = 0;
  specWrites = 0;
  fallback: string | undefined = undefined;

  constructor(
    source: ReadableStreamInternal,
    dest: WritableStreamInternal,
    preventClose: boolean,
    preventAbort: boolean,
    preventCancel: boolean,
    signal: AbortSignal | undefined,
    result: Deferred<undefined> | undefined,
  ) {
    this.source = source;
    this.dest = dest;
    this.reader = AcquireReadableStreamDefaultReader(source, this);
    this.writer = AcquireWritableStreamDefaultWriter(dest, this);
    this.result = result;
    source.disturbed = true;
    this.preventClose = preventClose;
    this.preventAbort = preventAbort;
    this.preventCancel = preventCancel;
    this.signal = signal;
    RecordPipe(dest, this);
    AddPullTurnUser(); // FP-PULL-TURN: pull turns are tracked while this pipe is live (RemovePullTurnUser in finalize)
  }

  start(): void {
    const signal = this.signal;
    if (signal !== undefined) {
      const abortAlgorithm = (): void => {
        const error = signalAbortReason(signal);
        // The spec's set of actions has at most these two members, in this order (no array: nothing goes
        // through Array.prototype or the array iterator, which script can patch).
        const abortDest: Action | undefined = this.preventAbort
          ? undefined
          : () => (this.dest.state === WRITABLE ? WritableStreamAbort(this.dest, error) : PromiseResolve(undefined));
        const cancelSource: Action | undefined = this.preventCancel
          ? undefined
          : () => (this.source.state === READABLE
            ? ReadableStreamCancel(this.source, error)
            : PromiseResolve(undefined));
        this.shutdownWithAnAction(() => waitForAll(abortDest, cancelSource), true, error);
      };
      if (signalIsAborted(signal)) {
        abortAlgorithm();
        return;
      }
      this.removeAbortAlgorithm = addAbortAlgorithm(signal, abortAlgorithm);
    }
    const source = this.source;
    const dest = this.dest;
    // Errors must be propagated forward (later: readerErrored).
    if (source.state === ERRORED) this.onSourceErrored(source.storedError);
    // Errors must be propagated backward (later: writerErrored).
    if (dest.state === W_ERRORED) this.onDestErrored(dest.storedError);
    // Closing must be propagated forward (later: readerClosed).
    if (source.state === CLOSED) this.onSourceClosed();
    // Closing must be propagated backward.
    if (WritableStreamCloseQueuedOrInFlight(dest) || dest.state === W_CLOSED) {
      const destClosed = typeError("The destination writable stream closed before all data could be piped to it");
      if (!this.preventCancel) {
        this.shutdownWithAnAction(() => ReadableStreamCancel(source, destClosed), true, destClosed);
      } else this.shutdown(true, destClosed);
    }
    this.pump();
  }

  // ReaderOwner, WriterOwner: the jobs of the reactions to the reader's and the writer's closed promises.
  readerClosed(): void {
    queueMicrotask(() => this.onSourceClosed());
  }

  readerErrored(e: unknown): void {
    queueMicrotask(() => this.onSourceErrored(e));
  }

  writerErrored(e: unknown): void {
    queueMicrotask(() => this.onDestErrored(e));
  }

  /** The pipe loop as a function, for the hooks that call it back (made once, when first needed). */
  pumpBound(): () => void {
    return this.pumpFn ??= makePump(this);
  }

  /** flush() as a function (made once, when first needed). */
  flushBound(): () => void {
    return this.flushFn ??= makeFlush(this);
  }

  onSourceErrored(storedError: unknown): void {
    if (!this.preventAbort) {
      this.shutdownWithAnAction(() => WritableStreamAbort(this.dest, storedError), true, storedError);
    } else this.shutdown(true, storedError);
  }

  onDestErrored(storedError: unknown): void {
    if (!this.preventCancel) {
      this.shutdownWithAnAction(() => ReadableStreamCancel(this.source, storedError), true, storedError);
    } else this.shutdown(true, storedError);
  }

  onSourceClosed(): void {
    if (!this.preventClose) {
      this.shutdownWithAnAction(
        () => WritableStreamDefaultWriterCloseWithErrorPropagation(this.writer),
        false,
        undefined,
      );
    } else {
      this.shutdown(false, undefined);
    }
  }

  /** The pipe loop: read while the destination is ready, without a promise per chunk. */
  pump(): void {
    if (this.inPump) return;
    this.inPump = true;
    const writer = this.writer;
    // Chunks waiting in the pipe are written first, so that the pipe writes in the order it read.
    while (!this.shuttingDown && !this.reading && this.waiting === 0) {
      const ready = writer.ready.state;
      if (ready === PENDING) {
        whenWriterReady(writer, this.pumpBound()); // FP-PIPE-READY
        break;
      }
      if (ready === REJECTED) break;
      if (this.source.state !== READABLE) break;
      this.reading = true;
      ReadableStreamDefaultReaderRead(this.reader, this); // FP-PIPE-BATCH: resolves synchronously when queued
    }
    this.inPump = false;
  }

  chunkSteps(chunk: unknown): void {
    this.reading = false;
    this.pendingWrites++;
    if (this.inPump) {
      // The chunk was queued: write it as part of the batch (FP-PIPE-BATCH), straight to an idle sink (FP-FUSE).
      this.write(chunk);
      return;
    }
    if (this.waiting === 0 && HasDirectWriteGate(this.dest)) {
      // FP-FUSE: a chunk from the producer's enqueue() goes straight to an idle transform.
      const direct = WritableStreamWriteDirect(this.dest, chunk, this, this.writer);
      if (direct === DIRECT_OK) {
        this.directWrites++;
        this.readFromEnqueue();
        return;
      }
      if (direct === DIRECT_PENDING) {
        this.countDirect(direct);
        this.pump();
        return;
      }
      if (direct === DIRECT_QUEUED) {
        this.countQueued();
        this.readFromEnqueue();
        return;
      }
      if (direct === DIRECT_GATED || direct === DIRECT_WAIT) {
        if (WritableStreamWriteWouldFill(this.dest)) {
          this.wait(chunk);
          this.holdFor(direct);
        } else {
          // Room left in the writable queue: queued as the spec queues it (the transform's write algorithm
          // waits for its backpressure or for the writes ahead; no user code runs here), and the pipe reads on.
          this.specWrite(chunk);
          this.readFromEnqueue();
        }
        return;
      }
    }
    if (this.waiting !== 0) {
      // Behind a chunk already waiting: its flush writes both.
      this.wait(chunk);
      return;
    }
    // A plain sink's write() is never called inside the producer's enqueue() (WPT piping/general-addition):
    // the chunk is written in a microtask, or, inside a source's pull(), in that pull's reaction (FP-PULL-TURN).
    this.wait(chunk);
    DeferToPullReaction(this); // its flush()
    // FP-PULL-TURN: from a transform's readable side, the next read is issued now rather than after the
    // write: the writer's desired size is still what it was when this read was issued, so the spec's pipe
    // may read on, and the transform sees no backpressure flip per chunk. At most one more chunk waits.
    if (this.source.transform !== undefined) this.readFromEnqueue();
  }

  /**
   * FP-FUSE: the next read, issued inside the producer's enqueue() that just handed this pipe a chunk. The
   * source's queue was empty (the chunk went to this pipe's read request) and enqueue() calls
   * ReadableStreamDefaultControllerCallPullIfNeeded next, so the read request is added without the pull check
   * ReadableStreamDefaultReaderRead would make first: the same decision is made once, with the same state.
   */
  readFromEnqueue(): void {
    if (this.shuttingDown || this.writer.ready.state !== FULFILLED) {
      if (this.waiting === 0) this.pump(); // parks on writer.ready, or stops
      return;
    }
    const source = this.source;
    const c = source as { isByte: boolean; queue?: { size: number } };
    if (source.state !== READABLE || c.isByte || (c.queue !== undefined && c.queue.size !== 0)) {
      if (this.waiting === 0) this.pump();
      return;
    }
    this.reading = true;
    ReadableStreamAddRequest(source, this);
  }

  /**
   * FP-FUSE: the spec's write would wait in the transform's writable queue (for its backpressure to clear,
   * or behind earlier writes that fill the queue to its high-water mark), after which the spec's pipe reads
   * no further; the pipe keeps the chunk instead, reads no further either, and writes it when the transform
   * is ready for a direct write. With room left in the queue the chunk is written as the spec writes it, so
   * the pipe reads exactly as far ahead as the spec's (which decides what a source error discards).
   */
  holdFor(direct: DirectWriteResult): void {
    if (direct === DIRECT_GATED) whenGateUnblocks(this.dest, this.flushBound());
    else whenWriteDone(this.dest, this.flushBound());
  }

  /** Whether a chunk WriteDirect could not hand over waits in the pipe (holdFor) rather than in the writer queue. */
  shouldHold(direct: DirectWriteResult): boolean {
    return (direct === DIRECT_GATED || (direct === DIRECT_WAIT && HasDirectWriteGate(this.dest))) &&
      WritableStreamWriteWouldFill(this.dest);
  }

  /** Keeps a chunk the pipe read until its flush (at most two wait). */
  wait(chunk: unknown): void {
    if (this.waiting++ === 0) this.waitFirst = chunk;
    else this.waitSecond = chunk;
  }

  /** Writes a chunk the pipe has read: straight to an idle sink (FP-FUSE), else through the writer. */
  write(chunk: unknown): void {
    const direct = WritableStreamWriteDirect(this.dest, chunk, this, this.writer);
    if (direct === DIRECT_OK || direct === DIRECT_PENDING) {
      this.countDirect(direct);
    } else if (direct === DIRECT_QUEUED) {
      this.countQueued();
    } else if (this.shouldHold(direct)) {
      this.wait(chunk);
      this.holdFor(direct);
    } else {
      this.specWrite(chunk);
    }
  }

  /** Counts a write handed to the sink: fused when it completed synchronously, else it waits for a promise. */
  countDirect(direct: DirectWriteResult): void {
    if (direct === DIRECT_OK) {
      this.directWrites++;
    } else {
      this.specWrites++;
      this.fallback = "the destination's write() or transform() returned a promise";
    }
  }

  /** WritableStreamWriteDirect wrote the chunk through the writer after calling size(): counts as spec. */
  countQueued(): void {
    this.specWrites++;
    this.fallback = WritableStreamDirectWriteObstacle(this.dest);
  }

  /** A write through the writer, as the spec makes it; the reason is kept for inspectPipeChain(). */
  specWrite(chunk: unknown): void {
    const dest = this.dest;
    // Writes queued before the destination's start() finished are not counted: every pipe may make some.
    if (dest.started) {
      this.specWrites++;
      if (dest.state === WRITABLE) this.fallback = WritableStreamDirectWriteObstacle(dest);
    }
    WritableStreamDefaultWriterWriteInternal(this.writer, chunk, this);
  }

  /**
   * Writes the waiting chunks, in order: called in the microtask (or pull reaction) after they arrived, or
   * when the destination transform's backpressure cleared (or it errored).
   */
  flush(): void {
    while (this.waiting !== 0) {
      const chunk = this.waitFirst;
      if (this.writer.stream === undefined) {
        this.dropFirst();
        this.writeSettled();
        continue;
      }
      const direct = WritableStreamWriteDirect(this.dest, chunk, this, this.writer);
      if (this.shouldHold(direct)) {
        this.holdFor(direct);
        return;
      }
      this.dropFirst();
      if (direct === DIRECT_OK || direct === DIRECT_PENDING) this.countDirect(direct);
      else if (direct === DIRECT_QUEUED) this.countQueued();
      else this.specWrite(chunk);
    }
    if (!this.shuttingDown) {
      if (this.writer.ready.state === PENDING) whenWriterReady(this.writer, this.pumpBound()); // FP-PIPE-READY
      else if (!this.reading) this.pump(); // (a pump while a read is pending would do nothing)
    }
  }

  dropFirst(): void {
    this.waitFirst = this.waitSecond;
    this.waitSecond = undefined;
    this.waiting--;
  }

  /**
   * Before shutting down, chunks held for a transform's backpressure go where the spec's writes would already
   * have put them (chunks waiting for their microtask are written by it).
   */
  flushHeld(): void {
    if (this.waiting === 0 || !cancelHeldWrite(this.dest, this.flushFn)) return;
    while (this.waiting !== 0) {
      const chunk = this.waitFirst;
      this.dropFirst();
      // Not counted by inspectPipeChain(): at most two chunks, once, when the pipe stops.
      WritableStreamDefaultWriterWriteInternal(this.writer, chunk, this);
    }
  }

  closeSteps(): void {
    this.reading = false;
  }

  errorSteps(): void {
    this.reading = false;
  }

  // WriteRequest: the pipe only needs to know when every write it made has settled.
  resolve(): void {
    this.writeSettled();
  }

  reject(): void {
    this.writeSettled();
  }

  writeSettled(): void {
    if (--this.pendingWrites === 0) {
      const cb = this.onWritesFinished;
      if (cb !== undefined) {
        this.onWritesFinished = undefined;
        queueMicrotask(cb);
      }
    }
  }

  waitForWritesToFinish(then: () => void): void {
    if (this.pendingWrites === 0) queueMicrotask(then);
    else this.onWritesFinished = then;
  }

  shutdownWithAnAction(action: Action, isError: boolean, originalError: unknown): void {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    this.flushHeld();
    const doTheRest = (): void => {
      let p: Promise<unknown>;
      try {
        p = action();
      } catch (e) {
        this.finalize(true, e);
        return;
      }
      uponPromise(p, () => this.finalize(isError, originalError), (newError: unknown) => this.finalize(true, newError));
    };
    if (this.dest.state === WRITABLE && !WritableStreamCloseQueuedOrInFlight(this.dest)) {
      this.waitForWritesToFinish(doTheRest);
    } else doTheRest();
  }

  shutdown(isError: boolean, error: unknown): void {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    this.flushHeld();
    if (this.dest.state === WRITABLE && !WritableStreamCloseQueuedOrInFlight(this.dest)) {
      this.waitForWritesToFinish(() => this.finalize(isError, error));
    } else {
      this.finalize(isError, error);
    }
  }

  finalize(isError: boolean, error: unknown): void {
    cancelWriterReady(this.writer, this.pumpFn);
    if (this.active) RemovePullTurnUser();
    this.active = false;
    // The pipe's reader and writer are its own: their promises reject only into the pipe's handlers, which
    // ignore them once shutting down, so one TypeError made once stands for the ones release would make.
    const released = pipeReleasedError ??= typeError("The pipe released its lock");
    WritableStreamDefaultWriterRelease(this.writer, released);
    ReadableStreamReaderRelease(this.reader, released);
    const removeAbortAlgorithm = this.removeAbortAlgorithm;
    if (removeAbortAlgorithm !== undefined) {
      this.removeAbortAlgorithm = undefined;
      removeAbortAlgorithm();
    }
    const result = this.result;
    if (result === undefined) return;
    if (isError) result.reject(error);
    else result.resolve(undefined);
  }
}

// Closures are made by these functions: one made inside a method would cost that method a context on every call.
function makePump(pipe: Pipe): () => void {
  return () => pipe.pump();
}

function makeFlush(pipe: Pipe): () => void {
  return () => pipe.flush();
}

/**
 * The destination of `owner` when it is one of our pipes (a reader's owner) that is not shutting down: a chunk its
 * read request gets reaches that writable stream or is dropped. Else undefined. For FP-ENCODE-LEND.
 */
export function LivePipeDestination(owner: unknown): WritableStreamInternal | undefined {
  return owner instanceof Pipe && !owner.shuttingDown ? owner.dest : undefined;
}

/** "Getting a promise to wait for all" of the actions (each may be absent), without Promise.all. */
export function waitForAll(first: Action | undefined, second: Action | undefined): Promise<unknown> {
  const d = newDeferred<undefined>();
  let remaining = (first === undefined ? 0 : 1) + (second === undefined ? 0 : 1);
  if (remaining === 0) {
    d.resolve(undefined);
    return d.promise;
  }
  let rejected = false;
  const onFulfilled = (): void => {
    if (--remaining === 0 && !rejected) d.resolve(undefined);
  };
  const onRejected = (e: unknown): void => {
    if (!rejected) {
      rejected = true;
      d.reject(e);
    }
  };
  if (first !== undefined) PromisePrototypeThen(first(), onFulfilled, onRejected);
  if (second !== undefined) PromisePrototypeThen(second(), onFulfilled, onRejected);
  return d.promise;
}

/**
 * ReadableStreamPipeTo(source, dest, preventClose, preventAbort, preventCancel, signal). With `promise` false
 * (pipeThrough(), which marks the promise handled and drops it) no user code can see the promise: none is made.
 */
export function ReadableStreamPipeTo(
  source: ReadableStreamInternal,
  dest: WritableStreamInternal,
  preventClose: boolean,
  preventAbort: boolean,
  preventCancel: boolean,
  signal: AbortSignal | undefined,
  promise = true,
): Promise<undefined> | undefined {
  const result = promise ? newDeferred<undefined>() : undefined;
  new Pipe(source, dest, preventClose, preventAbort, preventCancel, signal, result).start();
  return result?.promise;
}
