/**
 * UTF-8 encoding of short strings in JavaScript (FP-ENCODE-SHORT, core/README.md). A runtime's
 * `TextEncoder.prototype.encode` is a call into native code that allocates the result's buffer outside the
 * JavaScript heap: on Node.js about 300 ns whatever the length, several times the cost of encoding a few words
 * here, where V8 places a typed array of up to 64 bytes on its own heap. Whether and up to which length a string takes
 * this path is chosen per runtime by its adapter (`setShortEncoder` in `short-encode-hook.ts`), from measurement; the core
 * alone leaves it off, and a bundle without such an adapter leaves this module out.
 * @module
 */
import { NativeUint8Array } from "../shared/primordials.ts";

/**
 * UTF-8 encode (Encoding §9.1.1 `encode()`): `input`'s code units as UTF-8 in a new `Uint8Array` over an
 * ArrayBuffer of its own, a surrogate that is not half of a pair as U+FFFD (the USVString conversion), exactly as
 * `TextEncoder.prototype.encode` returns them; or undefined, having made nothing anyone sees, when the bytes
 * would be more than `maxBytes` (the caller then asks the runtime's encoder). Written for short strings: one pass
 * while the input is ASCII, a second buffer sized exactly once it is not.
 */
export function utf8EncodeShort(input: string, maxBytes: number): Uint8Array<ArrayBuffer> | undefined {
  const n = input.length;
  const ascii = new NativeUint8Array(n);
  let i = 0;
  for (; i < n; i++) {
    const unit = input.charCodeAt(i);
    if (unit >= 0x80) break;
    ascii[i] = unit;
  }
  if (i === n) return ascii;
  // The UTF-8 length of the rest: 2 bytes up to U+07FF, 4 for a surrogate pair, 3 for anything else (a lone
  // surrogate becomes U+FFFD, 3 bytes too).
  let size = i;
  for (let j = i; j < n; j++) {
    const unit = input.charCodeAt(j);
    if (unit < 0x80) size += 1;
    else if (unit < 0x800) size += 2;
    else if (unit <= 0xdbff && unit >= 0xd800 && j + 1 < n && (input.charCodeAt(j + 1) & 0xfc00) === 0xdc00) {
      size += 4;
      j++;
    } else size += 3;
  }
  if (size > maxBytes) return undefined;
  const out = new NativeUint8Array(size);
  for (let j = 0; j < i; j++) out[j] = ascii[j]!;
  let o = i;
  for (let j = i; j < n; j++) {
    const unit = input.charCodeAt(j);
    if (unit < 0x80) {
      out[o++] = unit;
    } else if (unit < 0x800) {
      out[o++] = 0xc0 | (unit >> 6);
      out[o++] = 0x80 | (unit & 0x3f);
    } else if (unit < 0xd800 || unit > 0xdfff) {
      out[o++] = 0xe0 | (unit >> 12);
      out[o++] = 0x80 | ((unit >> 6) & 0x3f);
      out[o++] = 0x80 | (unit & 0x3f);
    } else {
      const next = unit <= 0xdbff && j + 1 < n ? input.charCodeAt(j + 1) : 0;
      if ((next & 0xfc00) === 0xdc00) {
        const scalar = 0x10000 + ((unit - 0xd800) << 10) + (next - 0xdc00);
        out[o++] = 0xf0 | (scalar >> 18);
        out[o++] = 0x80 | ((scalar >> 12) & 0x3f);
        out[o++] = 0x80 | ((scalar >> 6) & 0x3f);
        out[o++] = 0x80 | (scalar & 0x3f);
        j++;
      } else {
        out[o++] = 0xef; // U+FFFD
        out[o++] = 0xbf;
        out[o++] = 0xbd;
      }
    }
  }
  return out;
}
