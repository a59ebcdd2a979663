/**
 * Joins byte chunks into one new buffer (shared by BODY-BATCH and BODY-CONSUME).
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
