/**
 * The internal state of a ReadableStream and the stream-level abstract operations
 * (Streams §4.9.2 "Interfacing with controllers", §4.9.1 "Working with readable streams").
 * Readers and controllers are plain internal objects here; the public classes wrap them.
 * @module
 */
import {
  type AlgorithmResult,
  invokeChunkCallback,
  invokePromiseCallback,
  invokePromiseCallback1,
  LazyPromise,
  PENDING,
  PromiseReject,
  PromiseResolve,
  REUSE_ARGUMENT_LISTS,
} from "../shared/promise.ts";
import { type Callable, PromisePrototypeThen, queueMicrotask } from "../shared/primordials.ts";
import type { JobQueue } from "../shared/jobs.ts";
import { RequestQueue, RingQueue } from "../shared/queue.ts";
import type { PromiseReadRequest } from "./read-requests.ts";
import type { PullTurnJob } from "./pull-turn.ts";
import type { SourceAlgorithms } from "./source-algorithms.ts";

export const READABLE = 0;
export const CLOSED = 1;
export const ERRORED = 2;

/** A read request (§4.3.2): what a pending default read does once a chunk, close or error arrives. */
export interface ReadRequest {
  chunkSteps(chunk: unknown): void;
  closeSteps(): void;
  errorSteps(e: unknown): void;
}

/** A read-into request (§4.4.2): a pending BYOB read. */
export interface ReadIntoRequest {
  chunkSteps(chunk: ArrayBufferView): void;
  closeSteps(chunk: ArrayBufferView | undefined): void;
  errorSteps(e: unknown): void;
}

/** Sentinel returned by readSync() when no chunk is queued. */
export const NO_CHUNK: unique symbol = Symbol("no chunk");

/**
 * An internal consumer (a pipe) that owns a reader no user code can reach: it is told when the stream closes
 * or errors, instead of reacting to the reader's [[closedPromise]], which is then never made (FP-LAZY).
 */
export interface ReaderOwner {
  /** The reader's [[closedPromise]] would be resolved now. */
  readerClosed(): void;
  /** The reader's [[closedPromise]] would be rejected with `e` now. */
  readerErrored(e: unknown): void;
}

/**
 * Internal state of a default or BYOB reader. The reader is itself its [[readRequests]] (default reader) or
 * [[readIntoRequests]] (BYOB reader) list: `size`, `push()`, `shift()` and `takeAll()` work on that list.
 * Checked once or twice per chunk, the count is then a field of the object the caller already holds.
 */
export class ReaderInternal extends RequestQueue<ReadRequest & ReadIntoRequest> {
  stream: ReadableStreamInternal | undefined = undefined;
  /** [[closedPromise]]; undefined for a reader with an owner, which is told instead. */
  readonly closed: LazyPromise | undefined;
  readonly byob: boolean;
  /** The read request `read()` arms when it is not waiting (FP-OWN-REQUEST). */
  ownRequest: PromiseReadRequest | undefined = undefined;
  readonly owner: ReaderOwner | undefined;

  constructor(byob: boolean, owner: ReaderOwner | undefined) {
    super();
    this.byob = byob;
    this.owner = owner;
    this.closed = owner === undefined ? new LazyPromise() : undefined;
  }
}

/**
 * Slots of a readable stream that most streams never use, made on first use (FP-LAZY): one object per stream
 * that needs any of them instead of a field each in every stream.
 */
export class ReadableStreamExtras {
  /** Called once when the stream closes or errors (core/stream-state.ts, for runtime adapters). */
  onSettled: (() => void) | undefined = undefined;
  /** The controller's reaction to a pull() or start() that returned a promise, and its runner of turn jobs. */
  onPullRejected: ((e: unknown) => void) | undefined = undefined;
  runTurnJobs: (() => void) | undefined = undefined;
  /** FP-PULL-TURN: the first job deferred to the next pull reaction, the ones after it, and their count. */
  turnJob: PullTurnJob | undefined = undefined;
  turnJobs: PullTurnJob[] | undefined = undefined;
  turnJobCount = 0;
  /** The argument list of pull(controller), reused where the engine allocates a literal one (REUSE_ARGUMENT_LISTS). */
  pullArgs: unknown[] | undefined = undefined;
  /** A default controller's size() strategy and chunk sizes (FP-COUNT-QUEUE: only with a size()). */
  sized: SizedQueue | undefined = undefined;
  /**
   * A byte controller's [[autoAllocateChunkSize]] and [[byobRequest]] (undefined stands for null).
   */
  autoAllocateChunkSize: number | undefined = undefined;
  byobRequest: object | undefined = undefined;
}

