/**
 * Runs uvu test files in one process, on whatever runtime executes this script:
 *
 *   node scripts/unit.ts                              all tests/unit/*.test.ts (Node >= 22.18)
 *   node_modules/node22/bin/node scripts/unit.ts
 *   deno run -A scripts/unit.ts
 *   bun scripts/unit.ts
 *   node scripts/unit.ts tests/unit/smoke.test.ts     only the given files
 *   ... --bail                                        stop at the first failing suite
 *
 * It does what uvu's own CLI does (defer every suite, import the files one by one, then run them all)
 * but works the same on Node, Deno and Bun. A single test file can also be run directly
 * (`node tests/unit/smoke.test.ts`, `deno run -A ...`, `bun ...`): uvu then runs it on its own.
 *
 * Prints uvu's totals ("Total:", "Passed:", "Skipped:") plus "Load errors: N" when a file could not be
 * imported; scripts/test.ts parses these lines. Exit code is non-zero on any failure.
 * @module
 */
import { readdirSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";

interface UvuGlobals {
  UVU_DEFER?: number;
  UVU_QUEUE?: unknown[][];
  UVU_INDEX?: number;
}

const args = process.argv.slice(2);
const bail = args.includes("--bail");
const root = resolve(fileURLToPath(new URL(".", import.meta.url)), "..");
let files = args.filter((a) => !a.startsWith("--")).map((f) => resolve(f));
if (files.length === 0) {
  const dir = join(root, "tests", "unit");
  files = readdirSync(dir)
    .filter((name) => name.endsWith(".test.ts"))
    .sort()
    .map((name) => join(dir, name));
}

// Must be set before uvu is first evaluated: it then queues suites instead of running them.
const g = globalThis as UvuGlobals;
g.UVU_DEFER = 1;
g.UVU_QUEUE = [];
const uvu = await import("uvu");

let loadErrors = 0;
for (const [index, file] of files.entries()) {
  g.UVU_INDEX = index;
  g.UVU_QUEUE.push([relative(process.cwd(), file).split("\\").join("/")]);
  try {
    await import(pathToFileURL(file).href);
  } catch (err) {
    loadErrors++;
    console.error(
      `\nERROR: could not load ${file}:\n${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    if (bail) break;
  }
}

await uvu.exec(bail);
if (loadErrors > 0) {
  process.stdout.write(`  Load errors: ${loadErrors}\n\n`);
  process.exitCode = 1;
}
