/// <reference types="node" preserve="true" />
/**
 * `fromNodeWritable`: a `node:stream` Writable as a fusestreams WritableStream.
 * @module
 */
import type { Writable } from "node:stream";
import { WritableStream, type WritableStreamDefaultController } from "../../mod.ts";
import { chunkSize, type Deferred, deferred, prematureClose } from "./shared.ts";

/** Options of {@link fromNodeWritable}. */
export interface FromNodeWritableOptions {
  /**
   * High-water mark of the web stream's queue: bytes for a byte-mode Writable (strings count their
   * length), chunks for an object-mode one. Without it, a byte-mode Writable's web stream holds at most
   * one chunk (the Writable's own buffer does the buffering) and an object-mode one the Writable's
   * `writableHighWaterMark` chunks.
   *
   * Counting bytes takes a `size()` strategy, and a pipe into a writable with a `size()` strategy takes
   * the standard's path instead of calling `write()` directly (see `inspectPipeChain()`), so give it only
   * when the web side must buffer bytes itself.
   */
  highWaterMark?: number;
}

/**
 * Wraps a Node.js Writable (`fs.createWriteStream`, an HTTP response, a socket, ...) in a fusestreams
 * {@link WritableStream}.
 *
 * - Backpressure: a chunk counts as written once `writable.write()` accepted it without going over the
 *   Writable's high-water mark: the sink's `write()` then returns without a promise, so a pipe hands it
 *   each chunk by a direct call (a fused link). When `write()` returns `false`, the sink's `write()`
 *   returns a promise that fulfills on `'drain'`. So at most the Writable's high-water mark plus the web
 *   stream's (by default one chunk) plus one chunk are buffered.
 * - `close()` ends the Writable and fulfills after `'finish'` (everything flushed).
 * - `abort(reason)` destroys the Writable with `reason` (no error when `reason` is undefined).
 * - An `'error'` on the Writable errors the web stream with the same error object; a Writable destroyed
 *   before it finished errors it with an `ERR_STREAM_PREMATURE_CLOSE` error. The adapter keeps an
 *   `'error'` listener, so errors after an abort or destroy never become uncaught exceptions.
 *
 * ```ts
 * import { createWriteStream } from "node:fs";
 * import { fromNodeWritable } from "fusestreams/node";
 *
 * await webReadable.pipeTo(fromNodeWritable(createWriteStream("out.bin")));
 * ```
 *
 * @param writable the Node.js Writable; nothing else should write to it.
 * @param options the web stream's high-water mark.
 * @returns a WritableStream that writes into the Writable.
 */
export function fromNodeWritable<W = Uint8Array>(
  writable: Writable,
  options: FromNodeWritableOptions = {},
): WritableStream<W> {
  const objectMode = writable.writableObjectMode;
  const given = options.highWaterMark;
  let controller!: WritableStreamDefaultController;
  // Set once the web stream is closed, errored or aborted: later Node events are ignored.
  let done = false;
  // The sink operation in progress that waits on the Writable ('drain' for a write, 'finish' for close).
  let waiting: Deferred | undefined;

  const settle = (err?: unknown): void => {
    const w = waiting;
    if (w === undefined) return;
    waiting = undefined;
    if (err === undefined) w.resolve();
    else w.reject(err);
  };
  const onDrain = (): void => {
    if (!done) settle();
  };
  const onFinish = (): void => {
    if (done) return;
    done = true;
    settle();
  };
  const onError = (err: unknown): void => {
    if (done) return;
    done = true;
    if (waiting !== undefined) settle(err);
    else controller.error(err);
  };
  const onClose = (): void => {
    if (done) return;
    if (writable.writableFinished) onFinish();
    else onError(writable.errored ?? prematureClose());
  };

  return new WritableStream<W>(
    {
      start(c) {
        controller = c;
        writable.on("drain", onDrain);
        writable.on("finish", onFinish);
        writable.on("error", onError);
        writable.on("close", onClose);
        if (writable.errored) onError(writable.errored);
        else if (writable.destroyed || writable.writableEnded) onClose();
      },
      write(chunk) {
        if (writable.write(chunk)) return;
        if (done) return Promise.reject(writable.errored ?? prematureClose());
        if (writable.destroyed) {
          // destroyed without an 'error' yet ('close' comes later): fail now.
          const err = writable.errored ?? prematureClose();
          done = true;
          return Promise.reject(err);
        }
        waiting = deferred();
        return waiting.promise;
      },
      close() {
        waiting = deferred();
        const { promise } = waiting;
        writable.end();
        if (writable.writableFinished) onFinish();
        return promise;
      },
      abort(reason) {
        if (done) return;
        done = true;
        writable.destroy(reason === undefined ? undefined : (reason as Error));
      },
    },
    objectMode
      ? { highWaterMark: given ?? writable.writableHighWaterMark }
      : given === undefined
      ? { highWaterMark: 1 }
      : { highWaterMark: given, size: chunkSize },
  );
}
