/**
 * The internal state of a WritableStream and its abstract operations (Streams §5.5.1 and §5.5.2),
 * with the writer's and controller's internal state. Public classes wrap these objects.
 * @module
 */
import {
  type AlgorithmResult,
  type Deferred,
  EXTERNAL_START,
  invokeChunkCallback,
  invokePromiseCallback,
  invokePromiseCallback2,
  LazyPromise,
  newDeferred,
  PENDING,
  promiseResolvedWith,
  REUSE_ARGUMENT_LISTS,
  uponAlgorithm,
} from "../shared/promise.ts";
import {
  type Callable,
  NativeAbortController,
  PromisePrototypeThen,
  PromiseReject,
  PromiseResolve,
  queueMicrotask,
  ReflectApply,
} from "../shared/primordials.ts";
import { JobQueue } from "../shared/jobs.ts";
import { RingQueue } from "../shared/queue.ts";
import { rangeError, typeError } from "../shared/webidl.ts";
import type { SizeAlgorithm } from "../strategies/extract.ts";
import type { PromiseWriteRequest } from "./default-writer.ts";
import type { DirectWriteGate } from "../fusion/gate.ts";
import { WriteDoneSettled, WriterReadySettled } from "../fusion/hooks.ts";
import { IsFusedTransformWrite, type PipeRecord } from "../fusion/pipe-record.ts";

export const WRITABLE = 0;
export const CLOSED = 1;
export const ERRORING = 2;
export const ERRORED = 3;

/** A pending write: settled when the sink finishes it. */
export interface WriteRequest {
  resolve(): void;
  reject(e: unknown): void;
}

/**
 * What an internal write algorithm returns instead of a promise when it will hand its result to
 * WritableStreamUponWrite itself, later (TransformStream's write waiting on backpressure, FP-TS-WRITE). Never
 * reaches user code.
 */
export const WRITE_PENDING: Promise<unknown> = Object.freeze(Object.create(null)) as Promise<unknown>;

/** The sink algorithms: write, close and abort (SetUpWritableStreamDefaultController). */
export interface SinkAlgorithms {
  write(chunk: unknown): AlgorithmResult;
  close(): AlgorithmResult;
  abort(reason: unknown): AlgorithmResult;
}

export interface PendingAbortRequest {
  deferred: Deferred<undefined>;
  reason: unknown;
  wasAlreadyErroring: boolean;
}

/**
 * An internal producer (a pipe) that owns a writer no user code can reach: it is told when the writer's
 * [[closedPromise]] would be rejected, and that promise is never made (FP-LAZY).
 */
export interface WriterOwner {
  /** The writer's [[closedPromise]] would be rejected with `e` now. */
  writerErrored(e: unknown): void;
}

/** Internal state of a WritableStreamDefaultWriter. */
export class WriterInternal {
  stream: WritableStreamInternal | undefined = undefined;
  readonly ready: LazyPromise = new LazyPromise();
  /** [[closedPromise]]; undefined for a writer with an owner, which is told instead. */
  readonly closed: LazyPromise | undefined;
  /** The writer-ready hook slot (core/fusion/hooks.ts, FP-PIPE-READY). */
  onReady: (() => void) | undefined = undefined;
  /** The write request `write()` arms when it is not waiting (FP-OWN-REQUEST). */
  ownRequest: PromiseWriteRequest | undefined = undefined;
  readonly owner: WriterOwner | undefined;

  constructor(owner: WriterOwner | undefined) {
    this.owner = owner;
    this.closed = owner === undefined ? new LazyPromise() : undefined;
  }
}

const CLOSE_SENTINEL = Symbol("close");

/** Makes the public controller of `c` (registered by writable/default-controller.ts, which imports this module). */
let createPublicController: (c: WritableStreamInternal) => object;

/** Registers the factory of public WritableStreamDefaultController objects. */
export function registerWritableControllerFactory(create: (c: WritableStreamInternal) => object): void {
  createPublicController = create;
}

