/**
 * `npm test`: every check, on every runtime, one after the other.
 *
 *   1. typecheck      tsc (whole project), tsc (core: web-standard globals only), check-core
 *   2. exports        package.json and deno.json export the same subpaths
 *   3. build          esbuild (ESM + CJS) and tsc (.d.ts) into dist/
 *   4. dist           on the system Node (the one running npm, >= 20, no TypeScript): check-dist, then the
 *                     uvu suite bundled to JavaScript with mod.ts/adapters imports redirected to the package
 *                     itself ("fusestreams", "fusestreams/<rt>", i.e. dist/ through package.json exports);
 *                     plus a consumer type check of dist/*.d.ts (moduleResolution nodenext and bundler)
 *   5. source         the uvu suite against the TypeScript source on Node 22, Node 26, Deno and Bun
 *   6. deno publish --dry-run --allow-dirty (JSR slow-type check), npm pack --dry-run (+ file list check),
 *      size budget (scripts/size.ts: the edge entry bundled by esbuild --bundle --minify, gzip)
 *   7. WPT            only when WPT_DIR is set and tests/wpt/run.ts exists: run.ts --impl=ours per runtime
 *
 * Counting, for the last line "N passed, M failed": every uvu test in every runtime run counts once
 * (7 smoke tests x 5 runtimes = 35), and every other step counts once (typecheck x3, exports, build,
 * check-dist, dist types, deno publish, npm pack, size budget, and each WPT runtime run when WPT_DIR is set).
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
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import process from "node:process";
import { build } from "./build.ts";
import { checkSizeBudget } from "./size.ts";
import { allTargets, checkExports } from "./check-exports.ts";
import {
  ADAPTERS,
  BIN,
  rootPath,
  run,
  type RunResult,
  secs,
  stripAnsi,
  systemNode,
  unitTestFiles,
  versionOf,
} from "./lib.ts";
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

// 2. exports

{
  header("exports: package.json vs deno.json", here);
  const [problems, ms] = await timed(async () => checkExports());
  if (problems.length > 0) for (const p of problems) console.error(`  ${p}`);
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
    recordUvu(`unit: ${V.system} system node, dist/`, await run(nodeSystem, [bundle.runner, ...bundle.tests], { timeoutMs: TIMEOUT_MS }));
  } else {
    console.log("skipped: no build or no test bundle");
    record({ label: `unit: ${V.system} system node, dist/`, passed: 0, failed: 1, skipped: 0, ms: 0, tests: true });
  }
}

/** Type-checks a tiny consumer of the published declarations (self-reference through exports). */
async function checkConsumerTypes(): Promise<boolean> {
  const dir = join(TMP, "types");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const imports = ADAPTERS.map((a) => `import * as ${a} from "fusestreams/${a}";`).join("\n");
  const same = ADAPTERS.map((a) => `${a}.ReadableStream === ReadableStream`).join(" && ");
  writeFileSync(
    join(dir, "consumer.ts"),
    `import { ReadableStream, TransformStream, WritableStream, CountQueuingStrategy } from "fusestreams";
${imports}
const readable = new ReadableStream<string>({ start(c) { c.enqueue("x"); c.close(); } },
  new CountQueuingStrategy({ highWaterMark: 1 }));
const upper = new TransformStream<string, string>({ transform(chunk, c) { c.enqueue(chunk.toUpperCase()); } });
const sink = new WritableStream<string>({ write(chunk: string) { void chunk; } });
export const done: Promise<void> = readable.pipeThrough(upper).pipeTo(sink);
export const shared: boolean = ${same};
`,
  );
  let ok = true;
  for (const [name, options] of [
    ["nodenext", { module: "nodenext", moduleResolution: "nodenext" }],
    ["bundler", { module: "esnext", moduleResolution: "bundler" }],
  ] as const) {
    const config = join(dir, `tsconfig.${name}.json`);
    writeFileSync(
      config,
      JSON.stringify({
        compilerOptions: {
          ...options,
          target: "es2023",
          lib: ["es2023", "dom", "dom.iterable"],
          types: [],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
        },
        files: ["consumer.ts"],
      }),
    );
    const result = await run(process.execPath, [BIN.tsc, "-p", config, "--pretty", "false"], { timeoutMs: TIMEOUT_MS });
    console.log(`consumer types (moduleResolution ${name}): ${result.code === 0 ? "OK" : "FAILED"}`);
    if (result.code !== 0) ok = false;
  }
  return ok;
}

