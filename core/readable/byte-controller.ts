/**
 * ReadableByteStreamController and its abstract operations (Streams §4.7, §4.9.5).
 * Queue entries are Uint8Array views over transferred buffers: the view a default read hands out is the
 * one created at enqueue time (FP-BYTE-VIEW), so a chunk costs no extra record object.
 * @module
 */
import {
  arrayBufferByteLength,
  CanTransferArrayBuffer,
  cloneArrayBuffer,
  convertArrayBufferView,
  copyDataBlockBytes,
  IsDetachedBuffer,
  TransferArrayBuffer,
  transferUnchecked,
  typedArrayByteLength,
  typedArrayByteOffset,
  typedArrayTag,
  uint8ArrayBuffer,
  viewBuffer,
  viewByteLength,
  viewByteOffset,
  viewParts,
} from "../shared/buffers.ts";
import { defineInterface } from "../shared/interface.ts";
import {
  type Callable,
  MathMin,
  NativeArrayBuffer,
  NativeDataView,
  NativeUint8Array,
  PromisePrototypeThen,
  queueMicrotask,
} from "../shared/primordials.ts";
import { type AlgorithmResult, promiseResolvedWith } from "../shared/promise.ts";
import { JobQueue } from "../shared/jobs.ts";
import { RingQueue } from "../shared/queue.ts";
import { BeginPullTurn, EndPullTurn, HasPullTurnJobs, type PullTurn, RunPullTurnJobs } from "./pull-turn.ts";
import { convertEnforceRangeULongLong, rangeError, typeError } from "../shared/webidl.ts";
import { makeStartAlgorithm, type SourceAlgorithms } from "./source-algorithms.ts";
import {
  type BEFORE_START as S_BEFORE_START,
  CLOSED,
  ERRORED,
  IsReadableStreamLocked,
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
  ReadableStreamFulfillReadIntoRequest,
  ReadableStreamFulfillReadRequest,
  ReadableStreamGetNumRequests,
  ReadableStreamHasBYOBReader,
  ReadableStreamHasDefaultReader,
  ReadableStreamInternal,
  type ReadIntoRequest,
  type ReadRequest,
} from "./stream-internal.ts";

// The pull states of ReadableStreamInternal, declared here again (see default-controller.ts).
const BEFORE_START: typeof S_BEFORE_START = 0;
const PULL_IDLE: typeof S_PULL_IDLE = 1;
const PULLING: typeof S_PULLING = 2;
const PULLING_AGAIN: typeof S_PULLING_AGAIN = 3;

type ViewConstructor = new (buffer: ArrayBuffer, byteOffset: number, length: number) => ArrayBufferView;

const ELEMENT_SIZES: Record<string, number> = {
  Int8Array: 1,
  Uint8Array: 1,
  Uint8ClampedArray: 1,
  Int16Array: 2,
  Uint16Array: 2,
  Float16Array: 2,
  Int32Array: 4,
  Uint32Array: 4,
  Float32Array: 4,
  Float64Array: 8,
  BigInt64Array: 8,
  BigUint64Array: 8,
};
const VIEW_CONSTRUCTORS: Record<string, ViewConstructor> = {};
for (const name of Object.keys(ELEMENT_SIZES)) {
  const ctor = (globalThis as unknown as Record<string, ViewConstructor | undefined>)[name];
  if (ctor !== undefined) VIEW_CONSTRUCTORS[name] = ctor;
}

/** A pull-into descriptor (§4.7.2). */
export interface PullIntoDescriptor {
  buffer: ArrayBuffer;
  bufferByteLength: number;
  byteOffset: number;
  byteLength: number;
  bytesFilled: number;
  minimumFill: number;
  elementSize: number;
  viewConstructor: ViewConstructor;
  readerType: "default" | "byob" | "none";
}

/**
 * A readable byte stream: the stream's slots (ReadableStreamInternal) and the ReadableByteStreamController's
 * (§4.7.2) in one object. Its two queues are made on first use (FP-LAZY).
 */
export class ByteControllerInternal extends ReadableStreamInternal implements PullTurn {
  /** [[queue]]; made by the first enqueue (it is non-empty whenever queueTotalSize > 0). */
  queue: RingQueue<Uint8Array> | undefined = undefined;
  declare pub: ReadableByteStreamController | undefined;
  /** [[pendingPullIntos]]; undefined while never used (only BYOB reads and autoAllocateChunkSize use it). */
  pendingPullIntos: RingQueue<PullIntoDescriptor> | undefined = undefined;

  // An explicit constructor: see DefaultControllerInternal's.
  constructor() {
    super();
  }

  cancelSteps(reason: unknown): AlgorithmResult {
    ReadableByteStreamControllerClearPendingPullIntos(this);
    ResetQueue(this);
    const result = this.algorithms!.cancel(reason);
    ReadableByteStreamControllerClearAlgorithms(this);
    return result;
  }

  readSync(): unknown {
    if (this.queueTotalSize === 0) return NO_CHUNK;
    const entry = this.queue!.shift();
    this.queueTotalSize -= typedArrayByteLength(entry);
    ReadableByteStreamControllerHandleQueueDrain(this);
    return entry; // FP-BYTE-VIEW
  }

