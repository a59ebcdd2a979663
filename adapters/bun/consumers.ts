/**
 * The patch step `bun-consumers`: Bun's own consumers `Bun.readableStreamToText`, `…ToBytes`,
 * `…ToArrayBuffer`, `…ToBlob`, `…ToJSON`, `…ToFormData` and `…ToArray` accept our streams (Bun checks for
 * its own class and throws otherwise). A stream of ours is handed to them as a `type: "direct"` stream
 * (BUN-DIRECT, bytes checked as for a body), or for `readableStreamToArray`, whose chunks may be anything,
 * as `toNativeReadableStream(stream)`. Native streams go to Bun's functions unchanged.
 * @module
 */
import { isOurReadable } from "../kit/natives.ts";
import type { PatchTransaction } from "../kit/patch-transaction.ts";
import { nativeInSameState, toNativeBody, toNativeReadableStream } from "../kit/to-native.ts";
import { directBody } from "./direct-body.ts";

/** Bun's consumers of byte streams (the chunks must be bytes). */
const BYTE_CONSUMERS = [
  "readableStreamToText",
  "readableStreamToBytes",
  "readableStreamToArrayBuffer",
  "readableStreamToBlob",
  "readableStreamToJSON",
  "readableStreamToFormData",
] as const;

type Consumer = (stream: unknown, ...rest: unknown[]) => unknown;

/**
 * Replaces each consumer on the `Bun` object by one that converts our streams first. Bun defines them
 * as writable, non-configurable properties, so they are assigned (recorded first; the restore puts the
 * same value back with the same attributes).
 */
export function patchBunConsumers(tx: PatchTransaction): void {
  const bun = (globalThis as unknown as { Bun: Record<string, unknown> }).Bun;
  const wrap = (name: string, convert: (stream: unknown) => unknown): void => {
    const original = bun[name] as Consumer | undefined;
    if (typeof original !== "function") return;
    tx.record(bun, name);
    const wrapped = {
      [name](stream: unknown, ...rest: unknown[]): unknown {
        return original.call(bun, isOurReadable(stream) ? convert(stream) : stream, ...rest);
      },
    }[name]!;
    bun[name] = wrapped;
    if (bun[name] !== wrapped) throw new TypeError(`Bun.${name} could not be replaced`);
  };
  for (const name of BYTE_CONSUMERS) {
    wrap(name, (stream) => toNativeBody(stream as never, `Bun.${name}`, directBody));
  }
  // A locked or disturbed stream: a native one in that state, so that Bun throws its own error.
  wrap(
    "readableStreamToArray",
    (stream) => nativeInSameState(stream as never) ?? toNativeReadableStream(stream as never),
  );
}
