/**
 * WritableStreamDefaultWriter (Streams §5.3) and the writer abstract operations.
 * @module
 */
import { defineInterface } from "../shared/interface.ts";
import { NativePromise, PromiseReject, PromiseResolve } from "../shared/primordials.ts";
import { typeError } from "../shared/webidl.ts";
import { newPendingPromise, pendingReject, pendingResolve, SHARED_EXECUTOR } from "../shared/promise.ts";
import { WriterReadySettled } from "../fusion/hooks.ts";
import { toWritableStreamInternal } from "./brand.ts";
import {
  CLOSED,
  ERRORED,
  ERRORING,
  IsWritableStreamLocked,
  WRITABLE,
  WritableStreamAbort,
  WritableStreamClose,
  WritableStreamCloseQueuedOrInFlight,
  WritableStreamDefaultControllerGetDesiredSize,
  WritableStreamDefaultWriterWriteInternal,
  type WritableStreamInternal,
  type WriteRequest,
  WriterInternal,
  type WriterOwner,
} from "./stream-internal.ts";
import type { WritableStream } from "../api/writable.ts";

/**
 * SetUpWritableStreamDefaultWriter / AcquireWritableStreamDefaultWriter. A writer with an `owner` (an internal
 * producer no user code can reach) has no closed promise: the owner looks at the stream's state when it starts
 * and is told when the promise would be rejected.
 */
export function AcquireWritableStreamDefaultWriter(
  stream: WritableStreamInternal,
  owner?: WriterOwner,
): WriterInternal {
  if (IsWritableStreamLocked(stream)) throw typeError("This stream is already locked to a writer");
  const writer = new WriterInternal(owner);
  writer.stream = stream;
  stream.writer = writer;
  const state = stream.state;
  if (state === WRITABLE) {
    if (!WritableStreamCloseQueuedOrInFlight(stream) && stream.backpressure) {
      // ready stays pending
    } else {
      writer.ready.resolve();
    }
  } else if (state === ERRORING) {
    writer.ready.reject(stream.storedError, true);
  } else if (state === CLOSED) {
    writer.ready.resolve();
    writer.closed?.resolve();
  } else {
    writer.ready.reject(stream.storedError, true);
    writer.closed?.reject(stream.storedError, true);
  }
  return writer;
}

/** WritableStreamDefaultWriterCloseWithErrorPropagation(writer). */
export function WritableStreamDefaultWriterCloseWithErrorPropagation(writer: WriterInternal): Promise<undefined> {
  const stream = writer.stream!;
  const state = stream.state;
  if (WritableStreamCloseQueuedOrInFlight(stream) || state === CLOSED) return PromiseResolve(undefined);
  if (state === ERRORED) return PromiseReject(stream.storedError);
  return WritableStreamClose(stream);
}

/** WritableStreamDefaultWriterGetDesiredSize(writer). */
function WritableStreamDefaultWriterGetDesiredSize(writer: WriterInternal): number | null {
  const stream = writer.stream!;
  const state = stream.state;
  if (state === ERRORED || state === ERRORING) return null;
  if (state === CLOSED) return 0;
  return WritableStreamDefaultControllerGetDesiredSize(stream);
}

/**
 * WritableStreamDefaultWriterRelease(writer). `releasedError` is the TypeError the spec creates here: a caller
 * whose writer nobody else can see may pass one it made once.
 */
export function WritableStreamDefaultWriterRelease(writer: WriterInternal, releasedError?: TypeError): void {
  const stream = writer.stream!;
  // WritableStreamDefaultWriterEnsureReadyPromiseRejected / ...EnsureClosedPromiseRejected with the spec's one
  // releasedError, made when one of the two promises is asked for (FP-LAZY (release))
  let made = releasedError;
  const reason = (): TypeError => (made ??= typeError("The writer's lock was released"));
  writer.ready.rejectLazily(reason);
  WriterReadySettled(writer); // FP-PIPE-READY
  writer.closed?.rejectLazily(reason);
  stream.writer = undefined;
  writer.stream = undefined;
}

/**
 * The write request of a `writer.write()`: settles the promise made by its last arm(). A writer keeps one and
 * arms it again for each write made while it is not waiting (FP-OWN-REQUEST).
 */
export class PromiseWriteRequest implements WriteRequest {
  #resolve: ((v: undefined) => void) | undefined = undefined;
  #reject: ((e: unknown) => void) | undefined = undefined;

