/**
 * ReadableStreamDefaultController and its abstract operations (Streams §4.6, §4.9.4).
 * @module
 */
import { defineInterface } from "../shared/interface.ts";
import {
  PromisePrototypeThen,
  PromiseResolve,
  queueMicrotask,
  ReflectApply,
} from "../shared/primordials.ts";
import { EXTERNAL_START, promiseResolvedWith, type AlgorithmResult } from "../shared/promise.ts";
import { RingQueue } from "../shared/queue.ts";
import { BeginPullTurn, EndPullTurn, HasPullTurnJobs, RunPullTurnJobs, type PullTurn } from "./pull-turn.ts";
import { typeError } from "../shared/webidl.ts";
import { validateChunkSize, type SizeAlgorithm } from "../strategies/extract.ts";
import { makeStartAlgorithm, NO_SOURCE_ALGORITHMS, PULL_PENDING, type SourceAlgorithms, type UnderlyingSourceRecord } from "./source-algorithms.ts";
import {
  CLOSED,
  ERRORED,
  NO_CHUNK,
  READABLE,
  ReadableStreamAddRequest,
  ReadableStreamClose,
  ReadableStreamError,
  type ReadableControllerInternal,
  type ReadableStreamInternal,
  type ReadRequest,
} from "./stream-internal.ts";

/** Internal state of a ReadableStreamDefaultController (§4.6.2 internal slots). */
export class DefaultControllerInternal implements ReadableControllerInternal, PullTurn {
  readonly isByte = false;
  stream!: ReadableStreamInternal;
  /** [[queue]] values; allocated on first use (FP-LAZY). */
  queue: RingQueue<unknown> | undefined = undefined;
  /** Chunk sizes, only kept when the strategy has a size() (FP-COUNT-QUEUE). */
  sizes: RingQueue<number> | undefined = undefined;
  queueTotalSize = 0;
  started = false;
  closeRequested = false;
  pullAgain = false;
  pulling = false;
  strategyHWM = 1;
  strategySizeAlgorithm: SizeAlgorithm | undefined = undefined;
  countSizes = true;
  algorithms: SourceAlgorithms | undefined = undefined;
  pub: ReadableStreamDefaultController | undefined = undefined;
  onPullFulfilled: (() => void) | undefined = undefined;
  onPullRejected: ((e: unknown) => void) | undefined = undefined;
  /** FP-PULL-TURN: jobs deferred to the next pull reaction, and their runner when pull() returned a promise. */
  turnJob: (() => void) | undefined = undefined;
  turnJobs: (() => void)[] | undefined = undefined;
  turnJobCount = 0;
  runTurnJobs: (() => void) | undefined = undefined;
  /** FP-ITER-MERGE: while true, a synchronous pull's reaction is left in owedPullReaction, not queued. */
  owePullReaction = false;
  owedPullReaction: (() => void) | undefined = undefined;

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
      ReadableStreamClose(this.stream);
    } else {
      ReadableStreamDefaultControllerCallPullIfNeeded(this);
    }
    return chunk;
  }

  readSyncOwingPullReaction(): unknown {
    this.owePullReaction = true;
    const chunk = this.readSync();
    this.owePullReaction = false;
    return chunk;
  }

  pullSteps(readRequest: ReadRequest): void {
    const chunk = this.readSync();
    if (chunk !== NO_CHUNK) readRequest.chunkSteps(chunk);
    else this.pullStepsEmpty(readRequest);
  }

  pullStepsEmpty(readRequest: ReadRequest): void {
    ReadableStreamAddRequest(this.stream, readRequest);
    // CallPullIfNeeded; while a pull is pending it can only set [[pullAgain]] (see the end of EnqueueSteps).
    if (!this.pulling) ReadableStreamDefaultControllerCallPullIfNeeded(this);
    else if (!this.pullAgain && ReadableStreamDefaultControllerShouldCallPull(this)) this.pullAgain = true;
  }

  releaseSteps(): void {}
}

/** DequeueValue(container) for the default controller's queue. */
export function DequeueValue(c: DefaultControllerInternal): unknown {
  const chunk = c.queue!.shift();
  if (c.countSizes) {
    c.queueTotalSize--;
  } else {
    c.queueTotalSize -= c.sizes!.shift();
    if (c.queueTotalSize < 0) c.queueTotalSize = 0; // rounding errors, as the spec says
  }
  return chunk;
}

/** ResetQueue(container). */
function ResetQueue(c: DefaultControllerInternal): void {
  c.queue?.clear();
  c.sizes?.clear();
  c.queueTotalSize = 0;
}