/** A default controller's size() algorithm and the sizes of its queued chunks. */
export class SizedQueue {
  /** [[strategySizeAlgorithm]] (undefined once the algorithms are cleared). */
  algorithm: ((chunk: unknown) => number) | undefined;
  readonly sizes: RingQueue<number> = new RingQueue();
  constructor(algorithm: (chunk: unknown) => number) {
    this.algorithm = algorithm;
  }
}

/** [[started]], [[pulling]] and [[pullAgain]] of a readable controller, as one state (pullAgain implies pulling). */
export const BEFORE_START = 0;
export const PULL_IDLE = 1;
export const PULLING = 2;
export const PULLING_AGAIN = 3;
// (the controllers and TransformStream declare these again, typed by these: see default-controller.ts)

/**
 * Internal state of a ReadableStream (§4.2.2 internal slots) and of its controller, in one object: the
 * default controller (readable/default-controller.ts) and the byte controller (readable/byte-controller.ts)
 * extend this class, so `stream.[[controller]]` is the stream object itself. For a stream made by
 * `new ReadableStream(source)` the object also holds the converted UnderlyingSource members and is its own
 * pull and cancel algorithms. One object per stream instead of a stream, a controller and a source record.
 */
export abstract class ReadableStreamInternal implements SourceAlgorithms {
  state: number = READABLE;
  storedError: unknown = undefined;
  disturbed = false;
  reader: ReaderInternal | undefined = undefined;
  /**
   * The TransformStream this is the readable side of (FP-FUSE read-ahead, inspectPipeChain()): a field
   * of default streams only (a byte stream never is one, and reads undefined here).
   */
  declare readonly transform: object | undefined;
  ext: ReadableStreamExtras | undefined = undefined;
  // The slots both controllers have (§4.6.2, §4.7.2).
  queueTotalSize = 0;
  closeRequested = false;
  /** BEFORE_START (not [[started]]), PULL_IDLE, PULLING ([[pulling]]) or PULLING_AGAIN ([[pulling]] and [[pullAgain]]). */
  pullState: number = BEFORE_START;
  strategyHWM = 0;
  algorithms: SourceAlgorithms | undefined = undefined;
  /** The public controller (made only when a user callback can see it). */
  pub: object | undefined = undefined;
  /** The controller's reaction to a synchronous pull(): see QueuePullFulfilled in each controller. */
  onPullFulfilled: (() => void) | undefined = undefined;
  /** The converted UnderlyingSource members, for a stream whose algorithms are its own. */
  source: unknown = undefined;
  pullFn: Callable | undefined = undefined;
  cancelFn: Callable | undefined = undefined;

  /** Whether the controller is a ReadableByteStreamController (a prototype property of each controller class). */
  declare readonly isByte: boolean;

  /** [[CancelSteps]](reason). */
  abstract cancelSteps(reason: unknown): AlgorithmResult;
  /** [[PullSteps]](readRequest). */
  abstract pullSteps(readRequest: ReadRequest): void;
  /** [[ReleaseSteps]](). */
  abstract releaseSteps(): void;
  /**
   * [[PullSteps]] for the case where a chunk is already queued: dequeues it (running the same close /
   * pull-if-needed steps) and returns it, or returns NO_CHUNK without doing anything. Lets a read with
   * data buffered skip the read-request object (fast path FP-READ).
   */
  abstract readSync(): unknown;
  /**
   * [[PullSteps]] for a stream that is readable, right after readSync() returned NO_CHUNK (which changed
   * nothing): the steps that remain when no chunk is queued.
   */
  abstract pullStepsEmpty(readRequest: ReadRequest): void;
  /**
   * FP-ITER-MERGE: readSync(), except that when its last step is a synchronous pull() call, the reaction job
   * to that pull is not queued: TakeOwedPullReaction() then returns it, for the caller to run first in the job
   * it queues right away (the two jobs would have been adjacent in the microtask queue).
   */
  abstract readSyncOwingPullReaction(): unknown;

