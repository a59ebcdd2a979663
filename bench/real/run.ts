/**
 * `npm run bench:real`: real pipelines and frameworks with fusestreams' global patch on and off (issue 25).
 *
 *   node bench/real/run.ts [--runtime=node26,node22,deno,bun|all] [--filter=ID,...] [--rounds=N] [--time=MS]
 *                          [--quick] [--profile] [--profile-dir=DIR] [--connections=N] [--json=PATH]
 *
 * Every row runs in fresh processes of the runtime under test (bench/real/worker.ts), one per side and round,
 * the two sides interleaved (off, on, then on, off, ...). A side's samples are pooled over its rounds; the
 * result is a ratio of medians, above 1 when the patch is faster: median time off ÷ median time on for the
 * in-process rows, median req/s on ÷ median req/s off for the server rows (driven from this process by
 * bench/real/load.ts). `--profile` adds one profiled process per side and row and prints the CPU shares
 * (bench/real/profile.ts). See bench/README.md, "Real pipelines and frameworks".
 * @module
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { readFlags } from "../lib/flags.ts";
import {
  CONFIG_ENV,
  LINE_PREFIX,
  type Row,
  type RuntimeKey,
  RUNTIMES,
  selectRows,
  type Shares,
  type WorkerConfig,
  type WorkerMessage,
} from "./catalog.ts";
import { expectedBytes } from "./data.ts";
import { drive } from "./load.ts";
import { CATEGORIES } from "./profile.ts";

/** `--pin`: the core of a server row's process, and of this process (the load client). */
const SERVER_CORE = 1;
const CLIENT_CORE = 0;

/**
 * `--pin`: puts every thread of this process on {@link CLIENT_CORE} (a server row's process goes on
 * {@link SERVER_CORE}, an in-process row's on every core, as it starts); exits with the reason where it cannot.
 * Measured on Bun 1.4.5 (bench/README.md): unpinned, the load client and the server's compiler and collector
 * threads take each other's core, and identical server processes differed by up to 15 % in CPU per request.
 */
function pinLoadClient(): void {
  if (process.platform !== "linux") fail("--pin needs Linux (taskset)");
  if (availableParallelism() < 2) fail(`--pin needs 2 cores, this machine has ${availableParallelism()}`);
  const pinned = spawnSync("taskset", ["-a", "-p", "-c", String(CLIENT_CORE), String(process.pid)], {
    encoding: "utf8",
  });
  if (pinned.status !== 0) fail(`--pin: taskset failed: ${pinned.error?.message ?? pinned.stderr.trim()}`);
}

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const WORKER = join(ROOT, "bench", "real", "worker.ts");

const USAGE = `usage: node bench/real/run.ts [options]
  --runtime=LIST     node26 (default), node22, deno, bun, or all; a comma list runs them one after the other
  --filter=IDS       rows whose id contains one of the comma-separated words (pipe, ai, react, hono, end, ...)
  --rounds=N         processes per side and row, the sides interleaved (default 3; quick 2)
  --time=MS          sampling time per process (default 1000; quick 400)
  --warm=MS          the warm-up before sampling: a server's under load, an in-process row's in a loop
                     (default: half of --time for servers, a quarter of it in-process)
  --quick            --rounds=2 --time=400
  --profile          one more process per side and row with a CPU profile of the measured part: CPU shares
  --profile-dir=DIR  keep those profiles as DIR/<runtime>-<row>-<on|off>.cpuprofile
  --connections=N    concurrent keep-alive connections of the load client (default 8)
  --server-warm=MS   the server rows' warm-up, in place of --warm's (a server's steady state takes longer)
  --pin              server rows: the server process on core 1, this process (the load client) on core 0
                     (Linux, taskset, 2 or more cores), so that neither takes the other's core
  --json=PATH        also write every sample and share as JSON`;

interface Options {
  runtimes: RuntimeKey[];
  filter: string;
  rounds: number;
  timeMs: number;
  /** the warm-up: a server's under load, an in-process row's in a loop; undefined: half (a quarter) of timeMs */
  warmMs?: number;
  /** the server rows' warm-up, when it differs from warmMs */
  serverWarmMs?: number;
  profile: boolean;
  profileDir?: string;
  connections: number;
  /** server rows: the server pinned to core 1, the load client to core 0 */
  pin: boolean;
  json?: string;
}

function fail(message: string): never {
  console.error(`bench:real: ${message}\n${USAGE}`);
  process.exit(2);
}

