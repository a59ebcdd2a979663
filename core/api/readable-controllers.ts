/**
 * The public types of the objects a readable stream hands its underlying source: the two controllers and the
 * BYOB request, as structural interfaces (see `readable.ts` for why) plus the classes behind them. None of
 * them can be constructed by user code: the constructors throw a TypeError.
 * @module
 */
import {
  ReadableByteStreamController as ByteControllerClass,
  ReadableStreamBYOBRequest as BYOBRequestClass,
} from "../readable/byte-controller.ts";
import { ReadableStreamDefaultController as DefaultControllerClass } from "../readable/default-controller.ts";

/** The controller a default ReadableStream hands its underlying source (Streams §4.6). */
export interface ReadableStreamDefaultController<R = any> {
  /** How much the stream wants: the high-water mark minus what is queued; `null` once errored, 0 once closed. */
  readonly desiredSize: number | null;
  /** Closes the stream; readers get `done` after the queued chunks. */
  close(): void;
  /** Queues a chunk for the readers. */
  enqueue(chunk?: R): void;
  /** Errors the stream: pending and future reads reject with `e`. */
  error(e?: any): void;
}

/** The controller a readable byte stream (`type: "bytes"`) hands its underlying source (Streams §4.7). */
export interface ReadableByteStreamController {
  /** The BYOB read waiting to be filled, or `null`. */
  readonly byobRequest: ReadableStreamBYOBRequest | null;
  /** How many bytes the stream wants; `null` once errored, 0 once closed. */
  readonly desiredSize: number | null;
  /** Closes the stream once the queued bytes have been read. */
  close(): void;
  /** Queues the bytes of `chunk`; its buffer is transferred, so the caller's buffer becomes detached. */
  enqueue(chunk: ArrayBufferView<ArrayBuffer>): void;
  /** Errors the stream: pending and future reads reject with `e`. */
  error(e?: any): void;
}

/** A BYOB read as the underlying byte source sees it: fill `view`, then `respond()` (Streams §4.8). */
export interface ReadableStreamBYOBRequest {
  /** The view to write into, or `null` once the request was answered. */
  readonly view: ArrayBufferView<ArrayBuffer> | null;
  /** Says that `bytesWritten` bytes were written at the start of `view`. */
  respond(bytesWritten: number): void;
  /** Answers with a new view over the request's (transferred) buffer instead of writing into `view`. */
  respondWithNewView(view: ArrayBufferView<ArrayBuffer>): void;
}

/** Either controller. */
export type ReadableStreamController<T> = ReadableStreamDefaultController<T> | ReadableByteStreamController;

/** The `ReadableStreamDefaultController` interface object: for `instanceof`; `new` throws a TypeError. */
export interface ReadableStreamDefaultControllerConstructor {
  /** The prototype of every default controller. */
  readonly prototype: ReadableStreamDefaultController;
  /** Always throws a TypeError: controllers are made by ReadableStream. */
  new (): ReadableStreamDefaultController;
}

/** The `ReadableByteStreamController` interface object: for `instanceof`; `new` throws a TypeError. */
export interface ReadableByteStreamControllerConstructor {
  /** The prototype of every byte stream controller. */
  readonly prototype: ReadableByteStreamController;
  /** Always throws a TypeError: controllers are made by ReadableStream. */
  new (): ReadableByteStreamController;
}

/** The `ReadableStreamBYOBRequest` interface object: for `instanceof`; `new` throws a TypeError. */
export interface ReadableStreamBYOBRequestConstructor {
  /** The prototype of every BYOB request. */
  readonly prototype: ReadableStreamBYOBRequest;
  /** Always throws a TypeError: requests are made by ReadableByteStreamController. */
  new (): ReadableStreamBYOBRequest;
}

/** The controller a default ReadableStream hands its underlying source (Streams §4.6). */
export const ReadableStreamDefaultController: ReadableStreamDefaultControllerConstructor = DefaultControllerClass;

/** The controller a readable byte stream hands its underlying source (Streams §4.7). */
export const ReadableByteStreamController: ReadableByteStreamControllerConstructor = ByteControllerClass;

/** A BYOB read as the underlying byte source sees it (Streams §4.8). */
export const ReadableStreamBYOBRequest: ReadableStreamBYOBRequestConstructor = BYOBRequestClass;