/** The public controller handed to the sink's callbacks, made on first use (FP-LAZY). */
export function WritableControllerPublic(c: WritableStreamInternal): object {
  return c.pub ??= createPublicController(c);
}

// Captured at load: script may patch AbortController.prototype later.
const abortFn = NativeAbortController.prototype.abort;
const signalGetter = Object.getOwnPropertyDescriptor(NativeAbortController.prototype, "signal")!.get!;

/**
 * Slots of a writable stream that most streams never use, made on first use (FP-LAZY): the pending abort request,
 * the controller's abort state and AbortController, the reaction to a sink write() that rejects, Bun's reused
 * write() argument list, and a size() strategy's algorithm and chunk sizes.
 */
export class WritableStreamExtras {
  pendingAbortRequest: PendingAbortRequest | undefined = undefined;
  abortController: AbortController | undefined = undefined;
  abortReason: unknown = undefined;
  aborted = false;
  onWriteRejected: ((e: unknown) => void) | undefined = undefined;
  writeArgs: unknown[] | undefined = undefined;
  /** [[strategySizeAlgorithm]] when the strategy has a size() (undefined once cleared). */
  strategySizeAlgorithm: SizeAlgorithm | undefined = undefined;
  /** The sizes of the queued chunks, kept once a chunk was written with a size() strategy. */
  sizes: RingQueue<number> | undefined = undefined;
  /** Called once when the stream closes or errors (core/stream-state.ts, for runtime adapters). */
  onSettled: (() => void) | undefined = undefined;
}

/** The [[queue]] of every writable stream that has not queued anything yet (FP-LAZY); never pushed to. */
const EMPTY_QUEUE: RingQueue<unknown> = new RingQueue();

/**
 * Internal state of a WritableStream (§5.2.2) and of its WritableStreamDefaultController (§5.4.2), in one
 * object: the spec's `stream.[[controller]]` and `controller.[[stream]]` are the object itself. For a stream
 * made by `new WritableStream(sink)` it also holds the converted UnderlyingSink members and is itself the sink
 * algorithms object (`algorithms` is the stream): one object per stream instead of a stream, a controller and
 * an algorithms object.
 */
export class WritableStreamInternal implements SinkAlgorithms {
  state: number = WRITABLE;
  storedError: unknown = undefined;
  writer: WriterInternal | undefined = undefined;
  inFlightWriteRequest: WriteRequest | undefined = undefined;
  closeRequest: Deferred<undefined> | undefined = undefined;
  inFlightCloseRequest: Deferred<undefined> | undefined = undefined;
  /** [[writeRequests]]; allocated on first push (FP-LAZY). */
  writeRequests: RingQueue<WriteRequest> | undefined = undefined;
  backpressure = false;
  /** A TransformStream's writable side: its gate (core/fusion/gate.ts, FP-FUSE). */
  gate: DirectWriteGate | undefined = undefined;
  /** The write-done hook slot (core/fusion/hooks.ts, FP-FUSE after DIRECT_WAIT). */
  onWriteDone: (() => void) | undefined = undefined;
  /** The last pipe that wrote into this stream (core/fusion/pipe-record.ts). */
  pipe: PipeRecord | undefined = undefined;
  ext: WritableStreamExtras | undefined = undefined;
  // The controller's slots.
  /** [[queue]]: EMPTY_QUEUE until something is queued (WritableStreamQueueForPush). */
  queue: RingQueue<unknown> = EMPTY_QUEUE;
  queueTotalSize = 0;
  started = false;
  strategyHWM = 1;
  hasSizeAlgorithm = false;
  algorithms: SinkAlgorithms | undefined = undefined;
  pub: object | undefined = undefined;
  onWriteFulfilled: (() => void) | undefined = undefined;
  /** The underlying sink and its converted members (SetUpWritableStreamDefaultControllerFromUnderlyingSink). */
  sink: unknown = undefined;
  abortFn: Callable | undefined = undefined;
  closeFn: Callable | undefined = undefined;
  writeFn: Callable | undefined = undefined;