  pullStepsEmpty(readRequest: ReadRequest): void {
    this.pullSteps(readRequest); // its first step finds the queue empty
  }

  readSyncOwingPullReaction(): unknown {
    return this.readSync();
  }

  pullSteps(readRequest: ReadRequest): void {
    if (this.queueTotalSize > 0) {
      ReadableByteStreamControllerFillReadRequestFromQueue(this, readRequest);
      return;
    }
    const autoAllocateChunkSize = this.ext?.autoAllocateChunkSize;
    if (autoAllocateChunkSize !== undefined) {
      let buffer: ArrayBuffer;
      try {
        buffer = new NativeArrayBuffer(autoAllocateChunkSize);
      } catch (e) {
        readRequest.errorSteps(e);
        return;
      }
      PendingPullIntosForPush(this).push({
        buffer,
        bufferByteLength: autoAllocateChunkSize,
        byteOffset: 0,
        byteLength: autoAllocateChunkSize,
        bytesFilled: 0,
        minimumFill: 1,
        elementSize: 1,
        viewConstructor: NativeUint8Array as unknown as ViewConstructor,
        readerType: "default",
      });
    }
    ReadableStreamAddRequest(this, readRequest);
    ReadableByteStreamControllerCallPullIfNeeded(this);
  }

  releaseSteps(): void {
    const pending = PendingPullIntos(this);
    if (pending !== undefined && pending.size > 0) {
      const first = pending.peek();
      first.readerType = "none";
      if (pending.size > 1) {
        const only = new RingQueue<PullIntoDescriptor>();
        only.push(first);
        this.pendingPullIntos = only;
      }
    }
  }

  /** ReadableByteStreamControllerPullInto(controller, view, min, readIntoRequest). */
  pullInto(view: ArrayBufferView, min: number, readIntoRequest: ReadIntoRequest): void {
    ReadableByteStreamControllerPullInto(this, view, min, readIntoRequest);
  }
}
(ByteControllerInternal.prototype as { isByte: boolean }).isByte = true;

function ResetQueue(c: ByteControllerInternal): void {
  c.queue?.clear();
  c.queueTotalSize = 0;
}

/** ReadableByteStreamControllerCallPullIfNeeded(controller). */
export function ReadableByteStreamControllerCallPullIfNeeded(c: ByteControllerInternal): void {
  if (!ReadableByteStreamControllerShouldCallPull(c)) return;
  if (c.pullState >= PULLING) {
    c.pullState = PULLING_AGAIN;
    return;
  }
  c.pullState = PULLING;
  const outer = BeginPullTurn(c); // FP-PULL-TURN
  const result = c.algorithms!.pull();
  EndPullTurn(outer);
  if (result === undefined) {
    QueuePullReaction(c, pullJobs, makePullFulfilled); // FP-SYNC-ALGO
  } else {
    if (HasPullTurnJobs(c)) {
      const ext = c.ext!;
      queueMicrotask(ext.runTurnJobs ??= makeRunTurnJobs(c));
    }
    PromisePrototypeThen(
      result,
      PullReactionFunction(c, makePullFulfilled),
      PullRejectedFunction(c, ReadableByteStreamControllerError),
    );
  }
}

function makeRunTurnJobs(c: ByteControllerInternal): () => void {
  return () => RunPullTurnJobs(c);
}

/** The start reactions and first pull reactions of byte controllers, as jobs (no closure per stream). */
const pullJobs: JobQueue<ByteControllerInternal> = new JobQueue(() => PullFulfilled(pullJobs.shift()));

function makePullFulfilled(c: ByteControllerInternal): () => void {
  return () => PullFulfilled(c);
}

/** The reaction to the start algorithm's or a pull algorithm's fulfillment. */
function PullFulfilled(c: ByteControllerInternal): void {
  if (c.pullState === BEFORE_START) {
    // The reaction to start(): pull() cannot have run yet.
    c.pullState = PULL_IDLE;
    ReadableByteStreamControllerCallPullIfNeeded(c);
    return;
  }
  RunPullTurnJobs(c); // FP-PULL-TURN
  const again = c.pullState === PULLING_AGAIN;
  c.pullState = PULL_IDLE;
  if (again) ReadableByteStreamControllerCallPullIfNeeded(c);
}

/** ReadableByteStreamControllerShouldCallPull(controller). */
function ReadableByteStreamControllerShouldCallPull(c: ByteControllerInternal): boolean {
  if (c.state !== READABLE) return false;
  if (c.closeRequested) return false;
  if (c.pullState === BEFORE_START) return false;
  if (IsReadableStreamLocked(c) && ReadableStreamGetNumRequests(c) > 0) return true;
  return c.strategyHWM - c.queueTotalSize > 0;
}

/** ReadableByteStreamControllerClearAlgorithms(controller). */
export function ReadableByteStreamControllerClearAlgorithms(c: ByteControllerInternal): void {
  ReadableStreamClearSourceAlgorithms(c);
}

/** ReadableByteStreamControllerClearPendingPullIntos(controller). */
function ReadableByteStreamControllerClearPendingPullIntos(c: ByteControllerInternal): void {
  ReadableByteStreamControllerInvalidateBYOBRequest(c);
  c.pendingPullIntos = undefined;
}

