/**
 * ReadableStreamDefaultController and its abstract operations (Streams §4.6, §4.9.4).
 * @module
 */
import { defineInterface } from "../shared/interface.ts";
import { type Callable, PromisePrototypeThen, queueMicrotask } from "../shared/primordials.ts";
import { type AlgorithmResult, EXTERNAL_START, promiseResolvedWith } from "../shared/promise.ts";
import { JobQueue } from "../shared/jobs.ts";
import { RingQueue } from "../shared/queue.ts";
import { BeginPullTurn, EndPullTurn, HasPullTurnJobs, type PullTurn, RunPullTurnJobs } from "./pull-turn.ts";
import { typeError } from "../shared/webidl.ts";
import { type SizeAlgorithm, validateChunkSize } from "../strategies/extract.ts";
import { makeStartAlgorithm, NO_SOURCE_ALGORITHMS, PULL_PENDING, type SourceAlgorithms } from "./source-algorithms.ts";
import {
  type BEFORE_START as S_BEFORE_START,
  CLOSED,
  ERRORED,
  NO_CHUNK,
  type PULL_IDLE as S_PULL_IDLE,
  type PULLING as S_PULLING,
  type PULLING_AGAIN as S_PULLING_AGAIN,
  PullReactionFunction,
  PullRejectedFunction,
  QueuePullReaction,
  READABLE,
  ReadableStreamAddRequest,
  ReadableStreamClearSourceAlgorithms,
  ReadableStreamClose,
  ReadableStreamError,
  ReadableStreamExtras,
  ReadableStreamInternal,
  type ReadRequest,
  SizedQueue,
} from "./stream-internal.ts";

// The pull states of ReadableStreamInternal (stream-internal.ts), declared here again: an imported binding costs a
// load per use in optimized code, a module's own constant none (read loop ~2.5%, CPU time).
const BEFORE_START: typeof S_BEFORE_START = 0;
const PULL_IDLE: typeof S_PULL_IDLE = 1;
const PULLING: typeof S_PULLING = 2;
const PULLING_AGAIN: typeof S_PULLING_AGAIN = 3;

/**
 * A ReadableStream with a ReadableStreamDefaultController: the stream's slots (ReadableStreamInternal) and the
 * controller's (§4.6.2) in one object.
 */
export class DefaultControllerInternal extends ReadableStreamInternal implements PullTurn {
  /** [[queue]] values; allocated on first use (FP-LAZY). */
  queue: RingQueue<unknown> | undefined = undefined;
  declare pub: ReadableStreamDefaultController | undefined;
  /** The TransformStream this is the readable side of (see ReadableStreamInternal.transform). */
  override transform: object | undefined = undefined;
  /** FP-ITER-MERGE: NOT_OWING, OWING (readSyncOwingPullReaction() runs), or OWED (a pull reaction is owed). */
  owe: number = NOT_OWING;

  // An explicit constructor: an implicit one spreads its arguments into super(), through the (patchable) array
  // iterator on engines that predate ES2022 (Node 20).
  constructor() {
    super();
  }

  cancelSteps(reason: unknown): AlgorithmResult {
    ResetQueue(this);
    const result = this.algorithms!.cancel(reason);
    ReadableStreamDefaultControllerClearAlgorithms(this);
    return result;
  }

  readSync(): unknown {
    const queue = this.queue;
    if (queue === undefined || queue.size === 0) return NO_CHUNK;
    const chunk = DequeueValue(this);
    if (this.closeRequested && queue.size === 0) {
      ReadableStreamDefaultControllerClearAlgorithms(this);
      ReadableStreamClose(this);
    } else {
      ReadableStreamDefaultControllerCallPullIfNeeded(this);
    }
    return chunk;
  }

  readSyncOwingPullReaction(): unknown {
    this.owe = OWING;
    const chunk = this.readSync();
    if (this.owe === OWING) this.owe = NOT_OWING; // no synchronous pull() was called
    return chunk;
  }

  pullSteps(readRequest: ReadRequest): void {
    const chunk = this.readSync();
    if (chunk !== NO_CHUNK) readRequest.chunkSteps(chunk);
    else this.pullStepsEmpty(readRequest);
  }