  /** The sink's write algorithm: calls `write(chunk, controller)`. */
  write(chunk: unknown): AlgorithmResult {
    const fn = this.writeFn;
    if (fn === undefined) return undefined;
    const pub = this.pub ??= createPublicController(this);
    if (!REUSE_ARGUMENT_LISTS) return invokePromiseCallback2(fn, this.sink, chunk, pub);
    const ext = this.ext ??= new WritableStreamExtras();
    const args = ext.writeArgs ??= [undefined, pub];
    args[0] = chunk;
    const result = invokeChunkCallback(fn, this.sink, args);
    args[0] = undefined;
    return result;
  }

  /** The sink's close algorithm: calls `close()`. */
  close(): AlgorithmResult {
    const fn = this.closeFn;
    return fn === undefined ? undefined : invokePromiseCallback(fn, this.sink, []);
  }

  /** The sink's abort algorithm: calls `abort(reason)`. */
  abort(reason: unknown): AlgorithmResult {
    const fn = this.abortFn;
    return fn === undefined ? undefined : invokePromiseCallback(fn, this.sink, [reason]);
  }

  /** The controller's AbortSignal, created on first use (FP-LAZY). */
  get signal(): AbortSignal {
    const ext = this.ext ??= new WritableStreamExtras();
    let ac = ext.abortController;
    if (ac === undefined) {
      ac = ext.abortController = new NativeAbortController();
      if (ext.aborted) ReflectApply(abortFn, ac, [ext.abortReason]);
    }
    return ReflectApply(signalGetter, ac, []) as AbortSignal;
  }

  signalAbort(reason: unknown): void {
    const ext = this.ext ??= new WritableStreamExtras();
    if (ext.aborted) return;
    ext.aborted = true;
    ext.abortReason = reason;
    const ac = ext.abortController;
    if (ac !== undefined) ReflectApply(abortFn, ac, [reason]);
  }
}

/** The [[queue]] of `c`, to push to: made by the first push (FP-LAZY). */
export function WritableStreamQueueForPush(c: WritableStreamInternal): RingQueue<unknown> {
  const queue = c.queue;
  return queue !== EMPTY_QUEUE ? queue : (c.queue = new RingQueue());
}

export function IsWritableStreamLocked(stream: WritableStreamInternal): boolean {
  return stream.writer !== undefined;
}

/** WritableStreamAbort(stream, reason). */
export function WritableStreamAbort(stream: WritableStreamInternal, reason: unknown): Promise<undefined> {
  if (stream.state === CLOSED || stream.state === ERRORED) return PromiseResolve(undefined);
  stream.signalAbort(reason);
  const state = stream.state;
  if (state === CLOSED || state === ERRORED) return PromiseResolve(undefined);
  const pending = stream.ext?.pendingAbortRequest;
  if (pending !== undefined) return pending.deferred.promise;
  let wasAlreadyErroring = false;
  if (state === ERRORING) {
    wasAlreadyErroring = true;
    reason = undefined;
  }
  const deferred = newDeferred<undefined>();
  (stream.ext ??= new WritableStreamExtras()).pendingAbortRequest = { deferred, reason, wasAlreadyErroring };
  if (!wasAlreadyErroring) WritableStreamStartErroring(stream, reason);
  return deferred.promise;
}

/** WritableStreamClose(stream). */
export function WritableStreamClose(stream: WritableStreamInternal): Promise<undefined> {
  const state = stream.state;
  if (state === CLOSED || state === ERRORED) {
    return PromiseReject(typeError("The stream is closed or errored and cannot be closed"));
  }
  const deferred = newDeferred<undefined>();
  stream.closeRequest = deferred;
  const writer = stream.writer;
  if (writer !== undefined && stream.backpressure && state === WRITABLE) resolveReady(writer);
  WritableStreamDefaultControllerClose(stream);
  return deferred.promise;
}

function resolveReady(writer: WriterInternal): void {
  writer.ready.resolve();
  WriterReadySettled(writer); // FP-PIPE-READY
}

