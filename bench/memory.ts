/**
 * `npm run bench:memory`: bytes one live stream keeps after a full GC, per shape, for fusestreams (`ours`),
 * the runtime's native streams and experimental-fast-webstreams (`fast`, Node only), on every runtime.
 *
 *   node bench/memory.ts [--runtime=node26,node22,deno,bun] [--impl=ours,native,fast] [--filter=shape]
 *                        [--count=20000] [--repeat=1] [--json=path]
 *
 * Every (runtime, shape, implementation) cell runs in a fresh process (bench/memory-worker.ts), so nothing
 * one measurement allocates or compiles is counted in another's. With --repeat=N each cell runs N times and
 * the median is reported. See bench/README.md ("Memory").
 * @module
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { readFlags } from "./lib/flags.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const WORKER = join(ROOT, "bench", "memory-worker.ts");
const RUNTIMES = ["node26", "node22", "deno", "bun"] as const;
type RuntimeKey = (typeof RUNTIMES)[number];
const IMPLS = ["ours", "native", "fast"] as const;

/** The shapes, in output order, with the row titles (ids as in bench/memory-worker.ts). */
const SHAPES: readonly (readonly [string, string])[] = [
  ["readable", "new ReadableStream({ pull })"],
  ["readable-reader", "+ getReader()"],
  ["writable", "new WritableStream({ write })"],
  ["transform", "new TransformStream({ transform })"],
  ["bytes-start", "bytes stream, controller captured in start()"],
  ["pipe-through-3", "source .pipeThrough(ts) x3, not consumed"],
];

const USAGE = `usage: node bench/memory.ts [options]
  --runtime=LIST   ${RUNTIMES.join(", ")} (default: all of them)
  --impl=LIST      ${IMPLS.join(", ")} (default: all; fast runs on Node only)
  --filter=TEXT    only shapes whose id contains TEXT (a comma list matches any)
  --count=N        live streams per measurement (default 20000)
  --repeat=N       fresh processes per cell, the median is reported (default 1)
  --json=PATH      also write every measurement as JSON`;

function fail(message: string): never {
  console.error(`bench:memory: ${message}\n${USAGE}`);
  process.exit(2);
}

interface Options {
  runtimes: RuntimeKey[];
  impls: string[];
  shapes: string[];
  count: number;
  repeat: number;
  json?: string;
}

function parseArgs(argv: string[]): Options {
  const values = readFlags(argv, ["runtime", "impl", "filter", "count", "repeat", "json"], USAGE, fail);
  const list = (key: string, all: readonly string[]): string[] => {
    const items = (values.get(key) || all.join(",")).split(",").map((s) => s.trim());
    for (const item of items) if (!all.includes(item)) fail(`unknown ${key} ${item}`);
    return items;
  };
  const int = (key: string, fallback: number): number => {
    if (!values.has(key)) return fallback;
    const n = Number(values.get(key));
    if (!Number.isInteger(n) || n <= 0) fail(`--${key} needs a positive integer`);
    return n;
  };
  const filters = (values.get("filter") ?? "").split(",").map((f) => f.trim()).filter(Boolean);
  const shapes = SHAPES.map(([id]) => id).filter((id) => filters.length === 0 || filters.some((f) => id.includes(f)));
  if (shapes.length === 0) fail(`no shape matches --filter=${values.get("filter")}`);
  const json = values.get("json");
  return {
    runtimes: list("runtime", RUNTIMES) as RuntimeKey[],
    impls: list("impl", IMPLS),
    shapes,
    count: int("count", 20_000),
    repeat: int("repeat", 1),
    json: json ? resolve(json) : undefined,
  };
}

function command(runtime: RuntimeKey): { cmd: string; args: string[] } {
  const bin = (...parts: string[]): string => {
    const path = join(ROOT, "node_modules", ...parts);
    if (!existsSync(path)) throw new Error(`${path} is missing (npm install)`);
    return path;
  };
  switch (runtime) {
    case "node26":
      return { cmd: bin(".bin", "node"), args: ["--expose-gc", WORKER] };
    case "node22":
      return { cmd: bin("node22", "bin", "node"), args: ["--expose-gc", WORKER] };
    case "deno":
      return { cmd: bin(".bin", "deno"), args: ["run", "-A", "--v8-flags=--expose-gc", WORKER] };
    case "bun":
      return { cmd: bin(".bin", "bun"), args: [WORKER] };
  }
}

interface Measurement {
  runtime: RuntimeKey;
  shape: string;
  impl: string;
  /** bytes per stream, one per process */
  samples: number[];
  bytes?: number;
  error?: string;
}

