/**
 * A patch step (BODY-CONSUME; the Deno adapter's `deno-consumers`, the edge adapter's `edge-consumers`):
 * `text()`, `arrayBuffer()`, `bytes()` and `json()` of a `Response` or `Request` whose body is one of our
 * streams, not yet touched, read our stream themselves (a fused pipe into a byte collector) instead of
 * reading the native bridge that `new Response(ours)` made (BODY-BATCH). Deno and workerd read a
 * JavaScript stream for these methods one native read at a time; ours are read with no native call per
 * chunk. The bridge is still locked and read once (its pull closes it), so `bodyUsed`, `body` and a second
 * consumer behave as after the runtime's own method; the result, and the error of a failing stream (by
 * identity), are the same, and our stream stays locked afterwards, as the runtime's method leaves the stream it
 * read. Anything else goes to the runtime's method. Measured in `rt-response-text` (README, Deno) and
 * `response-text` (README, Edge). A TextEncoderStream's readable side gives its bytes by FP-ENCODE-INTO (each
 * string encoded into one growing buffer, no chunk per string): `pipe-html` (bench/real) on Deno and
 * `html-text` (bench/edge) in workerd.
 *
 * Two collectors, chosen per runtime by measurement: a fused pipe into a byte sink ({@link collectByPipe}, the
 * edge adapter's), and batch reads ({@link collectByBatches}, Deno's). Reading a stream that is no transform's
 * readable side in batches (`acquireBatchReader`) measured 1.05-1.11x the pipe on Deno (`rt-response-text`) but
 * 0.92-0.94x in workerd (`response-text`), three runs each (2026-11-25); a transform's readable side is piped by
 * both (the pipe fuses the chain, where a batch read would get one chunk per wake).
 * @module
 */
import { collectBytes, isTransformReadable, WritableStream } from "../../core/internal.ts";
import { claimBatchedBody, type ClaimedBody } from "./batched-body-bridge.ts";
import { collectCodecBytes, collectEncodedText } from "./encoded-text.ts";
import { joinBytes } from "./join-bytes.ts";
import { syncBodyShellOf } from "./body-shells.ts";
import { ownerOf } from "./natives.ts";
import type { PatchTransaction } from "./patch-transaction.ts";
import { bodyBytes, bodyMadeFor } from "./to-native.ts";

/** What a method makes of the body's bytes. */
type Conversion = (bytes: Uint8Array<ArrayBuffer>) => unknown;

/**
 * What each method makes of the body's bytes. Text is decoded by the runtime's own method on a Response of those
 * bytes, so that a byte order mark is dropped exactly as the runtime drops it (undici, behind edge-runtime, drops
 * one before its decoder drops another; workerd's older compatibility dates keep it).
 */
function conversions(): Record<string, Conversion> {
  const NativeResponse = (globalThis as unknown as { Response?: new (body: Uint8Array) => object }).Response;
  const proto = NativeResponse?.prototype as Record<string, unknown> | undefined;
  const byRuntime = (method: string): Conversion | undefined => {
    const fn = proto?.[method];
    return typeof fn === "function" ? (bytes) => (fn as Method).call(new NativeResponse!(bytes)) : undefined;
  };
  return {
    text: byRuntime("text") ?? ((bytes) => new TextDecoder().decode(bytes)),
    arrayBuffer: (bytes) => bytes.buffer,
    bytes: (bytes) => bytes,
    json: byRuntime("json") ?? ((bytes) => JSON.parse(new TextDecoder().decode(bytes)) as unknown),
  };
}

/** Reads a claimed body's stream to its end: every byte in one new buffer, or the stream's error (by identity). */
export type BodyCollector = (claim: ClaimedBody) => Promise<Uint8Array<ArrayBuffer>>;

/** A {@link BodyCollector} that pipes the stream (fused) into a sink that keeps every chunk's bytes. */
export async function collectByPipe({ stream, context }: ClaimedBody): Promise<Uint8Array<ArrayBuffer>> {
  const parts: Uint8Array[] = [];
  let size = 0;
  await stream.pipeTo(
    new WritableStream<unknown>({
      write(chunk) {
        const bytes = bodyBytes(chunk, context);
        parts.push(bytes);
        size += bytes.byteLength;
      },
    }),
  );
  return joinBytes(parts, size);
}

/**
 * A {@link BodyCollector} that reads the stream in batches (every queued chunk in one step, a synchronous
 * pull() chain's chunks in one wake); a transform's readable side goes to {@link collectByPipe}. A chunk that is
 * not a BufferSource cancels the stream with the body's TypeError and rejects with it, as the pipe does.
 */
export async function collectByBatches(claim: ClaimedBody): Promise<Uint8Array<ArrayBuffer>> {
  const { stream, context } = claim;
  if (isTransformReadable(stream)) return collectByPipe(claim);
  const { chunks, length } = await collectBytes(stream, context, bodyBytes);
  return joinBytes(chunks, length);
}

/**
 * `collect` with FP-CODEC-INTO in front: a CompressionStream's or DecompressionStream's readable side gives its
 * bytes with no chunk per codec call (the codec copies its output into the body's buffer). Deno's consumers take it
 * (`pipe-html-gzip`, bench/README.md); in workerd it measured level (`html-gzip`, `gunzip-1k`), so not there.
 */
export function withCodecBytes(collect: BodyCollector): BodyCollector {
  return (claim) => collectCodecBytes(claim.stream) ?? collect(claim);
}

type Method = (this: object, ...args: unknown[]) => Promise<unknown>;

/**
 * Replaces the methods where they are defined (`Response.prototype` and `Request.prototype` in Deno, the
 * shared Body.prototype in workerd, each once); `collect` reads a claimed body (default: {@link collectByPipe}).
 */
export function patchBodyConsumers(tx: PatchTransaction, collect: BodyCollector = collectByPipe): void {
  const done: object[] = [];
  // Taken before any method is replaced: the runtime's own.
  const convert = conversions();
  for (const name of ["Response", "Request"]) {
    const proto = (globalThis as unknown as Record<string, { prototype?: object } | undefined>)[name]?.prototype;
    for (const [method, conversion] of Object.entries(convert)) {
      const owner = ownerOf(proto, method) as Record<string, unknown> | undefined;
      const original = owner?.[method] as Method | undefined;
      if (owner === undefined || typeof original !== "function" || done.includes(original)) continue;
      done.push(original);
      const replacement = {
        [method](this: object, ...args: unknown[]): Promise<unknown> {
          // A reader of ours holding the body's shell locks the bridge first (the claim then fails).
          syncBodyShellOf(this);
          const body = bodyMadeFor(this);
          const claim = claimBatchedBody(body);
          if (claim === undefined) return original.apply(this, args);
          // Lock and disturb the bridge as the runtime's method would (its pull just closes it).
          void (body as globalThis.ReadableStream).getReader().read();
          // FP-ENCODE-INTO: a TextEncoderStream's readable side gives its bytes with no chunk per string.
          const bytes = collectEncodedText(claim.stream) ?? collect(claim);
          // The runtime's method never lets go of the stream it read: ours stays locked too, read or failed.
          const keepLocked = (): void => {
            if (!claim.stream.locked) claim.stream.getReader();
          };
          bytes.then(keepLocked, keepLocked);
          return bytes.then(conversion);
        },
      }[method]!;
      tx.defineValue(owner, method, replacement);
    }
  }
}
