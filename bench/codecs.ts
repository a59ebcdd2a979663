/**
 * The codec rows: which codec behind our CompressionStream / DecompressionStream is fastest on each runtime,
 * measured side by side in one process (the candidates of bench/lib/codec-candidates.ts, and the runtime's
 * own classes as `native`), in interleaved rounds with the order rotating, ratios of medians.
 *
 *   node bench/codecs.ts                                  Node 26, Node 22, Deno, Bun, every row
 *   node bench/codecs.ts --runtime=deno --filter=gunzip   one runtime, rows whose id contains "gunzip"
 *   node bench/codecs.ts --rounds=7 --time=2000           more samples (time: ms per candidate per row)
 *
 * Rows (every candidate runs our ReadableStream/TransformStream around the codec; `native` runs the runtime's
 * own classes throughout):
 *   html-gzip    issue 25's pipeline: 4,000 HTML strings -> 3 TransformStreams -> TextEncoderStream ->
 *                CompressionStream("gzip") -> new Response(s).arrayBuffer()
 *   deflate-1k   1 MiB of text in 1 KiB chunks -> CompressionStream("deflate") -> reader loop
 *   gzip-64k     4 MiB of text in 64 KiB chunks -> CompressionStream("gzip") -> reader loop
 *   gunzip-1k    gzip of 4 MiB of text, in 1 KiB chunks -> DecompressionStream("gzip") -> reader loop
 *   gunzip-16k   the same in 16 KiB chunks
 *
 * On Deno the zlib candidates flush each chunk, as its adapter's codec does (and as Deno's own stream does).
 * `cpu/run` is the process's CPU time (user + system, every thread) per run, over a few runs after the rounds:
 * a codec that works on the thread pool can finish sooner on a free core while costing more CPU in all.
 * @module
 */
import process from "node:process";
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { readFlags } from "./lib/flags.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const RUNTIMES: Record<string, { command: string; args: string[] }> = {
  node26: { command: join(ROOT, "node_modules", ".bin", "node"), args: [] },
  node22: { command: join(ROOT, "node_modules", "node22", "bin", "node"), args: [] },
  deno: { command: join(ROOT, "node_modules", ".bin", "deno"), args: ["run", "-A"] },
  bun: { command: join(ROOT, "node_modules", ".bin", "bun"), args: [] },
};
const WORKER_ENV = "FUSESTREAMS_CODECS_WORKER";
const USAGE = "node bench/codecs.ts [--runtime=node26,node22,deno,bun] [--filter=id] [--rounds=5] [--time=1000]";

if (process.env[WORKER_ENV] === undefined) {
  const flags = readFlags(process.argv.slice(2), ["runtime", "filter", "rounds", "time"], USAGE, (m) => {
    console.error(`${m}\n${USAGE}`);
    process.exit(2);
  });
  const runtimes = (flags.get("runtime") || "node26,node22,deno,bun").split(",");
  let failed = false;
  for (const rt of runtimes) {
    const launch = RUNTIMES[rt];
    if (launch === undefined) throw new Error(`unknown runtime ${rt}`);
    const child = spawn(launch.command, [...launch.args, fileURLToPath(import.meta.url)], {
      stdio: "inherit",
      env: { ...process.env, [WORKER_ENV]: JSON.stringify(Object.fromEntries(flags)) },
    });
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    if (code !== 0) failed = true;
  }
  process.exitCode = failed ? 1 : 0;
} else {
  await worker(JSON.parse(process.env[WORKER_ENV]!) as Record<string, string>);
}

