/**
 * The differential fuzzer as part of the suite. Each program runs on fusestreams (mod.ts), the runtime's
 * native streams and the reference implementation, and is judged by compare.ts (see README.md here):
 *  - the fixed seeds 1..FIXED_COUNT and every regression seed (seeds.ts), the same in every run;
 *  - FRESH_COUNT fresh seeds from a base seed drawn anew for every `npm test` (scripts/test.ts draws one per
 *    run and passes it in FUZZ_SEED, so every runtime runs the same programs), printed when this file loads.
 * A failure prints the seed, the program, the outcomes and the command that reruns it:
 * `npm run fuzz -- --seed=S --cases=1 --runtime=<rt> --verbose`.
 *
 *   node tests/fuzz/fuzz.test.ts        deno run -A tests/fuzz/fuzz.test.ts        bun tests/fuzz/fuzz.test.ts
 *
 * (scripts/unit.ts runs it through tests/unit/fuzz.test.ts.) Environment: FUZZ_SEED (the fresh base seed),
 * FUZZ_CASES (how many fresh seeds, default FRESH_COUNT).
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { formatReport, runSeed, runtimeName } from "./fuzz.ts";
import { FIXED_COUNT, freshSeed, REGRESSION_SEEDS } from "./seeds.ts";

const FRESH_COUNT = 2000;

function env(name: string): string | undefined {
  const g = globalThis as {
    Deno?: { env: { get(n: string): string | undefined } };
    process?: { env: Record<string, string | undefined> };
  };
  return g.Deno ? g.Deno.env.get(name) : g.process?.env[name];
}

function runtimeFlag(): string {
  const name = runtimeName();
  if (name.startsWith("deno")) return "deno";
  if (name.startsWith("bun")) return "bun";
  const major = /^node (\d+)/.exec(name)?.[1];
  return `node${major ?? ""}`;
}

const baseSeed = Number(env("FUZZ_SEED") ?? freshSeed());
const freshCount = Number(env("FUZZ_CASES") ?? FRESH_COUNT);
console.log(
  `fuzz on ${runtimeName()}: fresh base seed ${baseSeed}, seeds ${baseSeed}..${baseSeed + freshCount - 1} ` +
    `(rerun: npm run fuzz -- --seed=${baseSeed} --cases=${freshCount} --runtime=${runtimeFlag()})`,
);

async function check(seeds: Iterable<number>, what: string): Promise<void> {
  const failed: string[] = [];
  let n = 0;
  for (const seed of seeds) {
    n++;
    const report = await runSeed(seed);
    if (report.failures.length > 0) {
      failed.push(
        `${
          formatReport(report)
        }\n  rerun: npm run fuzz -- --seed=${seed} --cases=1 --runtime=${runtimeFlag()} --verbose`,
      );
    }
  }
  if (failed.length > 0) {
    assert.unreachable(`${failed.length} of ${n} programs (${what}) failed:\n${failed.join("\n")}`);
  }
}

function* range(from: number, count: number): Generator<number> {
  for (let s = from; s < from + count; s++) yield s;
}

const title = `ours vs native ${runtimeName()} and the reference (no lost, duplicated or reordered chunk, no stall)`;

test(`fuzz: fixed seeds 1..${FIXED_COUNT}, ${title}`, () =>
  check(range(1, FIXED_COUNT), `fixed seeds 1..${FIXED_COUNT}`));

test(`fuzz: ${REGRESSION_SEEDS.length} regression seeds, ${title}`, () =>
  check(REGRESSION_SEEDS.map((r) => r.seed), "regression seeds"));

test(`fuzz: fresh seeds ${baseSeed}..${baseSeed + freshCount - 1} (base seed ${baseSeed}), ${title}`, () =>
  check(range(baseSeed, freshCount), `fresh seeds from base seed ${baseSeed}`));

test.run();
