/**
 * The differential fuzzer: a seed becomes a program (program.ts), the program runs against fusestreams'
 * classes (mod.ts) and against the runtime's native ones (the globals, captured when this module loads),
 * and the two outcomes are judged (compare.ts).
 *
 * Used by fuzz.test.ts (a bounded number of seeds in `npm test`) and run.ts (any seed and count).
 * @module
 */
import * as mod from "../../mod.ts";
import { differences, invariants, type Normalization, orderDifferences } from "./compare.ts";
import { type Impl, implOf, type Outcome, type RunOptions, runProgram } from "./interpret.ts";
import { type Delay, describe, faultOrigin, generate, type Program } from "./program.ts";
import { REFERENCE, referenceDeviation } from "./reference.ts";

/** The runtime's own classes, captured before anything could replace the globals. */
export const NATIVE: Impl = implOf("native", globalThis);

/** fusestreams' classes. */
export const OURS: Impl = implOf("ours", mod);

/** "node 26.10.0", "deno 2.9.6", "bun 1.4.5". */
export function runtimeName(): string {
  const g = globalThis as {
    Deno?: { version: { deno: string } };
    Bun?: { version: string };
    process?: { versions?: { node?: string } };
  };
  if (g.Deno) return `deno ${g.Deno.version.deno}`;
  if (g.Bun) return `bun ${g.Bun.version}`;
  return `node ${g.process?.versions?.node ?? "?"}`;
}

/** true when some callback of the program can return a promise (a delay other than "sync", a rejecting write). */
function asyncCallbacks(p: Program, which: "start" | "pullWrite"): boolean {
  const d = (x: Delay): boolean => x !== "sync";
  const s = p.source;
  const c = p.consumer;
  const sink = c.kind === "writer" || c.kind === "pipeTo" ? c.sink : undefined;
  if (which === "start") {
    return (
      (s.kind === "default" && d(s.startDelay)) ||
      p.stages.some((st) => st.kind === "transform" && d(st.startDelay)) ||
      (sink !== undefined && d(sink.startDelay))
    );
  }
  return (
    (s.kind !== "from" && s.delivery === "pull" && d(s.pullDelay)) ||
    p.stages.some((st) => st.kind === "transform" && d(st.delay)) ||
    (sink !== undefined && (d(sink.writeDelay) || sink.fault?.how === "reject"))
  );
}

/**
 * true when the outcome depends on how two promise chains interleave: something fails, aborts, cancels or
 * releases part-way (with no such event, every chunk arrives everywhere whatever the interleaving).
 */
function racy(p: Program): boolean {
  const c = p.consumer;
  return faultOrigin(p) !== Number.POSITIVE_INFINITY || (c.kind === "reader" && c.releaseAt !== undefined);
}

/**
 * Known deviations of native implementations from the standard, each found by this fuzzer, measured with a
 * small program that counts microtasks (tests/fuzz/README.md), and confirmed by the reference (ours agrees
 * with it on every such program): on the runtimes listed, what the deviation changes is normalized away
 * before ours is compared with native. Ours is still held to every invariant and compared with the reference
 * on every program, and with native on the runtimes and programs not listed.
 */
