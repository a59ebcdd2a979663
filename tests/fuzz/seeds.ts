/**
 * The fuzzer's seeds: the fixed ones every `npm test` runs, and a fresh base seed per run.
 * @module
 */

/** Seeds 1..FIXED_COUNT run in every `npm test`, on every runtime. */
export const FIXED_COUNT = 150;

/**
 * Every seed that ever failed on some runtime (a bug in ours, a wrong oracle, or a native deviation that had
 * to be written down), run in every `npm test`. Add each new one, with what it found.
 */
export const REGRESSION_SEEDS: readonly { seed: number; found: string }[] = [
  { seed: 11, found: "Node, Bun: byte controller pull() timing (native deviation)" },
  { seed: 20, found: "Node, Bun: byte controller pull() timing (native deviation)" },
  { seed: 134, found: "Node, Bun: byte controller pull() timing (native deviation)" },
  { seed: 218, found: "web-streams-polyfill throws from its own job (transform after the pipe cancelled it)" },
  { seed: 300, found: "Node 26, Bun: one pull() too many before a cancel (native deviation)" },
  { seed: 426, found: "Node 26: pipeTo() rejects with a TypeError when the sink fails after close (native deviation)" },
  { seed: 488, found: "Node 26, Deno: async iterator timing (native deviation)" },
  { seed: 622, found: "Node, Bun: byte controller pull() timing (native deviation)" },
  { seed: 726, found: "Node 26, Deno, web-streams-polyfill: async iterator timing" },
  { seed: 732, found: "Deno, Node 20/22: byte tee drops chunks read before an error (native deviation)" },
  { seed: 751, found: "Node 26, Bun: the extra pull() lets more writes complete before abort() (native deviation)" },
  { seed: 886, found: "Node 26, Deno: async iterator timing (native deviation)" },
  { seed: 900, found: "Node, Bun: byte controller pull() timing (native deviation)" },
  { seed: 937, found: "Node, Bun: byte controller pull() timing (native deviation)" },
  { seed: 972, found: "Node, Bun: byte controller pull() timing (native deviation)" },
  {
    seed: 1203,
    found: "Node 26: pipeTo() rejects with a TypeError when the sink fails after close (native deviation)",
  },
  { seed: 1219, found: "every native: writes completed before abort() after ReadableStream.from(async iterator)" },
  { seed: 1438, found: "Node: a failing write() errors the stream before a queued close() (native deviation)" },
  { seed: 1913, found: "web-streams-polyfill: async iterator timing" },
  { seed: 2030, found: "Node 26 only" },
  { seed: 2337, found: "Node 26 only" },
  { seed: 2409, found: "Node 26 only" },
  { seed: 2479, found: "Node 26 only" },
  { seed: 2834, found: "Node 26 only" },
  { seed: 3482, found: "Node 26 only" },
  { seed: 3824, found: "the oracle: terminate() on byte data cuts at a chunk boundary the oracle cannot know" },
  { seed: 4031, found: "piped: the repeated end events of a batched read follow the pipe's read-ahead" },
  { seed: 4255, found: "piped byte source: chunk boundaries follow the pipe's pace" },
  { seed: 4959, found: "Node 26: pipeTo() fails an internal assertion (ERR_INTERNAL_ASSERTION)" },
  { seed: 5930, found: "Deno: start()'s promise adopted at once (native deviation)" },
  { seed: 10607, found: "web-streams-polyfill: unhandled rejection from a cleared transform algorithm" },
  { seed: 11048, found: "Deno: teed default stream that errors (native deviation)" },
  { seed: 12201, found: "piped: a reader's release racing a fault" },
  { seed: 13658, found: "piped: a flush() in progress when a cancel from downstream arrives (generator)" },
  { seed: 18285, found: "Node 26: pipeTo() fails an internal assertion (ERR_INTERNAL_ASSERTION)" },
  { seed: 22258, found: "Node: tee branch closes a macrotask late (native deviation)" },
  {
    seed: 213587485,
    found: "ours: from(sync iterator) whose next() throws errored the stream 3 jobs early (core fix)",
  },
  {
    seed: 257600376,
    found: "ours (Bun), reference, Node, Deno: byte tee responded to a BYOB read after the source errored (core fix)",
  },
  { seed: 257615052, found: "Node 26: from(array) takes fewer jobs than the async-from-sync steps (native deviation)" },
  {
    seed: 257675777,
    found: "ours (Bun), reference, Node, Deno: byte tee responded to a BYOB read after the source errored (core fix)",
  },
  {
    seed: 290742786,
    found: "piped: the follow-up cancel of a tee branch after a preventCancel pipe follows the read-ahead",
  },
  {
    seed: 763261046,
    found:
      "Bun 1.4.5's own byte tee aborted the process (a BYOB read of a branch, the source erroring): native is not run where it is not compared",
  },
  {
    seed: 408013503,
    found:
      "piped: whether an aborted pipe with a tee upstream settles (its cancel of the branch) follows the read-ahead",
  },
];

/** A fresh base seed: different on every call (not reproducible on purpose; it is printed so it can be). */
export function freshSeed(): number {
  const words = new Uint32Array(1);
  crypto.getRandomValues(words);
  // Away from the fixed and regression seeds, and small enough to type.
  return 10_000 + (words[0]! % 1_000_000_000);
}
