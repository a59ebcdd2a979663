/**
 * `npm run fuzz`: the differential fuzzer (tests/fuzz/run.ts) on one or more runtimes, with one seed for all.
 *
 *   npm run fuzz -- [--cases=N] [--seed=S] [--runtime=node26,node22,node20,deno,bun|all] [--verbose] [--strict]
 *   npm run fuzz -- --seed=S --cases=1 --runtime=deno --verbose      rerun one failing case
 *
 * Defaults: 200 cases, a fresh random seed (printed), --runtime=node26. node20 is the system Node (the one
 * running npm), which cannot run TypeScript: tests/fuzz/run.ts is bundled to JavaScript for it first.
 * Every other option is passed to run.ts as is. Last line "N passed, M failed" over all runtimes; exit code 1
 * when anything failed. See tests/fuzz/README.md.
 * @module
 */
import * as esbuild from "esbuild";
import { join } from "node:path";
import process from "node:process";
import { BIN, rootPath, run, systemNode } from "./lib.ts";
import { freshSeed } from "../tests/fuzz/seeds.ts";

const RUNTIMES = ["node26", "node22", "node20", "deno", "bun"] as const;
type Runtime = (typeof RUNTIMES)[number];

const argv = process.argv.slice(2);
const runtimeArg = argv.find((a) => a.startsWith("--runtime="))?.slice("--runtime=".length) ?? "node26";
const runtimes: Runtime[] = runtimeArg === "all"
  ? ["node26", "node22", "deno", "bun"]
  : (runtimeArg.split(",") as Runtime[]);
for (const rt of runtimes) {
  if (!RUNTIMES.includes(rt)) {
    console.error(`unknown runtime ${JSON.stringify(rt)}: one of ${RUNTIMES.join(", ")} or all`);
    process.exit(2);
  }
}
let passThrough = argv.filter((a) => !a.startsWith("--runtime="));
if (!passThrough.some((a) => a.startsWith("--seed=") || a.startsWith("--program="))) {
  passThrough = [`--seed=${freshSeed()}`, ...passThrough];
}
console.log(`npm run fuzz: ${passThrough.join(" ")} on ${runtimes.join(", ")}`);

async function bundleForNode20(): Promise<string> {
  const out = join(rootPath(".tmp"), "fuzz-node20", "run.mjs");
  await esbuild.build({
    absWorkingDir: rootPath(),
    entryPoints: [rootPath("tests", "fuzz", "run.ts")],
    outfile: out,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    logLevel: "warning",
  });
  return out;
}

const script = rootPath("tests", "fuzz", "run.ts");
let passed = 0;
let failed = 0;
for (const rt of runtimes) {
  let cmd: string;
  let args: string[];
  switch (rt) {
    case "node26":
      [cmd, args] = [BIN.node26, [script]];
      break;
    case "node22":
      [cmd, args] = [BIN.node22, [script]];
      break;
    case "node20":
      [cmd, args] = [systemNode(), [await bundleForNode20()]];
      break;
    case "deno":
      [cmd, args] = [BIN.deno, ["run", "-A", script]];
      break;
    case "bun":
      [cmd, args] = [BIN.bun, [script]];
      break;
  }
  console.log(`\n=== fuzz on ${rt} ===`);
  const result = await run(cmd, [...args, ...passThrough], { timeoutMs: 3_600_000 });
  const totals = [...result.output.matchAll(/^(\d+) passed, (\d+) failed$/gm)].at(-1);
  if (totals) {
    passed += Number(totals[1]);
    failed += Number(totals[2]);
  } else {
    console.log(`(no totals from ${rt}: the run crashed; exit code ${result.code})`);
    failed++;
  }
}
console.log(`\nfuzz total over ${runtimes.join(", ")}:`);
console.log(`${passed} passed, ${failed} failed`);
if (failed > 0) process.exitCode = 1;
