/**
 * TransformStream and TransformStreamDefaultController (Streams §6), with their abstract operations.
 * @module
 */
import { defineInterface } from "../shared/interface.ts";
import {
  type Callable,
  OriginalPromiseThen,
  PromisePrototypeThen,
  PromiseReject,
  PromiseResolve,
  queueMicrotask,
  ReflectApply,
} from "../shared/primordials.ts";
import {
  type AlgorithmResult,
  algorithmToPromise,
  type Deferred,
  EXTERNAL_START,
  invokeChunkCallback,
  invokePromiseCallback,
  invokePromiseCallback2,
  newDeferred,
  promiseResolvedWith,
  REUSE_ARGUMENT_LISTS,
} from "../shared/promise.ts";
import { convertCallback, isObject, rangeError, typeError } from "../shared/webidl.ts";
import {
  convertQueuingStrategy,
  ExtractHighWaterMark,
  ExtractSizeAlgorithm,
  type SizeAlgorithm,
} from "../strategies/extract.ts";
import type { QueuingStrategy, Transformer } from "../types.ts";
import { CreateReadableStream } from "../readable/create.ts";
import {
  DefaultControllerInternal,
  ReadableStreamDefaultControllerCallPullIfNeeded,
  ReadableStreamDefaultControllerCanCloseOrEnqueue,
  ReadableStreamDefaultControllerClose,
  ReadableStreamDefaultControllerEnqueueSteps,
  ReadableStreamDefaultControllerError,
  ReadableStreamDefaultControllerGetDesiredSize,
  ReadableStreamDefaultControllerHasBackpressure,
  ReadableStreamDefaultControllerPullSettled,
  ReadableStreamDefaultControllerStarted,
  ReadableStreamDefaultControllerUponStart,
} from "../readable/default-controller.ts";
import { type ReadableStream, wrapReadableStream } from "../readable/readable-stream.ts";
import { PULL_PENDING, type SourceAlgorithms } from "../readable/source-algorithms.ts";
import { ERRORED as R_ERRORED, type PULLING_AGAIN as S_PULLING_AGAIN, READABLE } from "../readable/stream-internal.ts";
import { type DirectWriteGate, SetDirectWriteGate } from "../fusion/gate.ts";
import { GateUnblocked } from "../fusion/hooks.ts";
import {
  ERRORED as W_ERRORED,
  ERRORING,
  SetUpWritableStreamDefaultController,
  type SinkAlgorithms,
  WRITABLE,
  WritableStreamDefaultControllerAdvanceQueueIfNeeded,
  WritableStreamDefaultControllerErrorIfNeeded,
  WritableStreamDefaultControllerStarted,
  WritableStreamDefaultControllerUponStart,
  WritableStreamInternal,
  WritableStreamUponWrite,
  WRITE_PENDING,
  type WriteRequest,
} from "../writable/stream-internal.ts";
import { wrapWritableStream, type WritableStream } from "../writable/writable-stream.ts";

// A pull state of ReadableStreamInternal, declared here again (see readable/default-controller.ts).
const PULLING_AGAIN: typeof S_PULLING_AGAIN = 3;

/**
 * Converts a Transformer dictionary (members read in lexicographic order) into the stream's controller slots;
 * returns its `start` member (no record per stream).
 */
function convertTransformer(t: unknown, c: TransformStreamInternal): Callable | undefined {
  if (t === undefined) return undefined;
  const o = t as Record<string, unknown>;
  const cancel = o.cancel;
  const cancelFn = cancel === undefined ? undefined : convertCallback(cancel, "transformer.cancel");
  const flush = o.flush;
  const flushFn = flush === undefined ? undefined : convertCallback(flush, "transformer.flush");
  const readableType = o.readableType;
  const start = o.start;
  const startFn = start === undefined ? undefined : convertCallback(start, "transformer.start");
  const transform = o.transform;
  const transformFn = transform === undefined ? undefined : convertCallback(transform, "transformer.transform");
  const writableType = o.writableType;
  if (readableType !== undefined) throw rangeError("Invalid readableType specified");
  if (writableType !== undefined) throw rangeError("Invalid writableType specified");
  c.cancelFn = cancelFn;
  c.flushFn = flushFn;
  c.transformFn = transformFn;
  return startFn;
}