function positiveInt(name: string, value: string | undefined): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) fail(`--${name} needs a positive integer, got ${JSON.stringify(value)}`);
  return n;
}

function parseArgs(argv: string[]): Options {
  const known = [
    "runtime",
    "filter",
    "rounds",
    "time",
    "warm",
    "quick",
    "profile",
    "profile-dir",
    "connections",
    "pin",
    "server-warm",
    "json",
  ];
  const values = readFlags(argv, known, USAGE, fail);
  const quick = values.has("quick");
  const list = values.get("runtime") || "node26";
  const runtimes = (list === "all" ? [...RUNTIMES] : list.split(",").map((r) => r.trim())) as RuntimeKey[];
  for (const r of runtimes) if (!(RUNTIMES as readonly string[]).includes(r)) fail(`unknown runtime ${r}`);
  const options: Options = {
    runtimes,
    filter: values.get("filter") ?? "",
    rounds: values.has("rounds") ? positiveInt("rounds", values.get("rounds")) : quick ? 2 : 3,
    timeMs: values.has("time") ? positiveInt("time", values.get("time")) : quick ? 400 : 1000,
    profile: values.has("profile") || values.has("profile-dir"),
    connections: values.has("connections") ? positiveInt("connections", values.get("connections")) : 8,
    pin: values.has("pin"),
  };
  if (values.has("warm")) options.warmMs = positiveInt("warm", values.get("warm"));
  if (values.has("server-warm")) options.serverWarmMs = positiveInt("server-warm", values.get("server-warm"));
  if (values.get("profile-dir")) options.profileDir = resolve(values.get("profile-dir")!);
  if (values.get("json")) options.json = resolve(values.get("json")!);
  return options;
}

function command(runtime: RuntimeKey): string[] {
  const bin = (...p: string[]) => join(ROOT, "node_modules", ...p);
  switch (runtime) {
    case "node26":
      return [bin(".bin", "node"), "--expose-gc", WORKER];
    case "node22":
      return [bin("node22", "bin", "node"), "--expose-gc", WORKER];
    case "deno":
      return [bin(".bin", "deno"), "run", "-A", "--v8-flags=--expose-gc", WORKER];
    case "bun":
      return [bin(".bin", "bun"), WORKER];
  }
}

// ---- one worker process ----

interface SideRun {
  runtime?: string;
  samples: number[];
  /** the worker's CPU time per iteration or per request (ns) */
  cpu?: number;
  /** the load client's CPU time per request (ns), server rows */
  clientCpu?: number;
  /** keep-alive connections the server closed between responses (server rows) */
  reconnects?: number;
  shares?: Shares;
  error?: string;
}

/** Reads a worker's protocol lines; the rest of its output goes to stderr, prefixed. */
class Worker {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  #waiters: { type: string; resolve: (m: WorkerMessage) => void }[] = [];
  #seen: WorkerMessage[] = [];
  #error?: string;

