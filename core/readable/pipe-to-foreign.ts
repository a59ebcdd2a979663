/**
 * ReadableStreamPipeTo for a destination that is the runtime's own (native) WritableStream, so that our
 * streams interoperate with native ones (`ours.pipeTo(nativeWritable)`, `ours.pipeThrough(new
 * CompressionStream("gzip"))`). The spec's algorithm, with the destination driven through its writer's
 * public API (the only access we have to it); the native writer's methods are captured at load.
 * @module
 */
import { addAbortAlgorithm, signalAbortReason, signalIsAborted } from "../shared/abort-signal.ts";
import { type Deferred, newDeferred } from "../shared/promise.ts";
import { type Callable, PromisePrototypeThen, PromiseResolve, ReflectApply } from "../shared/primordials.ts";
import { typeError } from "../shared/webidl.ts";
import { waitForAll } from "./pipe-to.ts";
import {
  AcquireReadableStreamDefaultReader,
  ReadableStreamDefaultReaderRead,
  ReadableStreamReaderRelease,
} from "./reader-ops.ts";
import {
  CLOSED,
  ERRORED,
  READABLE,
  ReadableStreamCancel,
  type ReadableStreamInternal,
  type ReaderInternal,
} from "./stream-internal.ts";

interface NativeWritableProto {
  getWriter(): object;
}

const NativeWS = (globalThis as { WritableStream?: { prototype: object } }).WritableStream;
const NativeWriter =
  (globalThis as { WritableStreamDefaultWriter?: { prototype: object } }).WritableStreamDefaultWriter;
const NativeRS = (globalThis as { ReadableStream?: { prototype: object } }).ReadableStream;

function getter(proto: object | undefined, name: string): Callable | undefined {
  return proto === undefined ? undefined : Object.getOwnPropertyDescriptor(proto, name)?.get;
}
function method(proto: object | undefined, name: string): Callable | undefined {
  return proto === undefined
    ? undefined
    : (Object.getOwnPropertyDescriptor(proto, name)?.value as Callable | undefined);
}

const wsLocked = getter(NativeWS?.prototype, "locked");
const wsGetWriter = method(NativeWS?.prototype, "getWriter");
const rsLocked = getter(NativeRS?.prototype, "locked");
const wReady = getter(NativeWriter?.prototype, "ready");
const wClosed = getter(NativeWriter?.prototype, "closed");
const wWrite = method(NativeWriter?.prototype, "write");
const wClose = method(NativeWriter?.prototype, "close");
const wAbort = method(NativeWriter?.prototype, "abort");
const wRelease = method(NativeWriter?.prototype, "releaseLock");

function brand(fn: Callable | undefined, x: unknown): boolean {
  if (fn === undefined) return false;
  try {
    ReflectApply(fn, x, []);
    return true;
  } catch {
    return false;
  }
}

/** Whether `x` is the runtime's own WritableStream (not ours), by its intrinsic brand check. */
export function isNativeWritableStream(x: unknown): boolean {
  return brand(wsLocked, x);
}

/** Whether `x` is the runtime's own ReadableStream (not ours). */
export function isNativeReadableStream(x: unknown): boolean {
  return brand(rsLocked, x);
}

/** Whether the native WritableStream `x` is locked. */
export function isNativeWritableStreamLocked(x: unknown): boolean {
  return ReflectApply(wsLocked!, x, []) as boolean;
}

function ignore(): void {}

