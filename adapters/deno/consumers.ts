/**
 * The patch step `deno-consumers` (DENO-CONSUME): `text()`, `arrayBuffer()`, `bytes()` and `json()` of a
 * `Response` or `Request` whose body is one of our streams, not yet touched, read our stream themselves
 * (a fused pipe into a byte collector) instead of reading the native bridge that `new Response(ours)`
 * made for Deno (BODY-BATCH). Deno reads a JavaScript stream for these methods one native read at a
 * time; ours are read with no native call per chunk. The bridge is still locked and read once (its pull
 * closes it), so `bodyUsed`, `body` and a second consumer behave as after Deno's own method; the result,
 * and the error of a failing stream (by identity), are the same. Anything else goes to Deno's method.
 * Measured in `rt-response-text` (README, Deno).
 * @module
 */
import { WritableStream } from "../../mod.ts";
import type { PatchTransaction } from "../../core/interop/patch-transaction.ts";
import { bodyBytes } from "../../core/interop/to-native.ts";
import { type ClaimedBody, claimBatchedBody } from "../../core/interop/batched-body.ts";
import { joinBytes } from "../../core/interop/join-bytes.ts";

/** The body getters of Deno's `Response` and `Request`, captured before any patch replaces them. */
const NATIVE_BODY_GETTERS = new Map<string, (this: object) => unknown>();
for (const name of ["Response", "Request"]) {
  const proto = (globalThis as unknown as Record<string, { prototype?: object } | undefined>)[name]?.prototype;
  const get = proto === undefined ? undefined : Object.getOwnPropertyDescriptor(proto, "body")?.get;
  if (get !== undefined) NATIVE_BODY_GETTERS.set(name, get as (this: object) => unknown);
}

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

/** Replaces the methods on `Response.prototype` and `Request.prototype` (configurable in Deno). */
export function patchDenoConsumers(tx: PatchTransaction): void {
  for (const [name, getBody] of NATIVE_BODY_GETTERS) {
    const proto = (globalThis as unknown as Record<string, { prototype: object }>)[name]!.prototype as Record<string, unknown>;
    for (const [method, convert] of Object.entries(CONVERSIONS)) {
      const original = proto[method] as Method | undefined;
      if (typeof original !== "function") continue;
      const replacement = {
        [method](this: object, ...args: unknown[]): Promise<unknown> {
          let body: unknown;
          try {
            body = getBody.call(this);
          } catch {
            return original.apply(this, args);
          }
          const claim = claimBatchedBody(body);
          if (claim === undefined) return original.apply(this, args);
          // Lock and disturb the bridge as Deno's method would (its pull just closes it).
          void (body as globalThis.ReadableStream).getReader().read();
          return collect(claim).then(convert);
        },
      }[method]!;
      tx.defineValue(proto, method, replacement);
    }
  }
}