/** ReadableByteStreamControllerClose(controller). */
export function ReadableByteStreamControllerClose(c: ByteControllerInternal): void {
  if (c.closeRequested || c.state !== READABLE) return;
  if (c.queueTotalSize > 0) {
    c.closeRequested = true;
    return;
  }
  const pending = PendingPullIntos(c);
  if (pending !== undefined && pending.size > 0) {
    const first = pending.peek();
    if (first.bytesFilled % first.elementSize !== 0) {
      const e = typeError("Insufficient bytes to fill elements in the given buffer");
      ReadableByteStreamControllerError(c, e);
      throw e;
    }
  }
  ReadableByteStreamControllerClearAlgorithms(c);
  ReadableStreamClose(c);
}

/** ReadableByteStreamControllerCommitPullIntoDescriptor(stream, pullIntoDescriptor). */
function ReadableByteStreamControllerCommitPullIntoDescriptor(
  stream: ReadableStreamInternal,
  desc: PullIntoDescriptor,
): void {
  let done = false;
  if (stream.state === CLOSED) done = true;
  const filledView = ReadableByteStreamControllerConvertPullIntoDescriptor(desc);
  if (desc.readerType === "default") ReadableStreamFulfillReadRequest(stream, filledView, done);
  else ReadableStreamFulfillReadIntoRequest(stream, filledView, done);
}

/** ReadableByteStreamControllerConvertPullIntoDescriptor(pullIntoDescriptor). */
function ReadableByteStreamControllerConvertPullIntoDescriptor(desc: PullIntoDescriptor): ArrayBufferView {
  // FP-BYOB-OWNED: the spec transfers the descriptor's buffer once more here. Nobody else can reach it: it
  // was transferred into the descriptor by the read (PullInto), by respond() / respondWithNewView() after
  // the BYOB request's view over it was handed out, or by enqueue() filling it, and the descriptor is
  // dropped once converted; a new view over the same buffer is indistinguishable from one over a copy.
  return new desc.viewConstructor(desc.buffer, desc.byteOffset, desc.bytesFilled / desc.elementSize);
}

/**
 * ReadableByteStreamControllerEnqueue(controller, chunk) for a chunk made inside the core whose buffer nobody
 * else can reach: a chunk a tee read from the stream it has locked, or a clone it made (FP-TEE-OWNED). The
 * spec would transfer the buffer and make a new view over it; with no other reference to the buffer or the
 * view, handing on the chunk itself is indistinguishable and saves a transfer and a view per chunk.
 */
export function ReadableByteStreamControllerEnqueueOwned(c: ByteControllerInternal, chunk: Uint8Array): void {
  if (c.closeRequested || c.state !== READABLE) return;
  ReadableByteStreamControllerEnqueueTransferred(
    c,
    viewBuffer(chunk),
    typedArrayByteOffset(chunk),
    typedArrayByteLength(chunk),
    chunk,
  );
}

/** ReadableByteStreamControllerEnqueue with the chunk's buffer, offset and length already read. */
function ReadableByteStreamControllerEnqueueParts(
  c: ByteControllerInternal,
  buffer: ArrayBuffer,
  byteOffset: number,
  byteLength: number,
): void {
  if (c.closeRequested || c.state !== READABLE) return;
  // Callers have rejected detached buffers (their byteLength is 0), so this is TransferArrayBuffer.
  ReadableByteStreamControllerEnqueueTransferred(c, transferUnchecked(buffer), byteOffset, byteLength, undefined);
}

/**
 * ReadableByteStreamControllerEnqueue from step 9 on (after the chunk's buffer was transferred). `view`, when
 * given, is a Uint8Array over exactly those bytes that may be handed out instead of a new one.
 */
function ReadableByteStreamControllerEnqueueTransferred(
  c: ByteControllerInternal,
  transferredBuffer: ArrayBuffer,
  byteOffset: number,
  byteLength: number,
  view: Uint8Array | undefined,
): void {
  const stream = c;
  const pending = PendingPullIntos(c);
  if (pending !== undefined && pending.size > 0) {
    const first = pending.peek();
    if (IsDetachedBuffer(first.buffer)) {
      throw typeError("The BYOB request's buffer has been detached and cannot be filled with an enqueued chunk");
    }
    ReadableByteStreamControllerInvalidateBYOBRequest(c);
    first.buffer = TransferArrayBuffer(first.buffer);
    if (first.readerType === "none") ReadableByteStreamControllerEnqueueDetachedPullIntoToQueue(c, first);
  }
  if (ReadableStreamHasDefaultReader(stream)) {
    ReadableByteStreamControllerProcessReadRequestsUsingQueue(c);
    if (ReadableStreamGetNumRequests(stream) === 0) {
      ReadableByteStreamControllerEnqueueChunkToQueue(c, transferredBuffer, byteOffset, byteLength, view);
    } else {
      if (HasPendingPullIntos(c)) ReadableByteStreamControllerShiftPendingPullInto(c);
      const transferredView = view ?? new NativeUint8Array(transferredBuffer, byteOffset, byteLength);
      ReadableStreamFulfillReadRequest(stream, transferredView, false);
    }
  } else if (ReadableStreamHasBYOBReader(stream)) {
    ReadableByteStreamControllerEnqueueChunkToQueue(c, transferredBuffer, byteOffset, byteLength, view);
    const filled = ReadableByteStreamControllerProcessPullIntoDescriptorsUsingQueue(c);
    for (let i = 0; i < filled.length; i++) ReadableByteStreamControllerCommitPullIntoDescriptor(stream, filled[i]!);
  } else {
    ReadableByteStreamControllerEnqueueChunkToQueue(c, transferredBuffer, byteOffset, byteLength, view);
  }
  ReadableByteStreamControllerCallPullIfNeeded(c);
}