/** WritableStreamDealWithRejection(stream, error). */
export function WritableStreamDealWithRejection(stream: WritableStreamInternal, error: unknown): void {
  if (stream.state === WRITABLE) {
    WritableStreamStartErroring(stream, error);
    return;
  }
  WritableStreamFinishErroring(stream);
}

/** WritableStreamStartErroring(stream, reason). */
export function WritableStreamStartErroring(stream: WritableStreamInternal, reason: unknown): void {
  stream.state = ERRORING;
  stream.storedError = reason;
  const writer = stream.writer;
  if (writer !== undefined) WritableStreamDefaultWriterEnsureReadyPromiseRejected(writer, reason);
  if (!WritableStreamHasOperationMarkedInFlight(stream) && stream.started) WritableStreamFinishErroring(stream);
}

/** WritableStreamFinishErroring(stream). */
export function WritableStreamFinishErroring(stream: WritableStreamInternal): void {
  stream.state = ERRORED;
  const controller = stream;
  controller.queue.clear(); // [[ErrorSteps]]: ResetQueue
  const ext = stream.ext;
  ext?.sizes?.clear();
  controller.queueTotalSize = 0;
  const storedError = stream.storedError;
  const requests = stream.writeRequests;
  if (requests !== undefined && requests.size > 0) {
    stream.writeRequests = undefined;
    while (requests.size > 0) requests.shift().reject(storedError);
  }
  const abortRequest = ext?.pendingAbortRequest;
  if (abortRequest === undefined) {
    WritableStreamRejectCloseAndClosedPromiseIfNeeded(stream);
    return;
  }
  ext!.pendingAbortRequest = undefined;
  if (abortRequest.wasAlreadyErroring) {
    abortRequest.deferred.reject(storedError);
    WritableStreamRejectCloseAndClosedPromiseIfNeeded(stream);
    return;
  }
  // [[AbortSteps]](reason)
  const result = controller.algorithms!.abort(abortRequest.reason);
  WritableStreamDefaultControllerClearAlgorithms(controller);
  uponAlgorithm(
    result,
    () => {
      abortRequest.deferred.resolve(undefined);
      WritableStreamRejectCloseAndClosedPromiseIfNeeded(stream);
    },
    (reason: unknown) => {
      abortRequest.deferred.reject(reason);
      WritableStreamRejectCloseAndClosedPromiseIfNeeded(stream);
    },
  );
}

/** WritableStreamFinishInFlightWrite(stream). */
function WritableStreamFinishInFlightWrite(stream: WritableStreamInternal): void {
  const request = stream.inFlightWriteRequest!;
  stream.inFlightWriteRequest = undefined;
  request.resolve();
}

/** WritableStreamFinishInFlightWriteWithError(stream, error). */
function WritableStreamFinishInFlightWriteWithError(stream: WritableStreamInternal, error: unknown): void {
  const request = stream.inFlightWriteRequest!;
  stream.inFlightWriteRequest = undefined;
  request.reject(error);
  WritableStreamDealWithRejection(stream, error);
}

/** WritableStreamFinishInFlightClose(stream). */
function WritableStreamFinishInFlightClose(stream: WritableStreamInternal): void {
  stream.inFlightCloseRequest!.resolve(undefined);
  stream.inFlightCloseRequest = undefined;
  if (stream.state === ERRORING) {
    stream.storedError = undefined;
    const ext = stream.ext;
    const abortRequest = ext?.pendingAbortRequest;
    if (abortRequest !== undefined) {
      abortRequest.deferred.resolve(undefined);
      ext!.pendingAbortRequest = undefined;
    }
  }
  stream.state = CLOSED;
  if (stream.ext?.onSettled !== undefined) WritableStreamNotifySettled(stream);
  const writer = stream.writer;
  if (writer !== undefined) writer.closed?.resolve(); // an owner has nothing to do on fulfillment
}

