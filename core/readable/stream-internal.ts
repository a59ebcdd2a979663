/**
 * The internal state of a ReadableStream and the stream-level abstract operations
 * (Streams §4.9.2 "Interfacing with controllers", §4.9.1 "Working with readable streams").
 * Readers and controllers are plain internal objects here; the public classes wrap them.
 * @module
 */
import { LazyPromise, PENDING, PromiseReject, PromiseResolve, type AlgorithmResult } from "../shared/promise.ts";
import { PromisePrototypeThen } from "../shared/primordials.ts";
import { RequestQueue } from "../shared/queue.ts";
import type { PromiseReadRequest } from "./read-requests.ts";

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

/** What the stream needs from its controller: [[CancelSteps]], [[PullSteps]], [[ReleaseSteps]]. */
export interface ReadableControllerInternal {
  readonly isByte: boolean;
  stream: ReadableStreamInternal;
  cancelSteps(reason: unknown): AlgorithmResult;
  pullSteps(readRequest: ReadRequest): void;
  releaseSteps(): void;
  /**
   * [[PullSteps]] for the case where a chunk is already queued: dequeues it (running the same close /
   * pull-if-needed steps) and returns it, or returns NO_CHUNK without doing anything. Lets a read with
   * data buffered skip the read-request object (fast path FP-READ).
   */
  readSync(): unknown;
  /**
   * [[PullSteps]] for a stream that is readable, right after readSync() returned NO_CHUNK (which changed
   * nothing): the steps that remain when no chunk is queued.
   */
  pullStepsEmpty(readRequest: ReadRequest): void;
  /**
   * FP-ITER-MERGE: readSync(), except that when its last step is a synchronous pull() call, the reaction job
   * to that pull is not queued but returned in `owedPullReaction`, for the caller to run first in the job it
   * queues right away (the two jobs would have been adjacent in the microtask queue).
   */
  readSyncOwingPullReaction(): unknown;
  /** Set by readSyncOwingPullReaction(): the pull reaction the caller must run, or undefined. */
  owedPullReaction: (() => void) | undefined;
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

/** Internal state of a ReadableStream (§4.2.2 internal slots). */
export class ReadableStreamInternal {
  state: number = READABLE;
  storedError: unknown = undefined;
  disturbed = false;
  reader: ReaderInternal | undefined = undefined;
  controller!: ReadableControllerInternal;
  /** The TransformStream this is the readable side of (FP-FUSE read-ahead, pipe-chain introspection). */
  transform: object | undefined = undefined;
  /** Called once when the stream closes or errors (core/stream-state.ts, for runtime adapters). */
  onSettled: (() => void) | undefined = undefined;
}

/** IsReadableStreamLocked(stream). */
export function IsReadableStreamLocked(stream: ReadableStreamInternal): boolean {
  return stream.reader !== undefined;
}

/** ReadableStreamClose(stream). */
export function ReadableStreamClose(stream: ReadableStreamInternal): void {
  stream.state = CLOSED;
  if (stream.onSettled !== undefined) ReadableStreamNotifySettled(stream);
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
  if (stream.onSettled !== undefined) ReadableStreamNotifySettled(stream);
  const reader = stream.reader;
  if (reader === undefined) return;
  const closed = reader.closed;
  if (closed !== undefined) closed.reject(e, true);
  else reader.owner!.readerErrored(e);
  ReaderErrorRequests(reader, e);
}

/** Runs (once) what core/stream-state.ts registered for the stream's end. Not a spec operation. */
function ReadableStreamNotifySettled(stream: ReadableStreamInternal): void {
  const cb = stream.onSettled!;
  stream.onSettled = undefined;
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
  const sourceCancel = stream.controller.cancelSteps(reason);
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
  const request = stream.reader!.shift();
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
