/**
 * `npm run bench`: WHATWG Streams benchmarks of fusestreams (`ours`) against the runtime's native streams,
 * experimental-fast-webstreams (`fast`) and node:stream (`node`).
 *
 *   node bench/run.ts [--runtime=node26|node22|node20|deno|bun[,...]] [--impl=ours,native,fast,node[,control]]
 *                     [--filter=substr] [--chunk=1024] [--json=path] [--quick] [--rounds=N] [--time=ms]
 *
 * This orchestrator runs on Node >= 22.18. It starts bench/worker.ts in the chosen runtime (Node 20 gets an
 * esbuild bundle of it and `ours` from dist/mod.js), reads the results the worker prints and prints one table
 * per scenario. See bench/README.md.
 * @module
 */
import { spawn } from "node:child_process";
import { accessSync, constants, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join, resolve, sep } from "node:path";
import process from "node:process";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { selectScenarios } from "./lib/catalog.ts";
import { readFlags } from "./lib/flags.ts";
import {
  CONFIG_ENV,
  DEFAULT_IMPLS,
  type ImplResult,
  IMPLS,
  type Message,
  MESSAGE_PREFIX,
  type ScenarioResult,
  type StartMessage,
  type WorkerConfig,
} from "./lib/protocol.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const RUNTIMES = ["node26", "node22", "node20", "deno", "bun"] as const;
type RuntimeKey = (typeof RUNTIMES)[number];

const USAGE = `usage: node bench/run.ts [options]
  --runtime=LIST   node26 (default), node22, node20, deno, bun; comma-separated runs them one after the other
  --impl=LIST      ${IMPLS.join(", ")} (default ${DEFAULT_IMPLS.join(",")}); control = native again (noise floor)
  --filter=TEXT    only scenarios whose id or title contains TEXT (case-insensitive; a comma list matches any)
  --chunk=BYTES    chunk size (default 1024); bytes per iteration stay the same
  --json=PATH      also write every result as JSON
  --alt=DIR        the alt implementation: fusestreams from another checkout (its mod.ts; Node 20: its dist/mod.js),
                   measured as ours is (an A/B of two versions; the tables get a ÷ ours column)
  --quick          shorter sampling (about a quarter of the default time)
  --rounds=N       interleaved measurement rounds per scenario (default 5, quick 3)
  --time=MS        sampling time per implementation and scenario over all rounds (default 1000, quick 300)
  --min-samples=N  minimum samples per implementation and round (default 3)
  --hang=MS        give up on a step that takes longer (default 60000)`;

// ---- arguments ----

interface Options {
  runtimes: RuntimeKey[];
  impls: string[];
  filter: string;
  chunk: number;
  json?: string;
  rounds: number;
  timeMs: number;
  minSamples: number;
  hangMs: number;
  quick: boolean;
  /** the checkout the `alt` implementation comes from */
  alt?: string;
}

function fail(message: string): never {
  console.error(`bench: ${message}\n${USAGE}`);
  process.exit(2);
}

function positiveInt(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) fail(`--${name} needs a positive integer, got ${JSON.stringify(value)}`);
  return n;
}

function parseArgs(argv: string[]): Options {
  const known = ["runtime", "impl", "filter", "chunk", "json", "quick", "rounds", "time", "min-samples", "hang", "alt"];
  const values = readFlags(argv, known, USAGE, fail);

  const quick = values.has("quick");
  const runtimes = (values.get("runtime") || "node26").split(",").map((r) => r.trim());
  for (const r of runtimes) if (!(RUNTIMES as readonly string[]).includes(r)) fail(`unknown runtime ${r}`);
  const impls = (values.get("impl") || DEFAULT_IMPLS.join(",")).split(",").map((i) => i.trim());
  for (const i of impls) if (!IMPLS.includes(i)) fail(`unknown implementation ${i}`);
  if (new Set(impls).size !== impls.length) {
    fail("--impl lists an implementation twice (use control for a second native)");
  }

  const options: Options = {
    runtimes: runtimes as RuntimeKey[],
    impls,
    filter: values.get("filter") ?? "",
    chunk: values.has("chunk") ? positiveInt("chunk", values.get("chunk")!) : 1024,
    rounds: values.has("rounds") ? positiveInt("rounds", values.get("rounds")!) : quick ? 3 : 5,
    timeMs: values.has("time") ? positiveInt("time", values.get("time")!) : quick ? 300 : 1000,
    minSamples: values.has("min-samples") ? positiveInt("min-samples", values.get("min-samples")!) : 3,
    hangMs: values.has("hang") ? positiveInt("hang", values.get("hang")!) : 60_000,
    quick,
  };
  const json = values.get("json");
  if (json) options.json = resolve(json);
  const alt = values.get("alt");
  if (impls.includes("alt") !== Boolean(alt)) fail("--impl=alt and --alt=DIR go together");
  if (alt) {
    options.alt = resolve(alt);
    if (!existsSync(join(options.alt, "mod.ts"))) fail(`--alt=${alt}: no mod.ts there`);
  }
  return options;
}