/** WritableStreamFinishInFlightCloseWithError(stream, error). */
function WritableStreamFinishInFlightCloseWithError(stream: WritableStreamInternal, error: unknown): void {
  stream.inFlightCloseRequest!.reject(error);
  stream.inFlightCloseRequest = undefined;
  const ext = stream.ext;
  const abortRequest = ext?.pendingAbortRequest;
  if (abortRequest !== undefined) {
    abortRequest.deferred.reject(error);
    ext!.pendingAbortRequest = undefined;
  }
  WritableStreamDealWithRejection(stream, error);
}

/** WritableStreamCloseQueuedOrInFlight(stream). */
export function WritableStreamCloseQueuedOrInFlight(stream: WritableStreamInternal): boolean {
  return stream.closeRequest !== undefined || stream.inFlightCloseRequest !== undefined;
}

/** WritableStreamHasOperationMarkedInFlight(stream). */
function WritableStreamHasOperationMarkedInFlight(stream: WritableStreamInternal): boolean {
  return stream.inFlightWriteRequest !== undefined || stream.inFlightCloseRequest !== undefined;
}

/** WritableStreamRejectCloseAndClosedPromiseIfNeeded(stream). */
function WritableStreamRejectCloseAndClosedPromiseIfNeeded(stream: WritableStreamInternal): void {
  if (stream.closeRequest !== undefined) {
    stream.closeRequest.reject(stream.storedError);
    stream.closeRequest = undefined;
  }
  if (stream.ext?.onSettled !== undefined) WritableStreamNotifySettled(stream);
  const writer = stream.writer;
  if (writer === undefined) return;
  const closed = writer.closed;
  if (closed !== undefined) closed.reject(stream.storedError, true);
  else writer.owner!.writerErrored(stream.storedError);
}

/**
 * Runs (once) what core/stream-state.ts registered for the stream's end: where a writer's [[closedPromise]]
 * would settle. Not a spec operation.
 */
function WritableStreamNotifySettled(stream: WritableStreamInternal): void {
  const ext = stream.ext!;
  const cb = ext.onSettled!;
  ext.onSettled = undefined;
  cb();
}

/** WritableStreamUpdateBackpressure(stream, backpressure). */
export function WritableStreamUpdateBackpressure(stream: WritableStreamInternal, backpressure: boolean): void {
  const writer = stream.writer;
  const changed = backpressure !== stream.backpressure;
  // The flag is updated before resolving `ready`: an internal waiter (FP-PIPE-READY) runs synchronously
  // and may write again, which must see the new state.
  stream.backpressure = backpressure;
  if (writer !== undefined && changed) {
    if (backpressure) writer.ready.resetPending();
    else resolveReady(writer);
  }
}

/** WritableStreamDefaultWriterEnsureReadyPromiseRejected(writer, error). */
export function WritableStreamDefaultWriterEnsureReadyPromiseRejected(writer: WriterInternal, error: unknown): void {
  if (writer.ready.state === PENDING) writer.ready.reject(error, true);
  else writer.ready.resetRejected(error, true);
  WriterReadySettled(writer); // FP-PIPE-READY
}

// ---- controller operations (§5.5.4) ----

/** WritableStreamDefaultControllerClearAlgorithms(controller). */
export function WritableStreamDefaultControllerClearAlgorithms(c: WritableStreamInternal): void {
  c.algorithms = undefined;
  // The sink's members, which the controller holds as its own algorithms: released as the algorithms are.
  c.sink =
    c.writeFn =
    c.closeFn =
    c.abortFn =
      undefined;
  const ext = c.ext;
  if (ext !== undefined) ext.strategySizeAlgorithm = ext.writeArgs = undefined;
}

/** WritableStreamDefaultControllerClose(controller). */
function WritableStreamDefaultControllerClose(c: WritableStreamInternal): void {
  WritableStreamQueueForPush(c).push(CLOSE_SENTINEL);
  c.ext?.sizes?.push(0);
  WritableStreamDefaultControllerAdvanceQueueIfNeeded(c);
}

