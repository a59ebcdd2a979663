/**
 * ReadableByteStreamTee (Streams §4.9.1): tees a byte stream, switching between a default reader and a
 * BYOB reader depending on whether the branch being pulled has a BYOB request.
 * @module
 */
import { CloneAsUint8Array } from "../shared/buffers.ts";
import { type AlgorithmResult, type Deferred, newDeferred, uponPromise } from "../shared/promise.ts";
import { queueMicrotask } from "../shared/primordials.ts";
import {
  byobRequestView,
  type ByteControllerInternal,
  HasPendingPullIntos,
  ReadableByteStreamControllerClose,
  ReadableByteStreamControllerEnqueueOwned,
  ReadableByteStreamControllerError,
  ReadableByteStreamControllerGetBYOBRequest,
  ReadableByteStreamControllerRespond,
  ReadableByteStreamControllerRespondWithNewView,
} from "./byte-controller.ts";
import { CreateReadableByteStream } from "./create.ts";
import {
  AcquireReadableStreamBYOBReader,
  AcquireReadableStreamDefaultReader,
  ReadableStreamBYOBReaderRead,
  ReadableStreamDefaultReaderRead,
  ReadableStreamReaderRelease,
} from "./reader-ops.ts";
import type { SourceAlgorithms } from "./source-algorithms.ts";
import {
  ReadableStreamCancel,
  type ReadableStreamInternal,
  type ReaderInternal,
  type ReadRequest,
} from "./stream-internal.ts";

/**
 * The default read request of a byte tee. Its chunk steps queue the tee's chunk handling as a microtask
 * (the spec's "queue a microtask"), through one function made per tee instead of a closure per chunk.
 */
class TeeDefaultReadRequest implements ReadRequest {
  readonly #tee: ByteTee;
  #chunk: Uint8Array | undefined = undefined;
  readonly #job: () => void;

  constructor(tee: ByteTee) {
    this.#tee = tee;
    this.#job = () => {
      const chunk = this.#chunk!;
      this.#chunk = undefined;
      tee.onDefaultChunk(chunk);
    };
  }

  chunkSteps(chunk: unknown): void {
    this.#chunk = chunk as Uint8Array;
    queueMicrotask(this.#job);
  }

  closeSteps(): void {
    this.#tee.onDefaultClose();
  }

  errorSteps(): void {
    this.#tee.reading = false;
  }
}

class ByteTee {
  readonly stream: ReadableStreamInternal;
  reader: ReaderInternal;
  reading = false;
  readAgainForBranch1 = false;
  readAgainForBranch2 = false;
  canceled1 = false;
  canceled2 = false;
  reason1: unknown = undefined;
  reason2: unknown = undefined;
  branch1!: ByteControllerInternal;
  branch2!: ByteControllerInternal;
  readonly cancelPromise: Deferred<undefined> = newDeferred();
  /** One read is in flight at a time (`reading`), so one default read request serves every read. */
  readonly defaultReadRequest: TeeDefaultReadRequest = new TeeDefaultReadRequest(this);

  constructor(stream: ReadableStreamInternal) {
    this.stream = stream;
    this.reader = AcquireReadableStreamDefaultReader(stream);
  }

  c1(): ByteControllerInternal {
    return this.branch1;
  }
  c2(): ByteControllerInternal {
    return this.branch2;
  }

  forwardReaderError(thisReader: ReaderInternal): void {
    uponPromise(
      thisReader.closed!.promise,
      () => {
        // The source closed while the tee's BYOB read of it is pending: ReadableStreamClose runs no close steps
        // for a BYOB reader's read-into requests, so a source that closes without respond(0) would leave both
        // branches waiting forever under the standard's steps (whatwg/streams#1321; Node, Deno and Bun resolve
        // the branches' reads with done). The tee makes the respond(0) the source owed: the read's close steps
        // then end both branches with the buffer given back. A source that responded itself left nothing pending.
        const source = this.stream as ByteControllerInternal;
        if (thisReader !== this.reader || !this.reading || !thisReader.byob || !HasPendingPullIntos(source)) return;
        ReadableByteStreamControllerRespond(source, 0);
      },
      (r: unknown) => {
        if (thisReader !== this.reader) return;
        ReadableByteStreamControllerError(this.c1(), r);
        ReadableByteStreamControllerError(this.c2(), r);
        if (!this.canceled1 || !this.canceled2) this.cancelPromise.resolve(undefined);
      },
    );
  }