  pullStepsEmpty(readRequest: ReadRequest): void {
    ReadableStreamAddRequest(this, readRequest);
    // CallPullIfNeeded; while a pull is pending it can only set [[pullAgain]] (see the end of EnqueueSteps).
    const pullState = this.pullState;
    if (pullState < PULLING) ReadableStreamDefaultControllerCallPullIfNeeded(this);
    else if (pullState === PULLING && ReadableStreamDefaultControllerShouldCallPull(this)) {
      this.pullState = PULLING_AGAIN;
    }
  }

  releaseSteps(): void {}
}
(DefaultControllerInternal.prototype as { isByte: boolean }).isByte = false;

const NOT_OWING = 0;
const OWING = 1;
const OWED = 2;

/**
 * FP-ITER-MERGE: after readSyncOwingPullReaction(), whether the caller must run the pull reaction of `c`
 * (RunOwedPullReaction) first in the job it queues next; the debt is cleared.
 */
export function TakeOwedPullReaction(c: DefaultControllerInternal): boolean {
  if (c.owe !== OWED) return false;
  c.owe = NOT_OWING;
  return true;
}

/** Runs the pull reaction TakeOwedPullReaction() said is owed. */
export function RunOwedPullReaction(c: DefaultControllerInternal): void {
  PullFulfilled(c);
}

/** DequeueValue(container) for the default controller's queue. */
export function DequeueValue(c: DefaultControllerInternal): unknown {
  const chunk = c.queue!.shift();
  const sized = c.ext?.sized;
  if (sized === undefined) {
    c.queueTotalSize--;
  } else {
    c.queueTotalSize -= sized.sizes.shift();
    if (c.queueTotalSize < 0) c.queueTotalSize = 0; // rounding errors, as the spec says
  }
  return chunk;
}

/**
 * Every chunk queued in `c`, dequeued with no pull after them (not in the standard: Bun's `readMany()` leaves its
 * source unpulled until the next read, and its adapter answers ours the same way); undefined when none is queued.
 * The stream closes when its source had closed it.
 */
export function ReadableStreamDefaultControllerDrainQueue(c: DefaultControllerInternal): unknown[] | undefined {
  const queue = c.queue;
  if (queue === undefined || queue.size === 0) return undefined;
  const chunks: unknown[] = [];
  while (queue.size > 0) chunks.push(DequeueValue(c));
  if (c.closeRequested) {
    ReadableStreamDefaultControllerClearAlgorithms(c);
    ReadableStreamClose(c);
  }
  return chunks;
}

/** ResetQueue(container). */
function ResetQueue(c: DefaultControllerInternal): void {
  c.queue?.clear();
  c.ext?.sized?.sizes.clear();
  c.queueTotalSize = 0;
}

/** ReadableStreamDefaultControllerCallPullIfNeeded(controller). */
export function ReadableStreamDefaultControllerCallPullIfNeeded(c: DefaultControllerInternal): void {
  // With [[pullAgain]] set already, every outcome below leaves the state as it is (ShouldCallPull has no side effects).
  const pullState = c.pullState;
  if (pullState === PULLING_AGAIN || !ReadableStreamDefaultControllerShouldCallPull(c)) return;
  if (pullState === PULLING) {
    c.pullState = PULLING_AGAIN;
    return;
  }
  c.pullState = PULLING;
  const outer = BeginPullTurn(c); // FP-PULL-TURN
  const result = c.algorithms!.pull();
  EndPullTurn(outer);
  if (result === undefined) {
    // FP-SYNC-ALGO: a synchronous pull() is reacted to with one microtask, like a resolved promise.
    if (c.owe === OWING) {
      // FP-ITER-MERGE: nothing can be queued between this job and the one the caller queues next.
      c.owe = OWED;
    } else {
      QueuePullFulfilled(c);
    }
    return;
  }
  // The reaction waits for a promise: jobs deferred during pull() run in a microtask of their own.
  if (HasPullTurnJobs(c)) {
    const ext = c.ext!;
    queueMicrotask(ext.runTurnJobs ??= makeRunTurnJobs(c));
  }
  if (result !== PULL_PENDING) {
    PromisePrototypeThen(result, PullFulfilledReaction(c), PullRejectedReaction(c));
  }
}

