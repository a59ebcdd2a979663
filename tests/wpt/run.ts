/**
 * fusestreams WPT runner: runs the Web Platform Tests streams suite (streams/**\/*.any.js under $WPT_DIR) on one
 * runtime, against the runtime's own stream classes (--impl=native) or against fusestreams (--impl=ours).
 *
 *   node tests/wpt/run.ts --runtime=node26|node22|node20|deno|bun --impl=ours|native
 *                         [--filter=substring] [--timeout=ms] [--file-timeout=ms] [--verbose]
 *                         [--json=path] [--expect-at-least=N] [--mod=path] [--jobs=N]
 *
 * Each test file runs in its own subprocess (tests/wpt/child.js with our testharness-compatible harness.js),
 * at most two at a time (--jobs). --mod=path tests another module exporting the 13 classes instead of
 * mod.ts (dist/mod.js on node20). Output: one line per file, the failing tests of failing files (every test with
 * --verbose), then the closing line `N passed, M failed`. The exit code is 0 unless the runner itself cannot
 * work (bad arguments, missing runtime or WPT_DIR contents, dist/ missing for node20 + ours), or fewer than
 * --expect-at-least tests passed. Without WPT_DIR it says so and exits 0.
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
  expectAtLeast: number | undefined;
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
      "[--filter=substring] [--timeout=ms] [--file-timeout=ms] [--verbose] [--json=path] [--expect-at-least=N] [--mod=path] [--jobs=N]",
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
    expectAtLeast: undefined,
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
      case "--expect-at-least":
        options.expectAtLeast = Number(value);
        if (!Number.isInteger(options.expectAtLeast) || options.expectAtLeast < 0) {
          usage("--expect-at-least needs a count");
        }
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
  return options;
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
  e: "start" | "reg" | "res" | "herr" | "done" | "fatal";
  i?: number;
  n?: string;
  s?: number;
  m?: string | null;
  runtime?: string;
}

function runFile(
  file: string,
  rel: string,
  options: Options,
  command: { bin: string; args: string[] },
  modUrl: string,
  wptDir: string,
  onStart: (runtime: string) => void,
): Promise<FileResult> {
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
      resolvePromise({ file: rel, tests, harnessErrors, problem, ms: performance.now() - started });
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
  const streamsDir = join(wptDir, "streams");
  if (!existsSync(streamsDir)) {
    console.error(`tests/wpt/run.ts: WPT_DIR=${wptEnv} has no streams/ directory`);
    process.exit(1);
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

  const all = listTests(streamsDir).map((file) => ({ file, rel: relative(wptDir, file).split(sep).join("/") }));
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
  console.log(
    `WPT streams: runtime=${options.runtime} impl=${options.impl}${
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
        results[index] = { file: item.rel, skipped: reason, tests: [], harnessErrors: [], ms: 0 };
      } else {
        results[index] = await runFile(item.file, item.rel, options, command, modUrl, wptDir, announce);
      }
      printReady();
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.jobs, selected.length) }, worker));

  const finished = results.filter((r): r is FileResult => r !== undefined);
  let passed = 0;
  let failed = 0;
  let skippedFiles = 0;
  let brokenFiles = 0;
  for (const r of finished) {
    if (r.skipped !== undefined) skippedFiles++;
    if (r.problem !== undefined) brokenFiles++;
    for (const t of r.tests) {
      if (t.status === "PASS") passed++;
      else failed++;
    }
    // A file that died without reporting any test still counts as one failure.
    if (r.problem !== undefined && r.tests.length === 0) failed++;
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `\n${runtimeLabel}, impl=${options.impl}: ${finished.length - skippedFiles} files run, ${skippedFiles} skipped` +
      `${brokenFiles ? `, ${brokenFiles} did not finish normally` : ""}, ${seconds}s`,
  );

  if (options.json !== undefined) {
    mkdirSync(dirname(options.json), { recursive: true });
    const files: Record<string, unknown> = {};
    for (const r of finished) {
      files[r.file] = {
        skipped: r.skipped ?? null,
        problem: r.problem ?? null,
        harnessErrors: r.harnessErrors,
        ms: Math.round(r.ms),
        passed: r.tests.filter((t) => t.status === "PASS").length,
        failed: r.tests.filter((t) => t.status !== "PASS").length,
        tests: r.tests,
      };
    }
    writeFileSync(
      options.json,
      JSON.stringify({ runtime: options.runtime, runtimeLabel, impl: options.impl, passed, failed, files }, null, 2) +
        "\n",
    );
    console.log(`results written to ${options.json}`);
  }

  console.log(`${passed} passed, ${failed} failed`);
  if (options.expectAtLeast !== undefined && passed < options.expectAtLeast) {
    console.error(`expected at least ${options.expectAtLeast} passing tests, got ${passed}`);
    process.exitCode = 1;
  }
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