/** ReadableStreamPipeTo(source, dest, ...) with a native destination. */
export function ReadableStreamPipeToNative(
  source: ReadableStreamInternal,
  dest: NativeWritableProto,
  preventClose: boolean,
  preventAbort: boolean,
  preventCancel: boolean,
  signal: AbortSignal | undefined,
): Promise<undefined> {
  const reader: ReaderInternal = AcquireReadableStreamDefaultReader(source);
  const writer = ReflectApply(wsGetWriter!, dest, []) as object;
  source.disturbed = true;
  const result: Deferred<undefined> = newDeferred();
  let shuttingDown = false;
  let currentWrite: Promise<unknown> = PromiseResolve(undefined);
  let removeAbort: (() => void) | undefined;
  const writerClosed = ReflectApply(wClosed!, writer, []) as Promise<undefined>;

  const finalize = (isError: boolean, error: unknown): void => {
    ReflectApply(wRelease!, writer, []);
    ReadableStreamReaderRelease(reader);
    removeAbort?.();
    if (isError) result.reject(error);
    else result.resolve(undefined);
  };
  const waitForWrites = (then: () => void): void => {
    const old = currentWrite;
    PromisePrototypeThen(old, () => (old === currentWrite ? then() : waitForWrites(then)));
  };
  const shutdownWithAnAction = (action: () => Promise<unknown>, isError: boolean, originalError: unknown): void => {
    if (shuttingDown) return;
    shuttingDown = true;
    waitForWrites(() => {
      let p: Promise<unknown>;
      try {
        p = action();
      } catch (e) {
        finalize(true, e);
        return;
      }
      PromisePrototypeThen(p, () => finalize(isError, originalError), (e: unknown) => finalize(true, e));
    });
  };
  const shutdown = (isError: boolean, error: unknown): void => {
    if (shuttingDown) return;
    shuttingDown = true;
    waitForWrites(() => finalize(isError, error));
  };
  const abortDest = (e: unknown) => (): Promise<unknown> => ReflectApply(wAbort!, writer, [e]) as Promise<unknown>;
  const cancelSource = (e: unknown) => (): Promise<unknown> =>
    source.state === READABLE ? ReadableStreamCancel(source, e) : PromiseResolve(undefined);

  if (signal !== undefined) {
    const abortAlgorithm = (): void => {
      const error = signalAbortReason(signal);
      shutdownWithAnAction(
        () => waitForAll(preventAbort ? undefined : abortDest(error), preventCancel ? undefined : cancelSource(error)),
        true,
        error,
      );
    };
    if (signalIsAborted(signal)) {
      abortAlgorithm();
      return result.promise;
    }
    removeAbort = addAbortAlgorithm(signal, abortAlgorithm);
  }

  // Errors and closing, forward and backward (the same order as ReadableStreamPipeTo).
  const onSourceErrored = (e: unknown): void => {
    if (!preventAbort) shutdownWithAnAction(abortDest(e), true, e);
    else shutdown(true, e);
  };
  const onDestErrored = (e: unknown): void => {
    if (!preventCancel) shutdownWithAnAction(cancelSource(e), true, e);
    else shutdown(true, e);
  };
  const onSourceClosed = (): void => {
    if (!preventClose) {
      shutdownWithAnAction(() => ReflectApply(wClose!, writer, []) as Promise<unknown>, false, undefined);
    } else shutdown(false, undefined);
  };
  const onDestClosed = (): void => {
    const destClosed = typeError("The destination writable stream closed before all data could be piped to it");
    if (!preventCancel) shutdownWithAnAction(cancelSource(destClosed), true, destClosed);
    else shutdown(true, destClosed);
  };
  if (source.state === ERRORED) onSourceErrored(source.storedError);
  else PromisePrototypeThen(reader.closed!.promise, undefined, onSourceErrored);
  PromisePrototypeThen(writerClosed, onDestClosed, onDestErrored);
  if (source.state === CLOSED) onSourceClosed();
  else PromisePrototypeThen(reader.closed!.promise, onSourceClosed, ignore);

  const step = (): void => {
    if (shuttingDown) return;
    PromisePrototypeThen(ReflectApply(wReady!, writer, []) as Promise<undefined>, () => {
      if (shuttingDown) return;
      ReadableStreamDefaultReaderRead(reader, {
        chunkSteps(chunk: unknown) {
          const w = ReflectApply(wWrite!, writer, [chunk]) as Promise<undefined>;
          currentWrite = PromisePrototypeThen(w, undefined, ignore);
          step();
        },
        closeSteps() {},
        errorSteps() {},
      });
    }, ignore);
  };
  step();
  return result.promise;
}
