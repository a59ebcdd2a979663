// deno-lint-ignore-file no-explicit-any -- the generic defaults and callback types are lib.dom's (`any`)
/**
 * The public types of TransformStream and its controller, as the environment's global interfaces (see
 * `readable.ts` for why), plus the classes behind them.
 * @module
 */
import {
  TransformStream as TransformStreamClass,
  TransformStreamDefaultController as ControllerClass,
} from "../transform/transform-stream.ts";
import type { NonConstructibleInterface, QueuingStrategy, Transformer } from "../types.ts";

/** A writable side and a readable side: chunks of type `I` written in come out as chunks of type `O` (Streams §6.2): the global interface. */
export type TransformStream<I = any, O = any> = globalThis.TransformStream<I, O>;

/** The `TransformStream` constructor. */
export interface TransformStreamConstructor {
  /** The prototype of every TransformStream. */
  readonly prototype: TransformStream;
  /**
   * Creates a transform stream that runs `transformer` on each chunk. Without a transformer it passes every
   * chunk through unchanged.
   */
  new <I = any, O = any>(
    transformer?: Transformer<I, O>,
    writableStrategy?: QueuingStrategy<I>,
    readableStrategy?: QueuingStrategy<O>,
  ): TransformStream<I, O>;
}

/** The controller a TransformStream hands its transformer (Streams §6.3): the global interface. */
export type TransformStreamDefaultController<O = any> = globalThis.TransformStreamDefaultController<O>;

/** The `TransformStreamDefaultController` interface object: for `instanceof`; `new` throws a TypeError. */
export type TransformStreamDefaultControllerConstructor = NonConstructibleInterface<TransformStreamDefaultController>;

/**
 * A transform stream (Streams §6.2): `new TransformStream(transformer, writableStrategy, readableStrategy)`.
 *
 * @example
 * ```ts
 * import { ReadableStream, TransformStream } from "fusestreams";
 *
 * const upper = new TransformStream<string, string>({
 *   transform(chunk, controller) {
 *     controller.enqueue(chunk.toUpperCase());
 *   },
 * });
 * for await (const chunk of ReadableStream.from(["a", "b"]).pipeThrough(upper)) console.log(chunk);
 * ```
 */
export const TransformStream: TransformStreamConstructor =
  TransformStreamClass as unknown as TransformStreamConstructor;

/** The controller a TransformStream hands its transformer (Streams §6.3). */
export const TransformStreamDefaultController: TransformStreamDefaultControllerConstructor =
  ControllerClass as unknown as TransformStreamDefaultControllerConstructor;