/**
 * Internal state of a TransformStream (§6.2.2) and of its TransformStreamDefaultController (§6.3.2), in one
 * object (the spec's `stream.[[controller]]` and `controller.[[stream]]` are the object itself); it is also
 * the sink algorithms of the writable side and the source algorithms of the readable side.
 */
class TransformStreamInternal implements SinkAlgorithms, SourceAlgorithms, DirectWriteGate {
  readable!: DefaultControllerInternal;
  writable!: WritableStreamInternal;
  backpressure: boolean | undefined = undefined;
  /**
   * FP-TS-WRITE: a write waiting for the next backpressure change (the spec's reaction to
   * [[backpressureChangePromise]]) and its chunk.
   */
  writeWaiting = false;
  waitingChunk: unknown = undefined;
  runWaitingWrite: (() => void) | undefined = undefined;
  // The controller's slots.
  finishPromise: Deferred<undefined> | undefined = undefined;
  transformer: unknown = undefined;
  transformFn: Callable | undefined = undefined;
  flushFn: Callable | undefined = undefined;
  cancelFn: Callable | undefined = undefined;
  cleared = false;
  pub!: TransformStreamDefaultController;
  onTransformRejected: ((r: unknown) => never) | undefined = undefined;
  transformArgs: unknown[] | undefined = undefined;
  /** The gate's unblock hook slot (core/fusion/hooks.ts): a pipe holding a chunk until backpressure clears. */
  onUnblock: (() => void) | undefined = undefined;
  /** The readable controller's pull is waiting for the next backpressure change (FP-TS-PULL). */
  pullWaiting = false;
  /** FP-TS-START: the sides whose start reactions the job chain stands for, and the jobs still to come. */
  startSides = 0;
  startJobsLeft = 0;

  readableController(): DefaultControllerInternal {
    return this.readable;
  }

  /**
   * FP-TS-IDENTITY: a pipe's direct write (FP-FUSE) into this stream's writable side when there is no
   * transform() and the chunk goes straight to a read request waiting on the readable side. The steps are
   * those of WritableStreamWriteDirect -> TransformStreamDefaultSinkWriteAlgorithm ->
   * TransformStreamDefaultControllerPerformTransform -> the identity transform algorithm ->
   * TransformStreamDefaultControllerEnqueue -> ReadableStreamDefaultControllerEnqueue, in the same order,
   * with the checks whose outcome is known in this state made once, up front; anything else returns false
   * before changing any state, and the write takes the general path.
   */
  writeIdentity(chunk: unknown, request: WriteRequest): boolean {
    // deno-lint-ignore no-this-alias -- the spec's `controller` is this object (one object per stream)
    const c = this;
    if (this.backpressure !== false || c.transformFn !== undefined || c.cleared) return false;
    const readable = this.readable;
    const rc = readable;
    // TransformStreamDefaultControllerEnqueue can enqueue, and ReadableStreamDefaultControllerEnqueue hands
    // the chunk to a pending read request (no queue, no size()).
    if (rc.closeRequested || readable.state !== READABLE) return false;
    const reader = readable.reader;
    if (reader === undefined || reader.size === 0) return false;
    const writable = this.writable;
    const wc = writable;
    writable.inFlightWriteRequest = request;
    reader.shift().chunkSteps(chunk); // ReadableStreamFulfillReadRequest(readable, chunk, false)
    // ReadableStreamDefaultControllerCallPullIfNeeded changes nothing while a pull is pending and another is
    // already due (the pull algorithm, FP-TS-PULL, stays pending until backpressure changes): only
    // ShouldCallPull would decide whether [[pullAgain]] becomes true, and it is true already.
    if (rc.pullState !== PULLING_AGAIN) ReadableStreamDefaultControllerCallPullIfNeeded(rc);
    if (ReadableStreamDefaultControllerHasBackpressure(rc) !== this.backpressure) {
      TransformStreamSetBackpressure(this, true);
    }
    // The transform completed synchronously: the rest of WritableStreamWriteDirectNow.
    writable.inFlightWriteRequest = undefined;
    request.resolve();
    if (writable.state !== WRITABLE || wc.queue.size !== 0) WritableStreamDefaultControllerAdvanceQueueIfNeeded(wc);
    return true;
  }

