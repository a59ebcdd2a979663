/**
 * Joins byte chunks into one new buffer (shared by BODY-BATCH and BODY-CONSUME). Not the core's
 * `concatUint8Arrays` (consumers): its captured `set()` called through `Reflect.apply` per chunk, robust
 * against a patched prototype, measured 1.2-1.3x this loop on Bun (1,024 chunks of 1 KiB) and made workerd's
 * `text()` (BODY-CONSUME) 5-16 % slower (2026-11-25).
 * @module
 */

/** A new Uint8Array holding `parts` one after the other (`size`: their total length). */
export function joinBytes(parts: readonly Uint8Array[], size: number): Uint8Array<ArrayBuffer> {
  const all = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    all.set(part, offset);
    offset += part.byteLength;
  }
  return all;
}
