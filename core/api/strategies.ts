/**
 * The public types of the two built-in queuing strategies, as structural interfaces (see `readable.ts` for
 * why) plus the classes behind them.
 * @module
 */
import { ByteLengthQueuingStrategy as ByteLengthClass } from "../strategies/byte-length.ts";
import { CountQueuingStrategy as CountClass } from "../strategies/count.ts";
import type { QueuingStrategy, QueuingStrategyInit, QueuingStrategySize } from "../types.ts";

/** A queuing strategy that measures each chunk by its `byteLength` (Streams §7.2). */
export interface ByteLengthQueuingStrategy extends QueuingStrategy<ArrayBufferView> {
  /** How many bytes may be queued before the stream signals backpressure. */
  readonly highWaterMark: number;
  /** Returns `chunk.byteLength`. */
  readonly size: QueuingStrategySize<ArrayBufferView>;
}

/** The `ByteLengthQueuingStrategy` constructor. */
export interface ByteLengthQueuingStrategyConstructor {
  /** The prototype of every ByteLengthQueuingStrategy. */
  readonly prototype: ByteLengthQueuingStrategy;
  /** `init.highWaterMark` is the number of bytes to queue before applying backpressure. */
  new (init: QueuingStrategyInit): ByteLengthQueuingStrategy;
}

/** A queuing strategy that counts chunks: each chunk has size 1 (Streams §7.3). */
export interface CountQueuingStrategy extends QueuingStrategy {
  /** How many chunks may be queued before the stream signals backpressure. */
  readonly highWaterMark: number;
  /** Returns 1. */
  readonly size: QueuingStrategySize;
}

/** The `CountQueuingStrategy` constructor. */
export interface CountQueuingStrategyConstructor {
  /** The prototype of every CountQueuingStrategy. */
  readonly prototype: CountQueuingStrategy;
  /** `init.highWaterMark` is the number of chunks to queue before applying backpressure. */
  new (init: QueuingStrategyInit): CountQueuingStrategy;
}

/** A queuing strategy that measures each chunk by its `byteLength` (Streams §7.2). */
export const ByteLengthQueuingStrategy: ByteLengthQueuingStrategyConstructor = ByteLengthClass;

/** A queuing strategy that counts chunks (Streams §7.3). */
export const CountQueuingStrategy: CountQueuingStrategyConstructor = CountClass;