  // Sink algorithms (§6.4.3)

  /** TransformStreamDefaultSinkWriteAlgorithm(stream, chunk). */
  write(chunk: unknown): AlgorithmResult {
    // The waiting branch lives in its own function: a closure here would cost a context per chunk.
    if (this.backpressure) return TransformStreamWriteAfterBackpressureChange(this, chunk);
    return TransformStreamDefaultControllerPerformTransform(this, chunk);
  }

  /** TransformStreamDefaultSinkAbortAlgorithm(stream, reason). */
  abort(reason: unknown): AlgorithmResult {
    // deno-lint-ignore no-this-alias -- the spec's `controller` is this object (one object per stream)
    const controller = this;
    if (controller.finishPromise !== undefined) return controller.finishPromise.promise;
    const readable = this.readable;
    const finish = controller.finishPromise = newDeferred<undefined>();
    const cancelPromise = controller.cancelAlgorithm(reason);
    TransformStreamDefaultControllerClearAlgorithms(controller);
    PromisePrototypeThen(
      algorithmToPromise(cancelPromise),
      () => {
        if (readable.state === R_ERRORED) {
          finish.reject(readable.storedError);
        } else {
          ReadableStreamDefaultControllerError(this.readableController(), reason);
          finish.resolve(undefined);
        }
      },
      (r: unknown) => {
        ReadableStreamDefaultControllerError(this.readableController(), r);
        finish.reject(r);
      },
    );
    return finish.promise;
  }

  /** TransformStreamDefaultSinkCloseAlgorithm(stream). */
  close(): AlgorithmResult {
    // deno-lint-ignore no-this-alias -- the spec's `controller` is this object (one object per stream)
    const controller = this;
    if (controller.finishPromise !== undefined) return controller.finishPromise.promise;
    const readable = this.readable;
    const finish = controller.finishPromise = newDeferred<undefined>();
    const flushPromise = controller.flushAlgorithm();
    TransformStreamDefaultControllerClearAlgorithms(controller);
    PromisePrototypeThen(
      algorithmToPromise(flushPromise),
      () => {
        if (readable.state === R_ERRORED) {
          finish.reject(readable.storedError);
        } else {
          ReadableStreamDefaultControllerClose(this.readableController());
          finish.resolve(undefined);
        }
      },
      (r: unknown) => {
        ReadableStreamDefaultControllerError(this.readableController(), r);
        finish.reject(r);
      },
    );
    return finish.promise;
  }

  // Source algorithms (§6.4.4)

  /** TransformStreamDefaultSourcePullAlgorithm(stream). */
  pull(): AlgorithmResult {
    TransformStreamSetBackpressure(this, false);
    // FP-TS-PULL: the pull completes when [[backpressureChangePromise]] is next resolved, signalled to the
    // controller directly instead of through a promise only the controller would react to.
    this.pullWaiting = true;
    // FP-FUSE: the pipe into the writable side held a chunk while backpressure was on; it writes it now,
    // as the write algorithm waiting on the backpressure change would.
    GateUnblocked(this);
    return PULL_PENDING;
  }