// ---- runtimes ----

/** The first `node` on PATH outside this repository's node_modules (npm puts node_modules/.bin first). */
function systemNode(): string | undefined {
  const nodeModules = join(ROOT, "node_modules") + sep;
  for (const dir of (process.env["PATH"] ?? "").split(delimiter)) {
    if (!dir || (resolve(dir) + sep).startsWith(nodeModules)) continue;
    const candidate = join(dir, "node");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

function newestMtime(dir: string): number {
  let newest = 0;
  if (!existsSync(dir)) return newest;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(full));
    else if (entry.name.endsWith(".ts")) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

interface Launch {
  command: string;
  args: string[];
  oursUrl: string;
  ext: string;
  notes: string[];
}

/** Node 20 cannot strip types: bundle the worker and the scenario modules into .tmp/bench/. */
async function bundleForNode20(): Promise<string> {
  const esbuild = await import("esbuild");
  const outdir = join(ROOT, ".tmp", "bench");
  mkdirSync(outdir, { recursive: true });
  await esbuild.build({
    entryPoints: {
      worker: join(ROOT, "bench", "worker.ts"),
      "scenarios/web": join(ROOT, "bench", "scenarios", "web.ts"),
      "scenarios/node": join(ROOT, "bench", "scenarios", "node.ts"),
      "scenarios/node-adapter": join(ROOT, "bench", "scenarios", "node-adapter.ts"),
      "scenarios/runtime-adapter": join(ROOT, "bench", "scenarios", "runtime-adapter.ts"),
      "scenarios/batched": join(ROOT, "bench", "scenarios", "batched.ts"),
      "scenarios/iter": join(ROOT, "bench", "scenarios", "iter.ts"),
    },
    outdir,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    outExtension: { ".js": ".mjs" },
    logLevel: "warning",
  });
  return join(outdir, "worker.mjs");
}

async function launch(runtime: RuntimeKey, impls: readonly string[]): Promise<Launch> {
  const worker = join(ROOT, "bench", "worker.ts");
  const oursTs = pathToFileURL(join(ROOT, "mod.ts")).href;
  const bin = (...parts: string[]) => {
    const path = join(ROOT, "node_modules", ...parts);
    if (!existsSync(path)) throw new Error(`${path} is missing (npm install)`);
    return path;
  };
  switch (runtime) {
    case "node26": {
      // node:stream/iter (the `iter` reference rows) is behind a flag; only given when iter is selected
      const flags = impls.includes("iter") ? ["--expose-gc", "--experimental-stream-iter"] : ["--expose-gc"];
      return { command: bin(".bin", "node"), args: [...flags, worker], oursUrl: oursTs, ext: ".ts", notes: [] };
    }
    case "node22":
      return {
        command: bin("node22", "bin", "node"),
        args: ["--expose-gc", worker],
        oursUrl: oursTs,
        ext: ".ts",
        notes: [],
      };
    case "deno":
      return {
        command: bin(".bin", "deno"),
        args: ["run", "-A", "--v8-flags=--expose-gc", worker],
        oursUrl: oursTs,
        ext: ".ts",
        notes: [],
      };
    case "bun":
      return { command: bin(".bin", "bun"), args: [worker], oursUrl: oursTs, ext: ".ts", notes: [] };
    case "node20": {
      const node = systemNode();
      if (!node) throw new Error("no system `node` on PATH");
      const notes: string[] = [];
      const dist = join(ROOT, "dist", "mod.js");
      if (!existsSync(dist)) notes.push("dist/mod.js is missing (npm run build): ours will fail to load");
      else if (
        Math.max(newestMtime(join(ROOT, "core")), statSync(join(ROOT, "mod.ts")).mtimeMs) > statSync(dist).mtimeMs
      ) {
        notes.push("dist/mod.js is older than the TypeScript source (npm run build)");
      }
      return {
        command: node,
        args: ["--expose-gc", await bundleForNode20()],
        oursUrl: pathToFileURL(dist).href,
        ext: ".mjs",
        notes,
      };
    }
  }
}

// ---- output ----

function fmtTime(ns: number): string {
  if (ns >= 1e9) return `${(ns / 1e9).toFixed(2)} s`;
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} µs`;
  return `${ns.toFixed(0)} ns`;
}

function fmtRate(rate: number, unit: string): string {
  const n = unit === "ops/s" && rate >= 1e4 ? Math.round(rate) : rate;
  const digits = unit === "ops/s" ? (rate >= 1e4 ? 0 : 1) : rate >= 100 ? 0 : 1;
  return n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function ratio(base: ImplResult | undefined, r: ImplResult): string {
  if (!base?.ok || !r.ok) return "—";
  return `${(base.median! / r.median!).toFixed(2)}x`;
}

function table(rows: string[][], right: boolean[]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((row) => [...(row[c] ?? "")].length)));
  return rows
    .map((row) =>
      row
        .map((cell, c) => {
          const pad = " ".repeat(widths[c]! - [...cell].length);
          return right[c] ? pad + cell : cell + pad;
        })
        .join("  ")
        .trimEnd()
    )
    .join("\n");
}

function printScenario(s: ScenarioResult): void {
  const by = new Map(s.results.map((r) => [r.impl, r]));
  const native = by.get("native");
  const fast = by.get("fast");
  const ours = by.get("alt") ? by.get("ours") : undefined;
  const size = s.unit === "MB/s"
    ? `${s.chunks} x ${s.chunk} B = ${(s.bytes / 1e6).toFixed(2)} MB per iteration`
    : `${s.ops} operations per iteration`;
  console.log(`\n[${s.group}] ${s.id} — ${s.title}`);
  console.log(`    ${size}${s.node && by.has("node") ? `; node: ${s.node}` : ""}`);
  // a ratio column only when its base took part
  const bases = [native?.ok ? "÷ native" : "", fast?.ok ? "÷ fast" : "", ours?.ok ? "÷ ours" : ""];
  const rows: string[][] = [["impl", "median", s.unit, "±iqr", ...bases.filter(Boolean), "samples"]];
  const extra: string[] = [];
  for (const r of s.results) {
    if (r.absent) continue;
    if (r.note) extra.push(`    ${r.impl}: ${r.note}`);
    if (r.ok) {
      const spread = ((r.p75! - r.p25!) / 2 / r.median!) * 100;
      rows.push([
        r.impl,
        fmtTime(r.median!),
        fmtRate(r.rate!, s.unit),
        `${spread.toFixed(1)}%`,
        ...(bases[0] ? [ratio(native, r)] : []),
        ...(bases[1] ? [ratio(fast, r)] : []),
        ...(bases[2] ? [ratio(ours, r)] : []),
        String(r.samples),
      ]);
    } else if (r.skipped) {
      rows.push([r.impl, "—", "—"]);
      extra.push(`    ${r.impl}: ${r.skipped}`);
    } else {
      rows.push([r.impl, "FAILED", "—"]);
      extra.push(`    ${r.impl} FAILED: ${r.error}`);
    }
  }
  for (const row of rows) while (row.length < rows[0]!.length) row.push("");
  console.log(
    table(rows, rows[0]!.map((_, c) => c > 0))
      .split("\n")
      .map((line) => `    ${line}`)
      .join("\n"),
  );
  for (const line of extra) console.log(line);
  for (const w of s.warnings ?? []) console.log(`    warning: ${w}`);
}

function printSummary(start: StartMessage, scenarios: ScenarioResult[]): void {
  if (scenarios.length < 2) return;
  // implementations missing on this runtime (fast on Deno/Bun) get no column
  const impls = start.impls.filter((name) =>
    scenarios.some((s) => s.results.some((r) => r.impl === name && !r.absent))
  );
  const hasNative = impls.includes("native");
  console.log(`\nSummary — ${start.runtime}: ${hasNative ? "rate, ÷ native in parentheses" : "rate"}`);
  const rows: string[][] = [["scenario", "unit", ...impls]];
  for (const s of scenarios) {
    const native = s.results.find((r) => r.impl === "native");
    const ours = s.results.find((r) => r.impl === "ours");
    rows.push([
      s.id,
      s.unit,
      ...impls.map((name) => {
        const r = s.results.find((x) => x.impl === name);
        if (!r) return "";
        if (!r.ok) return r.skipped ? "—" : "FAILED";
        const rate = fmtRate(r.rate!, s.unit);
        // alt (--alt): its ratio to ours too, the A/B's result
        const vsOurs = name === "alt" ? `${ratio(ours, r)} ÷ ours` : "";
        if (hasNative && name !== "native") return `${rate} (${ratio(native, r)}${vsOurs ? `; ${vsOurs}` : ""})`;
        return vsOurs ? `${rate} (${vsOurs})` : rate;
      }),
    ]);
  }
  console.log(
    table(rows, [false, false, ...impls.map(() => true)])
      .split("\n")
      .map((line) => `    ${line}`)
      .join("\n"),
  );
}

// ---- running ----

interface RuntimeRun {
  runtime: RuntimeKey;
  command: string[];
  start?: StartMessage;
  scenarios: ScenarioResult[];
  exitCode: number | null;
  signal: string | null;
  problems: string[];
  ms?: number;
}

async function runRuntime(runtime: RuntimeKey, options: Options, ids: string[]): Promise<RuntimeRun> {
  const run: RuntimeRun = { runtime, command: [], scenarios: [], exitCode: null, signal: null, problems: [] };
  let l: Launch;
  try {
    l = await launch(runtime, options.impls);
  } catch (error) {
    run.problems.push(`cannot start ${runtime}: ${error instanceof Error ? error.message : String(error)}`);
    console.log(`\n=== ${runtime}: ${run.problems[0]} ===`);
    return run;
  }
  run.command = [l.command, ...l.args];
  const config: WorkerConfig = {
    impls: options.impls,
    scenarios: ids,
    chunk: options.chunk,
    rounds: options.rounds,
    timeMs: options.timeMs,
    minSamples: options.minSamples,
    oursUrl: l.oursUrl,
    ...(options.alt
      ? { altUrl: pathToFileURL(join(options.alt, runtime === "node20" ? join("dist", "mod.js") : "mod.ts")).href }
      : {}),
    ext: l.ext,
    hangMs: options.hangMs,
  };
  const child = spawn(l.command, l.args, {
    cwd: ROOT,
    env: { ...process.env, [CONFIG_ENV]: JSON.stringify(config), NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stderr.on("data", (chunk: Buffer) => process.stderr.write(chunk));
  let lastStep = "";
  const lines = createInterface({ input: child.stdout });
  for await (const line of lines) {
    if (!line.startsWith(MESSAGE_PREFIX)) {
      process.stderr.write(`[${runtime}] ${line}\n`);
      continue;
    }
    const message = JSON.parse(line.slice(MESSAGE_PREFIX.length)) as Message;
    switch (message.type) {
      case "start": {
        run.start = message;
        const budget = `${options.rounds} rounds, ${options.timeMs} ms sampling per impl`;
        console.log(`\n=== ${message.runtime} — ${message.platform}, ${message.cpu} ===`);
        console.log(
          `chunk ${options.chunk} B; ${budget}; gc before each scenario: ${message.gc ? "yes" : "no"}; ` +
            `MB = 10^6 bytes; ÷ x = median(x) / median(impl), > 1 = faster than x`,
        );
        for (const note of [...l.notes, ...message.notes]) console.log(`note: ${note}`);
        break;
      }
      case "progress":
        lastStep = `${message.scenario}: ${message.step}`;
        if (message.step.startsWith("HANG")) run.problems.push(lastStep);
        break;
      case "scenario":
        run.scenarios.push(message.result);
        printScenario(message.result);
        break;
      case "done":
        run.ms = message.ms;
        break;
    }
  }
  const [code, signal] = await new Promise<[number | null, string | null]>((done) => {
    if (child.exitCode !== null || child.signalCode !== null) done([child.exitCode, child.signalCode]);
    else child.on("exit", (c, s) => done([c, s]));
  });
  run.exitCode = code;
  run.signal = signal;
  if (code !== 0 || run.ms === undefined) {
    run.problems.push(`worker exited with ${signal ?? `code ${code}`}${lastStep ? ` (last step: ${lastStep})` : ""}`);
  }
  if (run.start) printSummary(run.start, run.scenarios);
  for (const p of run.problems) console.log(`PROBLEM: ${p}`);
  if (run.ms !== undefined) console.log(`(${runtime} finished in ${(run.ms / 1000).toFixed(1)} s)`);
  return run;
}

const options = parseArgs(process.argv.slice(2));
const scenarios = selectScenarios(options.filter);
if (scenarios.length === 0) fail(`no scenario matches --filter=${options.filter}`);

const runs: RuntimeRun[] = [];
for (const runtime of options.runtimes) runs.push(await runRuntime(runtime, options, scenarios.map((s) => s.id)));

if (options.json) {
  mkdirSync(dirname(options.json), { recursive: true });
  const report = {
    date: new Date().toISOString(),
    options: { ...options, json: undefined },
    runs,
  };
  writeFileSync(options.json, JSON.stringify(report, null, 2) + "\n");
  console.log(`\nwrote ${options.json}`);
}

const failed = runs.some(
  (r) => r.problems.length > 0 || r.scenarios.some((s) => s.results.some((x) => !x.ok && !x.skipped)),
);
process.exitCode = failed ? 1 : 0;
