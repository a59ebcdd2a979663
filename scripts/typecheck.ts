/**
 * Type checks (also run by scripts/test.ts):
 *   1. the whole project with tsconfig.json (mod.ts, core/, adapters/, tests/, scripts/, bench/);
 *   2. the portable core with tsconfig.core.json: mod.ts, core/, adapters/edge/ with only the ES and
 *      DOM libs, no Node/Bun/Deno types, so runtime-specific globals and `node:` imports fail;
 *   3. scripts/check-core.ts, the textual version of check 2.
 *
 * Usage: node scripts/typecheck.ts
 * @module
 */
import process from "node:process";
import { checkCore, coreFiles } from "./check-core.ts";
import { checkImports, layeredFiles } from "./check-imports.ts";
import { BIN, isMain, run, type RunResult } from "./lib.ts";

/** One named check. */
export interface Check {
  name: string;
  /** what it runs on, for headers */
  tool: "tsc" | "node";
  run(): Promise<RunResult>;
}

function tsc(project: string): () => Promise<RunResult> {
  return () => run(process.execPath, [BIN.tsc, "-p", project, "--pretty", "false"], { timeoutMs: 180_000 });
}

/** The checks, in order. */
export const CHECKS: Check[] = [
  { name: "tsc -p tsconfig.json (whole project)", tool: "tsc", run: tsc("tsconfig.json") },
  { name: "tsc -p tsconfig.core.json (core: web-standard only)", tool: "tsc", run: tsc("tsconfig.core.json") },
  {
    name: "check-core (no node:/Deno/Bun/process/Buffer)",
    tool: "node",
    run: () => {
      const started = performance.now();
      const files = coreFiles();
      const problems = checkCore(files);
      const output = problems.length > 0
        ? `check-core: ${problems.length} problem(s):\n${problems.map((p) => `  ${p}\n`).join("")}`
        : `check-core: OK (${files.length} files)\n`;
      (problems.length > 0 ? process.stderr : process.stdout).write(output);
      return Promise.resolve({
        code: problems.length > 0 ? 1 : 0,
        output,
        stdout: output,
        timedOut: false,
        ms: performance.now() - started,
      });
    },
  },
  {
    name: "check-imports (layering: core, kit, adapters)",
    tool: "node",
    run: () => {
      const started = performance.now();
      const files = layeredFiles();
      const problems = checkImports(files);
      const output = problems.length > 0
        ? `check-imports: ${problems.length} problem(s):\n${problems.map((p) => `  ${p}\n`).join("")}`
        : `check-imports: OK (${files.length} modules: core, kit and adapters layered)\n`;
      (problems.length > 0 ? process.stderr : process.stdout).write(output);
      return Promise.resolve({
        code: problems.length > 0 ? 1 : 0,
        output,
        stdout: output,
        timedOut: false,
        ms: performance.now() - started,
      });
    },
  },
];

if (isMain(import.meta.url)) {
  let failed = 0;
  for (const check of CHECKS) {
    const result = await check.run();
    console.log(`${result.code === 0 ? "ok  " : "FAIL"} ${check.name}`);
    if (result.code !== 0) failed++;
  }
  if (failed > 0) process.exitCode = 1;
}