  /** TransformStreamDefaultSourceCancelAlgorithm(stream, reason). */
  cancel(reason: unknown): AlgorithmResult {
    // deno-lint-ignore no-this-alias -- the spec's `controller` is this object (one object per stream)
    const controller = this;
    if (controller.finishPromise !== undefined) return controller.finishPromise.promise;
    const writable = this.writable;
    const finish = controller.finishPromise = newDeferred<undefined>();
    const cancelPromise = controller.cancelAlgorithm(reason);
    TransformStreamDefaultControllerClearAlgorithms(controller);
    PromisePrototypeThen(
      algorithmToPromise(cancelPromise),
      () => {
        if (writable.state === W_ERRORED) {
          finish.reject(writable.storedError);
        } else {
          WritableStreamDefaultControllerErrorIfNeeded(writable, reason);
          TransformStreamUnblockWrite(this);
          finish.resolve(undefined);
        }
      },
      (r: unknown) => {
        WritableStreamDefaultControllerErrorIfNeeded(writable, r);
        TransformStreamUnblockWrite(this);
        finish.reject(r);
      },
    );
    return finish.promise;
  }

  // The controller's algorithms (SetUpTransformStreamDefaultControllerFromTransformer).

  transformAlgorithm(chunk: unknown): AlgorithmResult {
    const fn = this.transformFn;
    if (fn === undefined) {
      try {
        TransformStreamDefaultControllerEnqueue(this, chunk);
      } catch (e) {
        return PromiseReject(e);
      }
      return undefined;
    }
    if (!REUSE_ARGUMENT_LISTS) return invokePromiseCallback2(fn, this.transformer, chunk, this.pub);
    const args = this.transformArgs ??= [undefined, this.pub];
    args[0] = chunk;
    const result = invokeChunkCallback(fn, this.transformer, args);
    args[0] = undefined;
    return result;
  }

  flushAlgorithm(): AlgorithmResult {
    const fn = this.flushFn;
    return fn === undefined ? undefined : invokePromiseCallback(fn, this.transformer, [this.pub]);
  }

  cancelAlgorithm(reason: unknown): AlgorithmResult {
    const fn = this.cancelFn;
    return fn === undefined ? undefined : invokePromiseCallback(fn, this.transformer, [reason]);
  }
}

/**
 * InitializeTransformStream(stream, startPromise, ...). Without a transformer start(), `startPromise` is
 * undefined and the sides' start reactions are made by TransformStreamStartResolved (FP-TS-START).
 */
function InitializeTransformStream(
  stream: TransformStreamInternal,
  startPromise: Promise<unknown> | undefined,
  writableHighWaterMark: number,
  writableSizeAlgorithm: SizeAlgorithm | undefined,
  readableHighWaterMark: number,
  readableSizeAlgorithm: SizeAlgorithm | undefined,
): void {
  const startAlgorithm = startPromise === undefined ? EXTERNAL_START : makeStartAlgorithm(startPromise);
  const writable = stream.writable = new WritableStreamInternal();
  SetUpWritableStreamDefaultController(writable, startAlgorithm, stream, writableHighWaterMark, writableSizeAlgorithm);
  stream.readable = CreateReadableStream(startAlgorithm, stream, readableHighWaterMark, readableSizeAlgorithm);
  stream.backpressure = undefined;
  TransformStreamSetBackpressure(stream, true);
  SetDirectWriteGate(writable, stream);
  stream.readable.transform = stream;
  if (startPromise === undefined) TransformStreamStartResolved(stream);
}

// Its own function: a closure in InitializeTransformStream would cost a context without start() too.
function makeStartAlgorithm(startPromise: Promise<unknown>): () => Promise<unknown> {
  return () => startPromise;
}

const START_WRITABLE = 1;
const START_READABLE = 2;

