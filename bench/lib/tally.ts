/**
 * Running byte count and checksum of what one benchmark consumer received, checked against the scenario's
 * Expect after every iteration (shared by the web, node and node-adapter scenarios).
 * @module
 */
import { type Expect, STRIDE } from "./catalog.ts";

/** Byte count and checksum of what one consumer received. */
export class Tally {
  bytes = 0;
  next = 0;
  sum = 0;

  add(chunk: Uint8Array): void {
    const pos = this.bytes;
    const end = pos + chunk.byteLength;
    let next = this.next;
    if (next < end) {
      let sum = this.sum;
      do {
        sum = (Math.imul(sum, 31) + chunk[next - pos]! + 1) | 0;
        next += STRIDE;
      } while (next < end);
      this.sum = sum;
      this.next = next;
    }
    this.bytes = end;
  }

  /** The same fold over a string whose characters are all below 128 (one byte each in UTF-8). */
  addAscii(text: string): void {
    const pos = this.bytes;
    const end = pos + text.length;
    let next = this.next;
    let sum = this.sum;
    while (next < end) {
      sum = (Math.imul(sum, 31) + text.charCodeAt(next - pos) + 1) | 0;
      next += STRIDE;
    }
    this.sum = sum;
    this.next = next;
    this.bytes = end;
  }

  check(expect: Expect, what: string): void {
    if (this.bytes !== expect.bytes || this.sum !== expect.sum) {
      throw new Error(
        `verification failed (${what}): got ${this.bytes} bytes, checksum ${this.sum}; ` +
          `expected ${expect.bytes} bytes, checksum ${expect.sum}`,
      );
    }
  }
}