/**
 * FP-TS-PULL: an internal pull algorithm that returned PULL_PENDING has finished; the reaction is queued now,
 * as it would be when the promise it stands for is resolved.
 */
export function ReadableStreamDefaultControllerPullSettled(c: DefaultControllerInternal): void {
  QueuePullFulfilled(c);
}

function makeRunTurnJobs(c: DefaultControllerInternal): () => void {
  return () => RunPullTurnJobs(c);
}

/** The start reactions and first pull reactions of default controllers, as jobs (no closure per stream). */
const pullJobs: JobQueue<DefaultControllerInternal> = new JobQueue(() => PullFulfilled(pullJobs.shift()));

function makePullFulfilled(c: DefaultControllerInternal): () => void {
  return () => PullFulfilled(c);
}

/** Queues the reaction to a synchronous pull(). */
function QueuePullFulfilled(c: DefaultControllerInternal): void {
  QueuePullReaction(c, pullJobs, makePullFulfilled);
}

/** The controller's pull reaction as a function (made once). */
function PullFulfilledReaction(c: DefaultControllerInternal): () => void {
  return PullReactionFunction(c, makePullFulfilled);
}

/** The controller's reaction to a pull() or start() promise that rejects (made once, in its extras). */
function PullRejectedReaction(c: DefaultControllerInternal): (e: unknown) => void {
  return PullRejectedFunction(c, ReadableStreamDefaultControllerError);
}

/** The reaction to the start algorithm's or a pull algorithm's fulfillment. */
function PullFulfilled(c: DefaultControllerInternal): void {
  if (c.pullState === BEFORE_START) {
    // The reaction to start(): pull() cannot have run yet.
    if (c.algorithms === NO_SOURCE_ALGORITHMS || (c.algorithms === c && c.pullFn === undefined)) {
      // FP-NO-PULL: a source without pull(): its pull algorithm and the reactions to it do nothing, so the stream
      // is left pulling with [[pullAgain]] set for good, where CallPullIfNeeded returns at once.
      c.pullState = PULLING_AGAIN;
      return;
    }
    c.pullState = PULL_IDLE;
    ReadableStreamDefaultControllerCallPullIfNeeded(c);
    return;
  }
  RunPullTurnJobs(c); // FP-PULL-TURN
  const again = c.pullState === PULLING_AGAIN;
  c.pullState = PULL_IDLE;
  if (again) ReadableStreamDefaultControllerCallPullIfNeeded(c);
}

/** ReadableStreamDefaultControllerShouldCallPull(controller). */
function ReadableStreamDefaultControllerShouldCallPull(c: DefaultControllerInternal): boolean {
  // CanCloseOrEnqueue, IsReadableStreamLocked and GetNumReadRequests written out: this runs more than once per
  // chunk, and its size decides whether it is inlined.
  if (c.pullState === BEFORE_START || c.closeRequested || c.state !== READABLE) return false;
  const reader = c.reader;
  if (reader !== undefined && reader.size > 0) return true;
  return c.strategyHWM - c.queueTotalSize > 0;
}

/** ReadableStreamDefaultControllerClearAlgorithms(controller). */
export function ReadableStreamDefaultControllerClearAlgorithms(c: DefaultControllerInternal): void {
  ReadableStreamClearSourceAlgorithms(c);
  const sized = c.ext?.sized;
  if (sized !== undefined) sized.algorithm = undefined;
}

/** ReadableStreamDefaultControllerClose(controller). */
export function ReadableStreamDefaultControllerClose(c: DefaultControllerInternal): void {
  if (!ReadableStreamDefaultControllerCanCloseOrEnqueue(c)) return;
  c.closeRequested = true;
  if (c.queue === undefined || c.queue.size === 0) {
    ReadableStreamDefaultControllerClearAlgorithms(c);
    ReadableStreamClose(c);
  }
}

/** ReadableStreamDefaultControllerEnqueue(controller, chunk). */
export function ReadableStreamDefaultControllerEnqueue(c: DefaultControllerInternal, chunk: unknown): void {
  if (!ReadableStreamDefaultControllerCanCloseOrEnqueue(c)) return;
  ReadableStreamDefaultControllerEnqueueSteps(c, chunk);
}

