/**
 * The native stream that stands for one of ours when it is transferred (`structuredClone(ours, { transfer })`,
 * `port.postMessage(ours, [ours])`): a runtime transfers only its own streams, so the patch's `transfer` step
 * hands it a native stream of the same kind that reads from ours or writes into it, and the runtime transfers
 * that one. Data, backpressure, cancel, abort and errors go across as they would for a native stream, since
 * the runtime's own transfer machinery carries them from the native stand-in, and the stand-in carries them to
 * and from ours:
 *
 * - a ReadableStream: a native ReadableStream (high-water mark 0) whose every pull reads one chunk of ours, so
 *   the runtime's transfer reads ours exactly as it would read a native stream: no chunk further ahead (the
 *   transfer sends a message per chunk anyway, so batches would only read ahead).
 * - a WritableStream: a native WritableStream whose every write waits for room in ours (`writer.ready`) and
 *   queues the chunk there, as a pipe into ours would; close and abort go to ours, and ours erroring errors
 *   the stand-in at once.
 * - a TransformStream: a native TransformStream whose transform() writes the chunk into our writable side
 *   (taking the next one once ours has taken it) and whose readable side is fed with every chunk our readable
 *   side produces. Input is admitted only while the native readable side has room, as in any TransformStream,
 *   so what our side produces per chunk is buffered no further than a native TransformStream would buffer it.
 *
 * Each stand-in locks ours at once (a transferred stream is locked; a transfer the runtime refuses unlocks it
 * again), and a stream that is locked already gets a locked native stand-in, so the runtime throws its own
 * DataCloneError for it.
 * @module
 */
import {
  acquireBatchReader,
  BATCH_DONE,
  isBatchPromise,
  ReadableStream,
  TransformStream,
  WritableStream,
} from "../../core/internal.ts";
import { isInstance, Native, noop } from "./natives.ts";
import { nativeInSameState } from "./to-native.ts";

/** The native TransformStream class, captured when the kit loads (before any patch). */
const NativeTransformStream: typeof globalThis.TransformStream | undefined = globalThis.TransformStream;

const getPrototypeOf = Object.getPrototypeOf;
const ObjectProto = Object.prototype;
const ArrayProto = Array.prototype;
const RS_PROTO: object = ReadableStream.prototype;
const WS_PROTO: object = WritableStream.prototype;
const TS_PROTO: object = TransformStream.prototype;

/** Whether `value` is one of our ReadableStreams, WritableStreams or TransformStreams (by the prototype chain). */
export function isOurStream(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  // One walk up the chain for the three classes (a plain object or array: one step).
  for (let p = getPrototypeOf(value) as object | null; p !== null; p = getPrototypeOf(p) as object | null) {
    if (p === ObjectProto || p === ArrayProto) return false;
    if (p === RS_PROTO || p === WS_PROTO || p === TS_PROTO) return true;
  }
  return false;
}

/** The native stream that stands for one of ours in a transfer. */
export interface StandIn {
  /** The native stream, for the runtime to transfer. */
  readonly native: object;
  /** Called once the runtime has transferred `native`. */
  readonly transferred: () => void;
  /** Called instead when the runtime refused the transfer: unlocks ours again. */
  readonly refused: () => void;
}

/**
 * The native stream the runtime transfers in place of `value` (one of our streams, see {@link isOurStream}),
 * made now and locking `value`. Undefined when the runtime lacks the native class.
 */
export function nativeStandIn(value: object): StandIn | undefined {
  if (isInstance(ReadableStream, value)) {
    const stream = value as ReadableStream<unknown>;
    if (stream.locked) return { native: nativeInSameState(stream)!, transferred: noop, refused: noop };
    return nativeReadingFrom(stream);
  }
  if (isInstance(WritableStream, value)) return nativeWritingInto(value as WritableStream<unknown>);
  if (isInstance(TransformStream, value) && NativeTransformStream !== undefined) {
    return nativeTransformOf(value as TransformStream<unknown, unknown>, NativeTransformStream);
  }
  return undefined;
}

