/**
 * The compatibility check (issue 27, must-have 7): runs the runtimes' own public-API stream tests twice, plain and
 * with fusestreams' global patch on (`patchGlobalWebStreams()` from the runtime's adapter, loaded before the test
 * file: tests/compat/preload/<runtime>.ts), and prints every test that passes plain and fails patched. Not part of
 * `npm test` (like WPT): the tests are upstream files assembled outside the repository in $COMPAT_DIR
 * (scripts/compat-fetch.ts, tests/compat/MANIFEST.txt, tests/compat/README.md).
 *
 *   COMPAT_DIR=<folder> node scripts/compat.ts [--runtime=node26,node22,deno,bun] [--only=<text>]
 *        [--jobs=<n>] [--timeout=<seconds>] [--no-confirm] [--json=<file>] [--node-stream-web]
 *
 * Each test file runs in a process of its own, plain and patched, under a time limit (default 240 s a file). A
 * test that passes plain and fails patched is run again both ways (file by file) and is reported only when it does
 * so a second time; one that does not is listed as unconfirmed (flaky). Node files whose `// Flags:` line has
 * --expose-internals read Node's internals: they run, and their results are reported in a bucket of their own.
 *
 * Findings listed in tests/compat/INTERNALS.txt (tests that read a runtime's internals or compare internal identity,
 * each with its reason) go to that bucket too, and do not count.
 *
 * Exit code: 0 when no public-API test passes plain and fails patched, 1 when some do, 2 for bad arguments or a folder that
 * lacks the files, 3 when the patch did not take effect in the patched run (checked once per runtime).
 * @module
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { compatDir, type ManifestRow, readManifest, type SetName } from "../tests/compat/manifest.ts";
import { type KnownInternal, matchInternal, readInternals } from "../tests/compat/internals.ts";
import { BIN, rootPath } from "./lib.ts";
import { writeBunShims } from "../tests/compat/bun-shims.ts";

const RUNTIMES = ["node26", "node22", "deno", "bun"] as const;
type Runtime = (typeof RUNTIMES)[number];

/** The manifest sets each runtime runs. */
const SUITES_OF: Record<Runtime, readonly SetName[]> = {
  node26: ["node26"],
  node22: ["node22"],
  deno: ["deno", "std"],
  bun: ["bun"],
};

const USAGE = "usage: COMPAT_DIR=<folder> node scripts/compat.ts [--runtime=node26,node22,deno,bun] " +
  "[--only=<text>] [--jobs=<n>] [--timeout=<seconds>] [--no-confirm] [--json=<file>] [--node-stream-web]";

interface Options {
  dir: string;
  runtimes: Runtime[];
  only: string | undefined;
  jobs: number;
  timeoutMs: number;
  confirm: boolean;
  json: string | undefined;
  /** Node: the patched run also replaces node:stream/web's exports (tests/compat/preload/node-stream-web.ts). */
  streamWeb: boolean;
}

/** The outcome of one test case (or of a whole file, named FILE) in one run. */
interface CaseResult {
  readonly ok: boolean;
  readonly message: string;
}

/** What one run of one file gave. */
interface FileRun {
  readonly code: number | null;
  readonly timedOut: boolean;
  readonly ms: number;
  /** Test name -> result; always has FILE (the process's own outcome). */
  readonly cases: Map<string, CaseResult>;
}

/** One test file of a suite. */
interface TestFile {
  readonly runtime: Runtime;
  readonly set: SetName;
  readonly path: string;
  readonly bucket: "public" | "internals";
}

/** A test that passed plain and failed patched. */
interface Regression {
  readonly runtime: Runtime;
  readonly file: string;
  readonly bucket: "public" | "internals";
  readonly test: string;
  readonly message: string;
  readonly confirmed: boolean;
  /** Why it reads internals or compares internal identity (tests/compat/INTERNALS.txt), when it does. */
  readonly reason: string | undefined;
}

/** The name under which a file's own outcome (exit code, time limit) is recorded. */
const FILE = "(file)";

function usage(why: string): never {
  console.error(why ? `compat: ${why}\n${USAGE}` : USAGE);
  process.exit(why ? 2 : 0);
}

