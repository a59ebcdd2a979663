/**
 * Batched reading of any ReadableStream: the machinery behind `readMany()`, `batches()`, the consumers
 * (`bytes()`, `text()`, ...), the helpers, and the runtime adapters' bridges.
 *
 * For the runtime adapters (which reach the core only through `mod.ts`, where these are exported; they are not
 * meant for applications). A bridge that feeds a native consumer from a stream drains it like this:
 *
 * ```ts
 * const batches = acquireBatchReader(stream, "toNativeReadableStream()"); // locks; TypeError if locked
 * let next = batches.read();          // T[] now, BATCH_DONE now, or a promise of either
 * if (isBatchPromise(next)) next = await next;
 * if (next === BATCH_DONE) close(); else for (const chunk of next) push(chunk);
 * ```
 *
 * On a fusestreams stream a batch is every chunk queued now, taken in one step, or, when nothing is queued,
 * what the next `read()` would get plus whatever a synchronous `pull()` chain delivers right after it (see
 * core/batching/engine.ts); the source's `pull()` is called as a read loop would call it. A
 * `read()` that finds chunks queued (or the stream closed) answers synchronously, without a promise. On
 * another implementation's stream it is one `read()` per batch, or Bun's `readMany()` where the reader has one.
 * @module
 */
import {
  NativePromise,
  ObjectGetPrototypeOf,
  PromisePrototypeThen,
  PromiseReject,
  PromiseResolve,
  ReflectApply,
} from "../shared/primordials.ts";
import { typeError } from "../shared/webidl.ts";
import {
  BATCH_DONE,
  type BatchAnswer,
  type BatchSession,
  RAW_BATCH_ANSWER,
  ReadableStreamDefaultReaderReadBatch,
  ReadableStreamTakeQueued,
} from "./engine.ts";
import { readableStreamInternalOrUndefined } from "../readable/brand.ts";
import { defaultReaderInternalOrUndefined } from "../readable/default-reader.ts";
import {
  AcquireReadableStreamDefaultReader,
  ReadableStreamDefaultReaderRead,
  ReadableStreamReaderGenericCancel,
  ReadableStreamReaderRelease,
} from "../readable/reader-ops.ts";
import { READABLE, type ReaderInternal, type ReaderOwner, type ReadRequest } from "../readable/stream-internal.ts";
import {
  type DefaultControllerInternal,
  ReadableStreamDefaultControllerDrainQueue,
} from "../readable/default-controller.ts";
import { describeValue } from "../shared/describe.ts";

export { BATCH_DONE, type BatchAnswer };

/** One batch: at least one chunk, or BATCH_DONE once the stream has closed. */
export type Batch<T> = T[] | typeof BATCH_DONE;

/** The part of a default reader batched reading uses (fusestreams', the runtime's, or Bun's with readMany). */
export interface DefaultReaderLike<T> {
  /** Reads the next chunk. */
  read(): Promise<{ done: boolean; value?: T }>;
  /** Cancels the stream. */
  cancel(reason?: unknown): Promise<void>;
  /** Releases the lock. */
  releaseLock(): void;
}

/** The part of a ReadableStream batched reading uses. */
export interface ReadableStreamLike<T> {
  /** Locks the stream to a default reader. */
  getReader(): DefaultReaderLike<T>;
}

/** A locked stream read in batches. */
export interface BatchReader<T> {
  /** Whether the stream is a fusestreams stream (batches can hold many chunks and come synchronously). */
  readonly ours: boolean;
  /**
   * The next batch: synchronously when chunks are queued or the stream has closed (fusestreams streams only),
   * else a promise; a stream error rejects the promise with the stored error itself. Never throws.
   */
  read(): Batch<T> | Promise<Batch<T>>;
  /**
   * {@link BatchReader.read}, answering with `answer`'s values: a promise returned is resolved with the answer
   * itself (no reaction job in between), so a consumer that awaits it runs in the very next job.
   */
  readAs<R>(answer: BatchAnswer<R>): R | Promise<R>;
  /**
   * Adds `request` as the reader's next read request (ReadableStreamDefaultReaderRead): its chunk steps run inside
   * the `enqueue()` that delivers the chunk, or at once for a queued one; a released reader runs its error steps with
   * a TypeError. For a stream whose chunks come one per wake (BRIDGE-SYNC); ours only.
   */
  readPush?(request: ReadRequest): void;
  /**
   * The chunks queued now, taken in one step as {@link BatchReader.read} takes them, or undefined when none is
   * queued, a read is waiting, the stream is not readable or not a fusestreams stream: it never waits.
   */
  takeQueued(): T[] | undefined;
  /** Cancels the stream with `reason` and releases the lock. */
  cancel(reason?: unknown): Promise<void>;
  /** Releases the lock (a read still waiting rejects with a TypeError). */
  release(): void;
}