/**
 * FP-TS-START: the start of a TransformStream without start(), whose startPromise is a promise resolved with
 * undefined. Each side's setup reacts to "a promise resolved with startPromise" (a new promise resolved with
 * it): resolving it looks up startPromise's `then` at once and queues a job that calls it; that `then` queues
 * the job resolving the new promise, which queues the side's start reaction. The start steps run in the third
 * job, and the writable side's job is next to the readable side's at every step. When both lookups find the
 * original `then`, none of these promises can be seen by anyone, so one job per step stands for the two
 * sides' jobs and the third runs both sides' start steps; a side whose lookup finds anything else gets the
 * spec's promises and jobs with what was found.
 */
function TransformStreamStartResolved(stream: TransformStreamInternal): void {
  const startPromise = PromiseResolve(undefined);
  const thenW = (startPromise as { then?: unknown }).then; // the writable side's "a promise resolved with"
  const thenR = (startPromise as { then?: unknown }).then; // the readable side's
  let sides = 0;
  if (thenW === OriginalPromiseThen) sides = START_WRITABLE;
  else WritableStreamDefaultControllerUponStart(stream.writable, adoptWithThen(startPromise, thenW));
  if (thenR === OriginalPromiseThen) sides |= START_READABLE;
  else ReadableStreamDefaultControllerUponStart(stream.readableController(), adoptWithThen(startPromise, thenR));
  if (sides === 0) return;
  stream.startSides = sides;
  stream.startJobsLeft = 3;
  queueMicrotask(makeStartJob(stream));
}

function makeStartJob(stream: TransformStreamInternal): () => void {
  const job = (): void => {
    if (--stream.startJobsLeft !== 0) {
      queueMicrotask(job);
      return;
    }
    const sides = stream.startSides;
    if ((sides & START_WRITABLE) !== 0) WritableStreamDefaultControllerStarted(stream.writable);
    if ((sides & START_READABLE) !== 0) ReadableStreamDefaultControllerStarted(stream.readableController());
  };
  return job;
}

/**
 * "A promise resolved with" `promise` whose `then` lookup found `then` (not the original): the promise
 * resolve function's steps from there, with a job that calls `then` when it is callable.
 */
function adoptWithThen(promise: Promise<unknown>, then: unknown): Promise<unknown> {
  if (typeof then !== "function") return PromiseResolve(undefined); // fulfilled with `promise`, a value nobody reads
  const adopted = newDeferred<unknown>();
  queueMicrotask(() => {
    try {
      ReflectApply(then, promise, [adopted.resolve, adopted.reject]);
    } catch (e) {
      adopted.reject(e);
    }
  });
  return adopted.promise;
}

/** TransformStreamError(stream, e). */
function TransformStreamError(stream: TransformStreamInternal, e: unknown): void {
  ReadableStreamDefaultControllerError(stream.readableController(), e);
  TransformStreamErrorWritableAndUnblockWrite(stream, e);
}

/**
 * Errors the fusestreams TransformStream `x` with `e` (TransformStreamError: both sides) and returns true;
 * returns false, changing nothing, when `x` is not one. Not a spec operation: for core/stream-control.ts.
 */
export function errorTransformStream(x: unknown, e: unknown): boolean {
  const stream = getStream(x);
  if (stream === undefined) return false;
  TransformStreamError(stream, e);
  return true;
}

/** TransformStreamErrorWritableAndUnblockWrite(stream, e). */
function TransformStreamErrorWritableAndUnblockWrite(stream: TransformStreamInternal, e: unknown): void {
  TransformStreamDefaultControllerClearAlgorithms(stream);
  WritableStreamDefaultControllerErrorIfNeeded(stream.writable, e);
  TransformStreamUnblockWrite(stream);
}

