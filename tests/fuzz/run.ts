/**
 * The differential fuzzer on demand: any seed, any count, on whatever runtime runs this file
 * (`npm run fuzz` runs it on the runtimes you name, see scripts/fuzz.ts).
 *
 *   node tests/fuzz/run.ts [--seed=S] [--cases=N] [--verbose] [--strict] [--quiet] [--no-reference]
 *   deno run -A tests/fuzz/run.ts ...        bun tests/fuzz/run.ts ...
 *   node tests/fuzz/run.ts --program='<json>'   replay one (hand-edited) program, as printed on failure
 *
 * Seeds S, S+1, ..., S+N-1 (default: a fresh random S, printed first; N=200; --count is --cases). Each
 * program runs on fusestreams, the runtime's native streams and the reference implementation
 * (web-streams-polyfill, see reference.ts). Prints every failing case (seed, program, problems, the
 * outcomes), with --verbose every case, with --strict also global-order differences (information only),
 * and last a line "N passed, M failed". Exit code 1 when anything failed.
 * @module
 */
import { formatReport, runCase, runSeed, runtimeName } from "./fuzz.ts";
import type { Program } from "./program.ts";
import { freshSeed } from "./seeds.ts";

interface ProcessLike {
  argv: string[];
  exitCode?: number;
}
const g = globalThis as { Deno?: { args: string[]; exitCode: number }; process?: ProcessLike };
const args: string[] = g.Deno ? g.Deno.args : (g.process?.argv.slice(2) ?? []);

function option(name: string): string | undefined {
  const prefix = `--${name}=`;
  return args.find((a) => a.startsWith(prefix))?.slice(prefix.length);
}
const flag = (name: string): boolean => args.includes(`--${name}`);

function integer(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new RangeError(`--${name} must be a non-negative integer, got ${JSON.stringify(text)}`);
  }
  return n;
}

const seed = integer("seed", option("seed"), freshSeed());
const count = integer("cases", option("cases") ?? option("count"), 200);
const verbose = flag("verbose");
const strict = flag("strict");
const quiet = flag("quiet");
const reference = flag("no-reference") ? false : undefined;
const programJson = option("program");

let passed = 0;
let failed = 0;
const failedSeeds: number[] = [];
const started = performance.now();
if (programJson !== undefined) {
  const report = await runCase(JSON.parse(programJson) as Program, { strict, reference, verboseNotes: true });
  console.log(formatReport(report, true));
  if (report.failures.length > 0) failed++;
  else passed++;
} else {
  console.log(`fuzz on ${runtimeName()}: seeds ${seed}..${seed + count - 1} (base seed ${seed})`);
  for (let s = seed; s < seed + count; s++) {
    const report = await runSeed(s, { strict, reference, verboseNotes: verbose });
    if (report.failures.length > 0) {
      failed++;
      failedSeeds.push(s);
      console.log(formatReport(report, verbose));
      console.log(`  rerun: npm run fuzz -- --seed=${s} --cases=1 --verbose`);
    } else {
      passed++;
      if (verbose || (!quiet && report.notes.length > 0)) console.log(formatReport(report, verbose));
    }
  }
}
const secs = ((performance.now() - started) / 1000).toFixed(1);
console.log(`\nfuzz on ${runtimeName()}: seeds ${seed}..${seed + count - 1} in ${secs} s`);
if (failedSeeds.length > 0) console.log(`failed seeds: ${failedSeeds.join(" ")}`);
console.log(`${passed} passed, ${failed} failed`);
if (failed > 0) {
  if (g.Deno) g.Deno.exitCode = 1;
  else if (g.process) g.process.exitCode = 1;
}
