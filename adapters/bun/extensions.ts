/**
 * The patch step `bun-extensions`: Bun's own additions to the stream classes work on our streams while
 * patched (our prototypes inherit Bun's, whose methods refuse our objects):
 *
 * - the body methods Bun puts on `ReadableStream.prototype` (`text()`, `json()`, `bytes()`, `blob()`, each
 *   one Bun 1.4 has) read one of ours as Bun's own method reads a Bun stream: ours is handed to it as a
 *   `type: "direct"` stream (BUN-DIRECT), a locked or disturbed one as a native stream in the same state, so
 *   results and errors are Bun's;
 * - `ReadableStreamDefaultReader.prototype.readMany()`: every chunk queued now, synchronously as
 *   `{ value, size, done }`, or a promise of the next chunk when none is; `{ value: [], size: 0, done: true }`
 *   once closed; the stored error is thrown at once by an errored stream, and a released reader throws a
 *   `TypeError`. `size` counts the chunks taken from the queue (Bun sums the queue's sizes: the same for a
 *   default stream without a size function).
 * - `new ReadableStreamDefaultReader(stream)` / `new ReadableStreamBYOBReader(stream)` of one of Bun's streams
 *   make Bun's reader of it (`registerNativeReaders`);
 * - `type: "direct"` underlying sources: `new ReadableStream({ type: "direct", pull(controller) { ... } })`
 *   makes Bun's own direct stream (`registerSourceType`), so Bun's consumers and server take it
 *   exactly as they do without the patch (one of ours reading it first runs its source itself:
 *   BUN-DIRECT-SOURCE, direct-sources.ts); and `type: "bytes"` sources make Bun's own byte stream (BUN-BYTES).
 * @module
 */
import { ReadableStream, ReadableStreamDefaultReader } from "../../mod.ts";
import { isInstance, isOurReadable, Native } from "../kit/natives.ts";
import type { PatchTransaction } from "../kit/patch-transaction.ts";
import { readManyOf, registerNativeReaders, registerSourceType } from "../kit/reader-extensions.ts";
import { toNativeBody } from "../kit/to-native.ts";
import { directBody, directTextBody } from "./direct-body.ts";
import { makeDirectStream } from "./direct-sources.ts";

type Method = (this: unknown, ...args: unknown[]) => unknown;

/** Bun's body methods on `ReadableStream.prototype` (those Bun has are patched, in Bun's order). */
const BODY_METHODS: readonly string[] = ["text", "json", "bytes", "blob", "arrayBuffer", "formData"];

/** Defines `proto[key] = value` as Bun defines its methods (writable, enumerable, configurable), recorded. */
function defineMethod(tx: PatchTransaction, proto: object, key: string, value: Method, like: Method): void {
  Object.defineProperty(value, "name", { value: like.name });
  Object.defineProperty(value, "length", { value: like.length });
  tx.record(proto, key);
  Object.defineProperty(proto, key, { value, writable: true, enumerable: true, configurable: true });
}

/** See the module's documentation. */
export function patchBunExtensions(tx: PatchTransaction): void {
  const NativeRS = Native.ReadableStream;
  const nativeProto = NativeRS.prototype as unknown as Record<string, unknown>;
  const ourProto = ReadableStream.prototype as unknown as object;
  for (const name of Object.keys(nativeProto)) {
    if (!BODY_METHODS.includes(name)) continue;
    const native = Object.getOwnPropertyDescriptor(nativeProto, name)?.value;
    if (typeof native !== "function") continue;
    const body = function (this: unknown, ...args: unknown[]): unknown {
      const bridge = name === "text" || name === "json" ? directTextBody : directBody;
      const target = isOurReadable(this) ? toNativeBody(this, `ReadableStream.${name}`, bridge) : this;
      return (native as Method).apply(target, args);
    };
    defineMethod(tx, ourProto, name, body, native);
  }

  const nativeReaderProto = Object.getPrototypeOf(new NativeRS().getReader()) as Record<string, unknown>;
  const nativeReadMany = nativeReaderProto["readMany"];
  if (typeof nativeReadMany === "function") {
    const readMany = function (this: unknown): unknown {
      if (!isInstance(ReadableStreamDefaultReader, this)) return (nativeReadMany as Method).call(this);
      return readManyOf(this as ReadableStreamDefaultReader<unknown>);
    };
    defineMethod(tx, ReadableStreamDefaultReader.prototype, "readMany", readMany, nativeReadMany as Method);
  }

  // Our reader classes given one of Bun's streams (a body, Bun.file().stream()): Bun's reader.
  registerNativeReaders(tx);
  // `type: "direct"` sources: Bun's own class makes the stream (with BUN-DIRECT-SOURCE's front source).
  registerSourceType(tx, "direct", makeDirectStream);
  // BUN-BYTES: `type: "bytes"` sources too. Bun's byte streams are native code that hands its consumers each
  // chunk without the standard's buffer transfer; ours as a Bun body measured 0.45-0.5x Bun's own for `text()`
  // and forwarding, Bun's class under the patch 1.0x (bench/README.md, "Bun's rows"). Every byte stream made
  // while patched is then Bun's, as without the patch; it pipes into ours through a shell.
  registerSourceType(tx, "bytes", (source, strategy) => {
    return new NativeRS(source as UnderlyingByteSource, strategy as { highWaterMark?: number });
  });
}
