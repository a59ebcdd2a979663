/**
 * fusestreams WPT runner: runs Web Platform Tests suites under $WPT_DIR on one runtime, against the runtime's own
 * classes (--impl=native) or against fusestreams (--impl=ours). Suites (--suite, default all):
 *   streams      streams/**\/*.any.js            the 13 stream classes
 *   encoding     encoding/streams/**\/*.any.js   TextEncoderStream, TextDecoderStream
 *   compression  compression/**\/*.any.js        CompressionStream, DecompressionStream
 *
 *   node tests/wpt/run.ts --runtime=node26|node22|node20|deno|bun --impl=ours|native
 *                         [--suite=streams|encoding|compression|all[,...]] [--filter=substring] [--timeout=ms]
 *                         [--file-timeout=ms] [--verbose] [--json=path] [--expect-at-least=N|suite:N[,...]]
 *                         [--mod=path] [--jobs=N]
 *
 * Each test file runs in its own subprocess (tests/wpt/child.js with our testharness-compatible harness.js),
 * at most two at a time (--jobs). With --impl=ours the module's 13 stream classes replace the globals, and so do
 * its TextEncoderStream, TextDecoderStream, CompressionStream and DecompressionStream when it exports them (else the
 * runtime's own stay; the run prints which). --mod=path tests another module instead of mod.ts (dist/mod.js on
 * node20). Output: one line per file, the failing tests of failing files (every test with --verbose), one summary
 * line per suite, then the closing line `N passed, M failed`. The exit code is 0 unless the runner itself cannot
 * work (bad arguments, missing runtime or WPT_DIR contents, dist/ missing for node20 + ours), or a suite (or the
 * total) passed fewer tests than --expect-at-least. Without WPT_DIR it says so and exits 0.
 * @module
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { BIN, ROOT, systemNode } from "../../scripts/lib.ts";

const HERE = dirname(fileURLToPath(import.meta.url));
const CHILD = join(HERE, "child.js");
const RUNTIMES = ["node26", "node22", "node20", "deno", "bun"] as const;
type Runtime = (typeof RUNTIMES)[number];
type Impl = "native" | "ours";

/** The suites and the folder of each under the WPT root. */
const SUITES = {
  streams: "streams",
  encoding: "encoding/streams",
  compression: "compression",
} as const;
type Suite = keyof typeof SUITES;
const SUITE_NAMES = Object.keys(SUITES) as Suite[];

/** The codec classes the encoding and compression suites test (reported by the child as ours/native/missing). */
const CODEC_NAMES = ["TextEncoderStream", "TextDecoderStream", "CompressionStream", "DecompressionStream"] as const;

const STATUS = ["PASS", "FAIL", "TIMEOUT", "NOTRUN", "PRECONDITION_FAILED"] as const;
const MARK = "\u0001wpt ";

interface Options {
  runtime: Runtime;
  impl: Impl;
  filter: string | undefined;
  testTimeout: number;
  fileTimeout: number;
  verbose: boolean;
  json: string | undefined;
  suites: Suite[];
  /** --expect-at-least: a floor on the total, and/or one per suite. */
  expectAtLeast: { total: number | undefined; perSuite: Partial<Record<Suite, number>> };
  jobs: number;
  /** --mod: module to test instead of mod.ts / dist/mod.js (--impl=ours only). */
  mod: string | undefined;
}

interface TestResult {
  name: string;
  status: (typeof STATUS)[number];
  message: string | null;
}

interface FileResult {
  file: string;
  suite: Suite;
  skipped?: string;
  tests: TestResult[];
  harnessErrors: string[];
  /** Set when the child did not finish normally (crash, kill, file timeout). */
  problem?: string;
  ms: number;
}

function usage(message: string): never {
  console.error(`tests/wpt/run.ts: ${message}`);
  console.error(
    "usage: node tests/wpt/run.ts --runtime=node26|node22|node20|deno|bun --impl=ours|native " +
      "[--suite=streams|encoding|compression|all[,...]] [--filter=substring] [--timeout=ms] [--file-timeout=ms] " +
      "[--verbose] [--json=path] [--expect-at-least=N|suite:N[,...]] [--mod=path] [--jobs=N]",
  );
  process.exit(2);
}

function positiveNumber(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) usage(`${flag} needs a positive number, got "${value}"`);
  return n;
}