/**
 * ReadableStreamDefaultControllerEnqueue from step 2, for callers that have just checked
 * ReadableStreamDefaultControllerCanCloseOrEnqueue themselves (controller.enqueue(), TransformStream's enqueue).
 */
export function ReadableStreamDefaultControllerEnqueueSteps(c: DefaultControllerInternal, chunk: unknown): void {
  const reader = c.reader; // IsReadableStreamLocked and GetNumReadRequests written out (per chunk)
  if (reader !== undefined && reader.size > 0) {
    reader.shift().chunkSteps(chunk); // ReadableStreamFulfillReadRequest(stream, chunk, false)
  } else {
    const queue = c.queue ??= new RingQueue();
    const sized = c.ext?.sized;
    if (sized === undefined) {
      // FP-COUNT-QUEUE: the default size algorithm returns 1 for every chunk.
      queue.push(chunk);
      c.queueTotalSize++;
    } else {
      let chunkSize: number;
      try {
        chunkSize = sized.algorithm!(chunk);
        validateChunkSize(chunkSize);
      } catch (e) {
        ReadableStreamDefaultControllerError(c, e);
        throw e;
      }
      queue.push(chunk);
      sized.sizes.push(chunkSize);
      c.queueTotalSize += chunkSize;
    }
  }
  // While a pull is pending CallPullIfNeeded can only set [[pullAgain]] (ShouldCallPull has no side effects):
  // nothing to do when it is set already, as it stays on a transform's readable side (FP-TS-PULL). Written
  // out here so that this function stays small enough to be inlined into enqueue() (a call per chunk).
  const pullState = c.pullState;
  if (pullState < PULLING) ReadableStreamDefaultControllerCallPullIfNeeded(c);
  else if (pullState === PULLING && ReadableStreamDefaultControllerShouldCallPull(c)) c.pullState = PULLING_AGAIN;
}

/** ReadableStreamDefaultControllerError(controller, e). */
export function ReadableStreamDefaultControllerError(c: DefaultControllerInternal, e: unknown): void {
  if (c.state !== READABLE) return;
  ResetQueue(c);
  ReadableStreamDefaultControllerClearAlgorithms(c);
  ReadableStreamError(c, e);
}

/** ReadableStreamDefaultControllerGetDesiredSize(controller). */
export function ReadableStreamDefaultControllerGetDesiredSize(c: DefaultControllerInternal): number | null {
  const state = c.state;
  if (state === ERRORED) return null;
  if (state === CLOSED) return 0;
  return c.strategyHWM - c.queueTotalSize;
}

/** ReadableStreamDefaultControllerHasBackpressure(controller). */
export function ReadableStreamDefaultControllerHasBackpressure(c: DefaultControllerInternal): boolean {
  return !ReadableStreamDefaultControllerShouldCallPull(c);
}

/** ReadableStreamDefaultControllerCanCloseOrEnqueue(controller). */
export function ReadableStreamDefaultControllerCanCloseOrEnqueue(c: DefaultControllerInternal): boolean {
  return !c.closeRequested && c.state === READABLE;
}

/**
 * SetUpReadableStreamDefaultController(stream, controller, startAlgorithm, pullAlgorithm, cancelAlgorithm,
 * highWaterMark, sizeAlgorithm), on a stream that is its own controller.
 */
export function SetUpReadableStreamDefaultController(
  c: DefaultControllerInternal,
  startAlgorithm: (() => unknown) | undefined,
  algorithms: SourceAlgorithms,
  highWaterMark: number,
  sizeAlgorithm: SizeAlgorithm | undefined,
): void {
  if (sizeAlgorithm !== undefined) (c.ext = new ReadableStreamExtras()).sized = new SizedQueue(sizeAlgorithm);
  c.strategyHWM = highWaterMark;
  c.algorithms = algorithms;
  if (startAlgorithm === EXTERNAL_START) return; // the caller reacts to the start (TransformStream)
  const startResult = startAlgorithm === undefined ? undefined : startAlgorithm();
  // The start reaction is the controller's pull reaction (it sees `started` false).
  if (startResult === undefined) {
    pullJobs.queue(c); // FP-SYNC-ALGO
  } else {
    PromisePrototypeThen(promiseResolvedWith(startResult), PullFulfilledReaction(c), PullRejectedReaction(c));
  }
}