  /** The pull algorithm of a user source: calls `pull(controller)`. */
  pull(): AlgorithmResult {
    const pull = this.pullFn;
    if (pull === undefined) return undefined;
    // The first pull (onPullFulfilled is set when it is reacted to) writes its list: a stream pulled once keeps none.
    if (!REUSE_ARGUMENT_LISTS || this.onPullFulfilled === undefined) {
      return invokePromiseCallback1(pull, this.source, this.pub);
    }
    const ext = this.ext ??= new ReadableStreamExtras();
    return invokeChunkCallback(pull, this.source, ext.pullArgs ??= [this.pub]);
  }

  /** The cancel algorithm of a user source: calls `cancel(reason)`. */
  cancel(reason: unknown): AlgorithmResult {
    const cancel = this.cancelFn;
    if (cancel === undefined) return undefined;
    return invokePromiseCallback(cancel, this.source, [reason]);
  }
}

/** The algorithms of a controller, cleared ([[pullAlgorithm]], [[cancelAlgorithm]], and the source's members). */
export function ReadableStreamClearSourceAlgorithms(stream: ReadableStreamInternal): void {
  stream.algorithms = undefined;
  stream.source = stream.pullFn = stream.cancelFn = undefined;
  const ext = stream.ext;
  if (ext !== undefined) ext.pullArgs = undefined;
}

/** Marks a controller whose first pull reaction went through the shared job queue (QueuePullReaction). */
function PULLED_ONCE(): void {}

/**
 * Queues a controller's reaction to its synchronous pull() (FP-SYNC-ALGO). The reaction to its first pull is a
 * job of its controller class's JobQueue (core/shared/jobs.ts), as its start reaction is; from its second pull on,
 * a closure of its own, made then by `make` and kept: a stream pulled once, up to its high-water mark, and then
 * left idle keeps no closure, and a stream being read pays for one closure once.
 */
export function QueuePullReaction<C extends ReadableStreamInternal>(
  c: C,
  jobs: JobQueue<C>,
  make: (c: C) => () => void,
): void {
  const own = c.onPullFulfilled;
  if (own !== undefined && own !== PULLED_ONCE) {
    queueMicrotask(own);
  } else if (own === undefined) {
    c.onPullFulfilled = PULLED_ONCE;
    jobs.queue(c);
  } else {
    queueMicrotask(c.onPullFulfilled = make(c));
  }
}

/** The controller's reaction closure (made by `make` once), to react to a promise with. */
export function PullReactionFunction<C extends ReadableStreamInternal>(c: C, make: (c: C) => () => void): () => void {
  const own = c.onPullFulfilled;
  return own !== undefined && own !== PULLED_ONCE ? own : (c.onPullFulfilled = make(c));
}

/** `onRejected(c, e)` as a function, kept in the controller's extras (a pull() or start() that returned a promise). */
export function PullRejectedFunction<C extends ReadableStreamInternal>(
  c: C,
  onRejected: (c: C, e: unknown) => void,
): (e: unknown) => void {
  const ext = c.ext ??= new ReadableStreamExtras();
  return ext.onPullRejected ??= makeRejectedReaction(c, onRejected);
}

// The closure is made by this function: one made inside the caller would cost it a context on every call.
function makeRejectedReaction<C>(c: C, onRejected: (c: C, e: unknown) => void): (e: unknown) => void {
  return (e: unknown) => onRejected(c, e);
}

/** IsReadableStreamLocked(stream). */
export function IsReadableStreamLocked(stream: ReadableStreamInternal): boolean {
  return stream.reader !== undefined;
}

/** ReadableStreamClose(stream). */
export function ReadableStreamClose(stream: ReadableStreamInternal): void {
  stream.state = CLOSED;
  if (stream.ext?.onSettled !== undefined) ReadableStreamNotifySettled(stream);
  const reader = stream.reader;
  if (reader === undefined) return;
  const closed = reader.closed;
  if (closed !== undefined) closed.resolve();
  else reader.owner!.readerClosed();
  if (!reader.byob) {
    if (reader.size === 0) return;
    const requests = reader.takeAll();
    while (requests.size > 0) requests.shift().closeSteps();
  }
}