function parseArgs(argv: string[]): Options {
  const options: Options = {
    runtime: "node26",
    impl: "ours",
    filter: undefined,
    testTimeout: 5000,
    fileTimeout: 60_000,
    verbose: false,
    json: undefined,
    suites: [...SUITE_NAMES],
    expectAtLeast: { total: undefined, perSuite: {} },
    jobs: 2,
    mod: undefined,
  };
  let runtimeGiven = false;
  let implGiven = false;
  for (const arg of argv) {
    const eq = arg.indexOf("=");
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    const value = eq === -1 ? "" : arg.slice(eq + 1);
    switch (flag) {
      case "--runtime":
        if (!(RUNTIMES as readonly string[]).includes(value)) usage(`unknown runtime "${value}"`);
        options.runtime = value as Runtime;
        runtimeGiven = true;
        break;
      case "--impl":
        if (value !== "ours" && value !== "native") usage(`--impl must be ours or native, got "${value}"`);
        options.impl = value;
        implGiven = true;
        break;
      case "--filter":
        options.filter = value;
        break;
      case "--timeout":
        options.testTimeout = positiveNumber(flag, value);
        break;
      case "--file-timeout":
        options.fileTimeout = positiveNumber(flag, value);
        break;
      case "--verbose":
        options.verbose = true;
        break;
      case "--json":
        if (!value) usage("--json needs a path");
        options.json = resolve(value);
        break;
      case "--suite":
        options.suites = parseSuites(value);
        break;
      case "--expect-at-least":
        parseFloors(value, options.expectAtLeast);
        break;
      case "--mod":
        if (!value) usage("--mod needs a path");
        options.mod = resolve(value);
        break;
      case "--jobs":
        options.jobs = Math.max(1, Math.floor(positiveNumber(flag, value)));
        break;
      default:
        usage(`unknown argument "${arg}"`);
    }
  }
  if (!runtimeGiven) usage("--runtime is required");
  if (!implGiven) usage("--impl is required");
  if (options.mod !== undefined && options.impl !== "ours") usage("--mod only applies to --impl=ours");
  for (const suite of Object.keys(options.expectAtLeast.perSuite) as Suite[]) {
    if (!options.suites.includes(suite)) usage(`--expect-at-least names suite "${suite}", which --suite does not run`);
  }
  return options;
}

/** `all`, one suite, or a comma list of suites. */
function parseSuites(value: string): Suite[] {
  if (value === "all") return [...SUITE_NAMES];
  const suites: Suite[] = [];
  for (const name of value.split(",").map((s) => s.trim())) {
    if (!(SUITE_NAMES as string[]).includes(name)) {
      usage(`unknown suite "${name}" (streams, encoding, compression or all)`);
    }
    if (!suites.includes(name as Suite)) suites.push(name as Suite);
  }
  if (suites.length === 0) usage("--suite needs a suite name");
  return suites;
}

/** `N` (a floor on the total) or `suite:N[,suite:N...]` (a floor per suite). */
function parseFloors(value: string, floors: Options["expectAtLeast"]): void {
  const count = (text: string): number => {
    const n = Number(text);
    if (text.trim() === "" || !Number.isInteger(n) || n < 0) usage(`--expect-at-least needs a count, got "${text}"`);
    return n;
  };
  for (const part of value.split(",").map((s) => s.trim())) {
    const colon = part.indexOf(":");
    if (colon === -1) {
      floors.total = count(part);
      continue;
    }
    const suite = part.slice(0, colon);
    if (!(SUITE_NAMES as string[]).includes(suite)) usage(`--expect-at-least: unknown suite "${suite}"`);
    floors.perSuite[suite as Suite] = count(part.slice(colon + 1));
  }
}

/** The command that runs child.js on a runtime, and the module --impl=ours loads there. */
function runtimeCommand(runtime: Runtime): { bin: string; args: string[]; mod: string } {
  const source = join(ROOT, "mod.ts");
  switch (runtime) {
    case "node26":
      return { bin: BIN.node26, args: ["--expose-gc", CHILD], mod: source };
    case "node22":
      return { bin: BIN.node22, args: ["--expose-gc", CHILD], mod: source };
    case "node20":
      // The system Node cannot strip types: it runs the build output.
      return { bin: systemNode(), args: ["--expose-gc", CHILD], mod: join(ROOT, "dist", "mod.js") };
    case "deno":
      return { bin: BIN.deno, args: ["run", "-A", "--no-lock", "--v8-flags=--expose-gc", CHILD], mod: source };
    case "bun":
      return { bin: BIN.bun, args: [CHILD], mod: source };
  }
}

function listTests(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listTests(full));
    else if (entry.isFile() && entry.name.endsWith(".any.js")) out.push(full);
  }
  return out.sort();
}

