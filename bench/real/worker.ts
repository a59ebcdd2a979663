/**
 * One side of one row of the real-pipeline benchmarks, in a fresh process of the runtime under test (started by
 * bench/real/run.ts with a WorkerConfig in the environment).
 *
 * With `patch` set it imports the runtime adapter's public entry point (adapters/<runtime>/mod.ts) and calls
 * `patchGlobalWebStreams()` before the row's scenario module, and with it the framework, is imported: the order
 * an application that patches at startup has. Without it, fusestreams is never loaded.
 *
 * In-process rows: two full verifications, a warm-up (`warmMs`, else a quarter of the sampling time), mitata's `measure()` for
 * the sampling time (one call per sample), a last verification; the samples (ns) go to stdout. Server rows: the
 * server listens on 127.0.0.1 and the worker reports its port, then waits for `measure` and `stop` on stdin (the
 * orchestrator drives the load) and reports the process's CPU time between them. In-process rows report the CPU
 * time per call of the sampling as well. With `profile` set, `node:inspector` profiles the measured part and the worker reports its
 * CPU shares (bench/real/profile.ts); FUSESTREAMS_REAL_PROFILE_DIR also keeps the raw `.cpuprofile`.
 * @module
 */
import { measure } from "mitata";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { createInterface } from "node:readline";
import { CONFIG_ENV, LINE_PREFIX, ROWS, type WorkerConfig, type WorkerMessage } from "./catalog.ts";
import { type CpuProfile, sharesOf } from "./profile.ts";
import type { InprocRow, Natives } from "./scenarios/env.ts";

// The runtime's own classes, before anything below can patch them.
const natives: Natives = { ReadableStream: globalThis.ReadableStream };

const g = globalThis as unknown as {
  Deno?: { version: { deno: string; v8: string } };
  Bun?: { version: string; gc(force: boolean): void };
  gc?: () => void;
};

function send(message: WorkerMessage): void {
  process.stdout.write(LINE_PREFIX + JSON.stringify(message) + "\n");
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function fail(error: unknown): never {
  send({ type: "error", message: describe(error) });
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
}

const config = JSON.parse(process.env[CONFIG_ENV] ?? "null") as WorkerConfig | null;
if (!config) throw new Error(`bench/real/worker.ts is started by bench/real/run.ts (${CONFIG_ENV} is not set)`);
const row = ROWS.find((r) => r.id === config.row);
if (!row) fail(new Error(`no row ${config.row}`));

// A step that never settles ends the worker with a message instead of a silent exit.
const HARD_LIMIT_MS = 120_000;
setTimeout(() => fail(new Error(`the worker ran longer than ${HARD_LIMIT_MS} ms`)), HARD_LIMIT_MS).unref?.();
// an error a framework throws from a job or a callback fails the row at once (it would leave the row pending)
process.on("unhandledRejection", (reason) => fail(reason));
process.on("uncaughtException", (error) => fail(error));

const collect = g.Bun ? () => g.Bun!.gc(true) : typeof g.gc === "function" ? g.gc : undefined;

function runtimeName(): string {
  if (g.Deno) return `Deno ${g.Deno.version.deno} (V8 ${g.Deno.version.v8})`;
  if (g.Bun) return `Bun ${g.Bun.version}`;
  return `Node ${process.version} (V8 ${process.versions.v8})`;
}

// ---- the patch ----

interface AdapterModule {
  patchGlobalWebStreams(options?: object): void;
  isGlobalWebStreamsPatched(): boolean;
  TransformStream: unknown;
}

if (config.patch) {
  const dir = config.runtime.startsWith("node") ? "node" : config.runtime;
  const adapter = (await import(`../../adapters/${dir}/mod.ts`)) as AdapterModule;
  adapter.patchGlobalWebStreams(row.patchOptions);
  if (!adapter.isGlobalWebStreamsPatched() || globalThis.TransformStream !== adapter.TransformStream) {
    fail(new Error("patchGlobalWebStreams() did not put fusestreams' classes on the globals"));
  }
}
send({ type: "ready", runtime: runtimeName(), patched: config.patch });

// ---- profiling ----

interface Profiler {
  stop(): Promise<void>;
}

async function startProfiler(): Promise<Profiler | undefined> {
  if (!config!.profile) return undefined;
  const { Session } = await import("node:inspector");
  const session = new Session();
  session.connect();
  const post = <T>(method: string, params?: object) =>
    new Promise<T>((resolve, reject) =>
      session.post(method, params ?? {}, (error, result) => (error ? reject(error) : resolve(result as T)))
    );
  await post("Profiler.enable");
  await post("Profiler.setSamplingInterval", { interval: 250 });
  await post("Profiler.start");
  return {
    async stop() {
      const { profile } = await post<{ profile: CpuProfile }>("Profiler.stop");
      session.disconnect();
      const dir = process.env["FUSESTREAMS_REAL_PROFILE_DIR"];
      if (dir) {
        const name = `${config!.runtime}-${config!.row}-${config!.patch ? "on" : "off"}.cpuprofile`;
        writeFileSync(join(dir, name), JSON.stringify(profile));
      }
      send({ type: "profile", shares: sharesOf(profile) });
    },
  };
}

// ---- the row ----

async function buildInproc(id: string): Promise<InprocRow> {
  if (id.startsWith("pipe-")) return (await import("./scenarios/pipelines.ts")).build(id, natives);
  if (id.startsWith("ai-")) return await (await import("./scenarios/ai.ts")).build(id, natives);
  if (id.startsWith("react-")) return (await import("./scenarios/react.ts")).build(id);
  throw new Error(`no in-process row ${id}`);
}

async function runInproc(): Promise<void> {
  const bench = await buildInproc(row!.id);
  await bench.verify();
  await bench.verify();
  collect?.();
  const warmUntil = performance.now() + (config!.warmMs ?? config!.timeMs / 4);
  while (performance.now() < warmUntil) await bench.run();
  const profiler = await startProfiler();
  // the process's CPU time per call too: on a busy machine it moves far less than the wall-clock samples
  let calls = 0;
  const cpu0 = process.cpuUsage();
  const stats = await measure(() => (calls++, bench.run()), {
    min_cpu_time: config!.timeMs * 1e6,
    min_samples: 5,
    // one call per sample, no forced collection inside the sampling (as bench/worker.ts)
    batch_threshold: 0,
    gc: false,
  });
  const cpu = process.cpuUsage(cpu0);
  await profiler?.stop();
  await bench.verify();
  send({ type: "samples", samples: stats.samples, cpuPerCallNs: ((cpu.user + cpu.system) * 1000) / calls });
}

async function runServer(): Promise<void> {
  const { start } = await import("./scenarios/servers.ts");
  const served = await start(row!.id);
  send({ type: "listening", port: served.port });
  let profiler: Profiler | undefined;
  let cpu0 = process.cpuUsage();
  for await (const line of createInterface({ input: process.stdin })) {
    if (line === "measure") {
      cpu0 = process.cpuUsage();
      profiler = await startProfiler();
    }
    if (line === "stop") break;
  }
  const cpu = process.cpuUsage(cpu0);
  send({ type: "cpu", cpuUs: cpu.user + cpu.system });
  await profiler?.stop();
  // a server that does not close in time is ended with the process
  await Promise.race([served.close(), new Promise((r) => setTimeout(r, 1000))]);
}

try {
  if (row!.kind === "inproc") await runInproc();
  else await runServer();
} catch (error) {
  fail(error);
}
process.exit(0);