/** TransformStreamSetBackpressure(stream, backpressure). */
function TransformStreamSetBackpressure(stream: TransformStreamInternal, backpressure: boolean): void {
  // Resolving [[backpressureChangePromise]] (a new one stands in its place) queues the one reaction to it: a
  // waiting write's (FP-TS-WRITE; only while [[backpressure]] is true) or a pull's (FP-TS-PULL; only while false).
  if (stream.writeWaiting) {
    stream.writeWaiting = false;
    queueMicrotask(stream.runWaitingWrite ??= makeRunWaitingWrite(stream));
  }
  if (stream.pullWaiting) {
    stream.pullWaiting = false;
    ReadableStreamDefaultControllerPullSettled(stream.readableController()); // FP-TS-PULL
  }

  stream.backpressure = backpressure;
}

/** TransformStreamUnblockWrite(stream). */
function TransformStreamUnblockWrite(stream: TransformStreamInternal): void {
  if (stream.backpressure) TransformStreamSetBackpressure(stream, false);
  GateUnblocked(stream); // FP-FUSE
}

/** TransformStreamDefaultControllerClearAlgorithms(controller). */
function TransformStreamDefaultControllerClearAlgorithms(c: TransformStreamInternal): void {
  c.transformFn = undefined;
  c.flushFn = undefined;
  c.cancelFn = undefined;
  c.cleared = true;
}

/** TransformStreamDefaultControllerEnqueue(controller, chunk). */
function TransformStreamDefaultControllerEnqueue(c: TransformStreamInternal, chunk: unknown): void {
  const stream = c;
  const readableController = stream.readableController();
  if (!ReadableStreamDefaultControllerCanCloseOrEnqueue(readableController)) {
    throw typeError("Readable side is not in a state that permits enqueue");
  }
  try {
    ReadableStreamDefaultControllerEnqueueSteps(readableController, chunk);
  } catch (e) {
    TransformStreamErrorWritableAndUnblockWrite(stream, e);
    throw stream.readable.storedError;
  }
  const backpressure = ReadableStreamDefaultControllerHasBackpressure(readableController);
  if (backpressure !== stream.backpressure) TransformStreamSetBackpressure(stream, true);
}

/** TransformStreamDefaultControllerPerformTransform(controller, chunk). */
function TransformStreamDefaultControllerPerformTransform(c: TransformStreamInternal, chunk: unknown): AlgorithmResult {
  const transformPromise = c.cleared ? undefined : c.transformAlgorithm(chunk);
  // FP-TS-SYNC: a transform that returned synchronously has nothing to react to.
  if (transformPromise === undefined) return undefined;
  // "Reacting" to a Promise<undefined> fulfils with undefined: passing the transform's value on instead (no
  // fulfillment handler) would resolve the result with it and look up its `then` a second time.
  return PromisePrototypeThen(transformPromise, returnUndefined, c.onTransformRejected ??= makeTransformRejected(c));
}

function returnUndefined(): undefined {
  return undefined;
}

function makeTransformRejected(c: TransformStreamInternal): (r: unknown) => never {
  return (r: unknown) => {
    TransformStreamError(c, r);
    throw r;
  };
}

/**
 * The rest of TransformStreamDefaultSinkWriteAlgorithm when [[backpressure]] is true. FP-TS-WRITE: instead of
 * reacting to [[backpressureChangePromise]] and handing the writable side the promise of that reaction, the
 * chunk waits in the stream, TransformStreamSetBackpressure queues the reaction's steps as the promise's
 * resolution would, and they give the writable side their result as the reaction's promise would settle.
 */
function TransformStreamWriteAfterBackpressureChange(
  stream: TransformStreamInternal,
  chunk: unknown,
): Promise<unknown> {
  stream.waitingChunk = chunk;
  stream.writeWaiting = true;
  return WRITE_PENDING;
}

function makeRunWaitingWrite(stream: TransformStreamInternal): () => void {
  return () => TransformStreamWaitingWriteSteps(stream);
}