function metaOf(source: string): [string, string][] {
  const metas: [string, string][] = [];
  for (const raw of source.split("\n")) {
    const line = raw.trim();
    if (line === "") continue;
    if (!line.startsWith("//")) break;
    const match = /^\/\/\s*META:\s*([\w-]+)=(.*)$/.exec(line);
    if (match?.[1] !== undefined && match[2] !== undefined) metas.push([match[1], match[2].trim()]);
  }
  return metas;
}

/** Why a file cannot run outside a browser, or undefined when it can. */
function skipReason(file: string, wptDir: string): string | undefined {
  const metas = metaOf(readFileSync(file, "utf8"));
  const globals = metas.filter(([k]) => k === "global").flatMap(([, v]) => v.split(",").map((s) => s.trim()));
  // Default scopes of an .any.js file are window and dedicated worker; anything listed here is fine as long as
  // it is not only browser-only scopes.
  if (globals.length > 0 && !globals.some((g) => /^(window|worker|dedicatedworker|jsshell|shadowrealm)/.test(g))) {
    return `no worker-like scope in META global=${globals.join(",")}`;
  }
  for (const [key, spec] of metas) {
    if (key !== "script") continue;
    const path = spec.startsWith("/") ? join(wptDir, spec) : resolve(dirname(file), spec);
    if (!existsSync(path)) return `needs ${spec}, which is not in WPT_DIR (browser-only dependency)`;
  }
  return undefined;
}

function isLong(file: string): boolean {
  return metaOf(readFileSync(file, "utf8")).some(([k, v]) => k === "timeout" && v === "long");
}

interface ChildMessage {
  e: "start" | "codecs" | "reg" | "res" | "herr" | "done" | "fatal";
  codecs?: Record<string, string>;
  i?: number;
  n?: string;
  s?: number;
  m?: string | null;
  runtime?: string;
}

function runFile(
  item: { file: string; rel: string; suite: Suite },
  options: Options,
  command: { bin: string; args: string[] },
  modUrl: string,
  wptDir: string,
  onStart: (runtime: string) => void,
  onCodecs: (codecs: Record<string, string>) => void,
): Promise<FileResult> {
  const { file, rel, suite } = item;
  const started = performance.now();
  const fileTimeout = isLong(file) ? options.fileTimeout * 2 : options.fileTimeout;
  const config = {
    file,
    wptDir,
    impl: options.impl,
    modUrl,
    testTimeout: options.testTimeout,
    // The child ends its own run a little before the parent gives up on it, so results still arrive.
    harnessTimeout: Math.max(1000, fileTimeout - 3000),
  };
  return new Promise((resolvePromise) => {
    const names = new Map<number, string>();
    const results = new Map<number, TestResult>();
    const harnessErrors: string[] = [];
    let done = false;
    let fatal: string | undefined;
    let timedOut = false;
    let stdoutRest = "";
    let stderr = "";
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
    env["FUSESTREAMS_WPT_CHILD"] = JSON.stringify(config);
    env["NO_COLOR"] = "1";
    const child = spawn(command.bin, command.args, {
      cwd: ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: process.platform !== "win32",
    });
    const handle = (message: ChildMessage) => {
      switch (message.e) {
        case "start":
          onStart(message.runtime ?? "unknown");
          break;
        case "codecs":
          if (message.codecs !== undefined) onCodecs(message.codecs);
          break;
        case "reg":
          if (message.i !== undefined) names.set(message.i, message.n ?? "");
          break;
        case "res":
          if (message.i !== undefined) {
            results.set(message.i, {
              name: names.get(message.i) ?? "",
              status: STATUS[message.s ?? 1] ?? "FAIL",
              message: message.m ?? null,
            });
          }
          break;
        case "herr":
          harnessErrors.push(message.m ?? "");
          break;
        case "done":
          done = true;
          break;
        case "fatal":
          fatal = message.m ?? "fatal error";
          break;
      }
    };
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      stdoutRest += chunk;
      let nl: number;
      while ((nl = stdoutRest.indexOf("\n")) !== -1) {
        const line = stdoutRest.slice(0, nl);
        stdoutRest = stdoutRest.slice(nl + 1);
        const at = line.indexOf(MARK);
        if (at === -1) continue;
        try {
          handle(JSON.parse(line.slice(at + MARK.length)) as ChildMessage);
        } catch {
          // a test printed something that merely looks like a marker
        }
      }
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (process.platform === "win32" || child.pid === undefined) child.kill("SIGKILL");
        else process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }, fileTimeout);
    const finish = (problem: string | undefined) => {
      clearTimeout(timer);
      const tests: TestResult[] = [];
      for (const [index, name] of [...names.entries()].sort((a, b) => a[0] - b[0])) {
        tests.push(results.get(index) ?? { name, status: "NOTRUN", message: problem ?? "no result" });
      }
      resolvePromise({ file: rel, suite, tests, harnessErrors, problem, ms: performance.now() - started });
    };
    child.on("error", (error) => finish(`cannot start ${command.bin}: ${error.message}`));
    child.on("close", (code, signal) => {
      if (fatal !== undefined) finish(fatal);
      else if (done && code === 0) finish(undefined);
      else if (timedOut) finish(`file timeout: killed after ${fileTimeout} ms`);
      else {
        const tail = stderr.trim().split("\n").slice(-6).join("\n");
        finish(
          `child ${signal ? `killed by ${signal}` : `exited with code ${code}`} before finishing${
            tail ? `:\n${tail}` : ""
          }`,
        );
      }
    });
  });
}

