/**
 * Deno's internal stream operations meeting fusestreams streams. Some of Deno's own code makes a stream
 * with the global `ReadableStream` / `WritableStream` (ours while patched) at a time no patch step can see,
 * then works on it with its internal operations, which read and write the stream's internal slots
 * (symbol-keyed properties named as in the standard: `[[state]]`, `[[reader]]`, `[[controller]]`...):
 * node:fs/promises' `FileHandle.readableWebStream()` cancels its stream so when the file is closed, and
 * `WebSocketStream` closes its writable side so when the socket closes. On ours those slots are missing,
 * and Deno fails with "Assertion failed" (or swallows the failure and leaves the stream open).
 *
 * While patched, fusestreams' ReadableStream and WritableStream prototypes answer those slots from a native
 * stand-in: a native stream made when Deno's code first touches one of ours. A readable stand-in reads ours
 * when pulled (one chunk per pull, locking ours at its first pull), and its cancel cancels ours as the
 * standard's ReadableStreamCancel does, readers or not; a writable stand-in writes into ours (locking it at
 * its first write), and its close and abort close and abort ours as WritableStreamClose and
 * WritableStreamAbort do, writers or not. So Deno's internal operations run, unchanged, on a native stream
 * that stands for ours; our own code never reads these slots.
 * @module
 */
import * as api from "../../mod.ts";
import { abortWritableStream, cancelReadableStream, closeWritableStream } from "../kit/stream-control.ts";
import { Native, noop } from "../kit/natives.ts";
import type { PatchTransaction } from "../kit/patch-transaction.ts";

/** The internal slots of the standard's ReadableStream (Streams §4.2.2), as Deno names its symbols. */
const READABLE_SLOTS: ReadonlySet<string> = new Set([
  "[[controller]]",
  "[[Detached]]",
  "[[disturbed]]",
  "[[reader]]",
  "[[state]]",
  "[[storedError]]",
]);

/** The internal slots of the standard's WritableStream (Streams §5.2.2), as Deno names its symbols. */
const WRITABLE_SLOTS: ReadonlySet<string> = new Set([
  "[[backpressure]]",
  "[[closeRequest]]",
  "[[controller]]",
  "[[Detached]]",
  "[[inFlightWriteRequest]]",
  "[[inFlightCloseRequest]]",
  "[[pendingAbortRequest]]",
  "[[state]]",
  "[[storedError]]",
  "[[writer]]",
  "[[writeRequests]]",
]);

const getOwn = Object.getOwnPropertyDescriptor;

type Slots = Record<symbol, unknown>;

/** Hands a promise back after marking it handled (Deno's internal callers may drop it). */
function handled(promise: Promise<undefined> | undefined): Promise<undefined> | undefined {
  promise?.then(undefined, noop);
  return promise;
}

/** A native ReadableStream standing for our `ours` (see the module doc). */
function readableStandIn(ours: api.ReadableStream<unknown>): Slots {
  let reader: ReadableStreamDefaultReader<unknown> | undefined;
  return new Native.ReadableStream<unknown>({
    async pull(controller) {
      reader ??= ours.getReader();
      const result = await reader.read();
      if (result.done) controller.close();
      else controller.enqueue(result.value);
    },
    cancel: (reason) => handled(cancelReadableStream(ours, reason)),
  }, { highWaterMark: 0 }) as unknown as Slots;
}

/** A native WritableStream standing for our `ours` (see the module doc). */
function writableStandIn(ours: api.WritableStream<unknown>): Slots {
  let writer: WritableStreamDefaultWriter<unknown> | undefined;
  return new Native.WritableStream<unknown>({
    write(chunk) {
      writer ??= ours.getWriter();
      return writer.write(chunk);
    },
    close: () => handled(closeWritableStream(ours)),
    abort: (reason) => handled(abortWritableStream(ours, reason)),
  }, { highWaterMark: 1 }) as unknown as Slots;
}

/** The native stand-in of each of our streams that Deno's internal code has touched. */
const standIns = new WeakMap<object, Slots>();

/** The native stand-in of `stream` (made on first use), or undefined when it is none of our streams. */
function standInOf(stream: object): Slots | undefined {
  let standIn = standIns.get(stream);
  if (standIn !== undefined) return standIn;
  if (api.readableStreamState(stream) !== undefined) {
    standIn = readableStandIn(stream as api.ReadableStream<unknown>);
  } else if (api.writableStreamState(stream) !== undefined) {
    standIn = writableStandIn(stream as api.WritableStream<unknown>);
  } else {
    return undefined;
  }
  standIns.set(stream, standIn);
  return standIn;
}

/** Defines, on `proto`, an accessor for each of `probe`'s own symbols named in `slots`. */
function forwardSlots(tx: PatchTransaction, proto: object, probe: object, slots: ReadonlySet<string>): void {
  for (const key of Object.getOwnPropertySymbols(probe)) {
    if (!slots.has(key.description ?? "") || getOwn(proto, key) !== undefined) continue;
    tx.defineAccessor(
      proto,
      key,
      function (this: object): unknown {
        return standInOf(this)?.[key];
      } as (this: never) => unknown,
      function (this: object, value: unknown): void {
        const standIn = standInOf(this);
        if (standIn !== undefined) standIn[key] = value;
      } as (this: never, value: never) => void,
    );
  }
}

/**
 * Step `deno-internal-slots`: fusestreams' ReadableStream and WritableStream prototypes get an accessor for
 * each of Deno's symbols for the standard's slots of that class (found among a native stream's own
 * properties), reading and writing the slot of the stream's native stand-in. Nothing is defined for a slot
 * Deno does not name so.
 */
export function patchInternalSlots(tx: PatchTransaction): void {
  forwardSlots(tx, api.ReadableStream.prototype, new Native.ReadableStream(), READABLE_SLOTS);
  forwardSlots(tx, api.WritableStream.prototype, new Native.WritableStream(), WRITABLE_SLOTS);
}
