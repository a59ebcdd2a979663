/**
 * Deno's internal stream operations meeting fusestreams streams. Some of Deno's own code makes a stream
 * with the global `ReadableStream` (ours while patched) at a time no patch step can see, then works on it
 * with its internal operations, which read and write the stream's internal slots (symbol-keyed properties
 * named as in the standard: `[[state]]`, `[[reader]]`, `[[controller]]`...): node:fs/promises'
 * `FileHandle.readableWebStream()` cancels its stream with them when the file is closed. On ours those
 * slots are missing, and Deno fails with "Assertion failed".
 *
 * While patched, fusestreams' ReadableStream prototype answers those slots from a native stand-in: a
 * native ReadableStream made when Deno's code first touches one of ours, which reads ours when pulled (one
 * chunk per pull, locking ours at its first pull) and whose cancel cancels ours as the standard's
 * ReadableStreamCancel does, readers or not. So Deno's internal operations run, unchanged, on a native
 * stream that stands for ours; our own code never reads these slots.
 * @module
 */
import * as api from "../../core/internal.ts";
import { Native, noop } from "../kit/natives.ts";
import type { PatchTransaction } from "../kit/patch-transaction.ts";

/** The ReadableStream internal slots of the standard (Streams §4.2.2), as Deno names its symbols. */
const STANDARD_SLOTS: ReadonlySet<string> = new Set([
  "[[controller]]",
  "[[Detached]]",
  "[[disturbed]]",
  "[[reader]]",
  "[[state]]",
  "[[storedError]]",
]);

const getOwn = Object.getOwnPropertyDescriptor;

/** The native stand-in of each of our streams that Deno's internal code has touched. */
const standIns = new WeakMap<object, Record<symbol, unknown>>();

/** The native stand-in of `stream` (made on first use), or undefined when it is none of our streams. */
function standInOf(stream: object): Record<symbol, unknown> | undefined {
  let standIn = standIns.get(stream);
  if (standIn !== undefined) return standIn;
  if (api.readableStreamState(stream) === undefined) return undefined;
  const ours = stream as api.ReadableStream<unknown>;
  let reader: ReadableStreamDefaultReader<unknown> | undefined;
  standIn = new Native.ReadableStream<unknown>({
    async pull(controller) {
      reader ??= ours.getReader();
      const result = await reader.read();
      if (result.done) controller.close();
      else controller.enqueue(result.value);
    },
    cancel(reason) {
      const cancelled = api.cancelReadableStream(ours, reason);
      cancelled?.then(undefined, noop);
      return cancelled;
    },
  }, { highWaterMark: 0 }) as unknown as Record<symbol, unknown>;
  standIns.set(stream, standIn);
  return standIn;
}

/**
 * Step `deno-internal-slots`: fusestreams' ReadableStream prototype gets an accessor for each of Deno's
 * symbols for the standard's ReadableStream slots (found on a native stream's own properties), reading and
 * writing the slot of the stream's native stand-in. Nothing is defined when Deno names none of them so.
 */
export function patchInternalSlots(tx: PatchTransaction): void {
  const probe = new Native.ReadableStream();
  const slots = Object.getOwnPropertySymbols(probe).filter((key) => STANDARD_SLOTS.has(key.description ?? ""));
  const proto = api.ReadableStream.prototype as object;
  for (const key of slots) {
    if (getOwn(proto, key) !== undefined) continue;
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