const PromisePrototype: object = NativePromise.prototype;

/** Whether a value returned by {@link BatchReader.readAs} is a promise (answers are never promises). */
export function isAnswerPromise<R>(next: R | Promise<R>): next is Promise<R> {
  return typeof next === "object" && next !== null && ObjectGetPrototypeOf(next) === PromisePrototype;
}

/** Whether a value returned by {@link BatchReader.read} is a promise (batches are arrays, the end a symbol). */
export function isBatchPromise<T>(next: Batch<T> | Promise<Batch<T>>): next is Promise<Batch<T>> {
  return next !== BATCH_DONE && !Array.isArray(next);
}

const RELEASED = "Cannot read from a released reader";

function ignore(): void {}

/**
 * The owner of a reader that no user code can reach (acquireBatchReader's): its closed promise would be seen by
 * nobody, so it is never made (FP-LAZY), and the TypeError release would reject it with is not made either.
 */
const UNSEEN: ReaderOwner = { readerClosed: ignore, readerErrored: ignore };

/** Batches of a fusestreams stream, through its internal reader. */
class OurBatchReader<T> implements BatchReader<T> {
  readonly ours = true;
  readonly #reader: ReaderInternal;
  /** Set when no user code can reach the reader (FP-BATCH-BURST). */
  readonly #session: BatchSession | undefined;
  constructor(reader: ReaderInternal, internal: boolean) {
    this.#reader = reader;
    this.#session = internal ? { burst: undefined, wide: false } : undefined;
  }
  read(): Batch<T> | Promise<Batch<T>> {
    return this.readAs(RAW_BATCH_ANSWER as BatchAnswer<Batch<T>>);
  }
  readAs<R>(answer: BatchAnswer<R>): R | Promise<R> {
    const reader = this.#reader;
    if (reader.stream === undefined) {
      const e = typeError(RELEASED);
      answer.error(e);
      return PromiseReject(e);
    }
    return ReadableStreamDefaultReaderReadBatch(reader, answer, this.#session);
  }
  readPush(request: ReadRequest): void {
    const reader = this.#reader;
    if (reader.stream === undefined) return request.errorSteps(typeError(RELEASED));
    const session = this.#session;
    if (session !== undefined) session.burst = undefined; // as a batch read: no burst job adds to an earlier batch
    ReadableStreamDefaultReaderRead(reader, request);
  }
  takeQueued(): T[] | undefined {
    const reader = this.#reader;
    const stream = reader.stream;
    if (stream === undefined || reader.size !== 0 || stream.state !== READABLE) return undefined;
    const queued = ReadableStreamTakeQueued(stream);
    if (queued !== undefined) stream.disturbed = true;
    return queued as T[] | undefined;
  }
  cancel(reason?: unknown): Promise<void> {
    const reader = this.#reader;
    if (reader.stream === undefined) return PromiseReject(typeError("Cannot cancel a stream using a released reader"));
    const result = ReadableStreamReaderGenericCancel(reader, reason);
    ReadableStreamReaderRelease(reader);
    return result;
  }
  release(): void {
    if (this.#reader.stream !== undefined) ReadableStreamReaderRelease(this.#reader);
  }
}

interface ReadManyResultLike<T> {
  done: boolean;
  value: T[];
}

/** Bun's `ReadableStreamDefaultReader.prototype.readMany`: a result, a promise of one, or a throw. */
type NativeReadMany<T> = (this: DefaultReaderLike<T>) => ReadManyResultLike<T> | Promise<ReadManyResultLike<T>>;

function isThenable(x: unknown): x is PromiseLike<unknown> {
  return typeof x === "object" && x !== null && typeof (x as { then?: unknown }).then === "function";
}

function fromReadResult<T>(result: { done: boolean; value?: T }): Batch<T> {
  return result.done ? BATCH_DONE : [result.value as T];
}

/** Batches of any other stream: one `read()` per batch, or the reader's own `readMany()` (Bun). */
class ForeignBatchReader<T> implements BatchReader<T> {
  readonly ours = false;
  readonly #reader: DefaultReaderLike<T>;
  readonly #readMany: NativeReadMany<T> | undefined;
  constructor(reader: DefaultReaderLike<T>) {
    this.#reader = reader;
    const readMany = (reader as { readMany?: unknown }).readMany;
    this.#readMany = typeof readMany === "function" ? readMany as NativeReadMany<T> : undefined;
  }
  takeQueued(): T[] | undefined {
    return undefined;
  }
  read(): Batch<T> | Promise<Batch<T>> {
    const reader = this.#reader;
    const readMany = this.#readMany;
    if (readMany === undefined) return PromisePrototypeThen(reader.read(), fromReadResult);
    let result: ReadManyResultLike<T> | Promise<ReadManyResultLike<T>>;
    try {
      result = ReflectApply(readMany, reader, []);
    } catch (e) {
      return PromiseReject(e); // Bun's throws the stored error of an errored stream
    }
    // Bun answers synchronously when chunks are queued or the stream has closed.
    if (!isThenable(result)) return this.#fromReadMany(result);
    return PromisePrototypeThen(PromiseResolve(result), (r) => this.#fromReadMany(r));
  }
  readAs<R>(answer: BatchAnswer<R>): R | Promise<R> {
    const next = this.read();
    if (!isBatchPromise(next)) return next === BATCH_DONE ? answer.end() : answer.chunks(next);
    return PromisePrototypeThen(
      next,
      (batch) => batch === BATCH_DONE ? answer.end() : answer.chunks(batch),
      (e: unknown) => {
        answer.error(e);
        throw e;
      },
    );
  }
  #fromReadMany(r: ReadManyResultLike<T>): Batch<T> | Promise<Batch<T>> {
    if (r.done) return BATCH_DONE;
    // A batch is never empty: should a native readMany answer an empty list, ask again.
    return r.value.length > 0 ? r.value : this.read();
  }
  cancel(reason?: unknown): Promise<void> {
    const reader = this.#reader;
    const result = reader.cancel(reason);
    reader.releaseLock();
    return result;
  }
  release(): void {
    this.#reader.releaseLock();
  }
}

/**
 * Whether `stream` is the readable side of a fusestreams TransformStream. Its chunks arrive with the writes into
 * the writable side, not from its own pull(), so a batch read of it gets one chunk per wake; an adapter does
 * better to pipe such a stream (`pipeTo()` fuses the chain into its destination) than to read it in batches.
 */
export function isTransformReadable(stream: unknown): boolean {
  const internal = readableStreamInternalOrUndefined(stream);
  return internal !== undefined && internal.transform !== undefined;
}

/**
 * Locks `stream` (any ReadableStream: fusestreams', the runtime's, or another implementation's) and returns
 * a batch reader over it. Throws a TypeError naming `context` when `stream` is not a ReadableStream or is locked.
 */
export function acquireBatchReader<T>(stream: ReadableStreamLike<T>, context: string): BatchReader<T> {
  const internal = readableStreamInternalOrUndefined(stream);
  if (internal !== undefined) {
    if (internal.reader !== undefined) throw typeError(`${context}: the stream is locked`);
    return new OurBatchReader<T>(AcquireReadableStreamDefaultReader(internal, UNSEEN), true);
  }
  if (typeof stream !== "object" || stream === null || typeof stream.getReader !== "function") {
    throw typeError(`${context}: expected a ReadableStream, got ${describeValue(stream)}`);
  }
  let reader: DefaultReaderLike<T>;
  try {
    reader = stream.getReader();
  } catch (e) {
    if (e instanceof TypeError) throw typeError(`${context}: the stream is locked (${e.message})`);
    throw e;
  }
  return new ForeignBatchReader<T>(reader);
}

/**
 * The chunks queued now in the stream of `reader` (one of our default readers), taken with no pull after them on a
 * default stream: the source is pulled again by the next read only (Bun's `readMany()`); a byte stream is pulled
 * as by {@link BatchReader.takeQueued}. Undefined when none is queued, a read is waiting, the stream is not
 * readable, or `reader` is not ours.
 */
export function drainQueuedOf<T>(reader: DefaultReaderLike<T>): T[] | undefined {
  const internal = defaultReaderInternalOrUndefined(reader);
  const stream = internal?.stream;
  if (stream === undefined || internal!.size !== 0 || stream.state !== READABLE) return undefined;
  const queued = stream.isByte
    ? ReadableStreamTakeQueued(stream)
    : ReadableStreamDefaultControllerDrainQueue(stream as DefaultControllerInternal);
  if (queued !== undefined) stream.disturbed = true;
  return queued as T[] | undefined;
}

/**
 * A batch reader over an already acquired default reader (fusestreams' or another implementation's); the lock
 * stays with the caller. Throws a TypeError naming `context` when `reader` is not a default reader.
 */
export function batchReaderOf<T>(reader: DefaultReaderLike<T>, context: string): BatchReader<T> {
  const internal = defaultReaderInternalOrUndefined(reader);
  if (internal !== undefined) return new OurBatchReader<T>(internal, false);
  if (typeof reader !== "object" || reader === null || typeof reader.read !== "function") {
    throw typeError(`${context}: expected a ReadableStreamDefaultReader, got ${describeValue(reader)}`);
  }
  return new ForeignBatchReader<T>(reader);
}
