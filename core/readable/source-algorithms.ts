/**
 * Underlying-source algorithms: the pull and cancel algorithms a readable controller calls. A stream made from
 * a user source is its own algorithms object (ReadableStreamInternal.pull / cancel, over the converted
 * members it holds); internal sources (tee, TransformStream, ReadableStream.from) implement the same
 * interface directly.
 * @module
 */
import { type Callable, ReflectApply } from "../shared/primordials.ts";
import type { AlgorithmResult } from "../shared/promise.ts";

/**
 * What an internal pull algorithm returns instead of a promise when it will report completion itself, with
 * ReadableStreamDefaultControllerPullSettled (TransformStream's pull, FP-TS-PULL). Never reaches user code.
 */
export const PULL_PENDING: Promise<unknown> = Object.freeze(Object.create(null)) as Promise<unknown>;

export interface SourceAlgorithms {
  /** pullAlgorithm. `undefined` means "a promise resolved with undefined". */
  pull(): AlgorithmResult;
  /** cancelAlgorithm(reason). */
  cancel(reason: unknown): AlgorithmResult;
}

/** The algorithms of a source with neither pull nor cancel: shared by all such streams. */
export const NO_SOURCE_ALGORITHMS: SourceAlgorithms = {
  pull: (): AlgorithmResult => undefined,
  cancel: (): AlgorithmResult => undefined,
};

/** A start algorithm calling `start` (its own function: a closure in the caller costs a context without start()). */
export function makeStartAlgorithm(start: Callable, source: unknown, controller: object): () => unknown {
  return () => ReflectApply(start, source, [controller]);
}
