/**
 * The patch step `bun-body-readers`: a body made from one of our streams (BUN-DIRECT, direct-body.ts) is read
 * no further ahead than a native body when JavaScript reads it. Bun pulls a direct source once per `read()`
 * only for a reader taken with the native `getReader()`; its own iteration, `tee()` and pipes read with an
 * internal reader that takes the whole stream in one pull. So, for such a body:
 *
 * - the native `getReader()` (of a default reader) records that a reader holds it, and the native reader's
 *   `releaseLock()` that it no longer does (direct-body.ts then pulls one chunk per read);
 * - `values()`, `[Symbol.asyncIterator]()`, `tee()`, and `pipeTo()` / `pipeThrough()` to a native destination
 *   run on a native stream (high-water mark 0) that reads the body through such a reader: the body is locked
 *   at once, each chunk is read when the consumer asks for it, and cancelling cancels the body with the same
 *   reason.
 *
 * Any other stream, and a locked body, goes to Bun's own methods unchanged.
 * @module
 */
import { type ReadableStream, whenReadableStreamSettles } from "../../mod.ts";
import { isNativeReadable, isOurWritable, Native, noop } from "../kit/natives.ts";
import type { PatchTransaction } from "../kit/patch-transaction.ts";
import { giveBackDirectBody, handOverDirectBody, isDirectBody, setDirectBodyReaderHeld } from "./direct-body.ts";

type Method = (this: unknown, ...args: unknown[]) => unknown;
interface NativeReader {
  read(): Promise<ReadableStreamReadResult<unknown>>;
  cancel(reason?: unknown): Promise<void>;
  releaseLock(): void;
}

/** The body each reader taken from a direct body with the native `getReader()` holds. */
const readerBodies = new WeakMap<object, object>();

/** Whether `options` asks `getReader()` for a BYOB reader (read as the native method reads it). */
function wantsByob(options: unknown): boolean {
  return typeof options === "object" && options !== null && (options as { mode?: unknown }).mode !== undefined;
}

/** An unlocked direct body (the rerouting applies), or undefined. */
function freeBody(value: unknown): globalThis.ReadableStream | undefined {
  return isDirectBody(value) && !(value as globalThis.ReadableStream).locked
    ? value as globalThis.ReadableStream
    : undefined;
}

/**
 * A native stream (high-water mark 0) reading `body` through a reader taken with its (patched) `getReader()`,
 * and that reader: each pull is one `read()` of the body; cancelling it cancels the body. Once the body has
 * closed or errored, the reader lets go of it (as the native pipe or tee reading it would).
 */
