/// <reference types="node" preserve="true" />
/**
 * `fromNodeReadable`: a `node:stream` Readable as a fusestreams ReadableStream.
 * @module
 */
import type { Readable } from "node:stream";
import { ReadableStream, type ReadableStreamDefaultController } from "../../mod.ts";
import { chunkSize, prematureClose } from "./shared.ts";

/** Options of {@link fromNodeReadable}. */
export interface FromNodeReadableOptions {
  /**
   * High-water mark of the web stream's queue: bytes for a byte-mode Readable (strings count their
   * length), chunks for an object-mode one. Defaults to the Readable's `readableHighWaterMark`, and for
   * a byte-mode Readable to at least 16 KiB.
   */
  highWaterMark?: number;
}

/**
 * The smallest default high-water mark (bytes) of a byte-mode Readable's web stream: a Readable with a
 * small buffer (such as `fs.createReadStream(path, { highWaterMark: 1024 })`) would otherwise be paused
 * and resumed for every chunk, which costs more than the chunk itself.
 */
const MIN_BYTE_HIGH_WATER_MARK = 16 * 1024;

/**
 * Wraps a Node.js Readable (`node:stream`, `fs.createReadStream`, an HTTP request, a socket, ...) in a
 * fusestreams {@link ReadableStream}.
 *
 * - Backpressure: the Readable flows only while the web stream's queue is below its high-water mark
 *   (in bytes for byte-mode Readables; at least 16 KiB unless given), and is paused otherwise, so at
 *   most the two high-water marks plus one chunk are buffered.
 * - Chunks are passed through as they are (Buffers, or strings after `setEncoding()`, or any value in
 *   object mode); nothing is copied.
 * - An `'error'` on the Readable errors the web stream with the same error object; a Readable destroyed
 *   without an error before `'end'` errors it with an `ERR_STREAM_PREMATURE_CLOSE` error.
 * - `cancel(reason)` destroys the Readable with `reason` (or with no error when `reason` is undefined).
 *   The adapter keeps an `'error'` listener on the Readable, so errors after a cancel or destroy never
 *   become uncaught exceptions.
 *
 * ```ts
 * import { createReadStream } from "node:fs";
 * import { fromNodeReadable } from "fusestreams/node";
 *
 * for await (const chunk of fromNodeReadable(createReadStream("data.bin"))) console.log(chunk.byteLength);
 * ```
 *
 * @param readable the Node.js Readable; it must not be read by anything else.
 * @param options the web stream's high-water mark.
 * @returns a ReadableStream that yields the Readable's chunks.
 */
export function fromNodeReadable<R = Uint8Array>(
  readable: Readable,
  options: FromNodeReadableOptions = {},
): ReadableStream<R> {
  const objectMode = readable.readableObjectMode;
  const highWaterMark = options.highWaterMark ??
    (objectMode ? readable.readableHighWaterMark : Math.max(readable.readableHighWaterMark, MIN_BYTE_HIGH_WATER_MARK));
  let controller!: ReadableStreamDefaultController<R>;
  // Set once the web stream is closed, errored or cancelled: later Node events are ignored.
  let done = false;
  // Settles the promise of the pull that let the Readable flow: the pull lasts until the Readable is
  // paused or ends, so the web stream pays one pull reaction per flowing stretch, not one per chunk.
  let endFlow: (() => void) | undefined;
  const stopFlow = (): void => {
    const end = endFlow;
    if (end === undefined) return;
    endFlow = undefined;
    end();
  };

  const onData = (chunk: R): void => {
    if (done) return;
    controller.enqueue(chunk);
    if ((controller.desiredSize ?? 0) <= 0) {
      readable.pause();
      stopFlow();
    }
  };
  const onEnd = (): void => {
    if (done) return;
    done = true;
    controller.close();
    stopFlow();
  };
  const onError = (err: unknown): void => {
    if (done) return;
    done = true;
    controller.error(err);
    stopFlow();
  };
  const onClose = (): void => {
    if (done) return;
    // 'close' before 'end': destroyed without an error (an error would have come first).
    if (readable.readableEnded) onEnd();
    else onError(readable.errored ?? prematureClose());
  };

  return new ReadableStream<R>(
    {
      start(c) {
        controller = c;
        // Stay paused until the first pull; the listeners below never switch the Readable to flowing.
        readable.pause();
        readable.on("data", onData);
        readable.on("end", onEnd);
        readable.on("error", onError);
        readable.on("close", onClose);
        if (readable.errored) onError(readable.errored);
        else if (readable.readableEnded) onEnd();
        else if (readable.destroyed) onClose();
      },
      pull() {
        readable.resume();
        return new Promise<void>((resolve) => {
          endFlow = resolve;
        });
      },
      cancel(reason) {
        if (done) return;
        done = true;
        stopFlow();
        readable.off("data", onData);
        // The 'error' listener stays: destroy(reason) emits 'error' with the reason.
        readable.destroy(reason === undefined ? undefined : (reason as Error));
      },
    },
    objectMode ? { highWaterMark } : { highWaterMark, size: chunkSize },
  );
}
