/**
 * Test data shared by the edge worker (tests/edge/worker.ts, bundled into workerd and edge-runtime) and
 * the tests that check what it sends: deterministic byte chunks, the three byte transforms the worker
 * chains, and a digest that depends on every byte and on their order.
 * @module
 */

/** Chunk `index` of a body of `size`-byte chunks: pseudo-random bytes that depend on the index. */
export function chunkAt(index: number, size: number): Uint8Array {
  const out = new Uint8Array(size);
  let x = (index + 1) * 2654435761 >>> 0;
  for (let i = 0; i < size; i++) {
    x = (x ^ (x << 13)) >>> 0;
    x = (x ^ (x >>> 17)) >>> 0;
    x = (x ^ (x << 5)) >>> 0;
    out[i] = x & 255;
  }
  return out;
}

/** The whole body of `count` chunks of `size` bytes, as one array. */
export function bodyBytes(count: number, size: number): Uint8Array {
  const out = new Uint8Array(count * size);
  for (let i = 0; i < count; i++) out.set(chunkAt(i, size), i * size);
  return out;
}

/**
 * The three stages the worker chains, each returning a new chunk: XOR 0x5a, +1 (mod 256), reverse
 * within the chunk. A body that skips a stage, or a stage applied twice, gives different bytes; the
 * last stage makes the result depend on where chunks are cut, so it is applied to whole chunks only
 * where the test knows the cuts (bodies the worker makes itself).
 */
export const STAGES: readonly ((chunk: Uint8Array) => Uint8Array)[] = [
  (c) => c.map((b) => b ^ 0x5a),
  (c) => c.map((b) => (b + 1) & 255),
  (c) => c.slice().reverse(),
];

/** The two stages that do not depend on where chunks are cut (for bodies that come from the network). */
export const BYTEWISE_STAGES: readonly ((chunk: Uint8Array) => Uint8Array)[] = [STAGES[0]!, STAGES[1]!];

/** `count` chunks of `size` bytes, each passed through `stages` in order, concatenated. */
export function expectedBytes(
  count: number,
  size: number,
  stages: readonly ((c: Uint8Array) => Uint8Array)[],
): Uint8Array {
  const out = new Uint8Array(count * size);
  for (let i = 0; i < count; i++) {
    let c = chunkAt(i, size);
    for (const stage of stages) c = stage(c);
    out.set(c, i * size);
  }
  return out;
}

/** Applies byte-wise stages to a whole byte array (valid for {@link BYTEWISE_STAGES} only). */
export function applyBytewise(bytes: Uint8Array, times = 1): Uint8Array {
  let out = bytes;
  for (let t = 0; t < times; t++) for (const stage of BYTEWISE_STAGES) out = stage(out);
  return out;
}

/** Length and an order-dependent hash of the bytes, e.g. `"262144:1a2b3c4d"`. */
export function digest(bytes: Uint8Array): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) {
    h ^= bytes[i]!;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return `${bytes.length}:${h.toString(16).padStart(8, "0")}`;
}
