/**
 * Our streams handed to the runtime's own APIs: a native ReadableStream that reads one of ours
 * (`toNativeReadableStream`, part of the adapter contract), and the byte-checked variant used for bodies
 * (`toNativeBody`: `new Response(ours)`, `new Request(url, { body: ours })`, `fetch(url, { body: ours })`).
 * @module
 */
import type {
  Batch,
  BatchAnswer,
  BatchReader,
  ReadableStream,
  ReadableStreamDefaultReader,
} from "../../core/internal.ts";
import {
  BATCH_DONE,
  batchReaderOf,
  describeValue,
  isBatchPromise,
  isReadableStreamClosingWithQueue,
  readableStreamState,
  takeCodecNativeOutput,
  typeError,
} from "../../core/internal.ts";
import { isNativeReadable, isOurReadable, Native, noop } from "./natives.ts";
import { takeNativeOfBodyShell } from "./body-shells.ts";
import { ObjectSlot } from "./object-slot.ts";

/**
 * A native ReadableStream reading `stream` (see the contract's `ToNativeReadableStream`). `stream` is
 * locked at once. The native stream has a high-water mark of 0: each native pull takes the chunks queued in
 * `stream` (or waits for the next one), so nothing is read ahead of the native consumer beyond what
 * `stream`'s own high-water mark queues. A native stream is returned as it is, and
 * a body shell nothing has used yet gives back the native body it stands for.
 */
export function toNativeReadableStream<R>(
  stream: ReadableStream<R> | globalThis.ReadableStream<R>,
): globalThis.ReadableStream<R> {
  // Ours and native have one TypeScript type (the global interface): test the value, keep the type.
  const value: unknown = stream;
  if (isNativeReadable(value)) return stream as globalThis.ReadableStream<R>;
  const inner = takeNativeOfBodyShell(stream);
  if (inner !== undefined) return inner as unknown as globalThis.ReadableStream<R>;
  if (!isOurReadable(value)) throw new TypeError("toNativeReadableStream: the argument must be a ReadableStream");
  if (stream.locked) throw new TypeError("toNativeReadableStream: the stream is locked to a reader");
  return nativeReading(stream, undefined);
}

/**
 * Makes the native stream a body reads from `stream` (unlocked and undisturbed when it is called): every
 * chunk must go through {@link bodyBytes}. The default is a native stream pulling one read at a time;
 * a runtime with a faster native source for bodies passes its own (`createGlobalPatch({ bodyBridge })`).
 */
export type BodyBridge = (stream: ReadableStream<unknown>, context: string) => globalThis.ReadableStream<Uint8Array>;

/**
 * The native stream a body made from `stream` reads: like {@link toNativeReadableStream}, but every chunk
 * must be a BufferSource. A chunk that is not (a string, a number, an object) errors the native stream
 * with a `TypeError` naming what was found, and cancels `stream` with that error; nothing is stringified.
 * A Uint8Array goes through as it is; another BufferSource as a Uint8Array over the same bytes.
 *
 * A locked or disturbed `stream` gives a native stream in the same state, so the runtime throws its own
 * error for it, exactly as it would for a native stream. Otherwise `bridge` makes the native stream.
 */
export function toNativeBody(
  stream: ReadableStream<unknown>,
  context: string,
  bridge: BodyBridge = defaultBodyBridge,
): globalThis.ReadableStream<Uint8Array> {
  const inner = takeNativeOfBodyShell(stream);
  if (inner !== undefined) return inner;
  // NATIVE-CODEC-HANDBACK: a codec driving the runtime's own stream hands its output over. Ours is locked for good
  // and read once (nothing comes: the read lets its transform take writes, and settles at its end).
  const output = takeCodecNativeOutput(stream);
  if (output !== undefined) {
    stream.getReader().read().then(noop, noop);
    return output;
  }
  return (nativeInSameState(stream) as globalThis.ReadableStream<Uint8Array> | undefined) ?? bridge(stream, context);
}

/**
 * For a locked or disturbed stream of ours, a native stream in the same state (empty, locked or cancelled),
 * so that a native API given it throws the runtime's own error for that state; undefined otherwise.
 */
export function nativeInSameState<R>(stream: ReadableStream<R>): globalThis.ReadableStream<R> | undefined {
  if (stream.locked) {
    const locked = new Native.ReadableStream<R>();
    locked.getReader();
    return locked;
  }
  if (readableStreamState(stream)?.disturbed === true) {
    const disturbed = new Native.ReadableStream<R>();
    void disturbed.cancel();
    return disturbed;
  }
  return undefined;
}

/**
 * For a stream of ours whose source has closed it with chunks still queued (all it will ever give is queued), a
 * native stream holding the same chunks, closed; ours is read to its end (disturbed and closed, its reader
 * released, as a consumer that read it leaves it). Undefined for any other stream. A runtime consumer given it takes the path it takes for
 * its own stream in that state (Bun's: synchronous, with its own errors).
 */
export function nativeOfQueuedStream<R>(stream: ReadableStream<R>): globalThis.ReadableStream<R> | undefined {
  if (!isReadableStreamClosingWithQueue(stream)) return undefined;
  const reader = stream.getReader();
  const chunks = batchReaderOf(reader, "ReadableStream").takeQueued() ?? [];
  reader.releaseLock();
  return new Native.ReadableStream<R>({
    start(controller) {
      for (let i = 0; i < chunks.length; i++) controller.enqueue(chunks[i]!);
      controller.close();
    },
  });
}

/** The native stream `toNativeBody` made for each Response/Request built from one of our streams. */
const madeBodies = new ObjectSlot<globalThis.ReadableStream<Uint8Array>>("fusestreams body made from ours");

