/**
 * Bun's fastest way to take one of our streams as a body (BUN-DIRECT): a native `type: "direct"`
 * ReadableStream whose source feeds ours into the direct controller's `write()`. Who reads the body decides
 * how (Bun calls a direct source's `pull()` differently for each):
 *
 * - Bun's own consumers (`text()` and the other body methods, `Bun.serve`, `fetch` uploads, `Bun.write`,
 *   `Bun.readableStreamTo*`, and Bun's internal readers of `tee()`, `pipeTo()`, iteration) call `pull()` once
 *   and take its settling as the end: that pull pipes ours (fused) or reads it in batches into `write()`,
 *   with no native queue, native read or promise per chunk. `write()` takes a chunk as Bun's own direct
 *   streams do: a string is encoded as UTF-8, a BufferSource is bytes, anything else gets the consumer's own
 *   error (or, for a Blob, its text).
 * - A reader of the body taken with `getReader()` (see `body-readers.ts`, which routes iteration, `tee()` and
 *   pipes to native destinations through one) calls `pull()` once per `read()`: each pull then reads exactly
 *   one chunk of ours and writes it, so ours is read no further ahead than a native body would be, each
 *   chunk reaches the reader as one chunk, and an error of ours reaches it after every chunk before it.
 *
 * Measured in `rt-response-text`, `rt-serve-*` and `rt-response-read` (bench/README.md, Bun).
 * @module
 */
import type { ReadableStream, ReadableStreamDefaultReader } from "../../mod.ts";
import { type BridgePipe, pipeToBridge } from "../kit/bridge-pipe.ts";
import { Native, noop } from "../kit/natives.ts";

/** The controller Bun passes to a `type: "direct"` source's `pull()` (its sinks' controllers too). */
interface DirectController {
  /**
   * Takes a string or BufferSource; returns the bytes taken, or a promise when the writer should wait (a
   * Blob consumer's sink returns undefined for a chunk without a length).
   */
  write(chunk: unknown): number | Promise<number> | undefined;
  /** Ends the stream; with an error, errors it. */
  close(error?: unknown): void;
}

/** A chunk handed to Bun's `write()` as it is: Bun's sink checks and encodes it, as for its own streams. */
function asIs(chunk: unknown): unknown {
  return chunk;
}

/** Whether `chunk` is a string or a BufferSource, what every Bun sink takes. */
function isBodyChunk(chunk: unknown): boolean {
  return typeof chunk === "string" || ArrayBuffer.isView(chunk) || chunk instanceof ArrayBuffer ||
    (typeof SharedArrayBuffer === "function" && chunk instanceof SharedArrayBuffer);
}

/**
 * Whether `controller` is the one-shot byte sink of Bun's `arrayBuffer()` / `bytes()` (own `start`, no own
 * `error`): its `write()` refuses a bad chunk with the `ArrayBufferSink`'s error, where the same consumers
 * refuse it in a native stream with their own (see {@link BYTES_REFUSAL}).
 */
function isOneShotByteSink(controller: object): boolean {
  return Object.hasOwn(controller, "start") && !Object.hasOwn(controller, "error");
}

/**
 * Whether `error`, thrown by `write(chunk)`, is the Blob consumers' array sink failing on a `null` or
 * `undefined` chunk after taking it (it reads the chunk's length; JavaScriptCore: "null is not an object"),
 * where the same consumers skip such a chunk of a native stream: the chunk is skipped here too.
 */
function skipsNullish(chunk: unknown, error: unknown): boolean {
  return chunk == null && error instanceof TypeError && error.message.includes(" is not an object");
}

/** The message of the `TypeError` Bun's byte consumers give for a chunk that is not text or bytes. */
const BYTES_REFUSAL = "Expected an ArrayBuffer, ArrayBufferView, or string chunk";

/** What body-readers.ts may do with a native stream {@link directBody} made. */
interface DirectBodyState {
  /** Whether a reader taken with the native `getReader()` holds the body now. */
  readerHeld: boolean;
  /** BODY-HANDOVER (see {@link handOverDirectBody}). */
  handOver(): ReadableStream<unknown> | undefined;
  /** Undoes a hand-over that was not used. */
  giveBack(): void;
}

/** The native streams {@link directBody} made. */
const bodies = new WeakMap<object, DirectBodyState>();

/** Whether `value` is a native stream {@link directBody} made for one of ours. */
export function isDirectBody(value: unknown): boolean {
  return typeof value === "object" && value !== null && bodies.has(value);
}

/**
 * Records whether a reader taken with the native `getReader()` (a reader of user code, or of body-readers.ts)
 * holds `body` now; only such a reader makes Bun call `pull()` once per read.
 */
export function setDirectBodyReaderHeld(body: object, held: boolean): void {
  const state = bodies.get(body);
  if (state !== undefined) state.readerHeld = held;
}