  constructor(runtime: RuntimeKey, config: WorkerConfig, env: Record<string, string>, cores?: string) {
    const [cmd, ...args] = cores === undefined ? command(runtime) : ["taskset", "-c", cores, ...command(runtime)];
    this.child = spawn(cmd!, args, {
      cwd: ROOT,
      // production builds of the frameworks (React picks its development build otherwise), as a server runs them
      env: { ...process.env, NODE_ENV: "production", ...env, [CONFIG_ENV]: JSON.stringify(config), NO_COLOR: "1" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child.stderr!.on("data", (chunk: Buffer) => process.stderr.write(`  [${runtime} ${config.row}] ${chunk}`));
    createInterface({ input: this.child.stdout! }).on("line", (line) => {
      if (!line.startsWith(LINE_PREFIX)) return void process.stderr.write(`  [${runtime}] ${line}\n`);
      const message = JSON.parse(line.slice(LINE_PREFIX.length)) as WorkerMessage;
      if (message.type === "error") this.#error = message.message;
      this.#seen.push(message);
      for (const w of this.#waiters.filter((w) => w.type === message.type)) w.resolve(message);
      this.#waiters = this.#waiters.filter((w) => w.type !== message.type);
    });
    this.exited = new Promise((done) => this.child.on("exit", (code) => done(code)));
  }

  /** The first message of `type`; rejects when the worker exits first or after `ms`. */
  next<T extends WorkerMessage["type"]>(type: T, ms: number): Promise<Extract<WorkerMessage, { type: T }>> {
    const seen = this.#seen.find((m) => m.type === type);
    if (seen) return Promise.resolve(seen as Extract<WorkerMessage, { type: T }>);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${type} message within ${ms} ms`)), ms);
      this.#waiters.push({
        type,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m as Extract<WorkerMessage, { type: T }>);
        },
      });
      void this.exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(this.#error ?? `the worker exited (code ${code}) before sending ${type}`));
      });
    });
  }

  get messages(): WorkerMessage[] {
    return this.#seen;
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill("SIGKILL");
  }
}

async function runSide(
  runtime: RuntimeKey,
  row: Row,
  patch: boolean,
  profile: boolean,
  options: Options,
): Promise<SideRun> {
  const warmMs = row.kind === "server" ? options.serverWarmMs ?? options.warmMs : options.warmMs;
  const config: WorkerConfig = { runtime, row: row.id, patch, timeMs: options.timeMs, warmMs, profile };
  const env: Record<string, string> = options.profileDir ? { FUSESTREAMS_REAL_PROFILE_DIR: options.profileDir } : {};
  // (a child inherits this process's pinning: an in-process row's worker gets every core back)
  const cores = !options.pin
    ? undefined
    : row.kind === "server"
    ? String(SERVER_CORE)
    : `0-${availableParallelism() - 1}`;
  const worker = new Worker(runtime, config, env, cores);
  const limit = 60_000 + options.timeMs * 4 + (warmMs ?? 0);
  const result: SideRun = { samples: [] };
  try {
    result.runtime = (await worker.next("ready", limit)).runtime;
    if (row.kind === "inproc") {
      const message = await worker.next("samples", limit);
      result.samples = message.samples;
      result.cpu = message.cpuPerCallNs;
    } else {
      const { port } = await worker.next("listening", limit);
      const request = row.request!;
      const load = await drive({
        port,
        method: request.method,
        path: request.path,
        ...(request.bodyBytes ? { body: echoBody(request.bodyBytes) } : {}),
        expectBytes: expectedBytes(request.path),
        connections: options.connections,
        warmMs: warmMs ?? options.timeMs / 2,
        measureMs: options.timeMs,
        windowMs: Math.max(50, options.timeMs / 10),
        onMeasure: () => worker.child.stdin!.write("measure\n"),
      });
      result.samples = load.windows;
      result.clientCpu = load.clientCpuUs * 1000;
      result.reconnects = load.reconnects;
      worker.child.stdin!.write("stop\n");
      result.cpu = ((await worker.next("cpu", limit)).cpuUs * 1000) / Math.max(1, load.requests);
    }
    if (profile) result.shares = (await worker.next("profile", limit)).shares;
    await Promise.race([worker.exited, new Promise((r) => setTimeout(r, 5000))]);
  } catch (error) {
    result.error = error instanceof Error ? error.message : String(error);
  } finally {
    worker.kill();
  }
  return result;
}

let echo: Uint8Array | undefined;
function echoBody(bytes: number): Uint8Array {
  if (echo?.byteLength !== bytes) {
    echo = new Uint8Array(bytes);
    for (let i = 0; i < bytes; i++) echo[i] = (i * 7 + (i >>> 8)) & 0xff;
  }
  return echo;
}

// ---- statistics and output ----

function quantile(values: number[], q: number): number {
  const sorted = values.slice().sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

interface RowResult {
  row: string;
  kind: Row["kind"];
  off: number[];
  on: number[];
  /** above 1: the patch is faster */
  ratio?: number;
  /** the ratio of each round's pair, in order */
  pairs: number[];
  /** CPU time per iteration or request (ns), one value per process */
  cpuOff: number[];
  cpuOn: number[];
  /** median CPU off ÷ median CPU on: above 1, the patch costs less CPU */
  cpuRatio?: number;
  sharesOff?: Shares;
  sharesOn?: Shares;
  errors: string[];
}

function fmt(kind: Row["kind"], value: number): string {
  if (kind === "server") return `${value.toFixed(0)} req/s`;
  const ms = value / 1e6;
  return ms >= 10 ? `${ms.toFixed(1)} ms` : `${ms.toFixed(2)} ms`;
}

function spread(values: number[]): string {
  if (values.length < 2) return "—";
  const m = quantile(values, 0.5);
  return `±${(((quantile(values, 0.75) - quantile(values, 0.25)) / 2 / m) * 100).toFixed(1)}%`;
}

function ratioOf(kind: Row["kind"], off: number[], on: number[]): number | undefined {
  if (off.length === 0 || on.length === 0) return undefined;
  const mOff = quantile(off, 0.5);
  const mOn = quantile(on, 0.5);
  return kind === "server" ? mOn / mOff : mOff / mOn;
}

function cpuFmt(ns: number | undefined): string {
  if (ns === undefined) return "—";
  return ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : `${(ns / 1e3).toFixed(0)} µs`;
}

function pct(x: number | undefined): string {
  return x === undefined ? "—" : `${(x * 100).toFixed(0)}%`;
}

/** The CPU share of stream code (fusestreams + the runtime's streams, self time). */
function streamShare(s: Shares | undefined): number | undefined {
  return s ? s.self["fusestreams"]! + s.self["runtime streams"]! : undefined;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => [...(r[c] ?? "")].length)));
  return rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join("  "))
    .join("\n");
}

async function runRow(runtime: RuntimeKey, row: Row, options: Options, version: { name?: string }): Promise<RowResult> {
  const result: RowResult = {
    row: row.id,
    kind: row.kind,
    off: [],
    on: [],
    pairs: [],
    cpuOff: [],
    cpuOn: [],
    errors: [],
  };
  console.log(`\n[${row.id}] ${row.title}`);
  for (let round = 0; round < options.rounds; round++) {
    const order = round % 2 === 0 ? [false, true] : [true, false];
    const medians: Record<string, number> = {};
    for (const patch of order) {
      const side = await runSide(runtime, row, patch, false, options);
      version.name ??= side.runtime;
      const name = patch ? "on" : "off";
      if (side.error) {
        result.errors.push(`${name}, round ${round + 1}: ${side.error}`);
        console.log(`    round ${round + 1} ${name}: FAILED: ${side.error}`);
        continue;
      }
      result[name].push(...side.samples);
      if (side.cpu !== undefined) result[patch ? "cpuOn" : "cpuOff"].push(side.cpu);
      medians[name] = quantile(side.samples, 0.5);
      if (side.cpu !== undefined) medians[`cpu-${name}`] = side.cpu;
      if (side.clientCpu !== undefined) medians[`client-${name}`] = side.clientCpu;
      if (side.reconnects) {
        console.log(
          `    round ${
            round + 1
          } ${name}: the server closed ${side.reconnects} keep-alive connections between responses`,
        );
      }
    }
    if (medians["off"] !== undefined && medians["on"] !== undefined) {
      const pair = row.kind === "server" ? medians["on"] / medians["off"] : medians["off"] / medians["on"];
      result.pairs.push(pair);
      console.log(
        `    round ${round + 1} (${order.map((p) => (p ? "on" : "off")).join(", ")}): off ${
          fmt(row.kind, medians["off"])
        }, on ${fmt(row.kind, medians["on"])}, on ÷ off ${pair.toFixed(2)}x; CPU per ${
          row.kind === "server" ? "request" : "iteration"
        } off ${cpuFmt(medians["cpu-off"])}, on ${cpuFmt(medians["cpu-on"])}${
          row.kind === "server"
            ? `; load client's CPU per request off ${cpuFmt(medians["client-off"])}, on ${cpuFmt(medians["client-on"])}`
            : ""
        }`,
      );
    }
  }
  const ratio = ratioOf(row.kind, result.off, result.on);
  if (ratio !== undefined) result.ratio = ratio;
  if (result.cpuOff.length && result.cpuOn.length) {
    result.cpuRatio = quantile(result.cpuOff, 0.5) / quantile(result.cpuOn, 0.5);
  }
  if (options.profile) {
    for (const patch of [false, true]) {
      const side = await runSide(runtime, row, patch, true, options);
      if (side.error) result.errors.push(`profile ${patch ? "on" : "off"}: ${side.error}`);
      else if (patch) result.sharesOn = side.shares!;
      else result.sharesOff = side.shares!;
    }
  }
  const lines = [["side", "median", "±iqr", "samples"]];
  for (const name of ["off", "on"] as const) {
    const v = result[name];
    lines.push([name, v.length ? fmt(row.kind, quantile(v, 0.5)) : "FAILED", spread(v), String(v.length)]);
  }
  console.log(table(lines).split("\n").map((l) => `    ${l}`).join("\n"));
  console.log(`    on ÷ off: ${ratio === undefined ? "—" : `${ratio.toFixed(2)}x`} (ratio of pooled medians)`);
  if (result.cpuRatio !== undefined) {
    console.log(
      `    CPU off ÷ on: ${result.cpuRatio.toFixed(2)}x (median CPU time per ${
        row.kind === "server" ? "request" : "iteration"
      }: off ${cpuFmt(quantile(result.cpuOff, 0.5))}, on ${cpuFmt(quantile(result.cpuOn, 0.5))})`,
    );
  }
  for (const [name, s] of [["off", result.sharesOff], ["on", result.sharesOn]] as const) {
    if (!s) continue;
    const parts = CATEGORIES.map((c) => `${c} ${pct(s.self[c])}`).join(", ");
    console.log(`    CPU ${name}: ${parts}; stack in streams ${pct(s.inStreams)}`);
  }
  return result;
}

function printSummary(runtime: string, results: RowResult[], profile: boolean): void {
  console.log(`\nSummary — ${runtime}: patch on ÷ off (> 1 = faster with the patch)`);
  const head = ["row", "off", "on", "on ÷ off", "rounds", "CPU off", "CPU on", "CPU ÷"];
  if (profile) head.push("streams off", "streams on", "ours on", "stack off", "stack on");
  const rows = [head];
  for (const r of results) {
    const line = [
      r.row,
      r.off.length ? fmt(r.kind, quantile(r.off, 0.5)) : "FAILED",
      r.on.length ? fmt(r.kind, quantile(r.on, 0.5)) : "FAILED",
      r.ratio === undefined ? "—" : `${r.ratio.toFixed(2)}x`,
      r.pairs.map((p) => p.toFixed(2)).join(" "),
      cpuFmt(r.cpuOff.length ? quantile(r.cpuOff, 0.5) : undefined),
      cpuFmt(r.cpuOn.length ? quantile(r.cpuOn, 0.5) : undefined),
      r.cpuRatio === undefined ? "—" : `${r.cpuRatio.toFixed(2)}x`,
    ];
    if (profile) {
      line.push(
        pct(streamShare(r.sharesOff)),
        pct(streamShare(r.sharesOn)),
        pct(r.sharesOn?.self["fusestreams"]),
        pct(r.sharesOff?.inStreams),
        pct(r.sharesOn?.inStreams),
      );
    }
    rows.push(line);
  }
  console.log(table(rows).split("\n").map((l) => `    ${l}`).join("\n"));
  console.log(
    "    CPU = the worker process's CPU time per iteration / request (all its threads), median of its processes;\n" +
      "    CPU ÷ = CPU off ÷ CPU on (> 1 = the patch costs less CPU)",
  );
  if (profile) {
    console.log(
      "    streams = self time in fusestreams + the runtime's web streams; ours = fusestreams alone; stack = samples\n" +
        "    with a stream frame anywhere on the stack (stream code and what it calls). bench/real/profile.ts",
    );
  }
}

// ---- main ----

const options = parseArgs(process.argv.slice(2));
if (options.pin) pinLoadClient();
if (options.profileDir) mkdirSync(options.profileDir, { recursive: true });
const report: { runtime: RuntimeKey; version?: string; results: RowResult[] }[] = [];
let failed = false;
for (const runtime of options.runtimes) {
  const rows = selectRows(runtime, options.filter);
  if (rows.length === 0) {
    console.log(`\n=== ${runtime}: no row matches --filter=${options.filter} ===`);
    continue;
  }
  const version: { name?: string } = {};
  console.log(
    `\n=== ${runtime}: ${rows.length} rows, ${options.rounds} rounds x 2 sides, ${options.timeMs} ms per process${
      options.warmMs === undefined ? "" : `, warmed for ${options.warmMs} ms`
    }${options.serverWarmMs === undefined ? "" : `, servers warmed for ${options.serverWarmMs} ms`}${
      options.profile ? ", profiled" : ""
    }${options.pin ? ", servers on core 1 and the load client on core 0" : ""} ===`,
  );
  const started = performance.now();
  const results: RowResult[] = [];
  for (const row of rows) results.push(await runRow(runtime, row, options, version));
  printSummary(`${runtime}, ${version.name ?? "?"}`, results, options.profile);
  console.log(`(${runtime} finished in ${((performance.now() - started) / 1000).toFixed(0)} s)`);
  report.push({ runtime, ...(version.name ? { version: version.name } : {}), results });
  if (results.some((r) => r.errors.length > 0)) failed = true;
}
if (options.json) {
  mkdirSync(dirname(options.json), { recursive: true });
  writeFileSync(options.json, JSON.stringify({ date: new Date().toISOString(), options, report }, null, 2) + "\n");
  console.log(`\nwrote ${options.json}`);
}
process.exitCode = failed ? 1 : 0;