function indent(text: string, prefix: string): string {
  return text.split("\n").map((line) => prefix + line).join("\n");
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const wptEnv = process.env["WPT_DIR"];
  if (!wptEnv) {
    console.log(
      "WPT skipped: WPT_DIR not set (get the suite with `npm run wpt:fetch -- --dir=<folder>`, then set WPT_DIR=<folder>; see tests/wpt/README.md)",
    );
    return;
  }
  const wptDir = resolve(wptEnv);
  for (const suite of options.suites) {
    if (!existsSync(join(wptDir, SUITES[suite]))) {
      console.error(
        `tests/wpt/run.ts: WPT_DIR=${wptEnv} has no ${SUITES[suite]}/ directory (suite ${suite}); ` +
          "fetch the files of tests/wpt/MANIFEST.txt (npm run wpt:fetch) and check the folder with tests/wpt/check-dir.ts",
      );
      process.exit(1);
    }
  }

  const command = runtimeCommand(options.runtime);
  if (options.mod !== undefined) command.mod = options.mod;
  if (!existsSync(command.bin)) {
    console.error(`tests/wpt/run.ts: runtime ${options.runtime} not found at ${command.bin} (run npm install)`);
    process.exit(1);
  }
  if (options.impl === "ours" && !existsSync(command.mod)) {
    console.error(
      `tests/wpt/run.ts: ${relative(ROOT, command.mod)} is missing; ${options.runtime} needs the build output ` +
        "for --impl=ours: run `npm run build` first",
    );
    process.exit(1);
  }
  const modUrl = pathToFileURL(command.mod).href;

  const all = options.suites.flatMap((suite) =>
    listTests(join(wptDir, SUITES[suite])).map((file) => ({
      file,
      rel: relative(wptDir, file).split(sep).join("/"),
      suite,
    }))
  );
  const selected = options.filter === undefined ? all : all.filter(({ rel }) => rel.includes(options.filter ?? ""));
  if (selected.length === 0) {
    console.error(`tests/wpt/run.ts: no test file matches --filter=${options.filter ?? ""}`);
    process.exit(1);
  }

  let runtimeLabel: string = options.runtime;
  let announced = false;
  const announce = (label: string) => {
    if (announced) return;
    announced = true;
    runtimeLabel = `${options.runtime} (${label})`;
  };
  let codecs: Record<string, string> | undefined;
  const reportCodecs = (reported: Record<string, string>) => {
    if (codecs !== undefined) return;
    codecs = reported;
    console.log(`codecs: ${describeCodecs(reported, options.impl)}`);
  };
  console.log(
    `WPT ${options.suites.join(", ")}: runtime=${options.runtime} impl=${options.impl}${
      options.impl === "ours" ? ` (${relative(ROOT, command.mod)})` : ""
    } ` +
      `files=${selected.length} WPT_DIR=${wptDir}`,
  );

  const started = performance.now();
  const results: (FileResult | undefined)[] = new Array(selected.length);
  let printed = 0;
  const printReady = () => {
    while (printed < selected.length && results[printed] !== undefined) {
      printFile(results[printed] as FileResult, options.verbose);
      printed++;
    }
  };

  let next = 0;
  const worker = async () => {
    while (next < selected.length) {
      const index = next++;
      const item = selected[index];
      if (item === undefined) break;
      const reason = skipReason(item.file, wptDir);
      if (reason !== undefined) {
        results[index] = { file: item.rel, suite: item.suite, skipped: reason, tests: [], harnessErrors: [], ms: 0 };
      } else {
        results[index] = await runFile(item, options, command, modUrl, wptDir, announce, reportCodecs);
      }
      printReady();
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.jobs, selected.length) }, worker));

  const finished = results.filter((r): r is FileResult => r !== undefined);
  const tally = (files: FileResult[]) => {
    const t = { passed: 0, failed: 0, run: 0, skipped: 0, broken: 0 };
    for (const r of files) {
      if (r.skipped !== undefined) t.skipped++;
      else t.run++;
      if (r.problem !== undefined) t.broken++;
      for (const test of r.tests) {
        if (test.status === "PASS") t.passed++;
        else t.failed++;
      }
      // A file that died without reporting any test still counts as one failure.
      if (r.problem !== undefined && r.tests.length === 0) t.failed++;
    }
    return t;
  };
  const total = tally(finished);
  const perSuite = new Map(options.suites.map((suite) => [suite, tally(finished.filter((r) => r.suite === suite))]));
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `\n${runtimeLabel}, impl=${options.impl}: ${total.run} files run, ${total.skipped} skipped` +
      `${total.broken ? `, ${total.broken} did not finish normally` : ""}, ${seconds}s`,
  );
  if (codecs !== undefined) console.log(`codecs: ${describeCodecs(codecs, options.impl)}`);
  for (const [suite, t] of perSuite) {
    console.log(
      `suite ${suite}: ${t.passed} passed, ${t.failed} failed (${t.run} files run, ${t.skipped} skipped` +
        `${t.broken ? `, ${t.broken} did not finish normally` : ""})`,
    );
  }

  if (options.json !== undefined) {
    mkdirSync(dirname(options.json), { recursive: true });
    const files: Record<string, unknown> = {};
    for (const r of finished) {
      files[r.file] = {
        suite: r.suite,
        skipped: r.skipped ?? null,
        problem: r.problem ?? null,
        harnessErrors: r.harnessErrors,
        ms: Math.round(r.ms),
        passed: r.tests.filter((t) => t.status === "PASS").length,
        failed: r.tests.filter((t) => t.status !== "PASS").length,
        tests: r.tests,
      };
    }
    const suites: Record<string, { passed: number; failed: number }> = {};
    for (const [suite, t] of perSuite) suites[suite] = { passed: t.passed, failed: t.failed };
    writeFileSync(
      options.json,
      JSON.stringify(
        {
          runtime: options.runtime,
          runtimeLabel,
          impl: options.impl,
          codecs: codecs ?? null,
          passed: total.passed,
          failed: total.failed,
          suites,
          files,
        },
        null,
        2,
      ) + "\n",
    );
    console.log(`results written to ${options.json}`);
  }

  const short: string[] = [];
  const floors = options.expectAtLeast;
  if (floors.total !== undefined && total.passed < floors.total) {
    short.push(`expected at least ${floors.total} passing tests in total, got ${total.passed}`);
  }
  for (const [suite, floor] of Object.entries(floors.perSuite) as [Suite, number][]) {
    const got = perSuite.get(suite)?.passed ?? 0;
    if (got < floor) short.push(`suite ${suite}: expected at least ${floor} passing tests, got ${got}`);
  }
  for (const line of short) console.error(line);
  if (short.length > 0) process.exitCode = 1;
  console.log(`${total.passed} passed, ${total.failed} failed`);
}

