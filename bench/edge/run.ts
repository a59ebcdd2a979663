/**
 * Edge adapter benchmarks in workerd: fusestreams with the edge adapter's global patch (`ours`) against
 * workerd's own streams (`native`), in real workerd started through miniflare.
 *
 *   node bench/edge/run.ts [--filter=substr] [--rounds=5] [--samples=3] [--target-ms=100] [--n=1024] [--alt=DIR]
 *
 * The mitata worker (bench/worker.ts) cannot run inside workerd, and workerd's clock only moves on I/O,
 * so this harness times from outside: each sample is one request to the bench worker, which runs a
 * calibrated number of iterations of a scenario (about --target-ms in all) and answers when they are done;
 * ms per iteration = request time / iterations (the request's own cost, under 1 ms, is included for both
 * implementations alike). Source chunks are prepared by an untimed request before each sample. Rounds
 * alternate the order of the implementations (ours first, then native first, ...). Reported: the median of
 * the pooled samples, MB/s, half the interquartile range relative to the median, and
 * ÷ native = median(native) / median(ours) (above 1: ours is faster). With `--alt=DIR`, a third implementation,
 * `alt`: the edge entry of another checkout, measured as `ours` (an A/B of two versions; ÷ ours column). See
 * bench/README.md.
 * @module
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { Miniflare } from "miniflare";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const COMPAT_DATE = "2026-07-30";

const SCENARIOS = [
  {
    id: "response-forward",
    title: "Response forwarding: new Response(native byte stream).body → 1 transform → WritableStream",
  },
  { id: "fetch-3", title: "fetch() (another worker in the same workerd) → 3 transforms → WritableStream" },
  { id: "response-text", title: "new Response(new ReadableStream(…)).text()" },
  { id: "route-3", title: "a fetch-handler route streaming a source through 3 transforms, read by another worker" },
  {
    id: "route-0",
    title: "a fetch-handler route returning a source (no transforms) as its body, read by another worker",
  },
  {
    id: "html-text",
    title: "4,000 HTML strings → 3 transforms → TextEncoderStream → Response.arrayBuffer()",
  },
  {
    id: "html-gzip",
    title: "4,000 HTML strings → 3 transforms → TextEncoderStream → CompressionStream('gzip') → Response.arrayBuffer()",
  },
  {
    id: "html-gzip-ncs",
    title: "html-gzip, ours patched but keeping workerd's own CompressionStream",
  },
  {
    id: "gunzip-1k",
    title: "gzip of 1 MiB in 1 KiB chunks → DecompressionStream('gzip') → Response.arrayBuffer()",
  },
  {
    id: "gunzip-1k-ncs",
    title: "gunzip-1k, ours patched but keeping workerd's own DecompressionStream",
  },
  {
    id: "gunzip-blob",
    title: "the gzip as a native Blob stream → DecompressionStream('gzip') → Response.arrayBuffer()",
  },
  {
    id: "gunzip-blob-read",
    title: "gunzip-blob read with a reader (for await) instead of Response.arrayBuffer()",
  },
  {
    id: "gunzip-body",
    title: "new Response(gzip).body → DecompressionStream('gzip') → Response.arrayBuffer()",
  },
  {
    id: "gzip-blob",
    title: "1 MiB of text as a native Blob stream → CompressionStream('gzip') → Response.arrayBuffer()",
  },
] as const;

function option(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  const arg = process.argv.slice(2).find((a) => a.startsWith(prefix));
  return arg === undefined ? fallback : arg.slice(prefix.length);
}

const filter = option("filter", "").toLowerCase();
const rounds = Number(option("rounds", "5"));
const samples = Number(option("samples", "3"));
const targetMs = Number(option("target-ms", "100"));
const n = Number(option("n", "1024"));
const altDir = option("alt", "");
const altEntry = altDir === "" ? "" : join(resolve(altDir), "adapters", "edge", "mod.ts");
if (altEntry !== "" && !existsSync(altEntry)) throw new Error(`--alt=${altDir}: no adapters/edge/mod.ts there`);
const IMPLS: readonly string[] = altEntry === "" ? ["ours", "native"] : ["ours", "native", "alt"];

const version = (pkg: string): string =>
  (JSON.parse(readFileSync(join(root, "node_modules", pkg, "package.json"), "utf8")) as { version: string }).version;

const script = (
  await esbuild.build({
    entryPoints: [join(here, "worker.ts")],
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    logLevel: "error",
    // the worker's `alt` implementation: another checkout's edge entry (--alt), or this one's again
    plugins: [
      {
        name: "alt",
        setup(build) {
          if (altEntry !== "") build.onResolve({ filter: /^\.\/alt\.ts$/ }, () => ({ path: altEntry }));
        },
      },
    ],
  })
).outputFiles[0]!.text;

const common = { modules: true, script, compatibilityDate: COMPAT_DATE };
const mf = new Miniflare({
  host: "127.0.0.1",
  workers: [
    {
      ...common,
      name: "bench",
      outboundService: "source",
      serviceBindings: { APP_OURS: "app-ours", APP_NATIVE: "app-native", APP_ALT: "app-alt" },
    },
    { ...common, name: "source" },
    { ...common, name: "app-ours", bindings: { IMPL: "ours" } },
    { ...common, name: "app-native", bindings: { IMPL: "native" } },
    { ...common, name: "app-alt", bindings: { IMPL: "alt" } },
  ],
});
await mf.ready;

async function request(path: string): Promise<number> {
  const started = performance.now();
  const res = await mf.dispatchFetch(`http://bench.test${path}`);
  const text = await res.text();
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status}: ${text}`);
  return ms;
}

async function sample(scenario: string, impl: string, iters: number): Promise<number> {
  await request(`/prepare?scenario=${scenario}&iters=${iters}&n=${n}`);
  return (await request(`/run?scenario=${scenario}&impl=${impl}&iters=${iters}&n=${n}`)) / iters;
}

function quantile(sorted: number[], q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

const bytesPerIter = n * 1024;
console.log(
  `workerd ${version("workerd")} (miniflare ${version("miniflare")}, compatibility date ${COMPAT_DATE}), ` +
    `${n} chunks of 1 KiB per iteration, ${rounds} rounds × ${samples} samples of ~${targetMs} ms per implementation`,
);
const patchMs = (await request("/patch-cost?times=200")) / 200;
console.log(`patch + unpatch: ${(patchMs * 1000).toFixed(0)} µs (paid once per ours sample of the bench worker)\n`);

const alt = IMPLS.includes("alt");
const summary: string[][] = [
  [
    "scenario",
    "ours ms/iter",
    "native ms/iter",
    "ours MB/s",
    "native MB/s",
    "÷ native",
    ...(alt ? ["alt MB/s", "alt ÷ ours"] : []),
  ],
];
for (const s of SCENARIOS) {
  if (filter && !s.id.includes(filter) && !s.title.toLowerCase().includes(filter)) continue;
  console.log(`${s.id}: ${s.title}`);
  // Warm-up and calibration: one iteration each, twice, then as many as fit in the target time.
  let one = 0;
  for (let w = 0; w < 2; w++) for (const impl of IMPLS) one = Math.max(one, await sample(s.id, impl, 1));
  const iters = Math.max(1, Math.min(50, Math.round(targetMs / one)));
  const times: Record<string, number[]> = Object.fromEntries(IMPLS.map((impl) => [impl, []]));
  for (let r = 0; r < rounds; r++) {
    // every round in another order: rotated, and reversed every other round
    const rotated = IMPLS.map((_, k) => IMPLS[(k + Math.floor(r / 2)) % IMPLS.length]!);
    const order = r % 2 === 0 ? rotated : rotated.reverse();
    for (const impl of order) for (let k = 0; k < samples; k++) times[impl]!.push(await sample(s.id, impl, iters));
  }
  const median: Record<string, number> = {};
  const rows: string[][] = [[
    "impl",
    "median ms/iter",
    "MB/s",
    "±iqr",
    "÷ native",
    ...(alt ? ["÷ ours"] : []),
    "samples",
  ]];
  for (const impl of IMPLS) median[impl] = quantile([...times[impl]!].sort((a, b) => a - b), 0.5);
  for (const impl of IMPLS) {
    const sorted = [...times[impl]!].sort((a, b) => a - b);
    const m = median[impl]!;
    const iqr = (quantile(sorted, 0.75) - quantile(sorted, 0.25)) / 2 / m;
    rows.push([
      impl,
      m.toFixed(3),
      (bytesPerIter / 1e6 / (m / 1000)).toFixed(0),
      `±${(iqr * 100).toFixed(1)}%`,
      `${(median["native"]! / m).toFixed(2)}x`,
      ...(alt ? [`${(median["ours"]! / m).toFixed(2)}x`] : []),
      `${sorted.length} × ${iters} it`,
    ]);
  }
  printTable(rows);
  summary.push([
    s.id,
    median["ours"]!.toFixed(3),
    median["native"]!.toFixed(3),
    (bytesPerIter / 1e6 / (median["ours"]! / 1000)).toFixed(0),
    (bytesPerIter / 1e6 / (median["native"]! / 1000)).toFixed(0),
    `${(median["native"]! / median["ours"]!).toFixed(2)}x`,
    ...(alt
      ? [(bytesPerIter / 1e6 / (median["alt"]! / 1000)).toFixed(0), `${(median["ours"]! / median["alt"]!).toFixed(2)}x`]
      : []),
  ]);
  console.log();
}
console.log("summary");
printTable(summary);
await mf.dispose();

function printTable(rows: string[][]): void {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows) {
    console.log(`  ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ")}`);
  }
}