/** The reaction to a start algorithm's promise, for callers that passed EXTERNAL_START. */
export function ReadableStreamDefaultControllerUponStart(
  c: DefaultControllerInternal,
  startPromise: Promise<unknown>,
): void {
  PromisePrototypeThen(startPromise, PullFulfilledReaction(c), PullRejectedReaction(c));
}

/** The steps upon fulfillment of the start promise, for callers that passed EXTERNAL_START. */
export function ReadableStreamDefaultControllerStarted(c: DefaultControllerInternal): void {
  c.pullState = PULL_IDLE;
  ReadableStreamDefaultControllerCallPullIfNeeded(c);
}

/**
 * SetUpReadableStreamDefaultControllerFromUnderlyingSource(...), with the stream made here: the stream holds the
 * source's converted members and is its own pull and cancel algorithms.
 */
export function SetUpReadableStreamDefaultControllerFromUnderlyingSource(
  underlyingSource: unknown,
  cancelFn: Callable | undefined,
  pullFn: Callable | undefined,
  start: Callable | undefined,
  highWaterMark: number,
  sizeAlgorithm: SizeAlgorithm | undefined,
): DefaultControllerInternal {
  const c = new DefaultControllerInternal();
  if (start === undefined && pullFn === undefined && cancelFn === undefined) {
    // No user callback can ever see the controller: skip the public object (FP-LAZY).
    SetUpReadableStreamDefaultController(c, undefined, NO_SOURCE_ALGORITHMS, highWaterMark, sizeAlgorithm);
    return c;
  }
  const pub = c.pub = createDefaultController(c);
  c.source = underlyingSource;
  c.pullFn = pullFn;
  c.cancelFn = cancelFn;
  SetUpReadableStreamDefaultController(
    c,
    start === undefined ? undefined : makeStartAlgorithm(start, underlyingSource, pub),
    c,
    highWaterMark,
    sizeAlgorithm,
  );
  return c;
}

let createDefaultController: (c: DefaultControllerInternal) => ReadableStreamDefaultController;
let getDefaultController: (x: unknown) => DefaultControllerInternal;
const kCreate = Symbol();

/** The controller handed to a default ReadableStream's underlying source (§4.6). */
// deno-lint-ignore no-explicit-any -- lib.dom's generic default
export class ReadableStreamDefaultController<R = any> {
  #c!: DefaultControllerInternal;

  /** Not constructible: controllers are created by ReadableStream. */
  constructor(token: unknown = undefined) {
    if (token !== kCreate) throw typeError("Illegal constructor");
  }

  static {
    createDefaultController = (c) => {
      const o = new ReadableStreamDefaultController(kCreate);
      o.#c = c;
      return o;
    };
    getDefaultController = (x) => {
      if (typeof x !== "object" || x === null || !(#c in x)) {
        throw typeError("Illegal invocation: not a ReadableStreamDefaultController");
      }
      return (x as ReadableStreamDefaultController).#c;
    };
  }

  /** The amount of data the stream wants: highWaterMark minus the queued total; null if errored. */
  get desiredSize(): number | null {
    return ReadableStreamDefaultControllerGetDesiredSize(getDefaultController(this));
  }

  /** Closes the stream once the queued chunks have been read. */
  close(): void {
    const c = getDefaultController(this);
    if (!ReadableStreamDefaultControllerCanCloseOrEnqueue(c)) {
      throw typeError("The stream is not in a state that permits close");
    }
    ReadableStreamDefaultControllerClose(c);
  }

  /** Enqueues a chunk. */
  enqueue(chunk: R = undefined as R): void {
    const c = getDefaultController(this);
    if (!ReadableStreamDefaultControllerCanCloseOrEnqueue(c)) {
      throw typeError("The stream is not in a state that permits enqueue");
    }
    ReadableStreamDefaultControllerEnqueueSteps(c, chunk);
  }

  /** Errors the stream with `e`. */
  error(e: unknown = undefined): void {
    ReadableStreamDefaultControllerError(getDefaultController(this), e);
  }
}
defineInterface(ReadableStreamDefaultController, "ReadableStreamDefaultController");
