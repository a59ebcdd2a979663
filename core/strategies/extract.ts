/**
 * QueuingStrategy dictionary conversion, ExtractHighWaterMark and ExtractSizeAlgorithm
 * (Streams §7.4 "Abstract operations" of queuing strategies).
 * @module
 */
import { type Callable, ReflectApply } from "../shared/primordials.ts";
import { convertCallback, convertDictionary, convertUnrestrictedDouble, rangeError } from "../shared/webidl.ts";

/** A size algorithm: returns the chunk's size (already converted to a number) or throws. */
export type SizeAlgorithm = (chunk: unknown) => number;

/** A converted `QueuingStrategy` dictionary. */
export interface StrategyRecord {
  highWaterMark: number | undefined;
  size: Callable | undefined;
}

const EMPTY_STRATEGY: StrategyRecord = Object.freeze({ highWaterMark: undefined, size: undefined });

/** Converts a `QueuingStrategy` dictionary (members read in lexicographic order). */
export function convertQueuingStrategy(value: unknown, context: string): StrategyRecord {
  const dict = convertDictionary(value, context);
  if (dict === undefined) return EMPTY_STRATEGY;
  const hwm = dict.highWaterMark;
  const highWaterMark = hwm === undefined ? undefined : convertUnrestrictedDouble(hwm);
  const size = dict.size;
  return {
    highWaterMark,
    size: size === undefined ? undefined : convertCallback(size, `${context}.size`),
  };
}

/** ExtractHighWaterMark(strategy, defaultHWM). */
export function ExtractHighWaterMark(strategy: StrategyRecord, defaultHWM: number): number {
  const hwm = strategy.highWaterMark;
  if (hwm === undefined) return defaultHWM;
  if (hwm !== hwm || hwm < 0) throw rangeError("highWaterMark must be a non-negative number");
  return hwm;
}

/**
 * ExtractSizeAlgorithm(strategy). Returns undefined for the default algorithm (every chunk has size 1),
 * which lets queues skip storing sizes (fast path FP-COUNT-QUEUE).
 */
export function ExtractSizeAlgorithm(strategy: StrategyRecord): SizeAlgorithm | undefined {
  const size = strategy.size;
  return size === undefined ? undefined : makeSizeAlgorithm(size);
}

// The closure is made here, not in ExtractSizeAlgorithm: a closure there would cost every stream a context.
function makeSizeAlgorithm(size: Callable): SizeAlgorithm {
  return (chunk: unknown): number => convertUnrestrictedDouble(ReflectApply(size, undefined, [chunk]));
}

/** IsNonNegativeNumber + the +Infinity check of EnqueueValueWithSize. */
export function validateChunkSize(size: number): void {
  if (!(size >= 0) || size === Infinity) {
    throw rangeError("The chunk size must be a finite, non-negative number");
  }
}