{
  header("dist: consumer type check of dist/*.d.ts (nodenext + bundler)", `${V.tsc} on ${here}`);
  if (!built) {
    console.log("skipped: the build failed");
    recordStep("dist: consumer types", false, 0);
  } else {
    const [ok, ms] = await timed(checkConsumerTypes);
    recordStep("dist: consumer types", ok, ms);
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

// 6. packaging

{
  header("deno publish --dry-run --allow-dirty (JSR, slow-type check)", V.deno);
  const result = await run(BIN.deno, ["publish", "--dry-run", "--allow-dirty"], { timeoutMs: TIMEOUT_MS });
  recordStep("deno publish --dry-run", result.code === 0, result.ms);
}

{
  const npmCli = process.env["npm_execpath"];
  const [cmd, prefix] = npmCli && /\.[cm]?js$/.test(npmCli) ? [nodeSystem, [npmCli]] : ["npm", []];
  const npmVersion = versionOf(cmd, [...prefix, "--version"]);
  header("npm pack --dry-run (published file list)", `npm ${npmVersion} on node ${V.system}`);
  // --ignore-scripts: dist/ is already built; prepack would only rebuild it.
  const result = await run(cmd, [...prefix, "pack", "--dry-run", "--json", "--ignore-scripts"], {
    timeoutMs: TIMEOUT_MS,
    echo: false,
  });
  let ok = result.code === 0;
  if (!ok) {
    process.stdout.write(result.output);
  } else {
    try {
      const report = JSON.parse(result.stdout) as { files: { path: string; size: number }[]; size: number; unpackedSize: number }[];
      const files = report[0]?.files.map((f) => f.path) ?? [];
      const pkg = JSON.parse(readFileSync(rootPath("package.json"), "utf8")) as { exports: unknown };
      const required = new Set(["package.json", "README.md", "LICENSE"]);
      for (const target of allTargets(pkg.exports as never)) required.add(target.replace(/^\.\//, ""));
      const missing = [...required].filter((f) => !files.includes(f));
      const unexpected = files.filter((f) => !(f.startsWith("dist/") || required.has(f)));
      console.log(
        `npm pack: ${files.length} files, ${((report[0]?.size ?? 0) / 1024).toFixed(1)} KiB packed, ` +
          `${((report[0]?.unpackedSize ?? 0) / 1024).toFixed(1)} KiB unpacked`,
      );
      for (const f of files) console.log(`  ${f}`);
      if (missing.length > 0) console.error(`missing from the package: ${missing.join(", ")}`);
      if (unexpected.length > 0) console.error(`unexpected in the package: ${unexpected.join(", ")}`);
      ok = missing.length === 0 && unexpected.length === 0;
    } catch (err) {
      console.error(`could not read npm pack --json output: ${errorText(err)}`);
      process.stdout.write(result.output);
      ok = false;
    }
  }
  recordStep("npm pack --dry-run", ok, result.ms);
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

// 7. WPT

{
  const wptDir = process.env["WPT_DIR"];
  const runner = rootPath("tests", "wpt", "run.ts");
  if (!wptDir) {
    console.log("\nWPT skipped: WPT_DIR not set (get the suite with `npm run wpt:fetch -- --dir=<folder>`, then set WPT_DIR=<folder>; see tests/wpt/README.md)");
  } else if (!existsSync(runner)) {
    console.log(`\nWPT skipped: tests/wpt/run.ts not found (WPT_DIR=${wptDir})`);
  } else {
    const runtimes = (process.env["WPT_RUNTIMES"] ?? "node26,node22,node20,deno,bun").split(",").map((s) => s.trim()).filter(Boolean);
    const versionFor: Record<string, string> = {
      node26: `node ${V.node26}`,
      node22: `node ${V.node22}`,
      node20: `node ${V.system} (system Node)`,
      deno: V.deno,
      bun: V.bun,
    };
    for (const rt of runtimes) {
      header(`WPT: tests/wpt/run.ts --runtime=${rt} --impl=ours (WPT_DIR=${wptDir})`, versionFor[rt] ?? rt);
      const result = await run(process.execPath, [runner, `--runtime=${rt}`, "--impl=ours"], {
        timeoutMs: Math.max(TIMEOUT_MS, 1_800_000),
      });
      recordStep(`wpt: ${rt}`, result.code === 0, result.ms);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Summary

const passed = outcomes.reduce((n, o) => n + o.passed, 0);
const failed = outcomes.reduce((n, o) => n + o.failed, 0);
const skipped = outcomes.reduce((n, o) => n + o.skipped, 0);
console.log("\n=== summary ===");
for (const o of outcomes) {
  const counts = o.tests ? `${o.passed}/${o.passed + o.failed}${o.skipped ? ` (+${o.skipped} skipped)` : ""}` : o.failed ? "failed" : "ok";
  console.log(`${o.failed > 0 ? "FAIL" : "ok  "}  ${o.label.padEnd(48)} ${counts.padEnd(8)} ${secs(o.ms).padStart(6)}`);
}
const testRuns = outcomes.filter((o) => o.tests);
console.log(
  `\ncounted: ${testRuns.reduce((n, o) => n + o.passed + o.failed, 0)} uvu test results in ${testRuns.length} runtime runs + ` +
    `${outcomes.length - testRuns.length} other steps${skipped ? `; ${skipped} tests skipped` : ""}; total time ${secs(performance.now() - suiteStarted)}`,
);
if (failed > 0) process.exitCode = 1;
console.log(`${passed} passed, ${failed} failed`);