/** WritableStreamDefaultControllerError(controller, error). */
export function WritableStreamDefaultControllerError(c: WritableStreamInternal, error: unknown): void {
  WritableStreamDefaultControllerClearAlgorithms(c);
  WritableStreamStartErroring(c, error);
}

/** WritableStreamDefaultControllerErrorIfNeeded(controller, error). */
export function WritableStreamDefaultControllerErrorIfNeeded(c: WritableStreamInternal, error: unknown): void {
  if (c.state === WRITABLE) WritableStreamDefaultControllerError(c, error);
}

/** WritableStreamDefaultControllerGetBackpressure(controller). */
export function WritableStreamDefaultControllerGetBackpressure(c: WritableStreamInternal): boolean {
  return c.strategyHWM - c.queueTotalSize <= 0;
}

/** WritableStreamDefaultControllerGetChunkSize(controller, chunk). */
export function WritableStreamDefaultControllerGetChunkSize(c: WritableStreamInternal, chunk: unknown): number {
  const size = c.ext?.strategySizeAlgorithm;
  if (size === undefined) return 1;
  try {
    return size(chunk);
  } catch (e) {
    WritableStreamDefaultControllerErrorIfNeeded(c, e);
    return 1;
  }
}

/** WritableStreamDefaultControllerGetDesiredSize(controller). */
export function WritableStreamDefaultControllerGetDesiredSize(c: WritableStreamInternal): number {
  return c.strategyHWM - c.queueTotalSize;
}

function DequeueValue(c: WritableStreamInternal): void {
  c.queue.shift();
  const sizes = c.ext?.sizes;
  if (sizes === undefined) {
    c.queueTotalSize--;
  } else {
    c.queueTotalSize -= sizes.shift();
    if (c.queueTotalSize < 0) c.queueTotalSize = 0;
  }
}

/** WritableStreamDefaultControllerWrite(controller, chunk, chunkSize). */
export function WritableStreamDefaultControllerWrite(
  c: WritableStreamInternal,
  chunk: unknown,
  chunkSize: number,
): void {
  if (c.hasSizeAlgorithm) {
    if (!(chunkSize >= 0) || chunkSize === Infinity) {
      WritableStreamDefaultControllerErrorIfNeeded(
        c,
        rangeError("The chunk size must be a finite, non-negative number"),
      );
      return;
    }
    const ext = c.ext ??= new WritableStreamExtras();
    let sizes = ext.sizes;
    if (sizes === undefined) {
      sizes = ext.sizes = new RingQueue();
      for (let i = 0; i < c.queue.size; i++) sizes.push(c.queue.at(i) === CLOSE_SENTINEL ? 0 : 1);
    }
    sizes.push(chunkSize);
  }
  WritableStreamQueueForPush(c).push(chunk);
  c.queueTotalSize += chunkSize;
  const stream = c;
  if (!WritableStreamCloseQueuedOrInFlight(stream) && stream.state === WRITABLE) {
    WritableStreamUpdateBackpressure(stream, WritableStreamDefaultControllerGetBackpressure(c));
  }
  WritableStreamDefaultControllerAdvanceQueueIfNeeded(c);
}

/** WritableStreamDefaultControllerAdvanceQueueIfNeeded(controller). */
export function WritableStreamDefaultControllerAdvanceQueueIfNeeded(c: WritableStreamInternal): void {
  const stream = c;
  if (!c.started) return;
  if (stream.inFlightWriteRequest !== undefined) return;
  if (stream.state === ERRORING) {
    WritableStreamFinishErroring(stream);
    return;
  }
  if (c.queue.size === 0) return;
  const value = c.queue.peek();
  if (value === CLOSE_SENTINEL) WritableStreamDefaultControllerProcessClose(c);
  else WritableStreamDefaultControllerProcessWrite(c, value);
}

