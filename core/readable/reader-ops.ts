/**
 * Reader abstract operations (Streams §4.9.3 "Readers").
 * @module
 */
import { typeError } from "../shared/webidl.ts";
import {
  CLOSED,
  ERRORED,
  IsReadableStreamLocked,
  READABLE,
  ReadableStreamCancel,
  type ReadableStreamInternal,
  ReaderErrorRequests,
  ReaderInternal,
  type ReaderOwner,
  type ReadIntoRequest,
  type ReadRequest,
} from "./stream-internal.ts";

/** The byte controller's PullInto, reached through the controller so readers need not import it. */
export interface PullIntoCapable {
  pullInto(view: ArrayBufferView, min: number, request: ReadIntoRequest): void;
}

/** ReadableStreamReaderGenericInitialize(reader, stream). */
export function ReadableStreamReaderGenericInitialize(reader: ReaderInternal, stream: ReadableStreamInternal): void {
  reader.stream = stream;
  stream.reader = reader;
  const closed = reader.closed;
  // closed promise starts pending; an owner looks at the stream's state itself
  if (stream.state === READABLE || closed === undefined) return;
  if (stream.state === CLOSED) closed.resolve();
  else closed.reject(stream.storedError, true);
}

/** ReadableStreamReaderGenericCancel(reader, reason). */
export function ReadableStreamReaderGenericCancel(reader: ReaderInternal, reason: unknown): Promise<undefined> {
  return ReadableStreamCancel(reader.stream!, reason);
}

/**
 * ReadableStreamReaderGenericRelease(reader). `error` is the TypeError the spec creates here: a caller whose
 * reader nobody else can see may pass one it made once. A reader with an owner has no closed promise, and
 * no TypeError is made for it.
 */
export function ReadableStreamReaderGenericRelease(reader: ReaderInternal, error?: TypeError): void {
  const stream = reader.stream!;
  const closed = reader.closed;
  // An owner's reader has none: nobody can see it, and the owner is finishing. FP-LAZY (release) for the others.
  closed?.rejectLazily(error === undefined ? releasedError : () => error);
  stream.releaseSteps();
  stream.reader = undefined;
  reader.stream = undefined;
}

/**
 * SetUpReadableStreamDefaultReader / AcquireReadableStreamDefaultReader. A reader with an `owner` (an internal
 * consumer no user code can reach) has no closed promise: the owner is told when the stream settles.
 */
export function AcquireReadableStreamDefaultReader(
  stream: ReadableStreamInternal,
  owner?: ReaderOwner,
): ReaderInternal {
  if (IsReadableStreamLocked(stream)) throw typeError("This stream is already locked to a reader");
  const reader = new ReaderInternal(false, owner);
  ReadableStreamReaderGenericInitialize(reader, stream);
  return reader;
}

/** SetUpReadableStreamBYOBReader / AcquireReadableStreamBYOBReader. */
export function AcquireReadableStreamBYOBReader(stream: ReadableStreamInternal): ReaderInternal {
  if (IsReadableStreamLocked(stream)) throw typeError("This stream is already locked to a reader");
  if (!stream.isByte) {
    throw typeError("A BYOB reader can only be acquired for a readable byte stream (type: 'bytes')");
  }
  const reader = new ReaderInternal(true, undefined);
  ReadableStreamReaderGenericInitialize(reader, stream);
  return reader;
}

/** ReadableStreamDefaultReaderRead(reader, readRequest). */
export function ReadableStreamDefaultReaderRead(reader: ReaderInternal, readRequest: ReadRequest): void {
  const stream = reader.stream!;
  stream.disturbed = true;
  if (stream.state === CLOSED) readRequest.closeSteps();
  else if (stream.state === ERRORED) readRequest.errorSteps(stream.storedError);
  else stream.pullSteps(readRequest);
}

/** ReadableStreamBYOBReaderRead(reader, view, min, readIntoRequest). */
export function ReadableStreamBYOBReaderRead(
  reader: ReaderInternal,
  view: ArrayBufferView,
  min: number,
  readIntoRequest: ReadIntoRequest,
): void {
  const stream = reader.stream!;
  stream.disturbed = true;
  if (stream.state === ERRORED) readIntoRequest.errorSteps(stream.storedError);
  else (stream as unknown as PullIntoCapable).pullInto(view, min, readIntoRequest);
}

/**
 * ReadableStreamDefaultReaderRelease / ReadableStreamBYOBReaderRelease. The second TypeError reaches nobody when
 * no read request is pending, so it is only made when one is, with a message of its own (a runtime's patch may word
 * the two apart, as Bun does). `error`: see ReadableStreamReaderGenericRelease.
 */
export function ReadableStreamReaderRelease(reader: ReaderInternal, error?: TypeError): void {
  ReadableStreamReaderGenericRelease(reader, error);
  if (reader.size !== 0) {
    ReaderErrorRequests(reader, error ?? typeError("The reader's lock was released during a read"));
  }
}

function releasedError(): TypeError {
  return typeError("The reader's lock was released");
}
