/**
 * Where the UTF-8 decoder (Encoding §8.1.1) stands at the end of some bytes: between characters, or inside one
 * whose remaining bytes may still come (FP-DECODE-WHOLE, core/README.md).
 * @module
 */

/**
 * The index at which an unfinished UTF-8 sequence starts at the end of `bytes` (`length` bytes long: a lead byte and the
 * continuation bytes after it, all in the ranges the decoder accepts there, fewer than the lead needs), or
 * `length` when the decoder, having read every byte, needs no more (every character finished, or ended by
 * an error). Decoding `bytes` up to that index without streaming then gives what a streaming decode of all of it
 * gives, and the decoder is left in its initial state but for the bytes after the index.
 *
 * Only the last three bytes matter: a sequence is at most four bytes long, and a byte that is not a continuation
 * byte (0x80 to 0xBF) is always read as the start of something new (after an error for a sequence it ends).
 */
export function utf8UnfinishedStart(bytes: Uint8Array, length: number): number {
  const last = length - 1;
  if (last < 0 || bytes[last]! < 0x80) return length; // nothing, or ASCII
  // The last byte that is not a continuation byte, among the last three.
  let lead = last;
  const stop = length > 3 ? length - 3 : 0;
  while (lead >= stop && (bytes[lead]! & 0xc0) === 0x80) lead--;
  if (lead < stop) return length; // more continuation bytes than any unfinished sequence holds: errors
  const byte = bytes[lead]!;
  const seen = length - lead; // the lead and the continuation bytes after it
  if (byte >= 0xc2 && byte <= 0xdf) return seen < 2 ? lead : length;
  if (byte >= 0xe0 && byte <= 0xef) {
    if (seen >= 3) return length;
    if (seen === 2) {
      // The second byte's range depends on the lead (no overlong forms, no surrogates).
      const second = bytes[lead + 1]!;
      if ((byte === 0xe0 && second < 0xa0) || (byte === 0xed && second > 0x9f)) return length;
    }
    return lead;
  }
  if (byte >= 0xf0 && byte <= 0xf4) {
    if (seen >= 2) {
      // (no overlong forms, nothing above U+10FFFF)
      const second = bytes[lead + 1]!;
      if ((byte === 0xf0 && second < 0x90) || (byte === 0xf4 && second > 0x8f)) return length;
    }
    return lead; // at most three of its four bytes
  }
  return length; // ASCII, or a byte that is never a lead (0xC0, 0xC1, 0xF5 to 0xFF): an error
}

/**
 * Where the sequence that starts `bytes` (`length` bytes long) ends, given that `bytes[0]` is a lead byte (0xC2
 * to 0xF4), as utf8UnfinishedStart finds it: after its last byte, or before the first byte that does not continue
 * it (the decoder's error, after which that byte is read anew); -1 when all `length` bytes continue it and it
 * needs more.
 */
export function utf8SequenceEnd(bytes: Uint8Array, length: number): number {
  const lead = bytes[0]!;
  const size = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
  let lower = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
  let upper = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
  for (let i = 1; i < size; i++) {
    if (i === length) return -1;
    const byte = bytes[i]!;
    if (byte < lower || byte > upper) return i;
    lower = 0x80;
    upper = 0xbf;
  }
  return size;
}
