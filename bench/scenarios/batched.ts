/**
 * Group 13: batched reads and consumers (issue 18), written against the WHATWG classes. `ours` uses
 * fusestreams' `batches()`, `bytes()`, `text()` and `TextLineStream`; the other implementations do what
 * code without them does: `for await` over the stream, `new Response(stream).arrayBuffer()` / `.text()`, and
 * the npm `textlinestream` package (Deno std's TextLineStream) on native streams.
 *
 * Imported once per implementation (`batched.ts?impl=…`), like web.ts.
 * @module
 */
import { type Data, type Expect } from "../lib/catalog.ts";
import { pushInBursts } from "../lib/bursts.ts";
import { Tally } from "../lib/tally.ts";
import type { Bench, WebImpl } from "./web.ts";

/** What fusestreams adds (ours only). */
export interface BatchedExtras {
  batches<T>(stream: ReadableStream<T>): AsyncIterable<T[]>;
  bytes(stream: ReadableStream<Uint8Array>): Promise<Uint8Array>;
  text(stream: ReadableStream<Uint8Array>): Promise<string>;
  TextLineStream: new () => TransformStream<string, string>;
  /** The runtime adapters' toNativeReadableStream (adapters/kit/to-native.ts), when the build has it. */
  toNativeReadableStream?: <T>(stream: ReadableStream<T>) => ReadableStream<T>;
}

/** A TextLineStream class for the implementations without one of their own. */
export type LineStreamClass = new () => TransformStream<string, string>;

/** Bursts of this many enqueue()s per task in batch-push. */
export const BURST = 64;

/** 1 KiB strings of 80-byte lines (79 characters and "\n"), built once per data size; and the expected lines. */
interface LineData {
  strings: string[];
  lines: number;
  expect: Expect;
}
const lineCache = new Map<number, LineData>();

export function lineData(data: Data): LineData {
  let cached = lineCache.get(data.bytes);
  if (cached) return cached;
  const letters = new TextDecoder().decode(data.chunks[0]!).replace(/[^a-z ]/g, "x");
  let all = "";
  let k = 0;
  while (all.length < data.bytes) {
    let line = "";
    while (line.length < 79) line += letters[k++ % letters.length];
    all += `${line}\n`;
  }
  const strings: string[] = [];
  for (let i = 0; i < all.length; i += data.size) strings.push(all.slice(i, i + data.size));
  const tally = new Tally();
  const lines = all.split("\n").slice(0, -1);
  for (const line of lines) tally.addAscii(line);
  cached = { strings, lines: lines.length, expect: { bytes: tally.bytes, sum: tally.sum } };
  lineCache.set(data.bytes, cached);
  return cached;
}

/** The benchmark for scenario `id` (group 13), or undefined when the implementation has no equivalent. */
export function build(
  id: string,
  impl: WebImpl,
  data: Data,
  extras: BatchedExtras | undefined,
  lineStream: LineStreamClass | undefined,
): Bench | undefined {
  const { ReadableStream: RS } = impl;
  const { chunks, count, expect } = data;

  /** The read-loop row's source with highWaterMark 16: pull() enqueues the next chunk, closing after the last. */
  function pullSource(): ReadableStream<Uint8Array> {
    let i = 0;
    return new RS<Uint8Array>({
      pull(controller) {
        controller.enqueue(chunks[i++]!);
        if (i === count) controller.close();
      },
    }, { highWaterMark: 16 });
  }

  /** The React/network pattern: bursts of BURST enqueue()s from the controller captured in start(), one per task. */
  function pushSource(): ReadableStream<Uint8Array> {
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const stream = new RS<Uint8Array>({
      start(c) {
        controller = c;
      },
    }, { highWaterMark: 16 });
    pushInBursts(count, BURST, (i) => controller.enqueue(chunks[i]!), () => controller.close());
    return stream;
  }

  async function consume(stream: ReadableStream<Uint8Array>, what: string): Promise<void> {
    const tally = new Tally();
    if (extras) {
      for await (const batch of extras.batches(stream)) for (let k = 0; k < batch.length; k++) tally.add(batch[k]!);
    } else {
      for await (const chunk of stream) tally.add(chunk);
    }
    tally.check(expect, what);
  }

  switch (id) {
    case "batch-pull":
      return { run: () => consume(pullSource(), "batch-pull") };

    case "batch-push":
      return { run: () => consume(pushSource(), "batch-push") };

    case "to-native-pull":
    case "to-native-push": {
      // ours: the bridge a native API gets our stream through, read by the runtime's own for-await
      if (extras && !extras.toNativeReadableStream) return undefined;
      const push = id === "to-native-push";
      return {
        async run() {
          const source = push ? pushSource() : pullSource();
          const stream = extras ? extras.toNativeReadableStream!(source) : source;
          const tally = new Tally();
          for await (const chunk of stream) tally.add(chunk);
          tally.check(expect, id);
        },
      };
    }

    case "consume-bytes":
      if (!extras && impl.ReadableStream !== globalThis.ReadableStream) return undefined; // Response takes native streams
      return {
        async run() {
          const tally = new Tally();
          if (extras) tally.add(await extras.bytes(pullSource()));
          else tally.add(new Uint8Array(await new Response(pullSource()).arrayBuffer()));
          tally.check(expect, "consume-bytes");
        },
      };

    case "consume-text":
      if (!extras && impl.ReadableStream !== globalThis.ReadableStream) return undefined;
      return {
        async run() {
          const tally = new Tally();
          tally.addAscii(extras ? await extras.text(pullSource()) : await new Response(pullSource()).text());
          tally.check(expect, "consume-text");
        },
      };

    case "text-lines": {
      const LineStream = extras?.TextLineStream ??
        (impl.ReadableStream === globalThis.ReadableStream ? lineStream : undefined);
      if (!LineStream) return undefined;
      const lines = lineData(data);
      const strings = lines.strings;
      return {
        note: extras ? undefined : "npm textlinestream 1.1.1 (Deno std's TextLineStream; JSR is not reachable here)",
        async run() {
          let i = 0;
          const source = new RS<string>({
            pull(controller) {
              controller.enqueue(strings[i++]!);
              if (i === strings.length) controller.close();
            },
          });
          const tally = new Tally();
          let n = 0;
          for await (const line of source.pipeThrough(new LineStream())) {
            tally.addAscii(line);
            n++;
          }
          if (n !== lines.lines) throw new Error(`text-lines: ${n} lines, expected ${lines.lines}`);
          tally.check(lines.expect, "text-lines");
        },
      };
    }
  }
  return undefined;
}