/** ReadableStreamDefaultControllerCallPullIfNeeded(controller). */
export function ReadableStreamDefaultControllerCallPullIfNeeded(c: DefaultControllerInternal): void {
  if (!ReadableStreamDefaultControllerShouldCallPull(c)) return;
  if (c.pulling) {
    c.pullAgain = true;
    return;
  }
  c.pulling = true;
  const outer = BeginPullTurn(c); // FP-PULL-TURN
  const result = c.algorithms!.pull();
  EndPullTurn(outer);
  if (result === undefined) {
    // FP-SYNC-ALGO: a synchronous pull() is reacted to with one microtask, like a resolved promise.
    const reaction = c.onPullFulfilled ??= makePullFulfilled(c);
    if (c.owePullReaction) {
      // FP-ITER-MERGE: nothing can be queued between this job and the one the caller queues next.
      c.owePullReaction = false;
      c.owedPullReaction = reaction;
    } else {
      queueMicrotask(reaction);
    }
    return;
  }
  // The reaction waits for a promise: jobs deferred during pull() run in a microtask of their own.
  if (HasPullTurnJobs(c)) queueMicrotask(c.runTurnJobs ??= makeRunTurnJobs(c));
  if (result !== PULL_PENDING) {
    PromisePrototypeThen(
      result,
      c.onPullFulfilled ??= makePullFulfilled(c),
      c.onPullRejected ??= makePullRejected(c),
    );
  }
}

/**
 * FP-TS-PULL: an internal pull algorithm that returned PULL_PENDING has finished; the reaction is queued now,
 * as it would be when the promise it stands for is resolved.
 */
export function ReadableStreamDefaultControllerPullSettled(c: DefaultControllerInternal): void {
  queueMicrotask(c.onPullFulfilled ??= makePullFulfilled(c));
}

// Reactions are made once per controller by these factories: a closure created inside
// CallPullIfNeeded would cost a context allocation on every call.
function makePullRejected(c: DefaultControllerInternal): (e: unknown) => void {
  return (e: unknown) => ReadableStreamDefaultControllerError(c, e);
}

function makeRunTurnJobs(c: DefaultControllerInternal): () => void {
  return () => RunPullTurnJobs(c);
}

function makePullFulfilled(c: DefaultControllerInternal): () => void {
  return () => {
    if (!c.started) {
      // The reaction to start(): pull() cannot have run yet.
      c.started = true;
      ReadableStreamDefaultControllerCallPullIfNeeded(c);
      return;
    }
    RunPullTurnJobs(c); // FP-PULL-TURN
    c.pulling = false;
    if (c.pullAgain) {
      c.pullAgain = false;
      ReadableStreamDefaultControllerCallPullIfNeeded(c);
    }
  };
}

/** ReadableStreamDefaultControllerShouldCallPull(controller). */
function ReadableStreamDefaultControllerShouldCallPull(c: DefaultControllerInternal): boolean {
  // CanCloseOrEnqueue, IsReadableStreamLocked and GetNumReadRequests written out: this runs more than once per
  // chunk, and its size decides whether it is inlined.
  const stream = c.stream;
  if (!c.started || c.closeRequested || stream.state !== READABLE) return false;
  const reader = stream.reader;
  if (reader !== undefined && reader.size > 0) return true;
  return c.strategyHWM - c.queueTotalSize > 0;
}

/** ReadableStreamDefaultControllerClearAlgorithms(controller). */
export function ReadableStreamDefaultControllerClearAlgorithms(c: DefaultControllerInternal): void {
  c.algorithms = undefined;
  c.strategySizeAlgorithm = undefined;
}

