/**
 * Underlying-source algorithms: the pull and cancel algorithms a readable controller calls.
 * User sources are wrapped once per stream (no closure per algorithm); internal sources (tee,
 * TransformStream, ReadableStream.from) implement the same interface directly.
 * @module
 */
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

/** The algorithms of SetUpReadable{StreamDefault,ByteStream}ControllerFromUnderlyingSource. */
export class UnderlyingSourceAlgorithms implements SourceAlgorithms {
  readonly #source: unknown;
  readonly #pull: Function | undefined;
  readonly #cancel: Function | undefined;
  readonly #controller: object;
  #pullArgs: unknown[] | undefined = undefined;

  constructor(source: unknown, pull: Function | undefined, cancel: Function | undefined, controller: object) {
    this.#source = source;
    this.#pull = pull;
    this.#cancel = cancel;
    this.#controller = controller;
  }

  pull(): AlgorithmResult {
    const pull = this.#pull;
    if (pull === undefined) return undefined;
    if (!REUSE_ARGUMENT_LISTS) return invokePromiseCallback1(pull, this.#source, this.#controller);
    return invokePromiseCallback(pull, this.#source, this.#pullArgs ??= [this.#controller]);
  }

  cancel(reason: unknown): AlgorithmResult {
    const cancel = this.#cancel;
    if (cancel === undefined) return undefined;
    return invokePromiseCallback(cancel, this.#source, [reason]);
  }
}

/** Converted members of an UnderlyingSource dictionary. */
export interface UnderlyingSourceRecord {
  autoAllocateChunkSize: number | undefined;
  cancel: Function | undefined;
  pull: Function | undefined;
  start: Function | undefined;
  type: "bytes" | undefined;
}

/** The algorithms of a source with neither pull nor cancel: shared by all such streams. */
export const NO_SOURCE_ALGORITHMS: SourceAlgorithms = {
  pull: (): AlgorithmResult => undefined,
  cancel: (): AlgorithmResult => undefined,
};

/** The converted form of a missing underlying source. */
export const EMPTY_SOURCE: UnderlyingSourceRecord = Object.freeze({
  autoAllocateChunkSize: undefined,
  cancel: undefined,
  pull: undefined,
  start: undefined,
  type: undefined,
});