function parseArgs(argv: string[]): Options {
  const options: Options = {
    dir: compatDir() ?? "",
    runtimes: [...RUNTIMES],
    only: undefined,
    jobs: 1,
    timeoutMs: 240_000,
    confirm: true,
    json: undefined,
    streamWeb: false,
  };
  for (const arg of argv) {
    const [key, ...rest] = arg.split("=");
    const value = rest.join("=");
    switch (key) {
      case "--runtime": {
        const names = value.split(",").filter(Boolean);
        for (const name of names) if (!(RUNTIMES as readonly string[]).includes(name)) usage(`unknown runtime ${name}`);
        options.runtimes = names as Runtime[];
        break;
      }
      case "--only":
        options.only = value;
        break;
      case "--jobs":
        options.jobs = Number(value);
        if (!Number.isInteger(options.jobs) || options.jobs < 1) usage("--jobs takes a positive integer");
        break;
      case "--timeout":
        options.timeoutMs = Number(value) * 1000;
        if (!(options.timeoutMs > 0)) usage("--timeout takes seconds");
        break;
      case "--no-confirm":
        options.confirm = false;
        break;
      case "--json":
        options.json = value;
        break;
      case "--node-stream-web":
        options.streamWeb = true;
        break;
      default:
        usage(arg === "--help" ? "" : `unknown argument "${arg}"`);
    }
  }
  if (!options.dir) usage("set COMPAT_DIR to the folder scripts/compat-fetch.ts assembled");
  return options;
}

// ---------------------------------------------------------------------------------------------------------------
// Running one file

let nodePreload = "node.ts";

function preload(runtime: Runtime): string {
  return rootPath("tests", "compat", "preload", runtime.startsWith("node") ? nodePreload : `${runtime}.ts`);
}

/** The `// Flags:` line of a Node test file (Node's own runner passes these; test/common re-spawns without them). */
function nodeFlags(source: string): string[] {
  const match = /^\/\/ Flags: (.*)$/m.exec(source);
  return match ? match[1]!.trim().split(/\s+/) : [];
}

interface Command {
  readonly bin: string;
  readonly args: string[];
  readonly cwd: string;
  readonly env: Record<string, string>;
  /** Where a JUnit report is written (Deno, Bun), if any. */
  readonly junit: string | undefined;
}

function commandFor(file: TestFile, patched: boolean, dir: string, scratch: string): Command {
  const abs = join(dir, file.path);
  const junit = join(scratch, "report.xml");
  const env: Record<string, string> = { NO_COLOR: "1" };
  switch (file.runtime) {
    case "node26":
    case "node22": {
      const flags = nodeFlags(readFileSync(abs, "utf8"));
      const pre = patched ? ["--import", pathToFileURL(preload(file.runtime)).href] : [];
      return {
        bin: BIN[file.runtime],
        args: [...flags, ...pre, "--test-reporter=tap", abs],
        cwd: join(dir, file.set),
        env: { ...env, NODE_TEST_DIR: scratch },
        junit: undefined,
      };
    }
    case "deno": {
      const pre = patched ? ["--preload", pathToFileURL(preload("deno")).href] : [];
      const common = ["test", "--no-lock", "--no-check", "-A", "--no-prompt", `--junit-path=${junit}`, ...pre];
      if (file.set === "std") {
        return {
          bin: BIN.deno,
          args: [...common, abs],
          cwd: join(dir, "deno", "tests", "util", "std"),
          env,
          junit,
        };
      }
      return {
        bin: BIN.deno,
        args: [
          ...common,
          "--config",
          "tests/config/deno.json",
          "--unstable-net",
          "--unstable-vsock",
          "--location=http://127.0.0.1:4545/",
          abs,
        ],
        cwd: join(dir, "deno"),
        env,
        junit,
      };
    }
    case "bun": {
      const pre = patched ? ["--preload", preload("bun")] : [];
      return {
        bin: BIN.bun,
        args: ["test", "--reporter=junit", `--reporter-outfile=${junit}`, ...pre, abs],
        cwd: join(dir, "bun", "test"),
        env,
        junit,
      };
    }
  }
}

