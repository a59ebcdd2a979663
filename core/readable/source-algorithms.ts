/**
 * Underlying-source algorithms: the pull and cancel algorithms a readable controller calls.
 * User sources are wrapped once per stream (no closure per algorithm); internal sources (tee,
 * TransformStream, ReadableStream.from) implement the same interface directly.
 * @module
 */
import { ReflectApply } from "../shared/primordials.ts";
import { invokePromiseCallback, invokePromiseCallback1, REUSE_ARGUMENT_LISTS, type AlgorithmResult } from "../shared/promise.ts";

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

/**
 * The converted members of an UnderlyingSource dictionary, which are also the pull and cancel algorithms of
 * SetUpReadable{StreamDefault,ByteStream}ControllerFromUnderlyingSource: one object per stream instead of a
 * dictionary record and an algorithms object. `controller` is set by the setup before any callback runs.
 */
export class UnderlyingSourceAlgorithms implements SourceAlgorithms {
  readonly source: unknown;
  readonly autoAllocateChunkSize: number | undefined;
  readonly cancelFn: Function | undefined;
  readonly pullFn: Function | undefined;
  readonly startFn: Function | undefined;
  readonly type: "bytes" | undefined;
  controller: object | undefined = undefined;
  #pullArgs: unknown[] | undefined = undefined;

  constructor(
    source: unknown,
    autoAllocateChunkSize: number | undefined,
    cancelFn: Function | undefined,
    pullFn: Function | undefined,
    startFn: Function | undefined,
    type: "bytes" | undefined,
  ) {
    this.source = source;
    this.autoAllocateChunkSize = autoAllocateChunkSize;
    this.cancelFn = cancelFn;
    this.pullFn = pullFn;
    this.startFn = startFn;
    this.type = type;
  }

  pull(): AlgorithmResult {
    const pull = this.pullFn;
    if (pull === undefined) return undefined;
    if (!REUSE_ARGUMENT_LISTS) return invokePromiseCallback1(pull, this.source, this.controller);
    return invokePromiseCallback(pull, this.source, this.#pullArgs ??= [this.controller]);
  }

  cancel(reason: unknown): AlgorithmResult {
    const cancel = this.cancelFn;
    if (cancel === undefined) return undefined;
    return invokePromiseCallback(cancel, this.source, [reason]);
  }
}

/** Converted members of an UnderlyingSource dictionary. */
export type UnderlyingSourceRecord = UnderlyingSourceAlgorithms;

/** The algorithms of a source with neither pull nor cancel: shared by all such streams. */
export const NO_SOURCE_ALGORITHMS: SourceAlgorithms = {
  pull: (): AlgorithmResult => undefined,
  cancel: (): AlgorithmResult => undefined,
};

/** The converted form of a missing underlying source. */
export const EMPTY_SOURCE: UnderlyingSourceRecord = new UnderlyingSourceAlgorithms(undefined, undefined, undefined, undefined, undefined, undefined);

/** A start algorithm calling `start` (its own function: a closure in the caller costs a context without start()). */
export function makeStartAlgorithm(start: Function, source: unknown, controller: object): () => unknown {
  return () => ReflectApply(start, source, [controller]);
}
