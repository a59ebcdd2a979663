/**
 * The public types of the two built-in queuing strategies, as the environment's global interfaces (see
 * `readable.ts` for why), plus the classes behind them.
 * @module
 */
import { ByteLengthQueuingStrategy as ByteLengthClass } from "../strategies/byte-length.ts";
import { CountQueuingStrategy as CountClass } from "../strategies/count.ts";
import type { QueuingStrategyInit } from "../types.ts";

/** A queuing strategy that measures each chunk by its `byteLength` (Streams §7.2): the global interface. */
export type ByteLengthQueuingStrategy = globalThis.ByteLengthQueuingStrategy;

/** The `ByteLengthQueuingStrategy` constructor. */
export interface ByteLengthQueuingStrategyConstructor {
  /** The prototype of every ByteLengthQueuingStrategy. */
  readonly prototype: ByteLengthQueuingStrategy;
  /** `init.highWaterMark` is the number of bytes to queue before applying backpressure. */
  new (init: QueuingStrategyInit): ByteLengthQueuingStrategy;
}

/** A queuing strategy that counts chunks: each chunk has size 1 (Streams §7.3): the global interface. */
export type CountQueuingStrategy = globalThis.CountQueuingStrategy;

/** The `CountQueuingStrategy` constructor. */
export interface CountQueuingStrategyConstructor {
  /** The prototype of every CountQueuingStrategy. */
  readonly prototype: CountQueuingStrategy;
  /** `init.highWaterMark` is the number of chunks to queue before applying backpressure. */
  new (init: QueuingStrategyInit): CountQueuingStrategy;
}

/** A queuing strategy that measures each chunk by its `byteLength` (Streams §7.2). */
export const ByteLengthQueuingStrategy: ByteLengthQueuingStrategyConstructor =
  ByteLengthClass as unknown as ByteLengthQueuingStrategyConstructor;

/** A queuing strategy that counts chunks (Streams §7.3). */
export const CountQueuingStrategy: CountQueuingStrategyConstructor =
  CountClass as unknown as CountQueuingStrategyConstructor;