/** WritableStreamDefaultControllerProcessClose(controller). */
function WritableStreamDefaultControllerProcessClose(c: WritableStreamInternal): void {
  const stream = c;
  stream.inFlightCloseRequest = stream.closeRequest;
  stream.closeRequest = undefined;
  c.queue.shift(); // the close sentinel has size 0
  c.ext?.sizes?.shift();
  const result = c.algorithms!.close();
  WritableStreamDefaultControllerClearAlgorithms(c);
  uponAlgorithm(
    result,
    () => WritableStreamFinishInFlightClose(stream),
    (reason: unknown) => WritableStreamFinishInFlightCloseWithError(stream, reason),
  );
}

/** WritableStreamDefaultControllerProcessWrite(controller, chunk). */
function WritableStreamDefaultControllerProcessWrite(c: WritableStreamInternal, chunk: unknown): void {
  const stream = c;
  stream.inFlightWriteRequest = stream.writeRequests!.shift();
  WritableStreamDefaultControllerProcessWriteSteps(c, stream, chunk);
}

/** WritableStreamDefaultControllerProcessWrite from step 2 (the write request is in flight). */
function WritableStreamDefaultControllerProcessWriteSteps(
  c: WritableStreamInternal,
  stream: WritableStreamInternal,
  chunk: unknown,
): void {
  const result = c.algorithms!.write(chunk);
  if (result === undefined && IsFusedTransformWrite(stream)) {
    // FP-FUSE: a transform fed by one of our pipes finished a queued chunk synchronously; only the pipe (the
    // writer's owner) sees the write complete, so it completes now and the queue drains back to direct writes.
    (c.onWriteFulfilled ??= makeWriteFulfilled(c))();
    return;
  }
  WritableStreamUponWrite(c, result);
}

/**
 * "Upon fulfillment / rejection" of a sink write's result (FP-SYNC-ALGO for undefined). The two reactions are
 * made once per stream, each when first needed (the rejection one in the extras).
 */
export function WritableStreamUponWrite(c: WritableStreamInternal, result: AlgorithmResult): void {
  if (result === WRITE_PENDING) return; // FP-TS-WRITE: the algorithm calls this again with its result
  const onFulfilled = c.onWriteFulfilled ??= makeWriteFulfilled(c);
  if (result === undefined) {
    queueMicrotask(onFulfilled);
    return;
  }
  const ext = c.ext ??= new WritableStreamExtras();
  PromisePrototypeThen(result, onFulfilled, ext.onWriteRejected ??= makeWriteRejected(c));
}

function makeWriteRejected(c: WritableStreamInternal): (reason: unknown) => void {
  return (reason: unknown) => {
    if (c.state === WRITABLE) WritableStreamDefaultControllerClearAlgorithms(c);
    WritableStreamFinishInFlightWriteWithError(c, reason);
  };
}

function makeWriteFulfilled(c: WritableStreamInternal): () => void {
  return () => {
    const stream = c;
    WritableStreamFinishInFlightWrite(stream);
    DequeueValue(c);
    if (!WritableStreamCloseQueuedOrInFlight(stream) && stream.state === WRITABLE) {
      WritableStreamUpdateBackpressure(stream, WritableStreamDefaultControllerGetBackpressure(c));
    }
    WritableStreamDefaultControllerAdvanceQueueIfNeeded(c);
    WriteDoneSettled(stream); // FP-FUSE
  };
}

/** SetUpWritableStreamDefaultController(...). `startAlgorithm` may throw. */
export function SetUpWritableStreamDefaultController(
  c: WritableStreamInternal,
  startAlgorithm: (() => unknown) | undefined,
  algorithms: SinkAlgorithms,
  highWaterMark: number,
  sizeAlgorithm: SizeAlgorithm | undefined,
): void {
  if (sizeAlgorithm !== undefined) {
    (c.ext ??= new WritableStreamExtras()).strategySizeAlgorithm = sizeAlgorithm;
    c.hasSizeAlgorithm = true;
  }
  c.strategyHWM = highWaterMark;
  c.algorithms = algorithms;
  WritableStreamUpdateBackpressure(c, WritableStreamDefaultControllerGetBackpressure(c));
  if (startAlgorithm === EXTERNAL_START) return; // the caller reacts to the start (TransformStream)
  const startResult = startAlgorithm === undefined ? undefined : startAlgorithm();
  // Reactions made by helpers: closures here would cost a context even when unused.
  if (startResult === undefined) startJobs.queue(c); // FP-SYNC-ALGO, a job of startJobs
  else PromisePrototypeThen(promiseResolvedWith(startResult), makeStarted(c), makeStartFailed(c));
}

