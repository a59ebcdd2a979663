/**
 * Step `bun error texts`: while patched, a released or locked reader's and writer's errors carry the texts and
 * the `code` (`ERR_INVALID_STATE`, Node.js' code, which Bun's own streams give) of Bun's own classes, so code and
 * tests written against them keep working (Bun's streams.test.js "ReadableStream rejects pending reads when the
 * lock is released" reads both). Each is taken from Bun's own class when the patch is applied: a promise it
 * rejects is read at once with `Bun.peek()`. Unpatched, our texts stay.
 * @module
 */
import { type RuntimeErrorText, thrownBy, useRuntimeErrorTexts } from "../kit/core-errors.ts";
import { Native, noop } from "../kit/natives.ts";
import type { PatchTransaction } from "../kit/patch-transaction.ts";

interface Peek {
  (promise: Promise<unknown>): unknown;
  status(promise: Promise<unknown>): string;
}

/** The reason `promise` (of Bun's own classes) is already rejected with, or undefined. */
function rejectionOf(promise: Promise<unknown>): unknown {
  promise.then(undefined, noop);
  const peek = (globalThis as { Bun?: { peek?: Peek } }).Bun?.peek;
  return typeof peek === "function" && peek.status(promise) === "rejected" ? peek(promise) : undefined;
}

/** Bun's own reader of a stream that never ends, released after `before` ran; what `after` gives then. */
function releasedReader(
  before: (reader: ReadableStreamDefaultReader) => Promise<unknown> | undefined,
  after: (reader: ReadableStreamDefaultReader, pending: Promise<unknown> | undefined) => Promise<unknown>,
): unknown {
  const reader = new Native.ReadableStream({ pull: noop }).getReader();
  const pending = before(reader);
  reader.releaseLock();
  return rejectionOf(after(reader, pending));
}

/** Bun's own writer, released; what `after` gives then. */
function releasedWriter(after: (writer: WritableStreamDefaultWriter) => Promise<unknown>): unknown {
  const writer = new Native.WritableStream().getWriter();
  writer.releaseLock();
  return rejectionOf(after(writer));
}

const RULES: readonly RuntimeErrorText[] = [
  {
    ours: /^The reader's lock was released during a read$/,
    runtime: () => releasedReader((reader) => reader.read(), (_, pending) => pending!),
  },
  { ours: /^The reader's lock was released$/, runtime: () => releasedReader(noop, (reader) => reader.closed) },
  { ours: /^Cannot read from a released reader$/, runtime: () => releasedReader(noop, (reader) => reader.read()) },
  { ours: /^The writer's lock was released$/, runtime: () => releasedWriter((writer) => writer.closed) },
  {
    ours: /^Cannot write to a stream using a released writer$/,
    runtime: () => releasedWriter((writer) => writer.write(undefined)),
  },
  {
    ours: /^This stream is already locked to a reader$/,
    runtime: () => {
      const stream = new Native.ReadableStream();
      stream.getReader();
      return thrownBy(() => stream.getReader());
    },
  },
];

/** The step: Bun's texts and codes on our lock errors while patched. */
export function patchBunErrorTexts(tx: PatchTransaction): void {
  useRuntimeErrorTexts(tx, RULES);
}