async function worker(flags: Record<string, string>): Promise<void> {
  // The runtime's own classes, before anything of ours is loaded.
  const native = {
    ReadableStream: globalThis.ReadableStream,
    TransformStream: globalThis.TransformStream,
    CompressionStream: globalThis.CompressionStream,
    DecompressionStream: globalThis.DecompressionStream,
    TextEncoderStream: globalThis.TextEncoderStream,
  };
  const { measure } = await import("mitata");
  const ours = (await import(pathToFileURL(join(ROOT, "mod.ts")).href)) as Record<string, unknown>;
  const internal = await import("../core/internal.ts");
  const candidates = await import("./lib/codec-candidates.ts");
  const work = await import("./scenarios/compression.ts");
  const zlib = process.getBuiltinModule("node:zlib");

  const g = globalThis as { Deno?: { version: { deno: string } }; Bun?: { version: string } };
  const isDeno = g.Deno !== undefined;
  const runtime = g.Deno ? `Deno ${g.Deno.version.deno}` : g.Bun ? `Bun ${g.Bun.version}` : `Node ${process.version}`;
  const oursClasses = {
    ReadableStream: ours["ReadableStream"],
    TransformStream: ours["TransformStream"],
    CompressionStream: ours["CompressionStream"],
    DecompressionStream: ours["DecompressionStream"],
    TextEncoderStream: ours["TextEncoderStream"],
  } as import("./scenarios/compression.ts").CompressionClasses;

  const text4m = work.textBytes(4 * 1024 * 1024);
  const gz4m = new Uint8Array(zlib.gzipSync(text4m));
  const textSum = work.checksum([text4m]);
  const gunzip = (b: Uint8Array) => new Uint8Array(zlib.gunzipSync(b));
  const inflate = (b: Uint8Array) => new Uint8Array(zlib.inflateSync(b));
  const chunks = {
    deflate1k: work.chunksOf(text4m.subarray(0, 1024 * 1024), 1024),
    gzip64k: work.chunksOf(text4m, 64 * 1024),
    gunzip1k: work.chunksOf(gz4m, 1024),
    gunzip16k: work.chunksOf(gz4m, 16 * 1024),
  };
  type Classes = import("./scenarios/compression.ts").CompressionClasses;
  interface Row {
    id: string;
    unit: "ops/s" | "MB/s";
    bytes: number;
    run: (c: Classes) => Promise<void>;
  }
  const allRows: Row[] = [
    {
      id: "html-gzip",
      unit: "ops/s",
      bytes: 0,
      run: async (c) => work.checkHtmlGzip(await work.htmlGzip(c), gunzip),
    },
    {
      id: "deflate-1k",
      unit: "MB/s",
      bytes: 1024 * 1024,
      run: async (c) => {
        const out = inflate(concat(await work.compressChunks(c, "deflate", chunks.deflate1k)));
        if (out.length !== 1024 * 1024) throw new Error(`deflate-1k: ${out.length} bytes back`);
      },
    },
    {
      id: "gzip-64k",
      unit: "MB/s",
      bytes: text4m.length,
      run: async (c) => {
        const out = gunzip(concat(await work.compressChunks(c, "gzip", chunks.gzip64k)));
        if (work.checksum([out]) !== textSum) throw new Error("gzip-64k: wrong bytes back");
      },
    },
    {
      id: "gunzip-1k",
      unit: "MB/s",
      bytes: text4m.length,
      run: async (c) => {
        const sum = await work.decompressChunks(c, "gzip", chunks.gunzip1k);
        if (sum !== textSum) throw new Error(`gunzip-1k: ${sum}, expected ${textSum}`);
      },
    },
    {
      id: "gunzip-16k",
      unit: "MB/s",
      bytes: text4m.length,
      run: async (c) => {
        const sum = await work.decompressChunks(c, "gzip", chunks.gunzip16k);
        if (sum !== textSum) throw new Error(`gunzip-16k: ${sum}, expected ${textSum}`);
      },
    },
  ];
  const rows = allRows.filter((r) => flags["filter"] === undefined || r.id.includes(flags["filter"]));

  const names = ["native", ...candidates.CODEC_CANDIDATES.filter((n) => isDeno || n !== "zlib-sync-noflush")];
  const rounds = Number(flags["rounds"] ?? 5);
  const budgetNs = Number(flags["time"] ?? 1000) * 1e6 / rounds;
  console.log(`\n${runtime} (${process.platform}-${process.arch}): codec rows, ${rounds} rounds`);
  if (oursClasses.TextEncoderStream === undefined) {
    console.log("  (ours has no TextEncoderStream yet: its encoder is a TransformStream calling TextEncoder.encode)");
  }
  if (isDeno) console.log("  (Deno: the zlib candidates flush each chunk, as the Deno adapter's codec does)");

  for (const row of rows) {
    const factories = new Map(
      names.map((n) =>
        [
          n,
          n === "native"
            ? undefined
            : candidates.codecCandidate(n as (typeof candidates.CODEC_CANDIDATES)[number], isDeno),
        ] as const
      ),
    );
    const runOnce = async (name: string): Promise<void> => {
      if (name === "native") return row.run(native as unknown as Classes);
      internal.setCompressionCodecFactory(factories.get(name));
      try {
        await row.run(oursClasses);
      } finally {
        internal.setCompressionCodecFactory(undefined);
      }
    };
    for (const name of names) await runOnce(name); // verification (each run checks its output) and warm-up
    const samples = new Map<string, number[]>(names.map((n) => [n, []]));
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < names.length; k++) {
        const name = names[(k + round) % names.length]!;
        const stats = await measure(() => runOnce(name), {
          min_cpu_time: budgetNs,
          min_samples: 3,
          gc: false,
          batch_threshold: 0,
        });
        samples.get(name)!.push(...stats.samples);
      }
    }
    const median = (a: number[]) => {
      const s = [...a].sort((x, y) => x - y);
      return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
    };
    const medians = new Map(names.map((n) => [n, median(samples.get(n)!)]));
    // CPU time per run (every thread of the process: a codec on the thread pool shows there), over a few runs
    const cpu = new Map<string, number>();
    for (const name of names) {
      const runs = Math.max(3, Math.min(20, Math.round(2e8 / medians.get(name)!)));
      const before = process.cpuUsage();
      for (let i = 0; i < runs; i++) await runOnce(name);
      const used = process.cpuUsage(before);
      cpu.set(name, (used.user + used.system) / 1000 / runs);
    }
    console.log(`\n  ${row.id}`);
    console.log(
      `  ${"candidate".padEnd(16)} ${"median".padStart(10)} ${row.unit.padStart(9)} ÷ native ÷ zlib-sync ${
        "cpu/run".padStart(10)
      }  n`,
    );
    for (const name of names) {
      const ns = medians.get(name)!;
      const rate = row.unit === "ops/s" ? 1e9 / ns : row.bytes / 1e6 / (ns / 1e9);
      console.log(
        `  ${name.padEnd(16)} ${(ns / 1e6).toFixed(2).padStart(7)} ms ${rate.toFixed(1).padStart(9)} ${
          (medians.get("native")! / ns).toFixed(2).padStart(7)
        }x ${(medians.get("zlib-sync")! / ns).toFixed(2).padStart(9)}x ${cpu.get(name)!.toFixed(2).padStart(7)} ms ${
          samples.get(name)!.length
        }`,
      );
    }
  }
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}