/** The start reactions of writable streams whose start() returned synchronously, as jobs (no closure per stream). */
const startJobs: JobQueue<WritableStreamInternal> = new JobQueue(() =>
  WritableStreamDefaultControllerStarted(startJobs.shift())
);

/** The reaction to a start algorithm's promise, for callers that passed EXTERNAL_START. */
export function WritableStreamDefaultControllerUponStart(
  c: WritableStreamInternal,
  startPromise: Promise<unknown>,
): void {
  PromisePrototypeThen(startPromise, makeStarted(c), makeStartFailed(c));
}

/** The steps upon fulfillment of the start promise, for callers that passed EXTERNAL_START. */
export function WritableStreamDefaultControllerStarted(c: WritableStreamInternal): void {
  c.started = true;
  WritableStreamDefaultControllerAdvanceQueueIfNeeded(c);
}

function makeStarted(c: WritableStreamInternal): () => void {
  return () => {
    c.started = true;
    WritableStreamDefaultControllerAdvanceQueueIfNeeded(c);
  };
}

function makeStartFailed(c: WritableStreamInternal): (r: unknown) => void {
  return (r: unknown) => {
    c.started = true;
    WritableStreamDealWithRejection(c, r);
  };
}

/** WritableStreamAddWriteRequest + WritableStreamDefaultWriterWrite's tail, shared by writers and pipes. */
export function WritableStreamDefaultWriterWriteInternal(
  writer: WriterInternal,
  chunk: unknown,
  request: WriteRequest,
): void {
  const stream = writer.stream!;
  const c = stream;
  if (
    stream.state === WRITABLE && c.started && !c.hasSizeAlgorithm && stream.inFlightWriteRequest === undefined &&
    c.queue.size === 0 && stream.closeRequest === undefined && stream.inFlightCloseRequest === undefined
  ) {
    // FP-WRITE-IDLE: the write of a chunk into an idle stream, whose request the spec appends to
    // [[writeRequests]] and AdvanceQueueIfNeeded takes out again at once (nothing runs in between: backpressure
    // can only be raised, which settles nothing): the request goes straight in flight, the checks are made once.
    WritableStreamQueueForPush(c).push(chunk);
    c.queueTotalSize++;
    WritableStreamUpdateBackpressure(stream, WritableStreamDefaultControllerGetBackpressure(c));
    stream.inFlightWriteRequest = request;
    WritableStreamDefaultControllerProcessWriteSteps(c, stream, chunk);
    return;
  }
  WritableStreamDefaultWriterWriteSized(
    writer,
    stream,
    chunk,
    WritableStreamDefaultControllerGetChunkSize(c, chunk),
    request,
  );
}

/** The rest of WritableStreamDefaultWriterWrite once the chunk's size is known (step 4 on). */
export function WritableStreamDefaultWriterWriteSized(
  writer: WriterInternal,
  stream: WritableStreamInternal,
  chunk: unknown,
  chunkSize: number,
  request: WriteRequest,
): void {
  const c = stream;
  if (stream !== writer.stream) {
    request.reject(typeError("The writer's lock was released while writing"));
    return;
  }
  const state = stream.state;
  if (state === ERRORED) {
    request.reject(stream.storedError);
    return;
  }
  if (WritableStreamCloseQueuedOrInFlight(stream) || state === CLOSED) {
    request.reject(typeError("The stream is closing or closed and cannot be written to"));
    return;
  }
  if (state === ERRORING) {
    request.reject(stream.storedError);
    return;
  }
  (stream.writeRequests ??= new RingQueue()).push(request);
  WritableStreamDefaultControllerWrite(c, chunk, chunkSize);
}