/** ReadableByteStreamControllerEnqueueChunkToQueue(controller, buffer, byteOffset, byteLength). */
function ReadableByteStreamControllerEnqueueChunkToQueue(
  c: ByteControllerInternal,
  buffer: ArrayBuffer,
  byteOffset: number,
  byteLength: number,
  view?: Uint8Array,
): void {
  (c.queue ??= new RingQueue()).push(view ?? new NativeUint8Array(buffer, byteOffset, byteLength));
  c.queueTotalSize += byteLength;
}

/** ReadableByteStreamControllerEnqueueClonedChunkToQueue(controller, buffer, byteOffset, byteLength). */
function ReadableByteStreamControllerEnqueueClonedChunkToQueue(
  c: ByteControllerInternal,
  buffer: ArrayBuffer,
  byteOffset: number,
  byteLength: number,
): void {
  let clone: ArrayBuffer;
  try {
    clone = cloneArrayBuffer(buffer, byteOffset, byteLength);
  } catch (e) {
    ReadableByteStreamControllerError(c, e);
    throw e;
  }
  ReadableByteStreamControllerEnqueueChunkToQueue(c, clone, 0, byteLength);
}

/** ReadableByteStreamControllerEnqueueDetachedPullIntoToQueue(controller, pullIntoDescriptor). */
function ReadableByteStreamControllerEnqueueDetachedPullIntoToQueue(
  c: ByteControllerInternal,
  desc: PullIntoDescriptor,
): void {
  if (desc.bytesFilled > 0) {
    ReadableByteStreamControllerEnqueueClonedChunkToQueue(c, desc.buffer, desc.byteOffset, desc.bytesFilled);
  }
  ReadableByteStreamControllerShiftPendingPullInto(c);
}

/** ReadableByteStreamControllerError(controller, e). */
export function ReadableByteStreamControllerError(c: ByteControllerInternal, e: unknown): void {
  if (c.state !== READABLE) return;
  ReadableByteStreamControllerClearPendingPullIntos(c);
  ResetQueue(c);
  ReadableByteStreamControllerClearAlgorithms(c);
  ReadableStreamError(c, e);
}

/** ReadableByteStreamControllerFillHeadPullIntoDescriptor(controller, size, pullIntoDescriptor). */
function ReadableByteStreamControllerFillHeadPullIntoDescriptor(
  c: ByteControllerInternal,
  size: number,
  desc: PullIntoDescriptor,
): void {
  ReadableByteStreamControllerInvalidateBYOBRequest(c);
  desc.bytesFilled += size;
}

/** ReadableByteStreamControllerFillPullIntoDescriptorFromQueue(controller, pullIntoDescriptor). */
function ReadableByteStreamControllerFillPullIntoDescriptorFromQueue(
  c: ByteControllerInternal,
  desc: PullIntoDescriptor,
): boolean {
  const maxBytesToCopy = MathMin(c.queueTotalSize, desc.byteLength - desc.bytesFilled);
  const maxBytesFilled = desc.bytesFilled + maxBytesToCopy;
  let totalBytesToCopyRemaining = maxBytesToCopy;
  let ready = false;
  const remainderBytes = maxBytesFilled % desc.elementSize;
  const maxAlignedBytes = maxBytesFilled - remainderBytes;
  if (maxAlignedBytes >= desc.minimumFill) {
    totalBytesToCopyRemaining = maxAlignedBytes - desc.bytesFilled;
    ready = true;
  }
  const queue = c.queue!; // non-empty while bytes remain to copy
  while (totalBytesToCopyRemaining > 0) {
    const head = queue.peek();
    const headLength = typedArrayByteLength(head);
    const headOffset = typedArrayByteOffset(head);
    const headBuffer = viewBuffer(head);
    const bytesToCopy = MathMin(totalBytesToCopyRemaining, headLength);
    const destStart = desc.byteOffset + desc.bytesFilled;
    copyDataBlockBytes(desc.buffer, destStart, headBuffer, headOffset, bytesToCopy);
    if (headLength === bytesToCopy) {
      queue.shift();
    } else {
      queue.replaceFirst(
        new NativeUint8Array(headBuffer, headOffset + bytesToCopy, headLength - bytesToCopy),
      );
    }
    c.queueTotalSize -= bytesToCopy;
    ReadableByteStreamControllerFillHeadPullIntoDescriptor(c, bytesToCopy, desc);
    totalBytesToCopyRemaining -= bytesToCopy;
  }
  return ready;
}