/** "TextEncoderStream=ours, ..." plus where each comes from. */
function describeCodecs(codecs: Record<string, string>, impl: Impl): string {
  const parts = CODEC_NAMES.map((name) => `${name}=${codecs[name] ?? "missing"}`);
  const note = impl === "native"
    ? "the runtime's own"
    : CODEC_NAMES.every((name) => codecs[name] === "ours")
    ? "all from the module under test"
    : "ours where the module under test exports the class, else the runtime's own (native)";
  return `${parts.join(", ")} (${note})`;
}

function printFile(r: FileResult, verbose: boolean): void {
  if (r.skipped !== undefined) {
    console.log(`SKIP ${r.file} (${r.skipped})`);
    return;
  }
  const pass = r.tests.filter((t) => t.status === "PASS").length;
  const fail = r.tests.length - pass;
  const bad = fail > 0 || r.problem !== undefined;
  console.log(`${bad ? "FAIL" : "ok  "} ${r.file}: ${pass} passed, ${fail} failed (${(r.ms / 1000).toFixed(1)}s)`);
  if (r.problem !== undefined) console.log(indent(`! ${r.problem}`, "    "));
  for (const t of r.tests) {
    if (t.status === "PASS" && !verbose) continue;
    const line = `${t.status === "PASS" ? "pass" : t.status} ${t.name}${t.message ? ` :: ${t.message}` : ""}`;
    console.log(indent(line, "    "));
  }
  if (verbose || bad) {
    for (const e of r.harnessErrors) console.log(indent(`harness: ${e}`, "    "));
  }
}

main().catch((error: unknown) => {
  console.error(`tests/wpt/run.ts: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(2);
});
