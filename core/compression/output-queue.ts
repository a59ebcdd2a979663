/**
 * How many output chunks a CompressionStream or DecompressionStream may hold unread before a write waits: the
 * readable side's high-water mark of the TransformStream behind it (codec-transform.ts).
 *
 * The Compression Standard sets the stream up with the default strategies (readable high-water mark 0): a write
 * waits until someone reads, as in Deno's and the browsers' own classes. Node.js' and Bun's own classes resolve
 * writes before anything is read (Node's test-webstreams-compression-buffer-source.js awaits a write to a
 * CompressionStream nobody reads), so their adapters set a small allowance here: the stream then works ahead by
 * that many chunks and still stops the producer when they sit unread (tests/unit/compression.test.ts).
 *
 * Not public API: the adapters reach it through the core's private entry point.
 * @module
 */

let allowance = 0;

/**
 * Sets the readable high-water mark (in chunks, a whole number ≥ 0) of every CompressionStream and
 * DecompressionStream made from now on; returns the one it replaces. 0 is the standard's.
 */
export function setCodecOutputQueue(chunks: number): number {
  if (!(chunks >= 0 && chunks === Math.floor(chunks))) {
    throw new RangeError(`the codec output queue must be a whole number of chunks ≥ 0, not ${chunks}`);
  }
  const previous = allowance;
  allowance = chunks;
  return previous;
}

/** The readable high-water mark for a new codec stream. */
export function codecOutputQueue(): number {
  return allowance;
}
