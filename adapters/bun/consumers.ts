/**
 * The patch step `bun-consumers`: Bun's own consumers `Bun.readableStreamToText`, `…ToBytes`,
 * `…ToArrayBuffer`, `…ToBlob`, `…ToJSON`, `…ToFormData` and `…ToArray` accept our streams (Bun checks for
 * its own class and throws otherwise), and so do `Bun.write(destination, stream)` and
 * `BunFile.prototype.write(stream)` (which would write the text `[object ReadableStream]`). A stream of ours
 * is handed to them as a `type: "direct"` stream (BUN-DIRECT: chunks taken as Bun's own bodies take them),
 * or for `readableStreamToArray` and `readableStreamToArrayBuffer` (see {@link CHUNK_CONSUMERS}) as
 * `toNativeReadableStream(stream)`. Native streams go to Bun's functions unchanged.
 * @module
 */
import { isOurReadable } from "../kit/natives.ts";
import type { PatchTransaction } from "../kit/patch-transaction.ts";
import { nativeInSameState, nativeOfQueuedStream, toNativeBody, toNativeReadableStream } from "../kit/to-native.ts";
import { directBody, directTextBody } from "./direct-body.ts";

/** Bun's consumers of a body's text or bytes. */
const BODY_CONSUMERS = [
  "readableStreamToText",
  "readableStreamToBytes",
  "readableStreamToBlob",
  "readableStreamToJSON",
  "readableStreamToFormData",
] as const;

/**
 * Bun's consumers whose result depends on how the stream is made, not only on its chunks: they get a native
 * stream with the same chunks (`readableStreamToArrayBuffer` answers a Uint8Array for a stream of one string
 * chunk, an ArrayBuffer for a direct stream).
 */
const CHUNK_CONSUMERS = ["readableStreamToArray", "readableStreamToArrayBuffer"] as const;

type Consumer = (this: unknown, ...args: unknown[]) => unknown;

/**
 * Replaces `owner[name]` by a function that converts the argument at `index` first when it is one of our
 * streams. Bun defines these as writable, non-configurable properties, so they are assigned (recorded first;
 * the restore puts the same value back with the same attributes).
 */
function wrapArgument(
  tx: PatchTransaction,
  owner: Record<string, unknown>,
  label: string,
  name: string,
  index: number,
  convert: (stream: unknown) => unknown,
): void {
  const original = owner[name] as Consumer | undefined;
  if (typeof original !== "function") return;
  tx.record(owner, name);
  const wrapped = function (this: unknown, ...args: unknown[]): unknown {
    if (isOurReadable(args[index])) args[index] = convert(args[index]);
    return original.apply(this, args);
  };
  // The original's name and length, as Bun's tests and tools may read them.
  Object.defineProperty(wrapped, "name", { value: original.name });
  Object.defineProperty(wrapped, "length", { value: original.length });
  owner[name] = wrapped;
  if (owner[name] !== wrapped) throw new TypeError(`${label}.${name} could not be replaced`);
}

/** See the module's documentation. */
export function patchBunConsumers(tx: PatchTransaction): void {
  const bun = (globalThis as unknown as { Bun: Record<string, unknown> }).Bun;
  // A locked or disturbed stream: a native one in that state, so that Bun throws its own error. BUN-QUEUED: a
  // stream whose chunks are all queued and closed goes to Bun as one of its own in that state.
  const asNative = (stream: unknown) => nativeInSameState(stream as never) ?? nativeOfQueuedStream(stream as never);
  const asBody = (context: string) => (stream: unknown) =>
    asNative(stream) ?? toNativeBody(stream as never, context, directBody);
  const asText = (context: string) => (stream: unknown) =>
    asNative(stream) ?? toNativeBody(stream as never, context, directTextBody);
  for (const name of BODY_CONSUMERS) {
    const text = name === "readableStreamToText" || name === "readableStreamToJSON";
    wrapArgument(tx, bun, "Bun", name, 0, (text ? asText : asBody)(`Bun.${name}`));
  }
  const asChunks = (stream: unknown) => asNative(stream) ?? toNativeReadableStream(stream as never);
  for (const name of CHUNK_CONSUMERS) wrapArgument(tx, bun, "Bun", name, 0, asChunks);
  wrapArgument(tx, bun, "Bun", "write", 1, asBody("Bun.write"));
  const file = (bun.file as ((path: string) => object) | undefined)?.(".");
  const fileProto = file === undefined ? undefined : Object.getPrototypeOf(file) as Record<string, unknown>;
  if (fileProto !== undefined) wrapArgument(tx, fileProto, "BunFile.prototype", "write", 0, asBody("BunFile.write"));
}