/** A native ReadableStream reading `stream` (unlocked) one chunk per pull (see the module's description). */
function nativeReadingFrom(stream: ReadableStream<unknown>): StandIn {
  const reader = stream.getReader();
  // Once the stream has ended (closed, errored or cancelled), its lock is released, as a pipe releases it.
  const release = (): void => reader.releaseLock();
  const native = new Native.ReadableStream<unknown>({
    pull(controller): Promise<void> {
      return reader.read().then((result) => {
        if (!result.done) return controller.enqueue(result.value);
        controller.close();
        release();
      }, (error: unknown) => {
        release();
        throw error;
      });
    },
    cancel(reason): Promise<void> {
      const cancelled = reader.cancel(reason);
      release();
      return cancelled;
    },
  }, { highWaterMark: 0 });
  return { native, transferred: noop, refused: () => reader.releaseLock() };
}

/** A native WritableStream locked to a writer (what a locked stream of ours stands for). */
function lockedNativeWritable(): globalThis.WritableStream<unknown> {
  const locked = new Native.WritableStream<unknown>();
  locked.getWriter();
  return locked;
}

/** A native WritableStream writing into `stream` (see the module's description). */
function nativeWritingInto(stream: WritableStream<unknown>): StandIn {
  if (stream.locked) return { native: lockedNativeWritable(), transferred: noop, refused: noop };
  const writer = stream.getWriter();
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    writer.releaseLock();
  };
  const native = new Native.WritableStream<unknown>({
    start(controller): void {
      // Ours erroring (its sink failed) errors the stand-in at once, so the far side learns it as it would of
      // a native stream's error, not only at its next write. Once ours has closed or errored, its lock is
      // released, as a pipe releases it.
      writer.closed.then(release, (error) => {
        controller.error(error);
        release();
      });
    },
    write(chunk): Promise<void> {
      return writer.ready.then(() => {
        // Its failure errors `stream`, which the next ready, close() or abort() reports.
        writer.write(chunk).then(undefined, noop);
      });
    },
    close(): Promise<void> {
      return writer.close();
    },
    abort(reason): Promise<void> {
      return writer.abort(reason);
    },
  });
  return { native, transferred: noop, refused: release };
}

/** A native TransformStream standing for `stream` (see the module's description). */
function nativeTransformOf(
  stream: TransformStream<unknown, unknown>,
  Ctor: typeof globalThis.TransformStream,
): StandIn {
  const { readable, writable } = stream;
  if (readable.locked || writable.locked) {
    const locked = new Ctor();
    if (readable.locked) locked.readable.getReader();
    if (writable.locked) locked.writable.getWriter();
    return { native: locked, transferred: noop, refused: noop };
  }
  const writer = writable.getWriter();
  const batches = acquireBatchReader(readable, "transfer");
  // Each side of ours is unlocked once it has ended, as the pipes of a transferred native pair release theirs.
  let writerReleased = false;
  const releaseWriter = (): void => {
    if (writerReleased) return;
    writerReleased = true;
    writer.releaseLock();
  };
  /** Set once the native writable side closes: our readable side's end then ends the flush, not the stream. */
  let flushing = false;
  /** Set once the native stream is cancelled or errored: nothing more is enqueued. */
  let stopped = false;
  let controller!: TransformStreamDefaultController<unknown>;
  let pumped: Promise<void> = Promise.resolve();
  // `cancel` (the standard's since 2023, in Node.js 20+ and Deno) is missing from some lib typings.
  const transformer: Transformer<unknown, unknown> & { cancel(reason: unknown): Promise<void> } = {
    start(c) {
      controller = c;
    },
    transform(chunk): Promise<void> {
      return writer.write(chunk);
    },
    async flush(): Promise<void> {
      flushing = true;
      await writer.close();
      await pumped;
    },
    cancel(reason: unknown): Promise<void> {
      stopped = true;
      return Promise.all([writer.abort(reason), batches.cancel(reason)]).then(noop);
    },
  };
  // Every chunk our readable side produces goes to the native readable side as it comes, from the transfer on.
  const pump = async (): Promise<void> => {
    try {
      for (;;) {
        let next = batches.read();
        if (isBatchPromise(next)) next = await next;
        if (stopped) return;
        if (next === BATCH_DONE) {
          // Our side ended without the native writable side closing (its transformer terminated).
          if (!flushing) controller.terminate();
          return;
        }
        for (const chunk of next) controller.enqueue(chunk);
      }
    } catch (error) {
      if (stopped) return;
      stopped = true;
      controller.error(error);
      void writer.abort(error).then(undefined, noop);
    } finally {
      batches.release();
    }
  };
  return {
    native: new Ctor(transformer),
    transferred: () => {
      writer.closed.then(releaseWriter, releaseWriter);
      pumped = pump();
    },
    refused: () => {
      releaseWriter();
      batches.release();
    },
  };
}
