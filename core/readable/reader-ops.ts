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
  ReaderErrorRequests,
  ReaderInternal,
  ReadableStreamCancel,
  type ReadableStreamInternal,
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
  if (stream.state === READABLE) return; // closed promise starts pending
  if (stream.state === CLOSED) reader.closed.resolve();
  else reader.closed.reject(stream.storedError, true);
}

/** ReadableStreamReaderGenericCancel(reader, reason). */
export function ReadableStreamReaderGenericCancel(reader: ReaderInternal, reason: unknown): Promise<undefined> {
  return ReadableStreamCancel(reader.stream!, reason);
}

/**
 * ReadableStreamReaderGenericRelease(reader). `error` is the TypeError the spec creates here: a caller whose
 * reader nobody else can see may pass one it made once.
 */
export function ReadableStreamReaderGenericRelease(
  reader: ReaderInternal,
  error: TypeError = typeError("The reader's lock was released"),
): void {
  const stream = reader.stream!;
  if (stream.state === READABLE) reader.closed.reject(error, true);
  else reader.closed.resetRejected(error, true);
  stream.controller.releaseSteps();
  stream.reader = undefined;
  reader.stream = undefined;
}

/** SetUpReadableStreamDefaultReader / AcquireReadableStreamDefaultReader. */
export function AcquireReadableStreamDefaultReader(stream: ReadableStreamInternal): ReaderInternal {
  if (IsReadableStreamLocked(stream)) throw typeError("This stream is already locked to a reader");
  const reader = new ReaderInternal(false);
  ReadableStreamReaderGenericInitialize(reader, stream);
  return reader;
}

/** SetUpReadableStreamBYOBReader / AcquireReadableStreamBYOBReader. */
export function AcquireReadableStreamBYOBReader(stream: ReadableStreamInternal): ReaderInternal {
  if (IsReadableStreamLocked(stream)) throw typeError("This stream is already locked to a reader");
  if (!stream.controller.isByte) {
    throw typeError("A BYOB reader can only be acquired for a readable byte stream (type: 'bytes')");
  }
  const reader = new ReaderInternal(true);
  ReadableStreamReaderGenericInitialize(reader, stream);
  return reader;
}

/** ReadableStreamDefaultReaderRead(reader, readRequest). */
export function ReadableStreamDefaultReaderRead(reader: ReaderInternal, readRequest: ReadRequest): void {
  const stream = reader.stream!;
  stream.disturbed = true;
  if (stream.state === CLOSED) readRequest.closeSteps();
  else if (stream.state === ERRORED) readRequest.errorSteps(stream.storedError);
  else stream.controller.pullSteps(readRequest);
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
  else (stream.controller as unknown as PullIntoCapable).pullInto(view, min, readIntoRequest);
}

/**
 * ReadableStreamDefaultReaderRelease / ReadableStreamBYOBReaderRelease. The second TypeError reaches nobody when
 * no read request is pending, so it is only made when one is. `error`: see ReadableStreamReaderGenericRelease.
 */
export function ReadableStreamReaderRelease(reader: ReaderInternal, error?: TypeError): void {
  ReadableStreamReaderGenericRelease(reader, error);
  if (reader.size !== 0) ReaderErrorRequests(reader, error ?? typeError("The reader's lock was released"));
}