/** ReadableByteStreamControllerFillReadRequestFromQueue(controller, readRequest). */
function ReadableByteStreamControllerFillReadRequestFromQueue(
  c: ByteControllerInternal,
  readRequest: ReadRequest,
): void {
  const entry = c.queue!.shift();
  c.queueTotalSize -= typedArrayByteLength(entry);
  ReadableByteStreamControllerHandleQueueDrain(c);
  readRequest.chunkSteps(entry); // FP-BYTE-VIEW: the queued view is the spec's new view over the entry
}

/** ReadableByteStreamControllerGetBYOBRequest(controller). */
export function ReadableByteStreamControllerGetBYOBRequest(
  c: ByteControllerInternal,
): ReadableStreamBYOBRequest | null {
  const ext = c.ext;
  const request = ext?.byobRequest as ReadableStreamBYOBRequest | undefined;
  if (request !== undefined) return request;
  if (HasPendingPullIntos(c)) {
    const first = PendingPullIntos(c)!.peek();
    const view = new NativeUint8Array(
      first.buffer,
      first.byteOffset + first.bytesFilled,
      first.byteLength - first.bytesFilled,
    );
    return (ext ?? (c.ext = new ReadableStreamExtras())).byobRequest = createBYOBRequest(c, view);
  }
  return null;
}

/** ReadableByteStreamControllerGetDesiredSize(controller). */
export function ReadableByteStreamControllerGetDesiredSize(c: ByteControllerInternal): number | null {
  const state = c.state;
  if (state === ERRORED) return null;
  if (state === CLOSED) return 0;
  return c.strategyHWM - c.queueTotalSize;
}

/** ReadableByteStreamControllerHandleQueueDrain(controller). */
function ReadableByteStreamControllerHandleQueueDrain(c: ByteControllerInternal): void {
  if (c.queueTotalSize === 0 && c.closeRequested) {
    ReadableByteStreamControllerClearAlgorithms(c);
    ReadableStreamClose(c);
  } else {
    ReadableByteStreamControllerCallPullIfNeeded(c);
  }
}

/** ReadableByteStreamControllerInvalidateBYOBRequest(controller). */
function ReadableByteStreamControllerInvalidateBYOBRequest(c: ByteControllerInternal): void {
  const ext = c.ext;
  const request = ext?.byobRequest as ReadableStreamBYOBRequest | undefined;
  if (request === undefined) return;
  invalidateBYOBRequest(request);
  ext!.byobRequest = undefined;
}

/** ReadableByteStreamControllerProcessPullIntoDescriptorsUsingQueue(controller). */
function ReadableByteStreamControllerProcessPullIntoDescriptorsUsingQueue(
  c: ByteControllerInternal,
): PullIntoDescriptor[] {
  const filled: PullIntoDescriptor[] = [];
  while (HasPendingPullIntos(c)) {
    if (c.queueTotalSize === 0) break;
    const desc = PendingPullIntos(c)!.peek();
    if (ReadableByteStreamControllerFillPullIntoDescriptorFromQueue(c, desc)) {
      ReadableByteStreamControllerShiftPendingPullInto(c);
      filled[filled.length] = desc; // not push(): see ReadableByteStreamControllerRespondInClosedState
    }
  }
  return filled;
}

/** ReadableByteStreamControllerProcessReadRequestsUsingQueue(controller). */
function ReadableByteStreamControllerProcessReadRequestsUsingQueue(c: ByteControllerInternal): void {
  const reader = c.reader!;
  while (reader.size > 0) {
    if (c.queueTotalSize === 0) return;
    const readRequest = reader.shift();
    ReadableByteStreamControllerFillReadRequestFromQueue(c, readRequest);
  }
}

/** ReadableByteStreamControllerPullInto(controller, view, min, readIntoRequest). */
function ReadableByteStreamControllerPullInto(
  c: ByteControllerInternal,
  view: ArrayBufferView,
  min: number,
  readIntoRequest: ReadIntoRequest,
): void {
  const stream = c;
  let elementSize = 1;
  let ctor = NativeDataView as unknown as ViewConstructor;
  const tag = typedArrayTag(view);
  if (tag !== undefined) {
    elementSize = ELEMENT_SIZES[tag]!;
    ctor = VIEW_CONSTRUCTORS[tag]!;
  }
  const minimumFill = min * elementSize;
  const byteOffset = viewByteOffset(view);
  const byteLength = viewByteLength(view);
  let buffer: ArrayBuffer;
  try {
    buffer = TransferArrayBuffer(viewBuffer(view));
  } catch (e) {
    readIntoRequest.errorSteps(e);
    return;
  }
  const desc: PullIntoDescriptor = {
    buffer,
    bufferByteLength: arrayBufferByteLength(buffer),
    byteOffset,
    byteLength,
    bytesFilled: 0,
    minimumFill,
    elementSize,
    viewConstructor: ctor,
    readerType: "byob",
  };
  if (HasPendingPullIntos(c)) {
    PendingPullIntos(c)!.push(desc);
    ReadableStreamAddRequest(stream, readIntoRequest);
    return;
  }
  if (stream.state === CLOSED) {
    const emptyView = new ctor(desc.buffer, desc.byteOffset, 0);
    readIntoRequest.closeSteps(emptyView);
    return;
  }
  if (c.queueTotalSize > 0) {
    if (ReadableByteStreamControllerFillPullIntoDescriptorFromQueue(c, desc)) {
      const filledView = ReadableByteStreamControllerConvertPullIntoDescriptor(desc);
      ReadableByteStreamControllerHandleQueueDrain(c);
      readIntoRequest.chunkSteps(filledView);
      return;
    }
    if (c.closeRequested) {
      const e = typeError("Insufficient bytes to fill elements in the given buffer");
      ReadableByteStreamControllerError(c, e);
      readIntoRequest.errorSteps(e);
      return;
    }
  }
  PendingPullIntosForPush(c).push(desc);
  ReadableStreamAddRequest(stream, readIntoRequest);
  ReadableByteStreamControllerCallPullIfNeeded(c);
}