function readThroughReader(body: globalThis.ReadableStream): [globalThis.ReadableStream, NativeReader] {
  const reader = body.getReader() as unknown as NativeReader;
  const stream = new Native.ReadableStream<unknown>({
    pull(controller): Promise<void> {
      return reader.read().then((result) => {
        if (result.done) {
          reader.releaseLock();
          controller.close();
        } else controller.enqueue(result.value);
      }, (error: unknown) => {
        reader.releaseLock();
        throw error;
      });
    },
    cancel(reason): Promise<void> {
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
  return [stream, reader];
}

/**
 * BODY-HANDOVER: runs `pipe` (a pipe of ours) on the stream of ours `body` was made from, when `body` is free
 * to hand over (else returns undefined, nothing done). `body` is locked for the pipe's life by a reader of its
 * own, and once the pipe has started (it locked ours) read once, which finds it handed over and closes it:
 * `body` is then disturbed, as a pipe reading it would leave it, and let go of when ours has closed or
 * errored. A pipe that fails before it starts leaves `body` as it was. Unobservable but for `body` ending
 * closed where a pipe reading it would leave it errored or cancelled; the chunks, the backpressure, the
 * errors and cancel reasons are the pipe's with ours, where the pipe over `body` would add a native read (and
 * a chunk read ahead) per chunk.
 */
function throughSource<T>(
  body: globalThis.ReadableStream,
  pipe: (ours: ReadableStream<unknown>) => T,
): T | undefined {
  const ours = handOverDirectBody(body);
  if (ours === undefined) return undefined;
  const reader = body.getReader() as unknown as NativeReader;
  let result: T;
  try {
    result = pipe(ours);
  } catch (error) {
    reader.releaseLock();
    giveBackDirectBody(body);
    throw error;
  }
  if (!ours.locked) {
    reader.releaseLock();
    giveBackDirectBody(body);
    return result;
  }
  const release = (): void => reader.releaseLock();
  reader.read().then(() => whenReadableStreamSettles(ours, release, release), noop);
  return result;
}

/** The %AsyncIteratorPrototype% (whose `[Symbol.asyncIterator]()` returns the iterator itself). */
const AsyncIteratorPrototype = Object.getPrototypeOf(Object.getPrototypeOf(async function* () {}).prototype) as object;

/**
 * An async iterator over `body` (ReadableStream's async iterator, §4.2.5) reading it through a reader taken
 * with its (patched) `getReader()`: `next()` is one `read()`; the end and an error let go of the body;
 * `return()` cancels the body with its value unless `preventCancel`, and lets go of it. Calls are answered in
 * order, each after the one before.
 */
function bodyIterator(body: globalThis.ReadableStream, preventCancel: boolean): AsyncIterableIterator<unknown> {
  let reader: NativeReader | undefined = body.getReader() as unknown as NativeReader;
  let ongoing: Promise<unknown> | undefined;
  const finish = (): void => {
    reader?.releaseLock();
    reader = undefined;
  };
  const nextSteps = (): Promise<IteratorResult<unknown>> => {
    if (reader === undefined) return Promise.resolve({ value: undefined, done: true });
    return reader.read().then((result) => {
      if (result.done) finish();
      return result.done ? { value: undefined, done: true } : { value: result.value, done: false };
    }, (error: unknown) => {
      finish();
      throw error;
    });
  };
  const returnSteps = (value: unknown): Promise<IteratorResult<unknown>> => {
    const held = reader;
    if (held === undefined) return Promise.resolve({ value, done: true });
    reader = undefined;
    if (!preventCancel) {
      const cancelled = held.cancel(value);
      held.releaseLock();
      return cancelled.then(() => ({ value, done: true }));
    }
    held.releaseLock();
    return Promise.resolve({ value, done: true });
  };
  const chain = <T>(steps: () => Promise<T>): Promise<T> => {
    const next = ongoing === undefined ? steps() : ongoing.then(steps, steps);
    ongoing = next.then(() => undefined, () => undefined);
    return next;
  };
  const iterator = Object.create(AsyncIteratorPrototype) as AsyncIterableIterator<unknown>;
  iterator.next = () => chain(nextSteps);
  iterator.return = (value?: unknown) => chain(() => returnSteps(value));
  return iterator;
}

/** Replaces `proto[key]` (a function) by `make(original)`, recorded in `tx`. */
function wrap(tx: PatchTransaction, proto: object, key: PropertyKey, make: (original: Method) => Method): void {
  const original = (proto as Record<PropertyKey, unknown>)[key];
  if (typeof original !== "function") return;
  tx.defineValue(proto, key, make(original as Method));
}

/** See the module's documentation. */
export function patchBodyReaders(tx: PatchTransaction): void {
  const NativeRS = Native.ReadableStream;
  const proto = NativeRS.prototype as unknown as Record<PropertyKey, unknown>;
  const getReader = proto["getReader"] as Method;
  const readerProto = Object.getPrototypeOf(getReader.call(new NativeRS())) as object;

  wrap(tx, proto, "getReader", (original) =>
    function getReader(this: unknown, ...args: unknown[]): unknown {
      const reader = original.apply(this, args) as object;
      if (isDirectBody(this) && !wantsByob(args[0])) {
        readerBodies.set(reader, this as object);
        setDirectBodyReaderHeld(this as object, true);
      }
      return reader;
    });
  wrap(tx, readerProto, "releaseLock", (original) =>
    function releaseLock(this: unknown): unknown {
      const result = original.call(this);
      const body = typeof this === "object" && this !== null ? readerBodies.get(this) : undefined;
      if (body !== undefined) {
        readerBodies.delete(this as object);
        setDirectBodyReaderHeld(body, false);
      }
      return result;
    });

  // Iteration: an iterator reading the body through a reader (the options read as the native method reads them).
  for (const key of ["values", Symbol.asyncIterator] as const) {
    wrap(tx, proto, key, (original) =>
      function values(this: unknown, ...args: unknown[]): unknown {
        const body = freeBody(this);
        if (body === undefined) return original.apply(this, args);
        const options = args[0];
        const preventCancel = typeof options === "object" && options !== null &&
          Boolean((options as { preventCancel?: unknown }).preventCancel);
        return bodyIterator(body, preventCancel);
      });
  }
  // tee(): Bun's own, on a stream reading the body one read at a time.
  wrap(tx, proto, "tee", (original) =>
    function tee(this: unknown, ...args: unknown[]): unknown {
      const body = freeBody(this);
      if (body === undefined) return original.apply(this, args);
      return original.apply(readThroughReader(body)[0], args);
    });

  // Pipes to a destination of ours: our pipe reads the stream of ours itself (BODY-HANDOVER); to a native
  // destination: Bun's pipe, reading the body one read at a time.
  wrap(tx, proto, "pipeTo", (original) =>
    function pipeTo(this: unknown, ...args: unknown[]): unknown {
      const body = freeBody(this);
      if (body === undefined) return original.apply(this, args);
      if (isOurWritable(args[0])) {
        return throughSource(body, (ours) => ours.pipeTo(...(args as Parameters<typeof ours.pipeTo>))) ??
          original.apply(this, args);
      }
      const [stream, reader] = readThroughReader(body);
      const done = original.apply(stream, args) as Promise<void>;
      // A pipe that failed before it started (bad options) leaves the body unlocked, as natively; one that
      // ended without closing or cancelling the body (preventCancel) lets go of it.
      const release = (): void => {
        if (!stream.locked) reader.releaseLock();
      };
      release();
      done.then(release, release);
      return done;
    });
  wrap(tx, proto, "pipeThrough", (original) =>
    function pipeThrough(this: unknown, ...args: unknown[]): unknown {
      const body = freeBody(this);
      const pair = args[0] as { writable?: unknown; readable?: unknown } | null | undefined;
      if (body === undefined || typeof pair !== "object" || pair === null) return original.apply(this, args);
      if (isOurWritable(pair.writable)) {
        return throughSource(body, (ours) => ours.pipeThrough(...(args as Parameters<typeof ours.pipeThrough>))) ??
          original.apply(this, args);
      }
      if (!isNativeReadable(pair.readable)) return original.apply(this, args);
      const [stream, reader] = readThroughReader(body);
      try {
        return original.apply(stream, args);
      } finally {
        // A pipe that failed before it started leaves the body unlocked, as natively.
        if (!stream.locked) reader.releaseLock();
      }
    });
}
