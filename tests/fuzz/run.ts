/**
 * The differential fuzzer on demand: any seed, any count, on whatever runtime runs this file.
 *
 *   node tests/fuzz/run.ts [--seed=N] [--count=M] [--verbose] [--strict] [--quiet]
 *   deno run -A tests/fuzz/run.ts ...        bun tests/fuzz/run.ts ...
 *   node tests/fuzz/run.ts --program='<json>'   replay one (hand-edited) program, as printed on failure
 *   ... --reference=/abs/path/ref.cjs            also run failing cases on a third implementation
 *
 * Seeds N, N+1, ..., N+M-1 (default N=1, M=200). Prints every failing case (seed, program, problems, both
 * outcomes), with --verbose every case, with --strict also global-order differences (information only),
 * and last a line "N passed, M failed". Exit code 1 when anything failed.
 * @module
 */
import { formatReport, runCase, runSeed, runtimeName } from "./fuzz.ts";
import type { Impl } from "./interpret.ts";
import type { Program } from "./program.ts";

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

const seed = Number(option("seed") ?? 1);
const count = Number(option("count") ?? 200);
const verbose = flag("verbose");
const strict = flag("strict");
const quiet = flag("quiet");
const programJson = option("program");
// --reference=<module>: a module exporting ReadableStream, WritableStream, TransformStream and the two
// strategies (e.g. a local build of the WHATWG reference implementation, kept outside this repository).
// Failing cases then also run against it and say which side it agrees with.
const referencePath = option("reference");
let reference: Impl | undefined;
if (referencePath !== undefined) {
  const m = (await import(referencePath.startsWith("/") ? `file://${referencePath}` : referencePath)) as Record<string, unknown>;
  const classes = (m["default"] ?? m) as Omit<Impl, "name">;
  reference = { ...classes, name: "reference" };
}

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
  for (let s = seed; s < seed + count; s++) {
    const report = await runSeed(s, { strict, reference, verboseNotes: verbose });
    if (report.failures.length > 0) {
      failed++;
      failedSeeds.push(s);
      console.log(formatReport(report, verbose));
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