/** ReadableByteStreamControllerRespond(controller, bytesWritten). */
export function ReadableByteStreamControllerRespond(c: ByteControllerInternal, bytesWritten: number): void {
  const first = PendingPullIntos(c)!.peek();
  const state = c.state;
  if (state === CLOSED) {
    if (bytesWritten !== 0) throw typeError("bytesWritten must be 0 when calling respond() on a closed stream");
  } else {
    if (bytesWritten === 0) {
      throw typeError("bytesWritten must be greater than 0 when calling respond() on a readable stream");
    }
    if (first.bytesFilled + bytesWritten > first.byteLength) throw rangeError("bytesWritten out of range");
  }
  first.buffer = TransferArrayBuffer(first.buffer);
  ReadableByteStreamControllerRespondInternal(c, bytesWritten);
}

/** ReadableByteStreamControllerRespondInClosedState(controller, firstDescriptor). */
function ReadableByteStreamControllerRespondInClosedState(c: ByteControllerInternal, first: PullIntoDescriptor): void {
  if (first.readerType === "none") ReadableByteStreamControllerShiftPendingPullInto(c);
  const stream = c;
  if (ReadableStreamHasBYOBReader(stream)) {
    // Appends by index: Array.prototype.push is looked up at call time and script can patch it.
    const filled: PullIntoDescriptor[] = [];
    while (filled.length < ReadableStreamGetNumRequests(stream)) {
      filled[filled.length] = ReadableByteStreamControllerShiftPendingPullInto(c);
    }
    for (let i = 0; i < filled.length; i++) ReadableByteStreamControllerCommitPullIntoDescriptor(stream, filled[i]!);
  }
}

/** ReadableByteStreamControllerRespondInReadableState(controller, bytesWritten, pullIntoDescriptor). */
function ReadableByteStreamControllerRespondInReadableState(
  c: ByteControllerInternal,
  bytesWritten: number,
  desc: PullIntoDescriptor,
): void {
  ReadableByteStreamControllerFillHeadPullIntoDescriptor(c, bytesWritten, desc);
  const stream = c;
  if (desc.readerType === "none") {
    ReadableByteStreamControllerEnqueueDetachedPullIntoToQueue(c, desc);
    const filled = ReadableByteStreamControllerProcessPullIntoDescriptorsUsingQueue(c);
    for (let i = 0; i < filled.length; i++) ReadableByteStreamControllerCommitPullIntoDescriptor(stream, filled[i]!);
    return;
  }
  if (desc.bytesFilled < desc.minimumFill) return;
  ReadableByteStreamControllerShiftPendingPullInto(c);
  const remainderSize = desc.bytesFilled % desc.elementSize;
  if (remainderSize > 0) {
    const end = desc.byteOffset + desc.bytesFilled;
    ReadableByteStreamControllerEnqueueClonedChunkToQueue(c, desc.buffer, end - remainderSize, remainderSize);
  }
  desc.bytesFilled -= remainderSize;
  const filled = ReadableByteStreamControllerProcessPullIntoDescriptorsUsingQueue(c);
  ReadableByteStreamControllerCommitPullIntoDescriptor(stream, desc);
  for (let i = 0; i < filled.length; i++) ReadableByteStreamControllerCommitPullIntoDescriptor(stream, filled[i]!);
}

/** ReadableByteStreamControllerRespondInternal(controller, bytesWritten). */
function ReadableByteStreamControllerRespondInternal(c: ByteControllerInternal, bytesWritten: number): void {
  const first = PendingPullIntos(c)!.peek();
  ReadableByteStreamControllerInvalidateBYOBRequest(c);
  if (c.state === CLOSED) ReadableByteStreamControllerRespondInClosedState(c, first);
  else ReadableByteStreamControllerRespondInReadableState(c, bytesWritten, first);
  ReadableByteStreamControllerCallPullIfNeeded(c);
}

