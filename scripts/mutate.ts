/**
 * A mutation check you can rerun (not part of `npm test`): applies named bugs, one at a time, to a temporary
 * copy of the repository and reports which tests catch each: the core unit tests (tests/unit/*.test.ts except
 * the runtime adapters' and the fuzz file) and the differential fuzzer (tests/fuzz/run.ts, fixed seeds).
 *
 *   node scripts/mutate.ts [--only=name,...] [--fuzz-cases=N] [--runtime=node26|node22|deno|bun]
 *
 * Each mutation is a text substitution that must match exactly once (a mutation that no longer applies is
 * reported, not skipped). An unmutated baseline runs first and must be clean. The table it prints last is the
 * one in tests/README.md. Exit code 1 when a mutation is missed by the unit tests or by the fuzz.
 * @module
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { BIN, rootPath, run, stripAnsi } from "./lib.ts";

interface Mutation {
  name: string;
  what: string;
  file: string;
  find: string;
  replace: string;
}

/** The planted bugs. `find` must occur exactly once in `file`. */
export const MUTATIONS: readonly Mutation[] = [
  {
    name: "transform-drops-chunk",
    what: "TransformStreamDefaultControllerEnqueue silently drops every 7th chunk it is given",
    file: "core/transform/transform-stream.ts",
    find: "function TransformStreamDefaultControllerEnqueue(c: TransformStreamInternal, chunk: unknown): void {\n",
    replace:
      "let mutantEnqueues = 0;\nfunction TransformStreamDefaultControllerEnqueue(c: TransformStreamInternal, chunk: unknown): void {\n  if (++mutantEnqueues % 7 === 3) return;\n",
  },
  {
    name: "tee-swapped-pair",
    what: "ReadableStream.prototype.tee() (default streams) returns its two branches the other way round",
    file: "core/readable/tee.ts",
    find: "  return [tee.branch1, tee.branch2];",
    replace: "  return [tee.branch2, tee.branch1];",
  },
  {
    name: "queue-lossy-growth",
    what: "RingQueue's #grow copies one element too few (the last one is lost when a full queue grows)",
    file: "core/shared/queue.ts",
    find: "for (let i = 0; i < cap; i++) next[i] = old[(this.#head + i) & this.#mask];",
    replace: "for (let i = 0; i < cap - 1; i++) next[i] = old[(this.#head + i) & this.#mask];",
  },
  {
    name: "queue-head-ignored",
    what: "RingQueue's #grow copies from index 0 instead of the head (reorders after wrapping)",
    file: "core/shared/queue.ts",
    find: "for (let i = 0; i < cap; i++) next[i] = old[(this.#head + i) & this.#mask];",
    replace: "for (let i = 0; i < cap; i++) next[i] = old[i];",
  },
  {
    name: "abort-reason-lost",
    what: "WritableStreamFinishErroring calls the sink's abort() with undefined instead of the abort reason",
    file: "core/writable/stream-internal.ts",
    find: "const result = controller.algorithms!.abort(abortRequest.reason);",
    replace: "const result = controller.algorithms!.abort(undefined);",
  },
  {
    name: "default-extra-pull",
    what: "ReadableStreamDefaultControllerShouldCallPull pulls while desiredSize is 0 (one pull() too many)",
    file: "core/readable/default-controller.ts",
    find: "  return c.strategyHWM - c.queueTotalSize > 0;\n}",
    replace: "  return c.strategyHWM - c.queueTotalSize >= 0;\n}",
  },
  {
    name: "byte-extra-pull",
    what: "ReadableByteStreamControllerShouldCallPull pulls while desiredSize is 0 (one pull() too many)",
    file: "core/readable/byte-controller.ts",
    find: "  return c.strategyHWM - c.queueTotalSize > 0;\n}",
    replace: "  return c.strategyHWM - c.queueTotalSize >= 0;\n}",
  },
];

const argv = process.argv.slice(2);
const opt = (name: string): string | undefined => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const only = opt("only")?.split(",");
const fuzzCases = Number(opt("fuzz-cases") ?? 2000);
const runtime = opt("runtime") ?? "node26";
const RUNTIME_CMD: Record<string, [string, string[]]> = {
  node26: [BIN.node26, []],
  node22: [BIN.node22, []],
  deno: [BIN.deno, ["run", "-A"]],
  bun: [BIN.bun, []],
};
if (!RUNTIME_CMD[runtime]) throw new RangeError(`--runtime must be one of ${Object.keys(RUNTIME_CMD).join(", ")}`);
const [cmd, prefix] = RUNTIME_CMD[runtime]!;

/** The core unit tests: everything in tests/unit except the runtime adapters' files and the fuzz entry. */
function coreUnitFiles(root: string): string[] {
  return readdirSync(join(root, "tests", "unit"))
    .filter((f) => f.endsWith(".test.ts") && !f.startsWith("node-adapter") && f !== "fuzz.test.ts")
    .sort()
    .map((f) => join("tests", "unit", f));
}

/** A copy of the repository without node_modules (linked), .git, dist and .tmp. */
function makeCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), "fusestreams-mutate-"));
  const root = rootPath();
  for (const entry of readdirSync(root)) {
    if (["node_modules", ".git", "dist", ".tmp", ".wpt-results"].includes(entry)) continue;
    cpSync(join(root, entry), join(dir, entry), { recursive: true });
  }
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"), "dir");
  return dir;
}