function runProcess(
  command: Command,
  timeoutMs: number,
): Promise<{ code: number | null; timedOut: boolean; stdout: string; stderr: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolvePromise) => {
    const child = spawn(command.bin, command.args, {
      cwd: command.cwd,
      env: { ...process.env, ...command.env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    }, timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolvePromise({
        code: code ?? (signal ? 128 : null),
        timedOut,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        ms: performance.now() - started,
      });
    });
  });
}

function decodeXml(text: string): string {
  return text.replace(
    /&(lt|gt|amp|quot|apos|#(\d+)|#x([0-9a-f]+));/gi,
    (_, name: string, dec?: string, hex?: string) => {
      if (dec) return String.fromCodePoint(Number(dec));
      if (hex) return String.fromCodePoint(parseInt(hex, 16));
      return ({ lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" } as Record<string, string>)[name.toLowerCase()]!;
    },
  );
}

/** Adds a case under `name`, or `name #2`, `name #3`... when a loop in the file made several of that name. */
function addCase(cases: Map<string, CaseResult>, name: string, result: CaseResult): void {
  let key = name;
  for (let n = 2; cases.has(key); n++) key = `${name} #${n}`;
  cases.set(key, result);
}

/** Test cases of a JUnit report (Deno's and Bun's): name -> passed or the failure's text. */
function parseJUnit(xml: string): Map<string, CaseResult> {
  const cases = new Map<string, CaseResult>();
  const re = /<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g;
  for (const match of xml.matchAll(re)) {
    const attrs = match[1]!;
    const name = decodeXml(/\bname="([^"]*)"/.exec(attrs)?.[1] ?? "?");
    const classname = decodeXml(/\bclassname="([^"]*)"/.exec(attrs)?.[1] ?? "");
    const body = match[3] ?? "";
    const skipped = /<skipped\b/.test(body) || /<todo\b/.test(body);
    const failure = /<(failure|error)\b([^>]*?)(?:\/>|>([\s\S]*?)<\/\1>)/.exec(body);
    // Deno names the file as classname (left out); Bun names the enclosing describe blocks.
    const key = classname && classname !== name && !/^(\.\/|file:|\/)/.test(classname)
      ? `${classname} > ${name}`
      : name;
    if (skipped) continue;
    if (!failure) {
      addCase(cases, key, { ok: true, message: "" });
      continue;
    }
    const attrMessage = decodeXml(/\bmessage="([^"]*)"/.exec(failure[2] ?? "")?.[1] ?? "");
    const text = decodeXml(failure[3] ?? "").trim();
    addCase(cases, key, { ok: false, message: summarize(text || attrMessage) });
  }
  return cases;
}