export const NATIVE_DEVIATIONS: readonly {
  runtimes: RegExp;
  applies: (p: Program) => boolean;
  normalization: Normalization;
  what: string;
}[] = [
  {
    runtimes: /^(node |bun )/,
    applies: (p) => p.source.kind === "bytes",
    normalization: { skip: true },
    what: "Node, Bun: a ReadableByteStreamController calls pull() at other times than the standard (Node: again " +
      "before the read it just filled has been delivered, so the next pull() finds no byobRequest and " +
      "enqueues; Bun: once more before a cancel), so bytes arrive in other chunk boundaries, with more or " +
      "fewer pull()/respond() calls, and every count-triggered fault (cancel after k reads, a sink failing at " +
      "write k) lands elsewhere (seeds 11, 20, 134, 622, 900, 937, 972)",
  },
  {
    runtimes: /^(node 2[4-9]|bun )/,
    applies: (p) => p.source.kind === "default",
    normalization: { pullCount: true },
    what: "Node 26, Bun: a promise returned by pull() (or write()) is adopted at once, not through the two jobs " +
      "of Web IDL's promise conversion (pull() k+1 runs 1 microtask after pull() k's promise settles, the " +
      "standard's 3), so a default controller calls pull() once more before reads already satisfied are " +
      "delivered, e.g. just before a cancel (seeds 300, 2337, 4035, 6202)",
  },
  {
    runtimes: /^(node 2[4-9]|bun |deno )/,
    applies: (p) => racy(p) && asyncCallbacks(p, "pullWrite"),
    normalization: { skip: true },
    what: "Node 26, Bun, Deno: (the same adoption) a promise returned by pull(), write() or transform() is adopted " +
      "in 0 jobs (Node 26, Bun) or 1 (Deno) instead of 2, so when something fails, aborts, cancels or " +
      "releases part-way, more or fewer chunks get through first (seeds 751, 2347, 4395, 4816, 5926, 7493, 9765)",
  },
  {
    runtimes: /^(node 2[4-9]|bun )/,
    applies: (p) =>
      p.source.kind === "default" &&
      (p.source.sizeThrowAt !== undefined || (p.consumer.kind === "writer" && p.consumer.abortAt !== undefined)),
    normalization: { skip: true },
    what: "Node 26, Bun: (the early pull() above) a chunk the standard hands straight to a pending read is " +
      "queued instead, so size() runs for it and a throwing size() errors the stream sooner (seeds 2834, " +
      "5327); the extra chunk read ahead lets more writes complete before a writer's abort() (seed 751)",
  },
  {
    runtimes: /^deno /,
    applies: (p) => racy(p) && asyncCallbacks(p, "start"),
    normalization: { skip: true },
    what: "Deno: a promise returned by start() is adopted at once (the stream starts 1 microtask after it " +
      "settles, the standard's 3), so a fault right after start lets fewer chunks through (seeds 5930, " +
      "7077, 9539)",
  },
  {
    runtimes: /^(node |deno )/,
    applies: (p) => racy(p) && p.source.kind === "from",
    normalization: { skip: true },
    what: "Node, Deno: ReadableStream.from() adopts the promise of the iterator's next() without the two jobs of " +
      'Web IDL\'s "a promise resolved with" (a read is fulfilled 2 (Node 26), 2-3 (Node 22) or 3 (Deno) ' +
      "microtasks after next() instead of 4), so it races other chains differently: seed 1219, " +
      "ReadableStream.from(async generator) into a writer that aborts, completes 11 writes by the standard " +
      "(and the reference), 7 on Node 26, 8 on Node 22 and Deno (seeds 1219, 2030, 4792, 5041; an array " +
      "goes through the same async-from-sync steps: seed 257615052)",
  },
  {
    runtimes: /^node /,
    applies: (p) => racy(p) && p.stages.some((st) => st.kind === "tee"),
    normalization: { skip: true },
    what: "Node: a branch of tee() closes a macrotask after the source closes (after the whole microtask queue " +
      "has run) instead of in the job that reads the close, so a reader released or cancelled right at the " +
      "end finds the branch still open (closed rejects with a TypeError, or cancel() reaches the source), and " +
      "an error overtakes another number of chunks (seeds 2409, 3482, 4868, 5095, 6853, 7724, 8136, 8345, 22258)",
  },
  {
    runtimes: /^deno /,
    applies: (p) => racy(p) && p.source.kind !== "bytes" && p.stages.some((st) => st.kind === "tee"),
    normalization: { skip: true },
    what: "Deno: when a teed default stream errors, the branch that is read receives one chunk more or fewer before " +
      "the error than the standard's ReadableStreamDefaultTee delivers, and a branch reader released right " +
      "after the last chunk finds its closed promise fulfilled (seeds 11048, 14829, 19391, 20135; seen with an " +
      "ignored second branch or a tee of a tee; not isolated further)",
  },
  {
    runtimes: /^(node |deno )/,
    applies: (p) => p.consumer.kind === "iterate",
    normalization: { skip: true },
    what: "Node, Deno: the async iterator hands over results at other job boundaries than Web IDL's next() " +
      "(Node 26 and Deno skip the reaction between the read and next()'s result; Node 22 calls pull() " +
      "sooner and drops a chunk already handed to a pending read when the stream errors in the same job), so " +
      "pull() runs at other times and an error overtakes another number of chunks (seeds 488, 726, 886, " +
      "1913, 2184, 2610, 5591, 7918, 9090)",
  },
  {
    runtimes: /^node /,
    applies: (p) => p.consumer.kind === "writer" && p.consumer.sink.fault !== undefined,
    normalization: { skip: true },
    what: "Node: a sink's failing write() errors the WritableStream sooner than the standard, so a close() " +
      "that the standard queues behind it (and rejects with the sink's error) finds the stream errored and " +
      "rejects with a TypeError (seed 1438)",
  },
  {
    runtimes: /^node 2[4-9]/,
    applies: (p) => p.consumer.kind === "pipeTo" && p.consumer.sink.fault !== undefined,
    normalization: { skip: true },
    what: "Node 26: when the sink fails after the source has closed, pipeTo() rejects with a TypeError instead " +
      "of the sink's error (WritableStreamDefaultWriterCloseWithErrorPropagation returns the stored error) " +
      "(seeds 426, 1203)",
  },
  {
    runtimes: /^deno /,
    applies: (p) => p.source.kind === "bytes" && p.source.error !== undefined && p.stages.some((s) => s.kind === "tee"),
    normalization: { skip: true },
    what: "Deno: the branches of a teed byte stream receive fewer of the chunks read before the source errors " +
      "than the standard's ReadableByteStreamTee delivers (seed 732; Node 20/22 too)",
  },
];

