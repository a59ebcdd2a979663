/**
 * The differential fuzzer as part of the suite: a bounded number of seeded programs (seeds 1..150), each
 * run against fusestreams (mod.ts) and against the runtime's native streams, judged by compare.ts. A failure
 * prints the seed, the program and both outcomes; replay it with `node tests/fuzz/run.ts --seed=N --count=1`.
 *
 *   node tests/fuzz/fuzz.test.ts        deno run -A tests/fuzz/fuzz.test.ts        bun tests/fuzz/fuzz.test.ts
 *
 * (scripts/unit.ts runs it through tests/unit/fuzz.test.ts.) Other seeds and counts: tests/fuzz/run.ts.
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { formatReport, runSeed, runtimeName } from "./fuzz.ts";

const BASE_SEED = 1;
const COUNT = 150;
const GROUP = 50;

for (let start = BASE_SEED; start < BASE_SEED + COUNT; start += GROUP) {
  const end = Math.min(start + GROUP, BASE_SEED + COUNT) - 1;
  test(`fuzz: seeds ${start}..${end}, ours vs native ${runtimeName()} (no lost, duplicated or reordered chunk, no stall)`, async () => {
    const failed: string[] = [];
    for (let seed = start; seed <= end; seed++) {
      const report = await runSeed(seed);
      if (report.failures.length > 0) failed.push(formatReport(report));
    }
    if (failed.length > 0) {
      assert.unreachable(`${failed.length} of ${end - start + 1} programs failed:\n${failed.join("\n")}`);
    }
  });
}

test.run();
