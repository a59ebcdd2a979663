/**
 * node:stream Readables over the benchmark's chunks, shared by the `node` rows (scenarios/node.ts) and the
 * node:stream/iter rows (scenarios/iter.ts), so both read the very same sources.
 * @module
 */
import type { Buffer } from "node:buffer";
import { Readable } from "node:stream";
import { pushInBursts } from "./bursts.ts";

/** A Readable whose read() pushes the next chunk (and null after the last). */
export function pullReadable(buffers: readonly Buffer[]): Readable {
  let i = 0;
  return new Readable({
    read() {
      this.push(buffers[i++]);
      if (i === buffers.length) this.push(null);
    },
  });
}

/** A Readable fed from outside: push() bursts of `size` chunks, one burst per MessageChannel task. */
export function burstReadable(buffers: readonly Buffer[], size: number): Readable {
  const readable = new Readable({ read() {} });
  pushInBursts(buffers.length, size, (i) => readable.push(buffers[i]), () => readable.push(null));
  return readable;
}
