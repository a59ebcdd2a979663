/**
 * Compares two result files written by `tests/wpt/run.ts --json=...` (for example --impl=native against
 * --impl=ours on the same runtime) and lists every test whose outcome differs.
 *
 *   node tests/wpt/diff.ts <before.json> <after.json>
 *
 * Prints "only passes in A" / "only passes in B" lists and the totals; always exits 0 on readable input.
 * @module
 */
import { readFileSync } from "node:fs";
import process from "node:process";

interface JsonTest {
  name: string;
  status: string;
  message: string | null;
}

interface JsonRun {
  runtimeLabel: string;
  impl: string;
  passed: number;
  failed: number;
  files: Record<string, { skipped: string | null; tests: JsonTest[] }>;
}

function load(path: string): JsonRun {
  return JSON.parse(readFileSync(path, "utf8")) as JsonRun;
}

/** file + name; repeated names inside one file get "#2", "#3", ... so that each test has its own key. */
function outcomes(run: JsonRun): Map<string, JsonTest> {
  const out = new Map<string, JsonTest>();
  for (const [file, result] of Object.entries(run.files)) {
    const seen = new Map<string, number>();
    for (const test of result.tests) {
      const n = (seen.get(test.name) ?? 0) + 1;
      seen.set(test.name, n);
      out.set(`${file} :: ${test.name}${n > 1 ? ` #${n}` : ""}`, test);
    }
  }
  return out;
}

const [pathA, pathB] = process.argv.slice(2);
if (pathA === undefined || pathB === undefined) {
  console.error("usage: node tests/wpt/diff.ts <a.json> <b.json>");
  process.exit(2);
}
const runA = load(pathA);
const runB = load(pathB);
const a = outcomes(runA);
const b = outcomes(runB);
const labelA = `A = ${runA.runtimeLabel} impl=${runA.impl}`;
const labelB = `B = ${runB.runtimeLabel} impl=${runB.impl}`;

const onlyA: string[] = [];
const onlyB: string[] = [];
const missing: string[] = [];
for (const [key, testA] of a) {
  const testB = b.get(key);
  if (testB === undefined) {
    missing.push(`${key} (not in B)`);
    continue;
  }
  if (testA.status === "PASS" && testB.status !== "PASS") {
    onlyA.push(`${key}\n      B: ${testB.status} ${testB.message ?? ""}`);
  }
  if (testA.status !== "PASS" && testB.status === "PASS") {
    onlyB.push(`${key}\n      A: ${testA.status} ${testA.message ?? ""}`);
  }
}
for (const key of b.keys()) if (!a.has(key)) missing.push(`${key} (not in A)`);

console.log(labelA);
console.log(labelB);
console.log(`\nPass in A, not in B (${onlyA.length}):`);
for (const line of onlyA) console.log(`  ${line}`);
console.log(`\nPass in B, not in A (${onlyB.length}):`);
for (const line of onlyB) console.log(`  ${line}`);
if (missing.length > 0) {
  console.log(`\nIn one run only (${missing.length}):`);
  for (const line of missing) console.log(`  ${line}`);
}
console.log(`\nA: ${runA.passed} passed, ${runA.failed} failed; B: ${runB.passed} passed, ${runB.failed} failed`);
