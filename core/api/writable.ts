// deno-lint-ignore-file no-explicit-any -- the generic defaults and callback types are lib.dom's (`any`)
/**
 * The public types of the writable side: WritableStream, its writer and its controller, as the environment's
 * global interfaces (see `readable.ts` for why), plus the classes behind them.
 * @module
 */
import { WritableStreamDefaultController as ControllerClass } from "../writable/default-controller.ts";
import { WritableStreamDefaultWriter as WriterClass } from "../writable/default-writer.ts";
import { WritableStream as WritableStreamClass } from "../writable/writable-stream.ts";
import type { NonConstructibleInterface, QueuingStrategy, UnderlyingSink } from "../types.ts";

/** A destination for chunks of type `W` (Streams §5.2): the global interface. */
export type WritableStream<W = any> = globalThis.WritableStream<W>;

/** The `WritableStream` constructor. */
export interface WritableStreamConstructor {
  /** The prototype of every WritableStream. */
  readonly prototype: WritableStream;
  /** Creates a writable stream that hands chunks to `underlyingSink`, queuing as `strategy` says. */
  new <W = any>(underlyingSink?: UnderlyingSink<W>, strategy?: QueuingStrategy<W>): WritableStream<W>;
}

/** A writer that writes chunks to a WritableStream it has locked (Streams §5.3): the global interface. */
export type WritableStreamDefaultWriter<W = any> = globalThis.WritableStreamDefaultWriter<W>;

/** The `WritableStreamDefaultWriter` constructor. */
export interface WritableStreamDefaultWriterConstructor {
  /** The prototype of every writer. */
  readonly prototype: WritableStreamDefaultWriter;
  /** Locks `stream` and creates a writer for it; throws a TypeError if it is already locked. */
  new <W = any>(stream: WritableStream<W>): WritableStreamDefaultWriter<W>;
}

/** The controller a WritableStream hands its underlying sink (Streams §5.4): the global interface. */
export type WritableStreamDefaultController = globalThis.WritableStreamDefaultController;

/** The `WritableStreamDefaultController` interface object: for `instanceof`; `new` throws a TypeError. */
export type WritableStreamDefaultControllerConstructor = NonConstructibleInterface<WritableStreamDefaultController>;

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
export const WritableStream: WritableStreamConstructor = WritableStreamClass as unknown as WritableStreamConstructor;

/** A writer that writes chunks to a WritableStream it has locked (Streams §5.3): `stream.getWriter()`. */
export const WritableStreamDefaultWriter: WritableStreamDefaultWriterConstructor =
  WriterClass as unknown as WritableStreamDefaultWriterConstructor;

/** The controller a WritableStream hands its underlying sink (Streams §5.4). */
export const WritableStreamDefaultController: WritableStreamDefaultControllerConstructor =
  ControllerClass as unknown as WritableStreamDefaultControllerConstructor;