/** The fulfillment steps of the reaction TransformStreamWriteAfterBackpressureChange stands for. */
function TransformStreamWaitingWriteSteps(stream: TransformStreamInternal): void {
  const chunk = stream.waitingChunk;
  stream.waitingChunk = undefined;
  const writable = stream.writable;
  let result: AlgorithmResult;
  if (writable.state === ERRORING) {
    // A throw in the steps rejects the reaction's promise at once.
    result = PromiseReject(writable.storedError);
  } else {
    // PerformTransform returns its algorithm's rejection rather than throwing (the algorithms catch). A reaction
    // that returns a promise resolves its own promise with it, through a job (FP-TS-SYNC: a transform that
    // finished synchronously returns nothing, and its reaction's promise is fulfilled at once).
    result = TransformStreamDefaultControllerPerformTransform(stream, chunk);
    if (result !== undefined) result = promiseResolvedWith(result);
  }
  WritableStreamUponWrite(writable, result);
}

/** TransformStreamDefaultControllerTerminate(controller). */
function TransformStreamDefaultControllerTerminate(c: TransformStreamInternal): void {
  const stream = c;
  ReadableStreamDefaultControllerClose(stream.readableController());
  TransformStreamErrorWritableAndUnblockWrite(stream, typeError("TransformStream terminated"));
}

/** A TransformStream set up by another specification (the text codecs): its internal state, opaque to its owner. */
export type TransformStreamHandle = TransformStreamInternal;

/** What {@link SetUpTransformStream} gives its owner. */
export interface SetUpTransformStreamResult<I, O> {
  /** For {@link TransformStreamEnqueue}. */
  readonly stream: TransformStreamHandle;
  /** The public readable side (the owner's `readable` getter returns it). */
  readonly readable: ReadableStream<O>;
  /** The public writable side. */
  readonly writable: WritableStream<I>;
}

/**
 * "Set up a TransformStream" for another specification (Streams §9.3, transform streams for other specifications), without the
 * public TransformStream object nobody sees: the default strategies (writable high-water mark 1, readable 0,
 * every chunk of size 1), no start and no cancel algorithm, and the owner's transform and flush algorithms in
 * place of a transformer's methods. They are called with `this` set to `owner` as the transformer's methods
 * are (the controller argument is undefined: the owner enqueues with {@link TransformStreamEnqueue}); a throw
 * becomes the rejected promise the spec's wrapper returns, and a chunk goes through the same sink and source
 * algorithms as any TransformStream's, so pipes fuse the stream into their chains (FP-FUSE).
 */
export function SetUpTransformStream<T, I, O>(
  owner: T,
  transformAlgorithm: (this: T, chunk: unknown) => void,
  flushAlgorithm: (this: T) => void,
): SetUpTransformStreamResult<I, O> {
  const stream = new TransformStreamInternal();
  InitializeTransformStream(stream, undefined, 1, undefined, 0, undefined);
  stream.transformer = owner;
  stream.transformFn = transformAlgorithm;
  stream.flushFn = flushAlgorithm;
  return {
    stream,
    readable: wrapReadableStream<O>(stream.readable),
    writable: wrapWritableStream(stream.writable) as WritableStream<I>,
  };
}

/** "Enqueue" a chunk into a TransformStream set up by another specification (Streams §9.3). */
export function TransformStreamEnqueue(stream: TransformStreamHandle, chunk: unknown): void {
  TransformStreamDefaultControllerEnqueue(stream, chunk);
}

let createController: (c: TransformStreamInternal) => TransformStreamDefaultController;
let getController: (x: unknown) => TransformStreamInternal;
const kCreate = Symbol();

/** The controller handed to a transformer (§6.3). */
// deno-lint-ignore no-explicit-any -- lib.dom's generic default
export class TransformStreamDefaultController<O = any> {
  #c!: TransformStreamInternal;

  /** Not constructible: controllers are created by TransformStream. */
  constructor(token: unknown = undefined) {
    if (token !== kCreate) throw typeError("Illegal constructor");
  }

