/**
 * The public types of the writable side: WritableStream, its writer and its controller, as structural
 * interfaces (see `readable.ts` for why) plus the classes behind them.
 * @module
 */
import { WritableStreamDefaultController as ControllerClass } from "../writable/default-controller.ts";
import { WritableStreamDefaultWriter as WriterClass } from "../writable/default-writer.ts";
import { WritableStream as WritableStreamClass } from "../writable/writable-stream.ts";
import type { QueuingStrategy, UnderlyingSink } from "../types.ts";

/** A destination for chunks of type `W`: write to it through a writer, or pipe into it (Streams §5.2). */
export interface WritableStream<W = any> {
  /** Whether the stream is locked to a writer (or a pipe). */
  readonly locked: boolean;
  /** Aborts the stream: queued chunks are dropped and the underlying sink's `abort(reason)` is called. */
  abort(reason?: any): Promise<void>;
  /** Closes the stream once the queued chunks are written; fulfills after the underlying sink's `close()`. */
  close(): Promise<void>;
  /** Locks the stream to a new writer. */
  getWriter(): WritableStreamDefaultWriter<W>;
}

/** The `WritableStream` constructor. */
export interface WritableStreamConstructor {
  /** The prototype of every WritableStream. */
  readonly prototype: WritableStream;
  /** Creates a writable stream that hands chunks to `underlyingSink`, queuing as `strategy` says. */
  new <W = any>(underlyingSink?: UnderlyingSink<W>, strategy?: QueuingStrategy<W>): WritableStream<W>;
}

/** A writer that writes chunks to a WritableStream it has locked (Streams §5.3). */
export interface WritableStreamDefaultWriter<W = any> {
  /** Fulfills when the stream closes; rejects when it errors or when the writer's lock is released. */
  readonly closed: Promise<void>;
  /** How much the stream wants written before it has backpressure; `null` once errored, 0 once closed. */
  readonly desiredSize: number | null;
  /** Fulfills when the stream has no backpressure (`desiredSize > 0`): a good moment for the next write. */
  readonly ready: Promise<void>;
  /** Aborts the stream (see `WritableStream.abort()`). */
  abort(reason?: any): Promise<void>;
  /** Closes the stream once the queued chunks are written. */
  close(): Promise<void>;
  /** Releases the lock on the stream; `ready` and `closed` reject with a TypeError. */
  releaseLock(): void;
  /** Writes a chunk; fulfills when the underlying sink has written it. */
  write(chunk?: W): Promise<void>;
}

/** The `WritableStreamDefaultWriter` constructor. */
export interface WritableStreamDefaultWriterConstructor {
  /** The prototype of every writer. */
  readonly prototype: WritableStreamDefaultWriter;
  /** Locks `stream` and creates a writer for it; throws a TypeError if it is already locked. */
  new <W = any>(stream: WritableStream<W>): WritableStreamDefaultWriter<W>;
}

/** The controller a WritableStream hands its underlying sink (Streams §5.4). */
export interface WritableStreamDefaultController {
  /** Aborted when the stream is aborted, so a sink can stop a write in progress. */
  readonly signal: AbortSignal;
  /** Errors the stream: further writes reject with `e`. */
  error(e?: any): void;
}

/** The `WritableStreamDefaultController` interface object: for `instanceof`; `new` throws a TypeError. */
export interface WritableStreamDefaultControllerConstructor {
  /** The prototype of every writable stream controller. */
  readonly prototype: WritableStreamDefaultController;
  /** Always throws a TypeError: controllers are made by WritableStream. */
  new (): WritableStreamDefaultController;
}

/**
 * A writable stream (Streams §5.2): `new WritableStream(underlyingSink, strategy)`.
 *
 * @example
 * ```ts
 * import { ReadableStream, WritableStream } from "fusestreams";
 *
 * const received: string[] = [];
 * await ReadableStream.from(["a", "b"]).pipeTo(new WritableStream({ write(chunk) { received.push(chunk); } }));
 * ```
 */
export const WritableStream: WritableStreamConstructor = WritableStreamClass;

/** A writer that writes chunks to a WritableStream it has locked (Streams §5.3): `stream.getWriter()`. */
export const WritableStreamDefaultWriter: WritableStreamDefaultWriterConstructor = WriterClass;

/** The controller a WritableStream hands its underlying sink (Streams §5.4). */
export const WritableStreamDefaultController: WritableStreamDefaultControllerConstructor = ControllerClass;
