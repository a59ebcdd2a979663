/**
 * `npm test`: every check, on every runtime, one after the other.
 *
 *   1. typecheck      tsc (whole project), tsc (core: web-standard globals only), check-core, check-imports
 *                     (the layering: core, kit, adapters); then deno fmt --check and deno lint (deno.json)
 *   2. exports        package.json and deno.json export the same subpaths
 *   3. build          esbuild (ESM), CommonJS entry points and tsc (.d.ts + .d.cts) into dist/
 *   4. dist           on the system Node (the one running npm, >= 20, no TypeScript): check-dist, then the
 *                     uvu suite bundled to JavaScript with mod.ts/adapters imports redirected to the package
 *                     itself ("fusestreams", "fusestreams/<rt>", i.e. dist/ through package.json exports)
 *   5. source         the uvu suite against the TypeScript source on Node 22, Node 26, Deno and Bun
 *   5b. edge          tests/edge/edge.test.ts on Node 26: the edge entry bundled into a worker, run in workerd
 *                     (miniflare; a current and an old compatibility date) and in edge-runtime
 *   6. packaging      deno publish --dry-run --allow-dirty (JSR slow types; any warning fails), deno doc --lint,
 *                     the export list of each entry point against tests/api/exports.txt (scripts/check-api.ts);
 *                     then scripts/package-test.ts from one `npm pack`: file list, attw --profile strict,
 *                     publint, offline install into an empty project, consumer type checks (one per setup),
 *                     tests/package/consumer.mjs on Node 20 (system, both load orders), 22, 26, Bun, Deno;
 *                     size budget (scripts/size.ts: the edge entry bundled by esbuild --bundle --minify, gzip);
 *                     tree-shaking (scripts/check-treeshake.ts: a bundle of only the stream classes holds none
 *                     of the consumers)
 *   7. WPT            only when WPT_DIR is set and tests/wpt/run.ts exists, per runtime: run.ts --impl=native (all
 *                     three suites: streams, encoding, compression), then --impl=ours with a per-suite
 *                     --expect-at-least floor equal to native's passes on that runtime (a codec suite gets its floor
 *                     once mod.ts exports that suite's classes; until then its ours counts are shown, not held)
 *
 * Counting, for the last line "N passed, M failed": every uvu test in every runtime run counts once
 * (7 smoke tests x 5 runtimes = 35), and every other step counts once (typecheck x4, fmt, lint, exports, build,
 * check-dist, deno publish, deno doc, each package step, size budget, tree-shaking, and each WPT run when WPT_DIR is
 * set: native and ours per runtime).
 * A uvu run that crashes before printing its totals counts as one failure; skipped tests count in
 * neither number. The exit code is non-zero when anything failed.
 *
 * The uvu suite includes the differential fuzz tests (tests/unit/fuzz.test.ts -> tests/fuzz/fuzz.test.ts): fixed
 * and regression seeds, plus 2000 fresh seeds from a base seed drawn here once per run and printed first.
 *
 * Environment: WPT_DIR (enables step 7), WPT_RUNTIMES (comma list, default node26,node22,node20,deno,bun),
 * TEST_TIMEOUT (seconds per runtime run, default 300), FUZZ_SEED (the fuzz tests' fresh base seed, default
 * random), FUZZ_CASES (how many fresh seeds, default 2000).
 * @module
 */
import * as esbuild from "esbuild";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { build } from "./build.ts";
import { API_ENTRIES, checkApi } from "./check-api.ts";
import { checkExports } from "./check-exports.ts";
import { checkSizeBudget } from "./size.ts";
import { checkTreeShaking } from "./check-treeshake.ts";
import {
  ADAPTERS,
  BIN,
  npmCommand,
  rootPath,
  run,
  type RunResult,
  secs,
  stripAnsi,
  systemNode,
  unitTestFiles,
  versionOf,
} from "./lib.ts";
import {
  checkConsumerTypes,
  checkReadmeExamples,
  consumerRuns,
  installTarball,
  npmPack,
  type PackResult,
  runAttw,
  runConsumers,
  runPublint,
  tarballProblems,
  TYPE_SETUPS,
} from "./package-test.ts";
import { CHECKS } from "./typecheck.ts";
import { freshSeed } from "../tests/fuzz/seeds.ts";

const TIMEOUT_MS = Number(process.env["TEST_TIMEOUT"] ?? 300) * 1000;
const TMP = rootPath(".tmp");
const suiteStarted = performance.now();