  static {
    createController = (c) => {
      const o = new TransformStreamDefaultController(kCreate);
      o.#c = c;
      return o;
    };
    getController = (x) => {
      if (typeof x !== "object" || x === null || !(#c in x)) {
        throw typeError("Illegal invocation: not a TransformStreamDefaultController");
      }
      return (x as TransformStreamDefaultController).#c;
    };
  }

  /** The readable side's desired size. */
  get desiredSize(): number | null {
    const c = getController(this);
    return ReadableStreamDefaultControllerGetDesiredSize(c.readableController());
  }

  /** Enqueues a chunk on the readable side. */
  enqueue(chunk: O = undefined as O): void {
    TransformStreamDefaultControllerEnqueue(getController(this), chunk);
  }

  /** Errors both sides of the stream. */
  error(reason: unknown = undefined): void {
    const c = getController(this);
    TransformStreamError(c, reason);
  }

  /** Closes the readable side and errors the writable side. */
  terminate(): void {
    TransformStreamDefaultControllerTerminate(getController(this));
  }
}
defineInterface(TransformStreamDefaultController, "TransformStreamDefaultController");

let getStream: (x: unknown) => TransformStreamInternal | undefined;

/** A pair of streams where data written to the writable side comes out transformed on the readable side (§6.2). */
// deno-lint-ignore no-explicit-any -- lib.dom's generic default
export class TransformStream<I = any, O = any> {
  #t: TransformStreamInternal;
  #readable: ReadableStream<O>;
  #writable: WritableStream<I>;

  /** Creates a TransformStream from a transformer and the two sides' queuing strategies. */
  constructor(
    transformer: Transformer<I, O> | undefined = undefined,
    writableStrategy: QueuingStrategy<I> | undefined = undefined,
    readableStrategy: QueuingStrategy<O> | undefined = undefined,
  ) {
    if (transformer !== undefined && !isObject(transformer)) throw typeError("The transformer must be an object");
    const writableRecord = convertQueuingStrategy(writableStrategy, "writableStrategy");
    const readableRecord = convertQueuingStrategy(readableStrategy, "readableStrategy");
    const stream = new TransformStreamInternal();
    const start = convertTransformer(transformer, stream);
    const readableHighWaterMark = ExtractHighWaterMark(readableRecord, 0);
    const readableSizeAlgorithm = ExtractSizeAlgorithm(readableRecord);
    const writableHighWaterMark = ExtractHighWaterMark(writableRecord, 1);
    const writableSizeAlgorithm = ExtractSizeAlgorithm(writableRecord);
    // Without start(), startPromise is resolved with undefined before anything can react to it (FP-TS-START).
    const startPromise = start === undefined ? undefined : newDeferred<unknown>();
    this.#t = stream;
    InitializeTransformStream(
      stream,
      startPromise?.promise,
      writableHighWaterMark,
      writableSizeAlgorithm,
      readableHighWaterMark,
      readableSizeAlgorithm,
    );
    // SetUpTransformStreamDefaultControllerFromTransformer
    const c = stream;
    c.pub = createController(c);
    c.transformer = transformer;
    this.#readable = wrapReadableStream<O>(stream.readable);
    this.#writable = wrapWritableStream(stream.writable) as WritableStream<I>;
    if (startPromise !== undefined) startPromise.resolve(ReflectApply(start!, transformer, [c.pub]));
  }

  static {
    getStream = (x) => (typeof x === "object" && x !== null && #t in x ? (x as TransformStream).#t : undefined);
  }

  /** The readable side. */
  get readable(): ReadableStream<O> {
    if (getStream(this) === undefined) throw typeError("Illegal invocation: not a TransformStream");
    return (this as TransformStream<I, O>).#readable;
  }

  /** The writable side. */
  get writable(): WritableStream<I> {
    if (getStream(this) === undefined) throw typeError("Illegal invocation: not a TransformStream");
    return (this as TransformStream<I, O>).#writable;
  }
}
defineInterface(TransformStream, "TransformStream");