  pullWithDefaultReader(): void {
    if (this.reader.byob) {
      ReadableStreamReaderRelease(this.reader);
      this.reader = AcquireReadableStreamDefaultReader(this.stream);
      this.forwardReaderError(this.reader);
    }
    ReadableStreamDefaultReaderRead(this.reader, this.defaultReadRequest);
  }

  /** The chunk steps of the default read request, run in a microtask of their own as the spec says. */
  onDefaultChunk(chunk1: Uint8Array): void {
    this.readAgainForBranch1 = false;
    this.readAgainForBranch2 = false;
    let chunk2 = chunk1;
    if (!this.canceled1 && !this.canceled2) {
      try {
        chunk2 = CloneAsUint8Array(chunk1);
      } catch (e) {
        ReadableByteStreamControllerError(this.c1(), e);
        ReadableByteStreamControllerError(this.c2(), e);
        this.cancelPromise.resolve(ReadableStreamCancel(this.stream, e));
        return;
      }
    }
    // FP-TEE-OWNED: chunk1 was read from the stream the tee has locked, chunk2 is the tee's own clone.
    if (!this.canceled1) ReadableByteStreamControllerEnqueueOwned(this.c1(), chunk1);
    if (!this.canceled2) ReadableByteStreamControllerEnqueueOwned(this.c2(), chunk2);
    this.reading = false;
    if (this.readAgainForBranch1) this.pull1();
    else if (this.readAgainForBranch2) this.pull2();
  }

  /** The close steps of the default read request. */
  onDefaultClose(): void {
    this.reading = false;
    if (!this.canceled1) ReadableByteStreamControllerClose(this.c1());
    if (!this.canceled2) ReadableByteStreamControllerClose(this.c2());
    if (HasPendingPullIntos(this.c1())) ReadableByteStreamControllerRespond(this.c1(), 0);
    if (HasPendingPullIntos(this.c2())) ReadableByteStreamControllerRespond(this.c2(), 0);
    if (!this.canceled1 || !this.canceled2) this.cancelPromise.resolve(undefined);
  }