interface Result {
  unitFailed: string[];
  unitCrashed: boolean;
  fuzzFailed: number[];
  fuzzCrashed: boolean;
}

/** Runs unit test files in one process: the names of the failed tests, and whether the process ended early. */
async function runUnit(dir: string, files: string[]): Promise<{ failed: string[]; crashed: boolean }> {
  const unit = await run(cmd, [...prefix, "scripts/unit.ts", ...files], { cwd: dir, echo: false, timeoutMs: 600_000 });
  const text = stripAnsi(unit.output);
  const failed = [...text.matchAll(/FAIL\s+"(.*)"/g)].map((m) => m[1]!);
  return { failed, crashed: !/^\s*Total:\s+\d+/m.test(text) || (unit.code !== 0 && failed.length === 0) };
}

async function check(dir: string): Promise<Result> {
  const files = coreUnitFiles(dir);
  let { failed: unitFailed, crashed: unitCrashed } = await runUnit(dir, files);
  if (unitCrashed) {
    // A mutant that throws from a timer or a job ends the one-process run at that file, and the files after it
    // report nothing: run every file in a process of its own, so that each one's failures are counted.
    unitFailed = [];
    for (const file of files) unitFailed.push(...(await runUnit(dir, [file])).failed);
  }
  const fuzz = await run(cmd, [...prefix, "tests/fuzz/run.ts", "--seed=1", `--cases=${fuzzCases}`, "--quiet"], {
    cwd: dir,
    echo: false,
    timeoutMs: 600_000,
  });
  const seeds = /^failed seeds: (.*)$/m.exec(fuzz.output)?.[1]?.split(" ").map(Number) ?? [];
  const fuzzCrashed = !/^\d+ passed, \d+ failed$/m.test(fuzz.output);
  return { unitFailed, unitCrashed, fuzzFailed: seeds, fuzzCrashed };
}

function summary(list: readonly (string | number)[], max: number): string {
  if (list.length === 0) return "none";
  const head = list.slice(0, max).join(", ");
  return list.length > max ? `${head}, ... (${list.length})` : `${head} (${list.length})`;
}

const dir = makeCopy();
console.log(
  `mutate: copy in ${dir}; ${runtime}; fuzz seeds 1..${fuzzCases}; core unit files: ${coreUnitFiles(dir).length}`,
);
const rows: string[] = [];
let missed = 0;
try {
  const base = await check(dir);
  console.log(
    `baseline: unit ${base.unitFailed.length} failed${
      base.unitCrashed ? " (crashed)" : ""
    }, fuzz ${base.fuzzFailed.length} failed${base.fuzzCrashed ? " (crashed)" : ""}`,
  );
  if (base.unitFailed.length > 0 || base.unitCrashed || base.fuzzFailed.length > 0 || base.fuzzCrashed) {
    console.log("the unmutated copy is not clean: fix that first");
    process.exitCode = 1;
  } else {
    for (const m of MUTATIONS) {
      if (only && !only.includes(m.name)) continue;
      const path = join(dir, m.file);
      const original = readFileSync(path, "utf8");
      const count = original.split(m.find).length - 1;
      if (count !== 1) {
        console.log(`${m.name}: does not apply (${count} matches in ${m.file})`);
        rows.push(`| \`${m.name}\` | ${m.what} | does not apply | | |`);
        missed++;
        continue;
      }
      writeFileSync(path, original.replace(m.find, m.replace));
      try {
        const r = await check(dir);
        const unitCaught = r.unitFailed.length > 0 || r.unitCrashed;
        const fuzzCaught = r.fuzzFailed.length > 0 || r.fuzzCrashed;
        if (!unitCaught || !fuzzCaught) missed++;
        const unitText = r.unitCrashed ? `crashed the run; ${summary(r.unitFailed, 2)}` : summary(r.unitFailed, 2);
        const fuzzText = r.fuzzCrashed ? "crashed the run" : summary(r.fuzzFailed, 6);
        console.log(
          `${m.name}: unit ${unitCaught ? "CAUGHT" : "missed"} (${unitText}); fuzz ${
            fuzzCaught ? "CAUGHT" : "missed"
          } (${fuzzText})`,
        );
        rows.push(
          `| \`${m.name}\` | ${m.what} | ${unitCaught ? "**caught**" : "missed"}: ${r.unitFailed.length} tests${
            r.unitCrashed ? " (the run crashed)" : ""
          }, e.g. ${r.unitFailed.slice(0, 1).map((n) => `"${n}"`).join("") || "-"} | ${
            fuzzCaught ? "**caught**" : "missed"
          }: ${fuzzText} |`,
        );
      } finally {
        writeFileSync(path, original);
      }
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`\n| mutation | bug | core unit tests (${runtime}) | fuzz, seeds 1..${fuzzCases} (${runtime}) |`);
console.log("| --- | --- | --- | --- |");
for (const row of rows) console.log(row);
console.log(`\n${rows.length - missed} of ${rows.length} mutations caught by both`);
if (missed > 0) process.exitCode = 1;
