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
import { type Impl, type Outcome, runProgram, type RunOptions } from "./interpret.ts";
import { describe, generate, type Program } from "./program.ts";
import { REFERENCE, referenceDeviation } from "./reference.ts";

/** The runtime's own classes, captured before anything could replace the globals. */
export const NATIVE: Impl = {
  name: "native",
  ReadableStream: globalThis.ReadableStream,
  WritableStream: globalThis.WritableStream,
  TransformStream: globalThis.TransformStream,
  CountQueuingStrategy: globalThis.CountQueuingStrategy,
  ByteLengthQueuingStrategy: globalThis.ByteLengthQueuingStrategy,
};

/** fusestreams' classes. */
export const OURS: Impl = {
  name: "ours",
  ReadableStream: mod.ReadableStream as unknown as Impl["ReadableStream"],
  WritableStream: mod.WritableStream as unknown as Impl["WritableStream"],
  TransformStream: mod.TransformStream as unknown as Impl["TransformStream"],
  CountQueuingStrategy: mod.CountQueuingStrategy as unknown as Impl["CountQueuingStrategy"],
  ByteLengthQueuingStrategy: mod.ByteLengthQueuingStrategy as unknown as Impl["ByteLengthQueuingStrategy"],
};

/** "node 26.10.0", "deno 2.9.6", "bun 1.4.5". */
export function runtimeName(): string {
  const g = globalThis as { Deno?: { version: { deno: string } }; Bun?: { version: string }; process?: { versions?: { node?: string } } };
  if (g.Deno) return `deno ${g.Deno.version.deno}`;
  if (g.Bun) return `bun ${g.Bun.version}`;
  return `node ${g.process?.versions?.node ?? "?"}`;
}

/**
 * Known deviations of native implementations from the standard, each found by this fuzzer and confirmed
 * against the WHATWG reference implementation (run.ts --reference): on the runtimes listed, what the
 * deviation changes is normalized away before ours is compared with native. Ours is still held to every
 * invariant, and compared without leniency on the runtimes not listed (Deno's native streams match the
 * reference implementation on everything compared here).
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
    what:
      "Node, Bun: a ReadableByteStreamController calls pull() at other times than the standard (Node: again " +
      "before the read it just filled has been delivered, so the next pull() finds no byobRequest and " +
      "enqueues; Bun: once more before a cancel), so bytes arrive in other chunk boundaries, with more or " +
      "fewer pull()/respond() calls, and every count-triggered fault (cancel after k reads, a sink failing at " +
      "write k) lands elsewhere (seeds 11, 20, 134, 622, 900, 937, 972): byte programs are not compared there",
  },
  {
    runtimes: /^(node 2[4-9]|bun )/,
    applies: (p) => p.source.kind === "default",
    normalization: { pullCount: true },
    what:
      "Node 26, Bun: a default controller calls pull() once more than the standard before reads that are " +
      "already satisfied have been delivered, e.g. just before a cancel (seed 300)",
  },
  {
    runtimes: /^(node 2[4-9]|bun )/,
    applies: (p) => p.source.kind === "default" && p.consumer.kind === "writer" && p.consumer.abortAt !== undefined,
    normalization: { skip: true },
    what:
      "Node 26, Bun: (same early pull()) the extra chunk read ahead lets more writes complete before the " +
      "writer's abort() (seed 751)",
  },
  {
    runtimes: /^(node 2[4-9]|deno )/,
    applies: (p) => p.consumer.kind === "iterate",
    normalization: { skip: true },
    what:
      "Node 26, Deno: the async iterator hands over a chunk that is already queued without the reaction job " +
      "the standard puts between the read and next()'s result, so pull() runs at other times and, when a " +
      "pull() throws, one more chunk gets through before the error (seeds 488, 726, 886; ours follows the " +
      "standard, as do Node 22, Bun and the reference implementation): iteration programs are not compared there",
  },
  {
    runtimes: /^node /,
    applies: (p) => p.consumer.kind === "writer" && p.consumer.sink.fault !== undefined,
    normalization: { skip: true },
    what:
      "Node: a sink's failing write() errors the WritableStream sooner than the standard, so a close() " +
      "that the standard queues behind it (and rejects with the sink's error) finds the stream errored and " +
      "rejects with a TypeError (seed 1438)",
  },
  {
    runtimes: /^node 2[4-9]/,
    applies: (p) => p.consumer.kind === "pipeTo" && p.consumer.sink.fault !== undefined,
    normalization: { skip: true },
    what:
      "Node 26: when the sink fails after the source has closed, pipeTo() rejects with a TypeError instead " +
      "of the sink's error (WritableStreamDefaultWriterCloseWithErrorPropagation returns the stored error) " +
      "(seeds 426, 1203)",
  },
  {
    runtimes: /^deno /,
    applies: (p) =>
      p.source.kind === "bytes" && p.source.error !== undefined && p.stages.some((s) => s.kind === "tee"),
    normalization: { skip: true },
    what:
      "Deno: the branches of a teed byte stream receive fewer of the chunks read before the source errors " +
      "than the standard's ReadableByteStreamTee delivers (seed 732; Node 20/22 too)",
  },
];

/** The normalization for a program on a runtime, and the deviations it accounts for. */
export function nativeDeviation(p: Program, runtime: string = runtimeName()): { normalization: Normalization; what: string[] } {
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
  const native = await runProgram(program, NATIVE, options);
  const failures = invariants(program, ours).map((x) => `ours: ${x}`);
  const notes = invariants(program, native).map((x) => `native: ${x}`);
  const deviation = nativeDeviation(program);
  failures.push(...differences(program, ours, native, deviation.normalization).map((d) => `vs native: ${d}`));
  if (options.verboseNotes) for (const w of deviation.what) notes.push(`normalized (native deviation): ${w}`);
  if (options.strict) notes.push(...orderDifferences(ours, native));
  const referenceImpl = options.reference === undefined ? REFERENCE : options.reference;
  let reference: Outcome | undefined;
  if (referenceImpl) {
    reference = await runProgram(program, referenceImpl, options);
    const refDeviation = referenceDeviation(program);
    if (reference.channels["crash"]) {
      // web-streams-polyfill throws from inside its own jobs in a few corner cases (README.md): nothing to compare.
      notes.push(`reference crashed (${reference.channels["crash"].events.join("; ")}): not compared`);
    } else {
      failures.push(...differences(program, ours, reference, refDeviation.normalization, "reference").map((d) => `vs reference: ${d}`));
    }
    if (options.verboseNotes) for (const w of refDeviation.what) notes.push(`normalized (reference deviation): ${w}`);
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
