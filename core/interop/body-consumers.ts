/**
 * A patch step (BODY-CONSUME; the Deno adapter's `deno-consumers`, the edge adapter's `edge-consumers`):
 * `text()`, `arrayBuffer()`, `bytes()` and `json()` of a `Response` or `Request` whose body is one of our
 * streams, not yet touched, read our stream themselves (a fused pipe into a byte collector) instead of
 * reading the native bridge that `new Response(ours)` made (BODY-BATCH). Deno and workerd read a
 * JavaScript stream for these methods one native read at a time; ours are read with no native call per
 * chunk. The bridge is still locked and read once (its pull closes it), so `bodyUsed`, `body` and a second
 * consumer behave as after the runtime's own method; the result, and the error of a failing stream (by
 * identity), are the same. Anything else goes to the runtime's method. Measured in `rt-response-text`
 * (README, Deno) and `response-text` (README, Edge).
 *
 * The collector is a fused pipe, not the batch reader: reading a stream that is no transform's readable side in
 * batches (`acquireBatchReader`) measured 1.05-1.11x of it on Deno (`rt-response-text`) but 0.92-0.94x in
 * workerd (`response-text`), three runs each (2026-11-25), so the pipe, which also fuses a chain of transforms,
 * stays.
 * @module
 */
import { WritableStream } from "../../mod.ts";
import { type ClaimedBody, claimBatchedBody } from "./batched-body.ts";
import { joinBytes } from "./join-bytes.ts";
import { syncBodyShellOf } from "./body-shells.ts";
import { ownerOf } from "./natives.ts";
import type { PatchTransaction } from "./patch-transaction.ts";
import { bodyBytes, bodyMadeFor } from "./to-native.ts";

/** What each method makes of the body's bytes. */
const CONVERSIONS: Record<string, (bytes: Uint8Array<ArrayBuffer>) => unknown> = {
  text: (bytes) => new TextDecoder().decode(bytes),
  arrayBuffer: (bytes) => bytes.buffer,
  bytes: (bytes) => bytes,
  json: (bytes) => JSON.parse(new TextDecoder().decode(bytes)) as unknown,
};

/** Every byte of the claimed stream, in one new buffer. */
async function collect({ stream, context }: ClaimedBody): Promise<Uint8Array<ArrayBuffer>> {
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

type Method = (this: object, ...args: unknown[]) => Promise<unknown>;

/**
 * Replaces the methods where they are defined (`Response.prototype` and `Request.prototype` in Deno, the
 * shared Body.prototype in workerd, each once).
 */
export function patchBodyConsumers(tx: PatchTransaction): void {
  const done: object[] = [];
  for (const name of ["Response", "Request"]) {
    const proto = (globalThis as unknown as Record<string, { prototype?: object } | undefined>)[name]?.prototype;
    for (const [method, convert] of Object.entries(CONVERSIONS)) {
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
          return collect(claim).then(convert);
        },
      }[method]!;
      tx.defineValue(owner, method, replacement);
    }
  }
}