/** ReadableByteStreamControllerRespondWithNewView(controller, view). */
export function ReadableByteStreamControllerRespondWithNewView(c: ByteControllerInternal, view: ArrayBufferView): void {
  const first = PendingPullIntos(c)!.peek();
  const state = c.state;
  const newViewByteLength = viewByteLength(view);
  if (state === CLOSED) {
    if (newViewByteLength !== 0) {
      throw typeError("The view's length must be 0 when calling respondWithNewView() on a closed stream");
    }
  } else if (newViewByteLength === 0) {
    throw typeError("The view's length must be greater than 0 when calling respondWithNewView() on a readable stream");
  }
  if (first.byteOffset + first.bytesFilled !== viewByteOffset(view)) {
    throw rangeError("The region specified by view does not match byobRequest");
  }
  const buffer = viewBuffer(view);
  if (first.bufferByteLength !== arrayBufferByteLength(buffer)) {
    throw rangeError("The buffer of view has different capacity than byobRequest");
  }
  if (first.bytesFilled + newViewByteLength > first.byteLength) {
    throw rangeError("The region specified by view is larger than byobRequest");
  }
  first.buffer = TransferArrayBuffer(buffer);
  ReadableByteStreamControllerRespondInternal(c, newViewByteLength);
}

/** [[pendingPullIntos]], or undefined while never used. */
function PendingPullIntos(c: ByteControllerInternal): RingQueue<PullIntoDescriptor> | undefined {
  return c.pendingPullIntos;
}

/** [[pendingPullIntos]], to push to: made on first use. */
function PendingPullIntosForPush(c: ByteControllerInternal): RingQueue<PullIntoDescriptor> {
  return c.pendingPullIntos ??= new RingQueue();
}

/** Whether [[pendingPullIntos]] is not empty. */
export function HasPendingPullIntos(c: ByteControllerInternal): boolean {
  const pending = PendingPullIntos(c);
  return pending !== undefined && pending.size > 0;
}

/** ReadableByteStreamControllerShiftPendingPullInto(controller). */
function ReadableByteStreamControllerShiftPendingPullInto(c: ByteControllerInternal): PullIntoDescriptor {
  return PendingPullIntos(c)!.shift();
}

/** SetUpReadableByteStreamController(...), on a stream that is its own controller. */
export function SetUpReadableByteStreamController(
  c: ByteControllerInternal,
  startAlgorithm: (() => unknown) | undefined,
  algorithms: SourceAlgorithms,
  highWaterMark: number,
  autoAllocateChunkSize: number | undefined,
): void {
  c.strategyHWM = highWaterMark;
  c.algorithms = algorithms;
  if (autoAllocateChunkSize !== undefined) {
    (c.ext ??= new ReadableStreamExtras()).autoAllocateChunkSize = autoAllocateChunkSize;
  }
  const startResult = startAlgorithm === undefined ? undefined : startAlgorithm();
  // The start reaction is the controller's pull reaction (it sees `started` false).
  if (startResult === undefined) {
    pullJobs.queue(c); // FP-SYNC-ALGO
  } else {
    PromisePrototypeThen(
      promiseResolvedWith(startResult),
      PullReactionFunction(c, makePullFulfilled),
      PullRejectedFunction(c, ReadableByteStreamControllerError),
    );
  }
}

/**
 * SetUpReadableByteStreamControllerFromUnderlyingSource(underlyingSource, ..., highWaterMark), with the
 * stream made here: it holds the source's converted members and is its own pull and cancel algorithms.
 */
export function SetUpReadableByteStreamControllerFromUnderlyingSource(
  underlyingSource: unknown,
  cancelFn: Callable | undefined,
  pullFn: Callable | undefined,
  start: Callable | undefined,
  highWaterMark: number,
  autoAllocateChunkSize: number | undefined,
): ByteControllerInternal {
  const c = new ByteControllerInternal();
  const pub = c.pub = createByteController(c);
  if (autoAllocateChunkSize === 0) throw typeError("autoAllocateChunkSize must be greater than 0");
  c.source = underlyingSource;
  c.pullFn = pullFn;
  c.cancelFn = cancelFn;
  SetUpReadableByteStreamController(
    c,
    start === undefined ? undefined : makeStartAlgorithm(start, underlyingSource, pub),
    c,
    highWaterMark,
    autoAllocateChunkSize,
  );
  return c;
}

let createByteController: (c: ByteControllerInternal) => ReadableByteStreamController;
let getByteController: (x: unknown) => ByteControllerInternal;
let createBYOBRequest: (c: ByteControllerInternal, view: Uint8Array) => ReadableStreamBYOBRequest;
let invalidateBYOBRequest: (r: ReadableStreamBYOBRequest) => void;
/** The view of a BYOB request, read without going through the (patchable) public getter. */
export let byobRequestView: (r: ReadableStreamBYOBRequest) => ArrayBufferView;
const kCreate = Symbol();

/** The controller handed to a readable byte stream's underlying source (§4.7). */
export class ReadableByteStreamController {
  #c!: ByteControllerInternal;

  /** Not constructible: controllers are created by ReadableStream. */
  constructor(token: unknown = undefined) {
    if (token !== kCreate) throw typeError("Illegal constructor");
  }