/** ReadableStreamError(stream, e). */
export function ReadableStreamError(stream: ReadableStreamInternal, e: unknown): void {
  stream.state = ERRORED;
  stream.storedError = e;
  if (stream.ext?.onSettled !== undefined) ReadableStreamNotifySettled(stream);
  const reader = stream.reader;
  if (reader === undefined) return;
  const closed = reader.closed;
  if (closed !== undefined) closed.reject(e, true);
  else reader.owner!.readerErrored(e);
  ReaderErrorRequests(reader, e);
}

/** Runs (once) what core/stream-state.ts registered for the stream's end. Not a spec operation. */
function ReadableStreamNotifySettled(stream: ReadableStreamInternal): void {
  const ext = stream.ext!;
  const cb = ext.onSettled!;
  ext.onSettled = undefined;
  cb();
}

/** ReadableStreamDefaultReaderErrorReadRequests / ReadableStreamBYOBReaderErrorReadIntoRequests. */
export function ReaderErrorRequests(reader: ReaderInternal, e: unknown): void {
  if (reader.size === 0) return;
  const requests = reader.takeAll();
  while (requests.size > 0) requests.shift().errorSteps(e);
}

function returnUndefined(): undefined {
  return undefined;
}

/** ReadableStreamCancel(stream, reason). */
export function ReadableStreamCancel(stream: ReadableStreamInternal, reason: unknown): Promise<undefined> {
  stream.disturbed = true;
  if (stream.state === CLOSED) return PromiseResolve(undefined);
  if (stream.state === ERRORED) return PromiseReject(stream.storedError);
  ReadableStreamClose(stream);
  const reader = stream.reader;
  if (reader !== undefined && reader.byob) {
    if (reader.size > 0) {
      const requests = reader.takeAll();
      while (requests.size > 0) requests.shift().closeSteps(undefined);
    }
  }
  const sourceCancel = stream.cancelSteps(reason);
  return PromisePrototypeThen(
    sourceCancel === undefined ? PromiseResolve(undefined) : sourceCancel,
    returnUndefined,
  ) as Promise<undefined>;
}

/** ReadableStreamAddReadRequest / ReadableStreamAddReadIntoRequest. */
export function ReadableStreamAddRequest(stream: ReadableStreamInternal, request: ReadRequest | ReadIntoRequest): void {
  stream.reader!.push(request as ReadRequest & ReadIntoRequest);
}

/** ReadableStreamFulfillReadRequest(stream, chunk, done). */
export function ReadableStreamFulfillReadRequest(stream: ReadableStreamInternal, chunk: unknown, done: boolean): void {
  const request = stream.reader!.shift();
  if (done) request.closeSteps();
  else request.chunkSteps(chunk);
}

/** ReadableStreamFulfillReadIntoRequest(stream, chunk, done). */
export function ReadableStreamFulfillReadIntoRequest(
  stream: ReadableStreamInternal,
  chunk: ArrayBufferView,
  done: boolean,
): void {
  // Script run by an earlier fulfillment (a `then` getter on Object.prototype) may have released the reader,
  // which rejected every read-into request: nothing is left to fulfill.
  const reader = stream.reader;
  if (reader === undefined || reader.size === 0) return;
  const request = reader.shift();
  if (done) request.closeSteps(chunk);
  else request.chunkSteps(chunk);
}

/** ReadableStreamGetNumReadRequests / ReadableStreamGetNumReadIntoRequests. */
export function ReadableStreamGetNumRequests(stream: ReadableStreamInternal): number {
  return stream.reader!.size;
}

/** ReadableStreamHasDefaultReader(stream). */
export function ReadableStreamHasDefaultReader(stream: ReadableStreamInternal): boolean {
  const reader = stream.reader;
  return reader !== undefined && !reader.byob;
}

/** ReadableStreamHasBYOBReader(stream). */
export function ReadableStreamHasBYOBReader(stream: ReadableStreamInternal): boolean {
  const reader = stream.reader;
  return reader !== undefined && reader.byob;
}

export { PENDING };