/** Records that `owner` (a Response or Request) was built with `native`, made by {@link toNativeBody}. */
export function rememberBody(owner: object, native: globalThis.ReadableStream<Uint8Array>): void {
  madeBodies.set(owner, native);
}

/**
 * The native stream {@link toNativeBody} made when `owner` was built from one of our streams, if it was
 * (found without calling the body getter, which can be costly: Deno makes a stream for a static body).
 */
export function bodyMadeFor(owner: unknown): globalThis.ReadableStream<Uint8Array> | undefined {
  return typeof owner === "object" && owner !== null ? madeBodies.get(owner) : undefined;
}

function defaultBodyBridge(stream: ReadableStream<unknown>, context: string): globalThis.ReadableStream<Uint8Array> {
  return nativeReading(stream, context) as globalThis.ReadableStream<Uint8Array>;
}

/**
 * A body chunk as a Uint8Array over the same bytes (the chunk itself when it is one); throws the
 * `TypeError` that ends a body when the chunk is not a BufferSource (`context`: the API, e.g. "Response").
 */
export function bodyBytes(chunk: unknown, context: string): Uint8Array {
  const bytes = bytesOf(chunk);
  if (bytes === undefined) {
    throw typeError(
      `${context}: a body stream chunk must be an ArrayBuffer or ArrayBufferView; found ${describeValue(chunk)}`,
    );
  }
  return bytes;
}

/** The chunk as a Uint8Array over the same bytes, or undefined if it is not a BufferSource. */
function bytesOf(chunk: unknown): Uint8Array | undefined {
  if (chunk instanceof Uint8Array) return chunk;
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  if (typeof SharedArrayBuffer === "function" && chunk instanceof SharedArrayBuffer) return new Uint8Array(chunk);
  return undefined;
}

/** Answers a waiting batch read with the first chunk it gets: no chunk is pulled for a batch that waits. */
function noHold(): boolean {
  return false;
}

/**
 * The body a runtime reads from `stream` by {@link nativeReading}, locking `stream` only at the first pull (or
 * cancel): before that, `firstPull` is asked, which returns false when `stream` was claimed meanwhile by a
 * whole-body consumer (the native stream then closes without reading it). Every chunk goes through
 * {@link bodyBytes} (`context`: the API).
 */
export function nativeReadingBody(
  stream: ReadableStream<unknown>,
  context: string,
  firstPull: () => boolean,
): globalThis.ReadableStream<Uint8Array> {
  return nativeReading(stream, context, firstPull) as globalThis.ReadableStream<Uint8Array>;
}

/**
 * A native stream (high-water mark 0) whose pulls read `stream` in batches (TO-NATIVE-BATCH): a native pull
 * takes every chunk queued in `stream` in one step (FP-BATCH-TAKE) and enqueues them all, synchronously, or
 * waits for the next chunk when none is queued (a waiting batch holds no more: nothing is pulled from the
 * source for it). The native stream then holds at most the chunks `stream` had queued (what its high-water
 * mark let the source queue; it does not pull again until its consumer has read them all), so a slow
 * consumer never makes us buffer more than twice `stream`'s queue. `bodyContext` checks for byte chunks: a
 * bad one cancels `stream` with its TypeError at once and errors the native stream once the chunks before
 * it have been read, as a read per chunk would. `stream` is locked at once, or with `firstPull` at the first
 * pull or cancel (see {@link nativeReadingBody}).
 */
function nativeReading<R>(
  stream: ReadableStream<R>,
  bodyContext: string | undefined,
  firstPull?: () => boolean,
): globalThis.ReadableStream<R> {
  // The lock stays with the reader for the native stream's whole life (a cancel keeps it, as a reader's does).
  let reader: ReadableStreamDefaultReader<R> | undefined;
  let batches: BatchReader<R> | undefined;
  const lock = (): void => {
    reader = stream.getReader() as ReadableStreamDefaultReader<R>;
    batches = batchReaderOf(reader, "toNativeReadableStream()");
  };
  if (firstPull === undefined) lock();
  let controller!: ReadableStreamDefaultController<R>;
  /** A bad chunk's error, raised at the pull after the chunks before it. */
  let failure: { error: unknown } | undefined;
  const answer: BatchAnswer<Batch<R>> = {
    chunks: (batch) => batch as R[],
    end: () => BATCH_DONE,
    error() {},
    hold: noHold,
  };
  const deliver = (batch: Batch<R>): void => {
    if (batch === BATCH_DONE) {
      controller.close();
      return;
    }
    for (let i = 0; i < batch.length; i++) {
      let chunk: R = batch[i]!;
      if (bodyContext !== undefined) {
        try {
          chunk = bodyBytes(chunk, bodyContext) as R;
        } catch (error) {
          if (i === 0) controller.error(error);
          else failure = { error };
          void reader!.cancel(error).then(undefined, () => {});
          return;
        }
      }
      controller.enqueue(chunk);
    }
  };
  return new Native.ReadableStream<R>(
    {
      start(c) {
        controller = c;
      },
      pull(): Promise<void> | undefined {
        if (failure !== undefined) {
          controller.error(failure.error);
          return undefined;
        }
        if (batches === undefined) {
          if (!firstPull!()) {
            controller.close();
            return undefined;
          }
          lock();
        }
        const next = batches!.readAs(answer);
        if (isBatchPromise(next)) return next.then(deliver);
        deliver(next);
        return undefined;
      },
      cancel(reason) {
        if (failure !== undefined) return undefined;
        if (reader === undefined) {
          firstPull!();
          return stream.cancel(reason);
        }
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
