/**
 * ReadableStreamDefaultTee (Streams §4.9.1). The tee state is itself the read request and each branch's
 * source algorithms are a small object, so a tee allocates nothing per chunk but the microtask.
 * @module
 */
import { type AlgorithmResult, type Deferred, newDeferred, uponPromise } from "../shared/promise.ts";
import { queueMicrotask } from "../shared/primordials.ts";
import { CreateReadableStream } from "./create.ts";
import {
  type DefaultControllerInternal,
  ReadableStreamDefaultControllerClose,
  ReadableStreamDefaultControllerEnqueue,
  ReadableStreamDefaultControllerError,
} from "./default-controller.ts";
import { AcquireReadableStreamDefaultReader, ReadableStreamDefaultReaderRead } from "./reader-ops.ts";
import type { SourceAlgorithms } from "./source-algorithms.ts";
import {
  ReadableStreamCancel,
  type ReadableStreamInternal,
  type ReaderInternal,
  type ReadRequest,
} from "./stream-internal.ts";

class DefaultTee implements ReadRequest {
  readonly stream: ReadableStreamInternal;
  readonly reader: ReaderInternal;
  reading = false;
  readAgain = false;
  canceled1 = false;
  canceled2 = false;
  reason1: unknown = undefined;
  reason2: unknown = undefined;
  branch1!: DefaultControllerInternal;
  branch2!: DefaultControllerInternal;
  readonly cancelPromise: Deferred<undefined> = newDeferred();
  #chunk: unknown = undefined;
  readonly #deliver = (): void => this.#deliverChunk();

  constructor(stream: ReadableStreamInternal) {
    this.stream = stream;
    this.reader = AcquireReadableStreamDefaultReader(stream);
  }

  pull(): AlgorithmResult {
    if (this.reading) {
      this.readAgain = true;
      return undefined;
    }
    this.reading = true;
    ReadableStreamDefaultReaderRead(this.reader, this);
    return undefined;
  }

  cancel(branch: 1 | 2, reason: unknown): AlgorithmResult {
    if (branch === 1) {
      this.canceled1 = true;
      this.reason1 = reason;
    } else {
      this.canceled2 = true;
      this.reason2 = reason;
    }
    if (this.canceled1 && this.canceled2) {
      this.cancelPromise.resolve(ReadableStreamCancel(this.stream, [this.reason1, this.reason2]));
    }
    return this.cancelPromise.promise;
  }

  chunkSteps(chunk: unknown): void {
    this.#chunk = chunk;
    queueMicrotask(this.#deliver);
  }

  #deliverChunk(): void {
    const chunk = this.#chunk;
    this.#chunk = undefined;
    this.readAgain = false;
    if (!this.canceled1) ReadableStreamDefaultControllerEnqueue(this.branch1, chunk);
    if (!this.canceled2) ReadableStreamDefaultControllerEnqueue(this.branch2, chunk);
    this.reading = false;
    if (this.readAgain) this.pull();
  }

  closeSteps(): void {
    this.reading = false;
    if (!this.canceled1) ReadableStreamDefaultControllerClose(this.branch1);
    if (!this.canceled2) ReadableStreamDefaultControllerClose(this.branch2);
    if (!this.canceled1 || !this.canceled2) this.cancelPromise.resolve(undefined);
  }

  errorSteps(): void {
    this.reading = false;
  }
}

class TeeBranch implements SourceAlgorithms {
  readonly #tee: DefaultTee;
  readonly #branch: 1 | 2;
  constructor(tee: DefaultTee, branch: 1 | 2) {
    this.#tee = tee;
    this.#branch = branch;
  }
  pull(): AlgorithmResult {
    return this.#tee.pull();
  }
  cancel(reason: unknown): AlgorithmResult {
    return this.#tee.cancel(this.#branch, reason);
  }
}

/** ReadableStreamDefaultTee(stream, cloneForBranch2 = false). */
export function ReadableStreamDefaultTee(
  stream: ReadableStreamInternal,
): [ReadableStreamInternal, ReadableStreamInternal] {
  const tee = new DefaultTee(stream);
  tee.branch1 = CreateReadableStream(undefined, new TeeBranch(tee, 1));
  tee.branch2 = CreateReadableStream(undefined, new TeeBranch(tee, 2));
  uponPromise(tee.reader.closed!.promise, undefined, (r: unknown) => {
    ReadableStreamDefaultControllerError(tee.branch1, r);
    ReadableStreamDefaultControllerError(tee.branch2, r);
    if (!tee.canceled1 || !tee.canceled2) tee.cancelPromise.resolve(undefined);
  });
  return [tee.branch1, tee.branch2];
}
