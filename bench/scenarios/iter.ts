/**
 * The `iter` implementation: Node 26's `node:stream/iter` (batched `Uint8Array[]` iteration, behind
 * `--experimental-stream-iter`, which bench/run.ts passes to Node 26 when `iter` is selected), over the same
 * node:stream Readables as the `node` rows. A reference line for group 13, not a WHATWG implementation.
 * @module
 */
import { Buffer } from "node:buffer";
import type { Readable } from "node:stream";
import { type Data } from "../lib/catalog.ts";
import { burstReadable, pullReadable } from "../lib/node-sources.ts";
import { Tally } from "../lib/tally.ts";

/** The parts of node:stream/iter used here. */
export interface StreamIter {
  from(source: unknown): AsyncIterable<Uint8Array[]>;
  bytes(source: AsyncIterable<Uint8Array[]>): Promise<Uint8Array>;
  text(source: AsyncIterable<Uint8Array[]>): Promise<string>;
}

/** One runnable benchmark. */
export interface IterBench {
  run: () => Promise<void>;
}

/** The node:stream/iter benchmark for scenario `id`, or undefined. */
export function build(id: string, data: Data, iter: StreamIter): IterBench | undefined {
  const { expect } = data;
  const buffers = data.chunks.map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength));

  const source = (): Readable => pullReadable(buffers);
  const burstSource = (): Readable => burstReadable(buffers, 64);

  async function consume(readable: Readable, what: string): Promise<void> {
    const tally = new Tally();
    for await (const batch of iter.from(readable)) for (let k = 0; k < batch.length; k++) tally.add(batch[k]!);
    tally.check(expect, what);
  }

  switch (id) {
    case "batch-pull":
      return { run: () => consume(source(), "stream/iter from(Readable)") };
    case "batch-push":
      return { run: () => consume(burstSource(), "stream/iter from(Readable), bursts") };
    case "consume-bytes":
      return {
        async run() {
          const tally = new Tally();
          tally.add(await iter.bytes(iter.from(source())));
          tally.check(expect, "stream/iter bytes()");
        },
      };
    case "consume-text":
      return {
        async run() {
          const tally = new Tally();
          tally.addAscii(await iter.text(iter.from(source())));
          tally.check(expect, "stream/iter text()");
        },
      };
  }
  return undefined;
}