/** Runs one worker process; resolves with bytes per stream, or rejects with its output. */
function measureOnce(runtime: RuntimeKey, shape: string, impl: string, count: number): Promise<number> {
  const { cmd, args } = command(runtime);
  const child = spawn(cmd, [...args, shape, impl, String(count), pathToFileURL(join(ROOT, "mod.ts")).href], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr.on("data", (c: Buffer) => (out += c.toString()));
  return new Promise((done, failed) => {
    child.on("close", (code) => {
      const line = out.split("\n").find((l) => l.startsWith("@@memory "));
      if (code !== 0 || line === undefined) {
        failed(new Error(`exit ${code}: ${out.trim().split("\n").slice(-3).join(" | ")}`));
        return;
      }
      done((JSON.parse(line.slice("@@memory ".length)) as { bytes: number }).bytes);
    });
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function fmt(bytes: number | undefined): string {
  return bytes === undefined ? "—" : Math.round(bytes).toLocaleString("en-US");
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((row) => (row[c] ?? "").length)));
  return rows
    .map((row) => row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join("  "))
    .map((line) => `    ${line.trimEnd()}`)
    .join("\n");
}

const options = parseArgs(process.argv.slice(2));
const results: Measurement[] = [];
const versions = new Map<RuntimeKey, string>();

async function version(runtime: RuntimeKey): Promise<string> {
  const { cmd } = command(runtime);
  const child = spawn(cmd, ["--version"], { stdio: ["ignore", "pipe", "ignore"] });
  let out = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  await new Promise((done) => child.on("close", done));
  const first = out.trim().split("\n")[0] ?? "";
  return runtime === "bun"
    ? `Bun ${first}`
    : runtime === "deno"
    ? first.replace(/^deno/, "Deno").replace(/ \(.*$/, "")
    : `Node ${first}`;
}

console.log(
  `Retained bytes per live stream after a full GC: ${
    options.count.toLocaleString("en-US")
  } streams kept in an array, ` +
    `heap after minus heap before, divided by the count; one fresh process per cell` +
    (options.repeat > 1 ? ` (median of ${options.repeat})` : "") +
    ". The user's source/sink object and its callback are included (the same for every implementation).",
);
for (const runtime of options.runtimes) {
  versions.set(runtime, await version(runtime).catch(() => runtime));
  const impls = options.impls.filter((i) => i !== "fast" || runtime.startsWith("node"));
  console.log(`\n=== ${versions.get(runtime)} ===`);
  const rows: string[][] = [["shape", ...impls]];
  for (const shape of options.shapes) {
    const row = [SHAPES.find(([id]) => id === shape)![1]];
    for (const impl of impls) {
      const m: Measurement = { runtime, shape, impl, samples: [] };
      try {
        for (let i = 0; i < options.repeat; i++) m.samples.push(await measureOnce(runtime, shape, impl, options.count));
        m.bytes = median(m.samples);
      } catch (error) {
        m.error = error instanceof Error ? error.message : String(error);
        console.log(`    ${impl} ${shape} FAILED: ${m.error}`);
      }
      results.push(m);
      row.push(m.error === undefined ? fmt(m.bytes) : "FAILED");
    }
    rows.push(row);
  }
  console.log(table(rows));
}

// Summary: fusestreams on every runtime beside every native implementation.
if (options.runtimes.length > 1) {
  const get = (runtime: string, shape: string, impl: string) =>
    results.find((m) => m.runtime === runtime && m.shape === shape && m.impl === impl)?.bytes;
  const header = ["shape"];
  if (options.impls.includes("ours")) header.push(...options.runtimes.map((r) => `ours ${r}`));
  if (options.impls.includes("native")) header.push(...options.runtimes.map((r) => `native ${r}`), "leanest native");
  if (options.impls.includes("fast") && options.runtimes.some((r) => r.startsWith("node"))) header.push("fast (Node)");
  const rows: string[][] = [header];
  for (const shape of options.shapes) {
    const row = [SHAPES.find(([id]) => id === shape)![1]];
    if (options.impls.includes("ours")) row.push(...options.runtimes.map((r) => fmt(get(r, shape, "ours"))));
    if (options.impls.includes("native")) {
      const natives = options.runtimes.map((r) => get(r, shape, "native"));
      const known = natives.filter((b): b is number => b !== undefined);
      row.push(...natives.map(fmt), fmt(known.length > 0 ? Math.min(...known) : undefined));
    }
    if (options.impls.includes("fast") && options.runtimes.some((r) => r.startsWith("node"))) {
      row.push(options.runtimes.filter((r) => r.startsWith("node")).map((r) => fmt(get(r, shape, "fast"))).join(" / "));
    }
    rows.push(row);
  }
  console.log(
    `\nSummary: bytes per live stream (${options.runtimes.map((r) => `${r} = ${versions.get(r)}`).join(", ")})`,
  );
  console.log(table(rows));
}

if (options.json) {
  mkdirSync(dirname(options.json), { recursive: true });
  writeFileSync(
    options.json,
    JSON.stringify(
      { date: new Date().toISOString(), options, versions: Object.fromEntries(versions), results },
      null,
      2,
    ) + "\n",
  );
  console.log(`\nwrote ${options.json}`);
}
process.exitCode = results.some((m) => m.error !== undefined) ? 1 : 0;