/**
 * BODY-HANDOVER: when `body` is a native stream {@link directBody} made that nothing has pulled, locked or
 * cancelled, and its stream of ours is unlocked: marks it handed over and returns the stream of ours, for a
 * pipe of ours to read directly (see body-readers.ts, which locks `body` meanwhile). A pull of `body` after
 * that finds it empty and closes it. Otherwise undefined.
 */
export function handOverDirectBody(body: object): ReadableStream<unknown> | undefined {
  return bodies.get(body)?.handOver();
}

/** Undoes {@link handOverDirectBody} when the pipe it was for did not start (nothing was read). */
export function giveBackDirectBody(body: object): void {
  bodies.get(body)?.giveBack();
}

/**
 * A native Bun stream with the chunks of `stream` (see `BodyBridge`): nothing is read before the body's
 * consumer pulls; backpressure is Bun's (a `write()` that returns a promise keeps the pipe waiting for it);
 * a chunk Bun's `write()` refuses errors the body with Bun's error and cancels `stream` with it; an error of
 * `stream` errors the body with the same object; cancelling the body cancels `stream` with the same reason.
 */
export function directBody(stream: ReadableStream<unknown>, context: string): globalThis.ReadableStream<Uint8Array> {
  /** Set while `stream` is handed over to a pipe of ours (BODY-HANDOVER). */
  let handedOver = false;
  const state: DirectBodyState = {
    readerHeld: false,
    handOver() {
      if (handedOver || pipe !== undefined || reader !== undefined || failure !== undefined || stream.locked) {
        return undefined;
      }
      handedOver = true;
      return stream;
    },
    giveBack() {
      handedOver = false;
    },
  };
  /** Set by a first pull from one of Bun's consumers: the whole stream goes through it. */
  let pipe: BridgePipe | undefined;
  let piped: Promise<void> | undefined;
  /** Set by a first pull from a reader: one chunk per pull, through this reader of ours. */
  let reader: ReadableStreamDefaultReader<unknown> | undefined;
  /** A bad chunk's error, once `stream` was cancelled with it. */
  let failure: { error: unknown } | undefined;

  const write = (controller: DirectController, chunk: unknown): Promise<number> | number | undefined => {
    try {
      return controller.write(chunk);
    } catch (error) {
      failure = { error };
      reader!.cancel(error).then(undefined, noop);
      throw error;
    }
  };
  /** One chunk of ours for one read of the body. */
  const readOne = (controller: DirectController): Promise<void> =>
    reader!.read().then((result) => {
      if (result.done) controller.close();
      else void write(controller, result.value);
    });
  /** The rest of ours, read with `reader`, for a consumer that took over the body from a released reader. */
  const pumpRest = async (controller: DirectController): Promise<void> => {
    for (;;) {
      const result = await reader!.read();
      if (result.done) {
        controller.close();
        return;
      }
      const written = write(controller, result.value);
      if (written instanceof Promise) await written;
    }
  };
  /** All of ours for one of Bun's consumers. */
  const pumpAll = (controller: DirectController): Promise<void> => {
    const byteSink = isOneShotByteSink(controller);
    pipe = pipeToBridge(stream, context, {
      write(chunk): Promise<void> | undefined {
        if (byteSink && !isBodyChunk(chunk)) throw new TypeError(BYTES_REFUSAL);
        let written: unknown;
        try {
          written = controller.write(chunk);
        } catch (error) {
          if (!skipsNullish(chunk, error)) throw error;
        }
        // Unobservable: the pipe is the only writer, and waiting on Bun's promise is its backpressure.
        return written instanceof Promise ? written.then(noop) : undefined;
      },
      close() {
        controller.close();
      },
    }, asIs);
    return (piped = pipe.done.then(undefined, (error: unknown) => {
      try {
        controller.close(error);
      } catch {
        // already cancelled by its consumer
      }
      throw error;
    }));
  };

  const source = {
    type: "direct",
    pull(controller: DirectController): Promise<void> | undefined {
      if (handedOver) {
        controller.close();
        return undefined;
      }
      if (failure !== undefined) throw failure.error;
      if (piped !== undefined) return piped;
      if (state.readerHeld) {
        reader ??= stream.getReader();
        return readOne(controller);
      }
      return reader === undefined ? pumpAll(controller) : pumpRest(controller);
    },
    cancel(reason: unknown): Promise<void> | undefined {
      if (failure !== undefined || handedOver) return undefined;
      if (pipe !== undefined) return pipe.cancel(reason);
      return reader === undefined ? stream.cancel(reason) : reader.cancel(reason);
    },
  };
  const body = new Native.ReadableStream(source as unknown as UnderlyingDefaultSource<Uint8Array>);
  bodies.set(body, state);
  return body;
}