/** Subtests of Node's TAP output (node:test files): "name > sub" -> result, with the YAML `error:` of a failure. */
function parseTap(stdout: string): Map<string, CaseResult> {
  const cases = new Map<string, CaseResult>();
  const lines = stdout.split("\n");
  // TAP prints a subtest's children before its own line; collect names per indentation level.
  const pending: { indent: number; name: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const subtest = /^(\s*)# Subtest: (.*)$/.exec(line);
    if (subtest) {
      pending.push({ indent: subtest[1]!.length, name: subtest[2]! });
      continue;
    }
    const result = /^(\s*)(not ok|ok) \d+ - (.*?)(?: # (SKIP|TODO).*)?$/.exec(line);
    if (!result) continue;
    const indent = result[1]!.length;
    while (pending.length > 0 && pending[pending.length - 1]!.indent > indent) pending.pop();
    const path = pending.filter((p) => p.indent < indent).map((p) => p.name);
    if (pending.length > 0 && pending[pending.length - 1]!.indent === indent) pending.pop();
    if (result[4]) continue;
    const name = [...path, result[3]!].join(" > ");
    if (result[2] === "ok") {
      addCase(cases, name, { ok: true, message: "" });
      continue;
    }
    const yaml: string[] = [];
    for (let j = i + 1; j < lines.length && !/^\s*\.\.\.\s*$/.test(lines[j]!); j++) yaml.push(lines[j]!);
    const at = yaml.findIndex((l) => /^\s*error: /.test(l));
    const error = at < 0 ? "" : yaml.slice(at, at + 4).map((l) => l.trim()).join(" ");
    const code = yaml.find((l) => /^\s*code: /.test(l))?.trim() ?? "";
    addCase(cases, name, { ok: false, message: summarize(`${error} ${code}`.trim() || "failed") });
  }
  return cases;
}

/** The first error of a process's output: its `Error:` line and what follows up to the stack. */
function firstError(text: string): string {
  const lines = text.split("\n");
  const header = /^\s*(?:Uncaught\s+(?:\(in promise\)\s+)?)?(?:[A-Z]\w*(?:Error|Exception)|Error|error)\b[^:]{0,60}:/;
  const loose = /\b(\w*Error|DOMException|Uncaught|error:|panicked)\b/;
  const usable = (l: string) => !/^\s+at /.test(l) && !/ExperimentalWarning|DeprecationWarning/.test(l);
  let start = lines.findIndex((l) => header.test(l) && usable(l));
  if (start < 0) start = lines.findIndex((l) => loose.test(l) && usable(l));
  if (start < 0) return summarize(lines.filter((l) => l.trim()).slice(-4).join("\n"));
  const picked: string[] = [];
  for (const line of lines.slice(start, start + 14)) {
    if (/^\s+at /.test(line) && picked.length > 0) break;
    picked.push(line);
  }
  return summarize(picked.join("\n"));
}

/** At most ~600 characters, ANSI codes out, blank lines folded. */
function summarize(text: string): string {
  // deno-lint-ignore no-control-regex
  const clean = text.replace(/\x1b\[[0-9;]*m/g, "").replace(/\n\s*\n+/g, "\n").trim();
  return clean.length > 600 ? clean.slice(0, 600) + " …" : clean;
}

async function runFile(file: TestFile, patched: boolean, options: Options): Promise<FileRun> {
  const scratch = mkdtempSync(join(tmpdir(), "fusestreams-compat-"));
  try {
    const command = commandFor(file, patched, options.dir, scratch);
    const result = await runProcess(command, options.timeoutMs);
    const ok = !result.timedOut && result.code === 0;
    let cases: Map<string, CaseResult>;
    if (command.junit) {
      cases = existsSync(command.junit) ? parseJUnit(readFileSync(command.junit, "utf8")) : new Map();
    } else {
      cases = parseTap(result.stdout);
    }
    const output = `${result.stderr}\n${result.stdout}`;
    cases.set(FILE, {
      ok,
      message: ok
        ? ""
        : result.timedOut
        ? `time limit (${options.timeoutMs / 1000} s) reached`
        : `exit code ${result.code}: ${firstError(output)}`,
    });
    return { code: result.code, timedOut: result.timedOut, ms: result.ms, cases };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Comparing

/** Tests that passed plain and failed (or did not report) patched; FILE only when no case explains it. */
function compare(plain: FileRun, patched: FileRun): { test: string; message: string }[] {
  const found: { test: string; message: string }[] = [];
  for (const [name, result] of plain.cases) {
    if (name === FILE || !result.ok) continue;
    const after = patched.cases.get(name);
    if (after?.ok) continue;
    found.push({
      test: name,
      message: after ? after.message : `not reported by the patched run (${patched.cases.get(FILE)!.message})`,
    });
  }
  if (plain.cases.get(FILE)!.ok && !patched.cases.get(FILE)!.ok && found.length === 0) {
    found.push({ test: FILE, message: patched.cases.get(FILE)!.message });
  }
  return found;
}

async function pool<T, R>(items: readonly T[], jobs: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  async function worker(): Promise<void> {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  }
  await Promise.all(Array.from({ length: Math.min(jobs, items.length) }, worker));
  return results;
}

/** A one-line program run with the runtime's preload: it must find the patch on. */
async function checkPatchTakesEffect(runtime: Runtime): Promise<string | undefined> {
  const scratch = mkdtempSync(join(tmpdir(), "fusestreams-compat-probe-"));
  const adapter = rootPath("adapters", runtime.startsWith("node") ? "node" : runtime, "mod.ts");
  const probe = join(scratch, runtime === "bun" ? "probe.test.ts" : "probe.mjs");
  const body =
    `import { isGlobalWebStreamsPatched, ReadableStream as Ours } from ${
      JSON.stringify(pathToFileURL(adapter).href)
    };\n` +
    `const on = isGlobalWebStreamsPatched() && globalThis.ReadableStream === Ours;\n`;
  writeFileSync(
    probe,
    runtime === "bun"
      ? body +
        `import { test } from "bun:test";\ntest("patched", () => { if (!on) throw new Error("patch is off"); });\n`
      : body + `if (!on) { console.error("patch is off"); process.exit(1); }\n`,
  );
  const pre = preload(runtime);
  const command: Command = runtime === "deno"
    ? {
      bin: BIN.deno,
      args: ["run", "-A", "--no-lock", "--preload", pre, probe],
      cwd: scratch,
      env: {},
      junit: undefined,
    }
    : runtime === "bun"
    ? { bin: BIN.bun, args: ["test", "--preload", pre, probe], cwd: scratch, env: {}, junit: undefined }
    : {
      bin: BIN[runtime],
      args: ["--import", pathToFileURL(pre).href, probe],
      cwd: scratch,
      env: {},
      junit: undefined,
    };
  const result = await runProcess(command, 60_000);
  rmSync(scratch, { recursive: true, force: true });
  return result.code === 0 ? undefined : firstError(result.stderr + result.stdout);
}

function testFiles(options: Options, rows: readonly ManifestRow[]): TestFile[] {
  const files: TestFile[] = [];
  for (const runtime of options.runtimes) {
    for (const row of rows) {
      if (row.role !== "test" || !SUITES_OF[runtime].includes(row.set)) continue;
      if (options.only && !row.dest.includes(options.only)) continue;
      const abs = join(options.dir, row.dest);
      if (!existsSync(abs)) usage(`${abs} is missing: assemble $COMPAT_DIR with scripts/compat-fetch.ts`);
      const internals = runtime.startsWith("node") &&
        nodeFlags(readFileSync(abs, "utf8")).includes("--expose-internals");
      files.push({ runtime, set: row.set, path: row.dest, bucket: internals ? "internals" : "public" });
    }
  }
  return files;
}

function count(runs: readonly FileRun[], ok: boolean): number {
  let n = 0;
  for (const run of runs) for (const [name, result] of run.cases) if (name !== FILE && result.ok === ok) n++;
  return n;
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  if (options.streamWeb) nodePreload = "node-stream-web.ts";
  const started = performance.now();
  const files = testFiles(options, readManifest());
  const regressions: Regression[] = [];
  const known: readonly KnownInternal[] = readInternals();
  const summaries: Record<string, unknown>[] = [];
  for (const runtime of options.runtimes) {
    const mine = files.filter((f) => f.runtime === runtime);
    if (mine.length === 0) continue;
    if (runtime === "bun") writeBunShims(options.dir);
    const broken = await checkPatchTakesEffect(runtime);
    if (broken) {
      console.error(`compat: ${runtime}: the preload did not turn the patch on: ${broken}`);
      process.exit(3);
    }
    const runtimeStarted = performance.now();
    console.log(
      `\n== ${runtime}: ${mine.length} files, plain and patched (preload ${relative(rootPath(), preload(runtime))}), ` +
        `${options.jobs} at a time`,
    );
    const pairs = await pool(mine, options.jobs, async (file) => {
      const plain = await runFile(file, false, options);
      const patched = await runFile(file, true, options);
      const found = compare(plain, patched);
      const mark = (run: FileRun) =>
        `${run.cases.get(FILE)!.ok ? "ok" : run.timedOut ? "timeout" : "FAIL"} ${count([run], true)}/${
          count([run], true) + count([run], false)
        }`;
      console.log(
        `  ${relative(join(options.dir), join(options.dir, file.path))}: plain ${mark(plain)}, patched ${
          mark(patched)
        }${found.length ? `, ${found.length} passing plain fail patched` : ""} (${
          ((plain.ms + patched.ms) / 1000).toFixed(1)
        } s)`,
      );
      return { file, plain, patched, found };
    });
    const confirmedPairs = await pool(pairs.filter((p) => p.found.length > 0), options.jobs, async (pair) => {
      if (!options.confirm) return { pair, again: pair.found.map((f) => f.test) };
      const plain = await runFile(pair.file, false, options);
      const patched = await runFile(pair.file, true, options);
      const again = compare(plain, patched).map((f) => f.test);
      return { pair, again };
    });
    for (const { pair, again } of confirmedPairs) {
      for (const found of pair.found) {
        const reason = matchInternal(known, runtime, pair.file.path, found.test, found.message);
        regressions.push({
          runtime,
          file: pair.file.path,
          bucket: reason === undefined ? pair.file.bucket : "internals",
          test: found.test,
          message: found.message,
          confirmed: again.includes(found.test),
          reason,
        });
      }
    }
    const plainRuns = pairs.map((p) => p.plain);
    const patchedRuns = pairs.map((p) => p.patched);
    const mineRegressions = regressions.filter((r) => r.runtime === runtime);
    const fixed = pairs.reduce((n, p) => n + compare(p.patched, p.plain).length, 0);
    const summary = {
      runtime,
      files: mine.length,
      plain: { passed: count(plainRuns, true), failed: count(plainRuns, false) },
      patched: { passed: count(patchedRuns, true), failed: count(patchedRuns, false) },
      filesPassing: {
        plain: plainRuns.filter((r) => r.cases.get(FILE)!.ok).length,
        patched: patchedRuns.filter((r) => r.cases.get(FILE)!.ok).length,
      },
      regressions: {
        public: mineRegressions.filter((r) => r.confirmed && r.bucket === "public").length,
        internals: mineRegressions.filter((r) => r.confirmed && r.bucket === "internals").length,
        unconfirmed: mineRegressions.filter((r) => !r.confirmed).length,
      },
      passPatchedOnly: fixed,
      seconds: Math.round((performance.now() - runtimeStarted) / 1000),
    };
    summaries.push(summary);
  }

  for (const bucket of ["public", "internals"] as const) {
    const list = regressions.filter((r) => r.bucket === bucket && r.confirmed);
    console.log(
      `\n== passing plain, failing patched (${
        bucket === "public" ? "public API" : "reading internals: Node files run with --expose-internals, INTERNALS.txt"
      }): ${list.length}`,
    );
    for (const r of list) {
      const why = r.reason ? `\n    why: ${r.reason}` : "";
      console.log(`- [${r.runtime}] ${r.file} > ${r.test}\n    ${r.message.replace(/\n/g, "\n    ")}${why}`);
    }
  }
  const flaky = regressions.filter((r) => !r.confirmed);
  if (flaky.length > 0) {
    console.log(`\n== unconfirmed (failed patched once, not again): ${flaky.length}`);
    for (const r of flaky) console.log(`- [${r.runtime}] ${r.file} > ${r.test}: ${r.message.split("\n")[0]}`);
  }
  console.log("\n== summary (tests = test cases the runners report; files = whole-file outcome)");
  for (const s of summaries) {
    const x = s as {
      runtime: string;
      files: number;
      plain: { passed: number; failed: number };
      patched: { passed: number; failed: number };
      filesPassing: { plain: number; patched: number };
      regressions: { public: number; internals: number; unconfirmed: number };
      passPatchedOnly: number;
      seconds: number;
    };
    console.log(
      `${x.runtime}: ${x.files} files (passing: plain ${x.filesPassing.plain}, patched ${x.filesPassing.patched}); ` +
        `tests passed plain ${x.plain.passed}/${x.plain.passed + x.plain.failed}, patched ${x.patched.passed}/${
          x.patched.passed + x.patched.failed
        }; passing plain and failing patched: ${x.regressions.public} public, ${x.regressions.internals} internals` +
        `${x.regressions.unconfirmed ? `, ${x.regressions.unconfirmed} unconfirmed` : ""}; ` +
        `failing plain and passing patched: ${x.passPatchedOnly}; ${x.seconds} s`,
    );
  }
  const total = (performance.now() - started) / 1000;
  console.log(`total time: ${total.toFixed(0)} s`);
  if (options.json) {
    mkdirSync(join(options.json, ".."), { recursive: true });
    writeFileSync(options.json, JSON.stringify({ summaries, regressions, seconds: total }, null, 2) + "\n");
  }
  process.exit(regressions.some((r) => r.confirmed && r.bucket === "public") ? 1 : 0);
}

await main();