/**
 * Failures of an implementation inside its own code (not a streams outcome): then there is nothing to compare
 * with. Known ones: Node 26's pipeTo() fails an internal assertion in writableStreamDefaultWriterWriteWithRequest
 * (ERR_INTERNAL_ASSERTION, an unhandled rejection; seeds 4959, 18285); web-streams-polyfill calls a transform
 * algorithm its cancel has already cleared ("_transformAlgorithm is not a function", thrown from one of its jobs
 * or an unhandled rejection; seeds 218, 10607, 15892, 17575).
 */
const INTERNAL_FAILURES: readonly RegExp[] = [/\[ERR_INTERNAL_ASSERTION\]/, /_transformAlgorithm is not a function/];

/** Why an outcome cannot be compared (its implementation failed internally), or undefined. */
export function internalFailure(o: Outcome): string | undefined {
  const crash = o.channels["crash"];
  if (crash) return crash.events.join("; ");
  return o.unhandledText.find((t) => INTERNAL_FAILURES.some((re) => re.test(t)));
}

/** The outcome reported for native when a program is not run on it. */
const NOT_RUN: Outcome = { channels: {}, log: [], stalled: false, unhandled: [], unhandledText: [] };

/** The normalization for a program on a runtime, and the deviations it accounts for. */
export function nativeDeviation(
  p: Program,
  runtime: string = runtimeName(),
): { normalization: Normalization; what: string[] } {
  const normalization: Normalization = {};
  const what: string[] = [];
  for (const d of NATIVE_DEVIATIONS) {
    if (!d.runtimes.test(runtime) || !d.applies(p)) continue;
    Object.assign(normalization, d.normalization);
    what.push(d.what);
  }
  return { normalization, what };
}

export interface CaseReport {
  seed: number;
  program: Program;
  ours: Outcome;
  native: Outcome;
  /** the outcome on the reference implementation (web-streams-polyfill), unless options.reference is false */
  reference?: Outcome;
  /** problems that make the case fail: ours' invariant violations and ours-vs-native/reference differences */
  failures: string[];
  /** information: native's own invariant violations, a skipped comparison, global-order differences */
  notes: string[];
}

export interface CaseOptions extends RunOptions {
  /** the reference implementation to compare with (default: REFERENCE; false: none) */
  reference?: Impl | false;
  /** also report differences in the global interleaving (information, never a failure) */
  strict?: boolean;
  /** note which native and reference deviations were normalized away */
  verboseNotes?: boolean;
}