interface Outcome {
  label: string;
  passed: number;
  failed: number;
  skipped: number;
  ms: number;
  tests: boolean;
}
const outcomes: Outcome[] = [];

function header(title: string, runtime: string): void {
  console.log(`\n=== ${title} — ${runtime} ===`);
}

function record(outcome: Outcome): void {
  outcomes.push(outcome);
  const status = outcome.failed > 0 ? "FAIL" : "PASS";
  const detail = outcome.tests
    ? `${outcome.passed} passed, ${outcome.failed} failed, ${outcome.skipped} skipped`
    : outcome.failed > 0
    ? "failed"
    : "ok";
  console.log(`--> ${status} ${outcome.label}: ${detail} (${secs(outcome.ms)})`);
}

function recordStep(label: string, ok: boolean, ms: number): void {
  record({ label, passed: ok ? 1 : 0, failed: ok ? 0 : 1, skipped: 0, ms, tests: false });
}

/** Turns a uvu run (scripts/unit.ts) into an outcome. */
function recordUvu(label: string, result: RunResult): void {
  const text = stripAnsi(result.output);
  const last = (re: RegExp): number | undefined => {
    const all = [...text.matchAll(re)];
    const m = all.at(-1);
    return m ? Number(m[1]) : undefined;
  };
  const total = last(/^\s*Total:\s+(\d+)/gm);
  const passed = last(/^\s*Passed:\s+(\d+)/gm);
  const skipped = last(/^\s*Skipped:\s+(\d+)/gm) ?? 0;
  const loadErrors = last(/^\s*Load errors:\s+(\d+)/gm) ?? 0;
  let outcome: Outcome;
  if (total === undefined || passed === undefined) {
    console.log(`(no uvu totals found: the run crashed or was cut short; exit code ${result.code})`);
    outcome = { label, passed: 0, failed: 1, skipped: 0, ms: result.ms, tests: true };
  } else {
    let failed = total - passed + loadErrors;
    if (failed === 0 && result.code !== 0) {
      console.log(`(all tests passed but the process exited with code ${result.code}: counted as one failure)`);
      failed = 1;
    }
    outcome = { label, passed, failed, skipped, ms: result.ms, tests: true };
  }
  record(outcome);
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const value = await fn();
  return [value, performance.now() - started];
}