  pullWithBYOBReader(view: ArrayBufferView, forBranch2: boolean): void {
    if (!this.reader.byob) {
      ReadableStreamReaderRelease(this.reader);
      this.reader = AcquireReadableStreamBYOBReader(this.stream);
      this.forwardReaderError(this.reader);
    }
    const byobBranch = forBranch2 ? this.branch2 : this.branch1;
    const otherBranch = forBranch2 ? this.branch1 : this.branch2;
    const byobController = byobBranch;
    const otherController = otherBranch;
    ReadableStreamBYOBReaderRead(this.reader, view, 1, {
      chunkSteps: (chunk: ArrayBufferView) => {
        // Streams §4.9.1 ReadableByteStreamTee, pullWithBYOBReader: chunk steps. The source can error between these
        // steps and the microtask: the error reaches the branches through the reader's closed promise and empties
        // the BYOB branch's pending pull-intos (its read already rejected), and RespondWithNewView asserts they
        // are not empty (the standard's steps would fail that assertion; the reference implementation, Node and
        // Deno throw from the microtask). Nothing is left to respond to then, so the respond is skipped.
        queueMicrotask(() => {
          this.readAgainForBranch1 = false;
          this.readAgainForBranch2 = false;
          const byobCanceled = forBranch2 ? this.canceled2 : this.canceled1;
          const otherCanceled = forBranch2 ? this.canceled1 : this.canceled2;
          if (!otherCanceled) {
            let clonedChunk: Uint8Array;
            try {
              clonedChunk = CloneAsUint8Array(chunk);
            } catch (e) {
              ReadableByteStreamControllerError(byobController, e);
              ReadableByteStreamControllerError(otherController, e);
              this.cancelPromise.resolve(ReadableStreamCancel(this.stream, e));
              return;
            }
            if (!byobCanceled && HasPendingPullIntos(byobController)) {
              ReadableByteStreamControllerRespondWithNewView(byobController, chunk);
            }
            ReadableByteStreamControllerEnqueueOwned(otherController, clonedChunk); // FP-TEE-OWNED: the tee's clone
          } else if (!byobCanceled && HasPendingPullIntos(byobController)) {
            ReadableByteStreamControllerRespondWithNewView(byobController, chunk);
          }
          this.reading = false;
          if (this.readAgainForBranch1) this.pull1();
          else if (this.readAgainForBranch2) this.pull2();
        });
      },
      closeSteps: (chunk: ArrayBufferView | undefined) => {
        this.reading = false;
        const byobCanceled = forBranch2 ? this.canceled2 : this.canceled1;
        const otherCanceled = forBranch2 ? this.canceled1 : this.canceled2;
        if (!byobCanceled) ReadableByteStreamControllerClose(byobController);
        if (!otherCanceled) ReadableByteStreamControllerClose(otherController);
        if (chunk !== undefined) {
          if (!byobCanceled && HasPendingPullIntos(byobController)) {
            ReadableByteStreamControllerRespondWithNewView(byobController, chunk);
          }
          if (!otherCanceled && HasPendingPullIntos(otherController)) {
            ReadableByteStreamControllerRespond(otherController, 0);
          }
        }
        if (!byobCanceled || !otherCanceled) this.cancelPromise.resolve(undefined);
      },
      errorSteps: () => {
        this.reading = false;
      },
    });
  }

  pull1(): AlgorithmResult {
    if (this.reading) {
      this.readAgainForBranch1 = true;
      return undefined;
    }
    this.reading = true;
    const byobRequest = ReadableByteStreamControllerGetBYOBRequest(this.c1());
    if (byobRequest === null) this.pullWithDefaultReader();
    else this.pullWithBYOBReader(byobRequestView(byobRequest), false);
    return undefined;
  }

  pull2(): AlgorithmResult {
    if (this.reading) {
      this.readAgainForBranch2 = true;
      return undefined;
    }
    this.reading = true;
    const byobRequest = ReadableByteStreamControllerGetBYOBRequest(this.c2());
    if (byobRequest === null) this.pullWithDefaultReader();
    else this.pullWithBYOBReader(byobRequestView(byobRequest), true);
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
}

class ByteTeeBranch implements SourceAlgorithms {
  readonly #tee: ByteTee;
  readonly #branch: 1 | 2;
  constructor(tee: ByteTee, branch: 1 | 2) {
    this.#tee = tee;
    this.#branch = branch;
  }
  pull(): AlgorithmResult {
    return this.#branch === 1 ? this.#tee.pull1() : this.#tee.pull2();
  }
  cancel(reason: unknown): AlgorithmResult {
    return this.#tee.cancel(this.#branch, reason);
  }
}

/** ReadableByteStreamTee(stream). */
export function ReadableByteStreamTee(
  stream: ReadableStreamInternal,
): [ReadableStreamInternal, ReadableStreamInternal] {
  const tee = new ByteTee(stream);
  tee.branch1 = CreateReadableByteStream(undefined, new ByteTeeBranch(tee, 1));
  tee.branch2 = CreateReadableByteStream(undefined, new ByteTeeBranch(tee, 2));
  tee.forwardReaderError(tee.reader);
  return [tee.branch1, tee.branch2];
}