/**
 * Runs one program against fusestreams, the runtime's native streams and the reference implementation, and
 * judges it: ours must satisfy every invariant, and agree with native and with the reference except for what
 * their known deviations (NATIVE_DEVIATIONS here, REFERENCE_DEVIATIONS in reference.ts) leave out.
 */
export async function runCase(program: Program, options: CaseOptions = {}): Promise<CaseReport> {
  const ours = await runProgram(program, OURS, options);
  const deviation = nativeDeviation(program);
  // A program native is not compared on is not run on native either: Bun 1.4.5's own byte streams abort the
  // process on some of them (a byte tee whose source errors while a branch has a BYOB read, seed 763261046).
  const compareNative = deviation.normalization.skip !== true;
  const native = compareNative ? await runProgram(program, NATIVE, options) : NOT_RUN;
  const failures = invariants(program, ours).map((x) => `ours: ${x}`);
  const notes = compareNative
    ? invariants(program, native).map((x) => `native: ${x}`)
    : ["native: not run (a known deviation leaves it uncompared)"];
  const nativeFailure = compareNative ? internalFailure(native) : undefined;
  if (nativeFailure) notes.push(`native failed internally (${nativeFailure}): not compared`);
  else if (compareNative) {
    failures.push(...differences(program, ours, native, deviation.normalization).map((d) => `vs native: ${d}`));
  }
  if (options.verboseNotes) { for (const w of deviation.what) notes.push(`normalized (native deviation): ${w}`); }
  if (options.strict) notes.push(...orderDifferences(ours, native));
  const referenceImpl = options.reference === undefined ? REFERENCE : options.reference;
  let reference: Outcome | undefined;
  if (referenceImpl) {
    reference = await runProgram(program, referenceImpl, options);
    const refDeviation = referenceDeviation(program);
    const referenceFailure = internalFailure(reference);
    if (referenceFailure) {
      notes.push(`reference failed internally (${referenceFailure}): not compared`);
    } else {
      failures.push(
        ...differences(program, ours, reference, refDeviation.normalization, "reference").map((d) =>
          `vs reference: ${d}`
        ),
      );
    }
    if (options.verboseNotes) {
      for (const w of refDeviation.what) notes.push(`normalized (reference deviation): ${w}`);
    }
    if (options.strict) notes.push(...orderDifferences(ours, reference).map((d) => `ours vs reference: ${d}`));
  }
  return { seed: program.seed, program, ours, native, reference, failures, notes };
}

/** Runs the program of one seed. */
export function runSeed(seed: number, options: CaseOptions = {}): Promise<CaseReport> {
  return runCase(generate(seed), options);
}

function channelsText(o: Outcome): string {
  const lines: string[] = [];
  for (const [name, c] of Object.entries(o.channels).sort(([a], [b]) => (a < b ? -1 : 1))) {
    lines.push(`    ${name}: chunks [${c.chunks.join(" ")}]`);
    lines.push(`    ${" ".repeat(name.length)}  events ${c.events.join(" | ")}`);
    if (c.settled.length > 0) lines.push(`    ${" ".repeat(name.length)}  settled ${c.settled.join(" | ")}`);
  }
  if (o.stalled) lines.push("    STALLED");
  if (o.unhandled.length > 0) lines.push(`    unhandled: ${o.unhandled.join(", ")}`);
  return lines.join("\n");
}

/** A report as text: seed, program, problems and (verbose, or on failure) both outcomes. */
export function formatReport(r: CaseReport, verbose = false): string {
  const lines = [`seed ${r.seed}: ${r.failures.length > 0 ? "FAIL" : "ok"}`, `  program: ${describe(r.program)}`];
  for (const f of r.failures) lines.push(`  - ${f}`);
  for (const n of r.notes) lines.push(`  (note) ${n}`);
  if (verbose || r.failures.length > 0) {
    lines.push("  ours:", channelsText(r.ours), "  native:", channelsText(r.native));
    if (r.reference) lines.push("  reference:", channelsText(r.reference));
  }
  return lines.join("\n");
}