function errorText(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

// ---------------------------------------------------------------------------------------------------
// Versions (printed in the headers)

const nodeSystem = systemNode();
const V = {
  system: versionOf(nodeSystem),
  node22: versionOf(BIN.node22),
  node26: versionOf(BIN.node26),
  deno: versionOf(BIN.deno).replace(/\s*\(.*$/, ""),
  bun: `bun ${versionOf(BIN.bun)}`,
  tsc: versionOf(process.execPath, [BIN.tsc, "--version"]).replace(/^Version\s+/, "tsc "),
  esbuild: `esbuild ${esbuild.version}`,
};
const here = `node ${process.version}`;
// The fuzz tests' fresh base seed (tests/fuzz/fuzz.test.ts): a new one for every `npm test` unless FUZZ_SEED is
// given, the same for every runtime run (they inherit the environment).
process.env["FUZZ_SEED"] ??= String(freshSeed());
console.log(
  `fuzz: fresh base seed ${process.env["FUZZ_SEED"]} on every runtime ` +
    `(rerun: npm run fuzz -- --seed=${process.env["FUZZ_SEED"]} --cases=2000 --runtime=all)`,
);
console.log(
  `fusestreams test suite: system node ${V.system} (${nodeSystem}), node ${V.node22}, node ${V.node26}, ` +
    `${V.deno}, ${V.bun}, ${V.tsc}, ${V.esbuild}`,
);

// ---------------------------------------------------------------------------------------------------
// 1. typecheck

for (const check of CHECKS) {
  header(`typecheck: ${check.name}`, check.tool === "tsc" ? `${V.tsc} on ${here}` : here);
  const result = await check.run();
  recordStep(`typecheck: ${check.name.replace(/ \(.*$/, "")}`, result.code === 0, result.ms);
}

// 1b. format and lint (deno fmt --check, deno lint: settings in deno.json)

for (const [name, args] of [["fmt: deno fmt --check", ["fmt", "--check"]], ["lint: deno lint", ["lint"]]] as const) {
  header(name, V.deno);
  const result = await run(BIN.deno, [...args], { timeoutMs: TIMEOUT_MS, env: { NO_COLOR: "1" } });
  recordStep(name, result.code === 0, result.ms);
}

// 2. exports

{
  header("exports: package.json vs deno.json", here);
  const [problems, ms] = await timed(async () => checkExports());
  if (problems.length > 0) { for (const p of problems) console.error(`  ${p}`); }
  else console.log("check-exports: OK (same subpaths, versions and targets)");
  recordStep("exports: package.json vs deno.json", problems.length === 0, ms);
}

// 3. build

let built = false;
{
  header("build: dist/ (ESM + CJS + .d.ts)", `${V.esbuild}, ${V.tsc} on ${here}`);
  const [ok, ms] = await timed(async () => {
    try {
      if (!(await build())) return false;
      const problems = checkExports({ dist: true });
      for (const p of problems) console.error(`  ${p}`);
      return problems.length === 0;
    } catch (err) {
      console.error(errorText(err));
      return false;
    }
  });
  built = ok;
  recordStep("build", ok, ms);
}

// 4. dist/ on the system Node

const systemMajor = Number(/^v(\d+)/.exec(V.system)?.[1] ?? 0);
const systemLabel = `node ${V.system} (system Node, ${nodeSystem})`;

/** Bundles the uvu runner, check-dist and the unit tests to plain ESM JavaScript under .tmp/dist-tests. */
async function bundleDistTests(): Promise<{ runner: string; checkDist: string; tests: string[] }> {
  const outdir = join(TMP, "dist-tests");
  rmSync(outdir, { recursive: true, force: true });
  const modTs = rootPath("mod.ts");
  const internalTs = rootPath("core", "internal.ts");
  const adapterTs = new Map(ADAPTERS.map((a) => [rootPath("adapters", a, "mod.ts"), `fusestreams/${a}`]));
  const tests = unitTestFiles();
  await esbuild.build({
    absWorkingDir: rootPath(),
    entryPoints: [rootPath("scripts", "unit.ts"), rootPath("scripts", "check-dist.ts"), ...tests],
    outdir,
    outbase: rootPath(),
    outExtension: { ".js": ".mjs" },
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    // package.json says "sideEffects": false (true of the library); a test file that only imports another
    // (tests/unit/fuzz.test.ts) must not be dropped as a side-effect-free import.
    ignoreAnnotations: true,
    logLevel: "warning",
    plugins: [
      {
        name: "public-api-from-dist",
        setup(b) {
          b.onResolve({ filter: /^\.\.?\// }, (args) => {
            const abs = resolve(args.resolveDir, args.path);
            if (abs === modTs) return { path: "fusestreams", external: true };
            // The kit's tests import it from source; its door to the core is the built core (one copy).
            if (abs === internalTs) return { path: rootPath("dist", "core", "internal.js"), external: true };
            const subpath = adapterTs.get(abs);
            if (subpath) return { path: subpath, external: true };
            return undefined;
          });
        },
      },
    ],
  });
  const out = (file: string) => join(outdir, file.slice(rootPath().length + 1).replace(/\.ts$/, ".mjs"));
  return {
    runner: out(rootPath("scripts", "unit.ts")),
    checkDist: out(rootPath("scripts", "check-dist.ts")),
    tests: tests.map(out),
  };
}

{
  const label = `dist: check-dist`;
  header("dist: check-dist (package exports, ESM + CJS, one shared core)", systemLabel);
  let bundle: Awaited<ReturnType<typeof bundleDistTests>> | undefined;
  if (!built) {
    console.log("skipped: the build failed");
    recordStep(label, false, 0);
  } else if (systemMajor < 20) {
    console.log(`the system Node ${V.system} is older than the supported minimum (engines.node >= 20)`);
    recordStep(label, false, 0);
  } else {
    try {
      bundle = await bundleDistTests();
    } catch (err) {
      console.error(`bundling the tests for dist/ failed:\n${errorText(err)}`);
    }
    if (bundle) {
      const result = await run(nodeSystem, [bundle.checkDist], { timeoutMs: TIMEOUT_MS });
      recordStep(label, result.code === 0, result.ms);
    } else {
      recordStep(label, false, 0);
    }
  }

  header("unit (uvu) against dist/ via package exports", systemLabel);
  if (bundle) {
    recordUvu(
      `unit: ${V.system} system node, dist/`,
      await run(nodeSystem, [bundle.runner, ...bundle.tests], { timeoutMs: TIMEOUT_MS }),
    );
  } else {
    console.log("skipped: no build or no test bundle");
    record({ label: `unit: ${V.system} system node, dist/`, passed: 0, failed: 1, skipped: 0, ms: 0, tests: true });
  }
}

// 5. the uvu suite against the TypeScript source

const sourceRuns: { label: string; runtime: string; cmd: string; args: string[] }[] = [
  { label: `unit: node ${V.node22}, source`, runtime: `node ${V.node22}`, cmd: BIN.node22, args: ["scripts/unit.ts"] },
  { label: `unit: node ${V.node26}, source`, runtime: `node ${V.node26}`, cmd: BIN.node26, args: ["scripts/unit.ts"] },
  { label: `unit: ${V.deno}, source`, runtime: V.deno, cmd: BIN.deno, args: ["run", "-A", "scripts/unit.ts"] },
  { label: `unit: ${V.bun}, source`, runtime: V.bun, cmd: BIN.bun, args: ["scripts/unit.ts"] },
];
for (const r of sourceRuns) {
  header("unit (uvu) against the TypeScript source", r.runtime);
  recordUvu(r.label, await run(r.cmd, r.args, { timeoutMs: TIMEOUT_MS }));
}

// 5b. the edge adapter in real edge runtimes: workerd (miniflare, two compatibility dates) and edge-runtime

{
  header("edge: tests/edge in workerd (miniflare) and edge-runtime", `node ${V.node26}`);
  recordUvu(
    `edge: workerd + edge-runtime`,
    await run(BIN.node26, ["scripts/unit.ts", "tests/edge/edge.test.ts"], { timeoutMs: TIMEOUT_MS }),
  );
}

// 6. packaging: JSR (deno publish, deno doc --lint) and npm (scripts/package-test.ts, from one `npm pack`)

{
  header("deno publish --dry-run --allow-dirty (JSR, slow-type check; no warning allowed)", V.deno);
  const result = await run(BIN.deno, ["publish", "--dry-run", "--allow-dirty"], { timeoutMs: TIMEOUT_MS });
  const warnings = stripAnsi(result.output).split("\n").filter((line) => /\bwarn(ing)?\b/i.test(line));
  for (const w of warnings) console.log(`(counted as a failure: ${w.trim()})`);
  recordStep("deno publish --dry-run", result.code === 0 && warnings.length === 0, result.ms);
}

{
  header("deno doc --lint (JSDoc on every exported symbol of every entry point, as JSR scores it)", V.deno);
  const entries = ["mod.ts", ...ADAPTERS.map((a) => `adapters/${a}/mod.ts`)];
  const result = await run(BIN.deno, ["doc", "--lint", ...entries], { timeoutMs: TIMEOUT_MS });
  recordStep("deno doc --lint", result.code === 0, result.ms);
}

{
  header("api: each entry point's exports vs tests/api/exports.txt (scripts/check-api.ts)", V.deno);
  const [problems, ms] = await timed(async () => {
    try {
      return await checkApi();
    } catch (err) {
      return [errorText(err)];
    }
  });
  if (problems.length > 0) {
    console.error(
      `the public API changed (${problems.length} line(s)); if intended: node scripts/check-api.ts --write`,
    );
    for (const p of problems) console.error(`  ${p}`);
  } else console.log(`check-api: OK (${API_ENTRIES.length} entry points as committed)`);
  recordStep("api: export lists", problems.length === 0, ms);
}

{
  const [npmCmd, npmPrefix] = npmCommand();
  const npmVersion = versionOf(npmCmd, [...npmPrefix, "--version"]);
  header("npm pack (one tarball for every package check below)", `npm ${npmVersion} on node ${V.system}`);
  let pack: PackResult | undefined;
  const [packProblems, packMs] = await timed(async () => {
    if (!built) return ["skipped: the build failed"];
    try {
      pack = await npmPack();
    } catch (err) {
      return [errorText(err)];
    }
    console.log(
      `npm pack: ${pack.tarball}: ${pack.files.length} files, ${(pack.size / 1024).toFixed(1)} KiB packed, ${
        (pack.unpackedSize / 1024).toFixed(1)
      } KiB unpacked`,
    );
    for (const f of pack.files) console.log(`  ${f}`);
    return tarballProblems(pack.files);
  });
  for (const p of packProblems) console.error(p);
  recordStep("package: npm pack (file list)", packProblems.length === 0, packMs);

  const tarball = pack?.tarball;
  header("attw <tarball> --profile strict (@arethetypeswrong/cli)", here);
  if (tarball) {
    const result = await runAttw(tarball);
    recordStep("package: attw --profile strict", result.code === 0, result.ms);
  } else {
    console.log("skipped: no tarball");
    recordStep("package: attw --profile strict", false, 0);
  }

  header("publint run <tarball> --strict (no message at all)", here);
  if (tarball) {
    const [ok, ms] = await timed(() => runPublint(tarball));
    recordStep("package: publint", ok, ms);
  } else {
    console.log("skipped: no tarball");
    recordStep("package: publint", false, 0);
  }

  header(
    "npm install --offline <tarball> into an empty project (.tmp/package/consumer)",
    `npm ${npmVersion} on node ${V.system}`,
  );
  let installed = false;
  if (tarball) {
    const result = await installTarball(tarball);
    installed = result.code === 0;
    recordStep("package: npm install --offline", installed, result.ms);
  } else {
    console.log("skipped: no tarball");
    recordStep("package: npm install --offline", false, 0);
  }

  header("consumer type checks against the installed declarations (tests/package/types/)", `${V.tsc} on ${here}`);
  if (installed) {
    for (const setup of TYPE_SETUPS) {
      const [failed, ms] = await timed(() => checkConsumerTypes([setup]));
      recordStep(`package: types, ${setup.name}`, failed.length === 0, ms);
    }
  } else {
    console.log("skipped: not installed");
    recordStep("package: types", false, 0);
  }

  header(
    "README.md's TypeScript examples against the installed package (tsc, then run)",
    `${V.tsc}; node ${V.node26}; ${V.deno}`,
  );
  if (installed) {
    const [readme, ms] = await timed(checkReadmeExamples);
    recordStep("package: README examples type-check", readme.typeProblems.length === 0, ms);
    recordStep("package: README examples run", readme.runProblems.length === 0, 0);
  } else {
    console.log("skipped: not installed");
    recordStep("package: README examples", false, 0);
  }

  for (const r of consumerRuns()) {
    header(
      "tests/package/consumer.mjs in the installed project (import + require, one core, 3-transform chains)",
      r.label,
    );
    if (installed) {
      const [failed, ms] = await timed(() => runConsumers([r]));
      recordStep(`package: consumer, ${r.label}`, failed.length === 0, ms);
    } else {
      console.log("skipped: not installed");
      recordStep(`package: consumer, ${r.label}`, false, 0);
    }
  }
}

{
  header("size budget: the edge entry, esbuild --bundle --minify --platform=neutral, gzip", V.esbuild);
  const [ok, ms] = await timed(async () => {
    try {
      return await checkSizeBudget();
    } catch (err) {
      console.error(errorText(err));
      return false;
    }
  });
  recordStep("size budget", ok, ms);
}

{
  header("tree-shaking: only the stream classes, none of the consumers (scripts/check-treeshake.ts)", V.esbuild);
  const [ok, ms] = await timed(async () => {
    try {
      const problems = await checkTreeShaking();
      for (const p of problems) console.error(`  ${p}`);
      return problems.length === 0;
    } catch (err) {
      console.error(errorText(err));
      return false;
    }
  });
  recordStep("tree-shaking", ok, ms);
}

// 7. WPT

/** The classes each codec suite tests; their floor applies once mod.ts exports them all (see step 7). */
const CODEC_SUITES: Record<string, readonly string[]> = {
  encoding: ["TextEncoderStream", "TextDecoderStream"],
  compression: ["CompressionStream", "DecompressionStream"],
};

{
  const wptDir = process.env["WPT_DIR"];
  const runner = rootPath("tests", "wpt", "run.ts");
  if (!wptDir) {
    console.log(
      "\nWPT skipped: WPT_DIR not set (get the suite with `npm run wpt:fetch -- --dir=<folder>`, then set WPT_DIR=<folder>; see tests/wpt/README.md)",
    );
  } else if (!existsSync(runner)) {
    console.log(`\nWPT skipped: tests/wpt/run.ts not found (WPT_DIR=${wptDir})`);
  } else {
    const runtimes = (process.env["WPT_RUNTIMES"] ?? "node26,node22,node20,deno,bun").split(",").map((s) => s.trim())
      .filter(Boolean);
    const versionFor: Record<string, string> = {
      node26: `node ${V.node26}`,
      node22: `node ${V.node22}`,
      node20: `node ${V.system} (system Node)`,
      deno: V.deno,
      bun: V.bun,
    };
    // Each codec suite gets its floor once mod.ts exports the suite's classes (dist/mod.js on node20 exports the
    // same names). Until then --impl=ours runs it with the runtime's own codecs beside our stream classes, and the
    // counts are shown but not held to native's.
    const mod = await import(pathToFileURL(rootPath("mod.ts")).href) as Record<string, unknown>;
    const missing = (suite: string) => (CODEC_SUITES[suite] ?? []).filter((name) => typeof mod[name] !== "function");
    const resultsDir = mkdtempSync(join(tmpdir(), "fusestreams-wpt-"));
    for (const rt of runtimes) {
      // Native first: its per-suite passes are the floors for ours on the same runtime.
      header(
        `WPT: tests/wpt/run.ts --runtime=${rt} --impl=native (the floors; WPT_DIR=${wptDir})`,
        versionFor[rt] ?? rt,
      );
      const nativeJson = join(resultsDir, `${rt}-native.json`);
      const native = await run(process.execPath, [runner, `--runtime=${rt}`, "--impl=native", `--json=${nativeJson}`], {
        timeoutMs: Math.max(TIMEOUT_MS, 1_800_000),
        echo: false,
      });
      let counts: Record<string, { passed: number; failed: number }> | undefined;
      try {
        counts = (JSON.parse(readFileSync(nativeJson, "utf8")) as { suites: typeof counts }).suites;
      } catch {
        counts = undefined;
      }
      for (const line of native.stdout.split("\n")) if (line.startsWith("suite ")) console.log(`  native ${line}`);
      if (native.code !== 0 || counts === undefined) {
        console.error(native.output.split("\n").slice(-20).join("\n"));
        recordStep(`wpt: ${rt} native (floors)`, false, native.ms);
        continue;
      }
      recordStep(`wpt: ${rt} native (floors)`, true, native.ms);
      const floors: string[] = [];
      for (const [suite, count] of Object.entries(counts)) {
        const absent = missing(suite);
        if (absent.length === 0) floors.push(`${suite}:${count.passed}`);
        else {
          console.log(
            `  no floor for suite ${suite} yet: mod.ts does not export ${absent.join(", ")} (the runtime's own run ` +
              `beside our stream classes; native passes ${count.passed})`,
          );
        }
      }
      header(
        `WPT: tests/wpt/run.ts --runtime=${rt} --impl=ours --expect-at-least=${floors.join(",")}`,
        versionFor[rt] ?? rt,
      );
      const result = await run(
        process.execPath,
        [runner, `--runtime=${rt}`, "--impl=ours", `--expect-at-least=${floors.join(",")}`],
        { timeoutMs: Math.max(TIMEOUT_MS, 1_800_000) },
      );
      recordStep(`wpt: ${rt} ours >= native`, result.code === 0, result.ms);
    }
    rmSync(resultsDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------
// Summary

const passed = outcomes.reduce((n, o) => n + o.passed, 0);
const failed = outcomes.reduce((n, o) => n + o.failed, 0);
const skipped = outcomes.reduce((n, o) => n + o.skipped, 0);
console.log("\n=== summary ===");
for (const o of outcomes) {
  const counts = o.tests
    ? `${o.passed}/${o.passed + o.failed}${o.skipped ? ` (+${o.skipped} skipped)` : ""}`
    : o.failed
    ? "failed"
    : "ok";
  console.log(`${o.failed > 0 ? "FAIL" : "ok  "}  ${o.label.padEnd(48)} ${counts.padEnd(8)} ${secs(o.ms).padStart(6)}`);
}
const testRuns = outcomes.filter((o) => o.tests);
console.log(
  `\ncounted: ${
    testRuns.reduce((n, o) => n + o.passed + o.failed, 0)
  } uvu test results in ${testRuns.length} runtime runs + ` +
    `${outcomes.length - testRuns.length} other steps${skipped ? `; ${skipped} tests skipped` : ""}; total time ${
      secs(performance.now() - suiteStarted)
    }`,
);
if (failed > 0) process.exitCode = 1;
console.log(`${passed} passed, ${failed} failed`);