  /** Whether a write waits on this request. */
  get armed(): boolean {
    return this.#resolve !== undefined;
  }

  /** Makes the promise of the next write this request settles. */
  arm(): Promise<undefined> {
    if (SHARED_EXECUTOR) {
      const promise = newPendingPromise<undefined>();
      this.#resolve = pendingResolve;
      this.#reject = pendingReject;
      return promise;
    }
    return new NativePromise((res, rej) => {
      this.#resolve = res;
      this.#reject = rej;
    });
  }

  resolve(): void {
    const resolve = this.#resolve!;
    this.#resolve = this.#reject = undefined;
    resolve(undefined);
  }

  reject(e: unknown): void {
    const reject = this.#reject!;
    this.#resolve = this.#reject = undefined;
    reject(e);
  }
}

let getWriter: (x: unknown) => WriterInternal | undefined;

function illegal(): TypeError {
  return typeError("Illegal invocation: not a WritableStreamDefaultWriter");
}

/** A writer that writes chunks to a WritableStream it has locked (§5.3). */
// deno-lint-ignore no-explicit-any -- lib.dom's generic default
export class WritableStreamDefaultWriter<W = any> {
  #w: WriterInternal;

  /** Locks `stream`. Throws a TypeError if it is already locked. */
  constructor(stream: WritableStream<W>) {
    this.#w = AcquireWritableStreamDefaultWriter(toWritableStreamInternal(stream, "Argument 1"));
  }

  static {
    getWriter = (
      x,
    ) => (typeof x === "object" && x !== null && #w in x ? (x as WritableStreamDefaultWriter).#w : undefined);
  }

  /** Fulfills when the stream closes; rejects if it errors or the lock is released. */
  get closed(): Promise<undefined> {
    const w = getWriter(this);
    if (w === undefined) return PromiseReject(illegal());
    return w.closed!.promise;
  }

  /** The amount the stream wants written; null if errored or erroring. */
  get desiredSize(): number | null {
    const w = getWriter(this);
    if (w === undefined) throw illegal();
    if (w.stream === undefined) throw typeError("The writer's lock was released");
    return WritableStreamDefaultWriterGetDesiredSize(w);
  }

  /** Fulfills when the stream has no backpressure. */
  get ready(): Promise<undefined> {
    const w = getWriter(this);
    if (w === undefined) return PromiseReject(illegal());
    return w.ready.promise;
  }

  /** Aborts the stream. */
  abort(reason: unknown = undefined): Promise<undefined> {
    const w = getWriter(this);
    if (w === undefined) return PromiseReject(illegal());
    if (w.stream === undefined) return PromiseReject(typeError("Cannot abort a stream using a released writer"));
    return WritableStreamAbort(w.stream, reason);
  }

  /** Closes the stream after queued writes finish. */
  close(): Promise<undefined> {
    const w = getWriter(this);
    if (w === undefined) return PromiseReject(illegal());
    const stream = w.stream;
    if (stream === undefined) return PromiseReject(typeError("Cannot close a stream using a released writer"));
    if (WritableStreamCloseQueuedOrInFlight(stream)) return PromiseReject(typeError("The stream is already closing"));
    return WritableStreamClose(stream);
  }

  /** Releases the lock; `ready` and `closed` reject with a TypeError. */
  releaseLock(): void {
    const w = getWriter(this);
    if (w === undefined) throw illegal();
    if (w.stream === undefined) return;
    WritableStreamDefaultWriterRelease(w);
  }

  /** Writes a chunk; the promise settles when the sink has processed it. */
  write(chunk: W = undefined as W): Promise<undefined> {
    const w = getWriter(this);
    if (w === undefined) return PromiseReject(illegal());
    if (w.stream === undefined) return PromiseReject(typeError("Cannot write to a stream using a released writer"));
    // FP-OWN-REQUEST: the writer's own request when no write waits on it (internal; the promise is new).
    let request = w.ownRequest;
    if (request === undefined) request = w.ownRequest = new PromiseWriteRequest();
    else if (request.armed) request = new PromiseWriteRequest();
    const promise = request.arm();
    WritableStreamDefaultWriterWriteInternal(w, chunk, request);
    return promise;
  }
}
defineInterface(WritableStreamDefaultWriter, "WritableStreamDefaultWriter");