  static {
    createByteController = (c) => {
      const o = new ReadableByteStreamController(kCreate);
      o.#c = c;
      return o;
    };
    getByteController = (x) => {
      if (typeof x !== "object" || x === null || !(#c in x)) {
        throw typeError("Illegal invocation: not a ReadableByteStreamController");
      }
      return (x as ReadableByteStreamController).#c;
    };
  }

  /** The current BYOB pull request, or null. */
  get byobRequest(): ReadableStreamBYOBRequest | null {
    return ReadableByteStreamControllerGetBYOBRequest(getByteController(this));
  }

  /** The amount of data the stream wants, in bytes; null if errored. */
  get desiredSize(): number | null {
    return ReadableByteStreamControllerGetDesiredSize(getByteController(this));
  }

  /** Closes the stream once queued bytes have been read. */
  close(): void {
    const c = getByteController(this);
    if (c.closeRequested) throw typeError("The stream has already been closed; do not close it again");
    if (c.state !== READABLE) throw typeError("The stream is not in the readable state and cannot be closed");
    ReadableByteStreamControllerClose(c);
  }

  /** Enqueues a chunk; its buffer is transferred (the caller's buffer becomes detached). */
  enqueue(chunk: ArrayBufferView<ArrayBuffer>): void {
    const c = getByteController(this);
    // A Uint8Array (nearly every chunk) is read through the typed-array getters directly, without the record
    // viewParts() returns for any view.
    let buffer = uint8ArrayBuffer(chunk);
    let byteOffset: number;
    let byteLength: number;
    if (buffer !== undefined) {
      byteOffset = typedArrayByteOffset(chunk);
      byteLength = typedArrayByteLength(chunk);
    } else {
      const parts = viewParts(chunk, "chunk");
      buffer = parts.buffer;
      byteOffset = parts.byteOffset;
      byteLength = parts.byteLength;
    }
    if (byteLength === 0) throw typeError("chunk must have non-zero byteLength");
    // The ArrayBuffer byteLength getter also rejects a SharedArrayBuffer (no [AllowShared]).
    let bufferLength: number;
    try {
      bufferLength = arrayBufferByteLength(buffer);
    } catch {
      throw typeError("chunk must not be backed by a SharedArrayBuffer");
    }
    if (bufferLength === 0) throw typeError("chunk's buffer must have non-zero byteLength");
    if (c.closeRequested) throw typeError("The stream is closed or draining");
    if (c.state !== READABLE) throw typeError("The stream is not in the readable state and cannot be enqueued to");
    ReadableByteStreamControllerEnqueueParts(c, buffer, byteOffset, byteLength);
  }

  /** Errors the stream with `e`. */
  error(e: unknown = undefined): void {
    ReadableByteStreamControllerError(getByteController(this), e);
  }
}
defineInterface(ReadableByteStreamController, "ReadableByteStreamController");

/** A pending BYOB read, as seen by the underlying byte source (§4.8). */
export class ReadableStreamBYOBRequest {
  #controller: ByteControllerInternal | undefined = undefined;
  #view: Uint8Array | null = null;

  /** Not constructible: requests are created by ReadableByteStreamController. */
  constructor(token: unknown = undefined) {
    if (token !== kCreate) throw typeError("Illegal constructor");
  }

  static {
    createBYOBRequest = (c, view) => {
      const o = new ReadableStreamBYOBRequest(kCreate);
      o.#controller = c;
      o.#view = view;
      return o;
    };
    byobRequestView = (r) => r.#view!;
    invalidateBYOBRequest = (r) => {
      r.#controller = undefined;
      r.#view = null;
    };
  }

  static #check(x: unknown): ReadableStreamBYOBRequest {
    if (typeof x !== "object" || x === null || !(#view in x)) {
      throw typeError("Illegal invocation: not a ReadableStreamBYOBRequest");
    }
    return x as ReadableStreamBYOBRequest;
  }

  /** The view to write into, or null once the request has been responded to. */
  get view(): ArrayBufferView<ArrayBuffer> | null {
    // The view is always over a buffer the stream transferred: never shared.
    return ReadableStreamBYOBRequest.#check(this).#view as ArrayBufferView<ArrayBuffer> | null;
  }

  /** Signals that `bytesWritten` bytes were written into `view`. */
  respond(bytesWritten: number): void {
    const self = ReadableStreamBYOBRequest.#check(this);
    const n = convertEnforceRangeULongLong(bytesWritten, "bytesWritten");
    const c = self.#controller;
    if (c === undefined) throw typeError("This BYOB request has been invalidated");
    if (IsDetachedBuffer(viewBuffer(self.#view!))) throw typeError("The BYOB request's buffer has been detached");
    ReadableByteStreamControllerRespond(c, n);
  }

  /** Responds with a new view over the (transferred) request buffer. */
  respondWithNewView(view: ArrayBufferView<ArrayBuffer>): void {
    const self = ReadableStreamBYOBRequest.#check(this);
    const v = convertArrayBufferView(view, "view");
    const c = self.#controller;
    if (c === undefined) throw typeError("This BYOB request has been invalidated");
    if (IsDetachedBuffer(viewBuffer(v))) throw typeError("The given view's buffer has been detached");
    ReadableByteStreamControllerRespondWithNewView(c, v);
  }
}
defineInterface(ReadableStreamBYOBRequest, "ReadableStreamBYOBRequest");

export { CanTransferArrayBuffer };