/** ReadableStreamDefaultControllerClose(controller). */
export function ReadableStreamDefaultControllerClose(c: DefaultControllerInternal): void {
  if (!ReadableStreamDefaultControllerCanCloseOrEnqueue(c)) return;
  c.closeRequested = true;
  if (c.queue === undefined || c.queue.size === 0) {
    ReadableStreamDefaultControllerClearAlgorithms(c);
    ReadableStreamClose(c.stream);
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
  const stream = c.stream;
  const reader = stream.reader; // IsReadableStreamLocked and GetNumReadRequests written out (per chunk)
  if (reader !== undefined && reader.size > 0) {
    reader.shift().chunkSteps(chunk); // ReadableStreamFulfillReadRequest(stream, chunk, false)
  } else {
    const queue = c.queue ??= new RingQueue();
    const size = c.strategySizeAlgorithm;
    if (size === undefined) {
      // FP-COUNT-QUEUE: the default size algorithm returns 1 for every chunk.
      queue.push(chunk);
      c.queueTotalSize++;
    } else {
      let chunkSize: number;
      try {
        chunkSize = size(chunk);
        validateChunkSize(chunkSize);
      } catch (e) {
        ReadableStreamDefaultControllerError(c, e);
        throw e;
      }
      queue.push(chunk);
      (c.sizes ??= new RingQueue()).push(chunkSize);
      c.queueTotalSize += chunkSize;
    }
  }
  // While a pull is pending CallPullIfNeeded can only set [[pullAgain]] (ShouldCallPull has no side effects):
  // nothing to do when it is set already, as it stays on a transform's readable side (FP-TS-PULL). Written
  // out here so that this function stays small enough to be inlined into enqueue() (a call per chunk).
  if (!c.pulling) ReadableStreamDefaultControllerCallPullIfNeeded(c);
  else if (!c.pullAgain && ReadableStreamDefaultControllerShouldCallPull(c)) c.pullAgain = true;
}

/** ReadableStreamDefaultControllerError(controller, e). */
export function ReadableStreamDefaultControllerError(c: DefaultControllerInternal, e: unknown): void {
  const stream = c.stream;
  if (stream.state !== READABLE) return;
  ResetQueue(c);
  ReadableStreamDefaultControllerClearAlgorithms(c);
  ReadableStreamError(stream, e);
}

/** ReadableStreamDefaultControllerGetDesiredSize(controller). */
export function ReadableStreamDefaultControllerGetDesiredSize(c: DefaultControllerInternal): number | null {
  const state = c.stream.state;
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
  return !c.closeRequested && c.stream.state === READABLE;
}

/**
 * SetUpReadableStreamDefaultController(stream, controller, startAlgorithm, pullAlgorithm, cancelAlgorithm,
 * highWaterMark, sizeAlgorithm). `start` is the already-invoked start result thunk.
 */
export function SetUpReadableStreamDefaultController(
  stream: ReadableStreamInternal,
  c: DefaultControllerInternal,
  startAlgorithm: (() => unknown) | undefined,
  algorithms: SourceAlgorithms,
  highWaterMark: number,
  sizeAlgorithm: SizeAlgorithm | undefined,
): void {
  c.stream = stream;
  c.strategySizeAlgorithm = sizeAlgorithm;
  c.countSizes = sizeAlgorithm === undefined;
  c.strategyHWM = highWaterMark;
  c.algorithms = algorithms;
  stream.controller = c;
  if (startAlgorithm === EXTERNAL_START) return; // the caller reacts to the start (TransformStream)
  const startResult = startAlgorithm === undefined ? undefined : startAlgorithm();
  // The start reaction is the controller's pull reaction (it sees `started` false): one closure per stream.
  const onStart = c.onPullFulfilled = makePullFulfilled(c);
  if (startResult === undefined) {
    queueMicrotask(onStart); // FP-SYNC-ALGO
  } else {
    PromisePrototypeThen(promiseResolvedWith(startResult), onStart, c.onPullRejected = makePullRejected(c));
  }
}

/** The reaction to a start algorithm's promise, for callers that passed EXTERNAL_START. */
export function ReadableStreamDefaultControllerUponStart(c: DefaultControllerInternal, startPromise: Promise<unknown>): void {
  PromisePrototypeThen(startPromise, c.onPullFulfilled ??= makePullFulfilled(c), c.onPullRejected ??= makePullRejected(c));
}

/** The steps upon fulfillment of the start promise, for callers that passed EXTERNAL_START. */
export function ReadableStreamDefaultControllerStarted(c: DefaultControllerInternal): void {
  c.started = true;
  ReadableStreamDefaultControllerCallPullIfNeeded(c);
}

/** SetUpReadableStreamDefaultControllerFromUnderlyingSource(...). */
export function SetUpReadableStreamDefaultControllerFromUnderlyingSource(
  stream: ReadableStreamInternal,
  underlyingSource: unknown,
  dict: UnderlyingSourceRecord,
  highWaterMark: number,
  sizeAlgorithm: SizeAlgorithm | undefined,
): void {
  const c = new DefaultControllerInternal();
  const start = dict.startFn;
  if (start === undefined && dict.pullFn === undefined && dict.cancelFn === undefined) {
    // No user callback can ever see the controller: skip the public object (FP-LAZY).
    SetUpReadableStreamDefaultController(stream, c, undefined, NO_SOURCE_ALGORITHMS, highWaterMark, sizeAlgorithm);
    return;
  }
  const pub = createDefaultController(c);
  c.pub = pub;
  dict.controller = pub;
  SetUpReadableStreamDefaultController(
    stream,
    c,
    start === undefined ? undefined : makeStartAlgorithm(start, underlyingSource, pub),
    dict,
    highWaterMark,
    sizeAlgorithm,
  );
}

let createDefaultController: (c: DefaultControllerInternal) => ReadableStreamDefaultController;
let getDefaultController: (x: unknown) => DefaultControllerInternal;
const kCreate = Symbol();

/** The controller handed to a default ReadableStream's underlying source (§4.6). */
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
