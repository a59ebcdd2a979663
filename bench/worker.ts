/**
 * Benchmark worker: runs inside the runtime under test (Node, Deno or Bun), started by bench/run.ts with a
 * WorkerConfig in the environment. For each scenario it builds one benchmark per implementation, verifies
 * each twice, then measures them with mitata in interleaved rounds (every round measures every
 * implementation once, in rotated order) and pools the samples. Results go to stdout as protocol lines.
 * @module
 */
// First import: captures the runtime's stream classes before anything else is evaluated.
import { CODECS, NATIVE, SHARED } from "./natives.ts";
import { measure } from "mitata";
import { cpus } from "node:os";
import process from "node:process";
import { type Data, makeData, type Scenario, SCENARIOS } from "./lib/catalog.ts";
import {
  CONFIG_ENV,
  type ImplResult,
  type Message,
  MESSAGE_PREFIX,
  type ScenarioResult,
  type WorkerConfig,
} from "./lib/protocol.ts";
import type { Bench, WebImpl } from "./scenarios/web.ts";
import { buildFloor } from "./scenarios/floors.ts";

type WebModule = typeof import("./scenarios/web.ts");
type BatchedModule = typeof import("./scenarios/batched.ts");
type IterModule = typeof import("./scenarios/iter.ts");
type NodeModule = typeof import("./scenarios/node.ts");
type AdapterModule = typeof import("./scenarios/node-adapter.ts");
type RuntimeBenches = import("./scenarios/runtime-adapter.ts").RuntimeBenches;

/** A benchmark as the measuring loop sees it. */
interface Runnable {
  prepare?: () => unknown;
  note?: string;
  run(fresh: unknown): Promise<void>;
}

interface Impl {
  name: string;
  /** set for the WHATWG implementations */
  web?: WebImpl;
  /** this implementation's own instance of scenarios/web.ts */
  webModule?: WebModule;
  nodeModule?: NodeModule;
  /** this implementation's own instance of scenarios/node-adapter.ts (Node adapter scenarios) */
  adapterModule?: AdapterModule;
  /** this implementation's Deno and Bun adapter scenarios (scenarios/runtime-adapter.ts) */
  runtimeBenches?: RuntimeBenches;
  /** this implementation's text codec scenarios (group 14, scenarios/text-codecs.ts) */
  codecBenches?: import("./scenarios/text-codecs.ts").CodecBenches;
  /** this implementation's own instance of scenarios/batched.ts (group 13), and what it needs */
  batchedModule?: BatchedModule;
  extras?: import("./scenarios/batched.ts").BatchedExtras;
  lineStream?: import("./scenarios/batched.ts").LineStreamClass;
  /** the `iter` implementation: node:stream/iter and the scenarios over it */
  iter?: { module: IterModule; api: import("./scenarios/iter.ts").StreamIter };
  /** why it takes no part on this runtime */
  skipped?: string;
}

interface Entry {
  impl: Impl;
  bench?: Runnable;
  error?: string;
  skipped?: string;
  samples: number[];
}

const started = performance.now();
const config = JSON.parse(process.env[CONFIG_ENV] ?? "null") as WorkerConfig | null;
if (!config) throw new Error(`bench/worker.ts is started by bench/run.ts (${CONFIG_ENV} is not set)`);

const g = globalThis as unknown as {
  Deno?: { version: { deno: string; v8: string } };
  Bun?: { version: string; gc(force: boolean): void };
  gc?: () => void;
};
const isDeno = g.Deno !== undefined;
const isBun = g.Bun !== undefined;

function runtimeName(): string {
  if (g.Deno) return `Deno ${g.Deno.version.deno} (V8 ${g.Deno.version.v8})`;
  if (g.Bun) return `Bun ${g.Bun.version}`;
  return `Node ${process.version} (V8 ${process.versions.v8})`;
}

/** A real collector if the runtime exposes one (mitata's fallback would allocate 1 GiB instead). */
const collect: (() => void) | undefined = g.Bun
  ? () => g.Bun!.gc(true)
  : typeof g.gc === "function"
  ? () => g.gc!()
  : undefined;

function send(message: Message): void {
  console.log(MESSAGE_PREFIX + JSON.stringify(message));
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

// A failed promise nobody awaits (e.g. an un-awaited writer.write()) must not end the run.
const unhandled: string[] = [];
process.on("unhandledRejection", (reason: unknown) => {
  unhandled.push(describe(reason));
});

// Watchdog: a step that never settles (a deadlocked stream) ends the worker with a message instead of
// letting the runtime exit silently with an unsettled top-level await.
let step = { scenario: "", what: "", since: Date.now() };
const watchdog = setInterval(() => {
  if (Date.now() - step.since > config.hangMs) {
    send({ type: "progress", scenario: step.scenario, step: `HANG after ${config.hangMs} ms: ${step.what}` });
    process.exit(3);
  }
}, 1000);

function at(scenario: string, what: string): void {
  step = { scenario, what, since: Date.now() };
}

// ---- implementations ----

const notes: string[] = [];
const impls: Impl[] = [];
let nodeModule: NodeModule | undefined;

async function webModuleFor(name: string): Promise<WebModule> {
  const url = new URL(`./scenarios/web${config!.ext}?impl=${name}`, import.meta.url);
  return (await import(url.href)) as WebModule;
}

for (const name of config.impls) {
  const impl: Impl = { name };
  try {
    switch (name) {
      case "native":
      case "control":
        impl.web = NATIVE;
        break;
      case "ours":
      case "alt": {
        // alt (--alt=DIR): fusestreams from another checkout, loaded and measured exactly as ours
        const url = name === "alt" ? config.altUrl : config.oursUrl;
        if (url === undefined) throw new Error("alt needs --alt=DIR");
        const ours = (await import(url)) as Record<string, unknown>;
        impl.web = {
          ReadableStream: ours["ReadableStream"],
          WritableStream: ours["WritableStream"],
          TransformStream: ours["TransformStream"],
          CompressionStream: ours["CompressionStream"],
          DecompressionStream: ours["DecompressionStream"],
          TextEncoderStream: ours["TextEncoderStream"],
        } as WebImpl;
        if (ours["CompressionStream"] !== undefined) {
          // The runtime's adapter entry installs its codec behind our CompressionStream (the same core).
          const rt = isDeno ? "deno" : isBun ? "bun" : "node";
          const entry = url.endsWith(".ts") ? `./adapters/${rt}/mod.ts` : `./adapters/${rt}/mod.js`;
          await import(new URL(entry, url).href);
        }
        if (typeof ours["batches"] === "function") {
          impl.extras = {
            batches: ours["batches"],
            bytes: ours["bytes"],
            text: ours["text"],
            TextLineStream: ours["TextLineStream"],
          } as import("./scenarios/batched.ts").BatchedExtras;
          if (url.endsWith(".ts")) {
            // the adapters' bridge to native streams (the same code in every runtime entry point); a checkout from
            // before the kit moved out of core/ (2026-11-28) has it in core/interop/
            const interop = (await import(new URL("./adapters/kit/to-native.ts", url).href).catch(() =>
              import(new URL("./core/interop/to-native.ts", url).href)
            )) as Record<string, unknown>;
            impl.extras.toNativeReadableStream =
              interop["toNativeReadableStream"] as typeof impl.extras.toNativeReadableStream;
          }
        }
        if (typeof impl.web.ReadableStream !== "function") throw new Error(`${url} exports no ReadableStream`);
        break;
      }
      case "fast": {
        if (isDeno || isBun) {
          impl.skipped = "Node-only library";
          break;
        }
        const fast = (await import("experimental-fast-webstreams")) as Record<string, unknown>;
        impl.web = {
          ReadableStream: fast["FastReadableStream"],
          WritableStream: fast["FastWritableStream"],
          TransformStream: fast["FastTransformStream"],
        } as WebImpl;
        break;
      }
      case "iter": {
        if (isDeno || isBun) {
          impl.skipped = "Node 26 only (node:stream/iter)";
          break;
        }
        let api: import("./scenarios/iter.ts").StreamIter;
        try {
          api = (await import("node:stream/iter" as string)) as import("./scenarios/iter.ts").StreamIter;
        } catch {
          impl.skipped = "node:stream/iter is not available (Node 26 with --experimental-stream-iter)";
          break;
        }
        const module = (await import(new URL(`./scenarios/iter${config.ext}`, import.meta.url).href)) as IterModule;
        impl.iter = { module, api };
        break;
      }
      case "node":
        // a URL, not a template literal: esbuild (the Node 20 bundle) would try to resolve the latter itself
        nodeModule ??= (await import(new URL(`./scenarios/node${config.ext}`, import.meta.url).href)) as NodeModule;
        impl.nodeModule = nodeModule;
        break;
      default:
        throw new Error(`unknown implementation ${name}`);
    }
    if (impl.web) impl.webModule = await webModuleFor(name);
    if (impl.web && config.scenarios.some((id) => SCENARIOS.find((s) => s.id === id)?.group === 13)) {
      const url = new URL(`./scenarios/batched${config.ext}?impl=${name}`, import.meta.url);
      impl.batchedModule = (await import(url.href)) as BatchedModule;
      if ((name === "native" || name === "control") && config.scenarios.includes("text-lines")) {
        try {
          type LineModule = { default?: import("./scenarios/batched.ts").LineStreamClass };
          impl.lineStream = ((await import("textlinestream" as string)) as LineModule).default; // its only export
        } catch (error) {
          notes.push(`${name}: text-lines without a reference (textlinestream failed to load: ${describe(error)})`);
        }
      }
    }
    if (impl.web && name !== "control" && config.scenarios.some((id) => id.startsWith("codec-"))) {
      const url = new URL(`./scenarios/text-codecs${config.ext}?impl=${name}`, import.meta.url);
      const module = (await import(url.href)) as typeof import("./scenarios/text-codecs.ts");
      impl.codecBenches = await module.load(name === "alt" ? config.altUrl! : config.oursUrl, name, CODECS);
    }
    if (impl.web && name !== "control" && config.scenarios.some((id) => id.startsWith("node-"))) {
      const url = new URL(`./scenarios/node-adapter${config.ext}?impl=${name}`, import.meta.url);
      impl.adapterModule = (await import(url.href)) as AdapterModule;
      await impl.adapterModule.load(name === "alt" ? config.altUrl! : config.oursUrl);
    }
    if (impl.web && name !== "control" && config.scenarios.some((id) => id.startsWith("rt-"))) {
      const url = new URL(`./scenarios/runtime-adapter${config.ext}?impl=${name}`, import.meta.url);
      const module = (await import(url.href)) as typeof import("./scenarios/runtime-adapter.ts");
      impl.runtimeBenches = await module.load(name === "alt" ? config.altUrl! : config.oursUrl, name);
    }
  } catch (error) {
    impl.skipped = `failed to load: ${describe(error)}`;
  }
  if (impl.skipped) notes.push(`${name}: skipped (${impl.skipped})`);
  impls.push(impl);
}

for (const [key, value] of Object.entries(NATIVE)) {
  if ((globalThis as Record<string, unknown>)[key] !== value) notes.push(`warning: globalThis.${key} was replaced`);
}
if (!collect) notes.push("no exposed gc(): no collection before each scenario");

send({
  type: "start",
  runtime: runtimeName(),
  platform: `${process.platform}-${process.arch}`,
  cpu: `${cpus()[0]?.model ?? "unknown cpu"} x${cpus().length}`,
  gc: collect !== undefined,
  impls: config.impls,
  notes,
});

// ---- measuring ----

const EMPTY: unknown[] = [];

function buildFor(impl: Impl, scenario: Scenario, data: Data): Runnable | undefined {
  if (scenario.group === 10) return impl.adapterModule?.build(scenario.id, data, NATIVE.ReadableStream);
  if (scenario.group === 12) return impl.runtimeBenches?.build(scenario.id, data, NATIVE.ReadableStream);
  if (scenario.group === 11) return impl.name === "native" ? buildFloor(scenario.id, data) : undefined;
  if (scenario.group === 14) return impl.codecBenches?.build(scenario.id, data, CODECS);
  if (scenario.group === 13) {
    if (impl.iter) return impl.iter.module.build(scenario.id, data, impl.iter.api);
    if (impl.batchedModule && impl.web) {
      return impl.batchedModule.build(scenario.id, impl.web, data, impl.extras, impl.lineStream);
    }
    if (impl.nodeModule) return impl.nodeModule.build(scenario.id, data);
    return undefined;
  }
  if (impl.iter) return undefined;
  if (impl.webModule && impl.web) {
    const bench: Bench | undefined = impl.webModule.build(scenario.id, impl.web, data, SHARED);
    return bench;
  }
  if (impl.nodeModule) return impl.nodeModule.build(scenario.id, data);
  return undefined;
}

async function once(bench: Runnable): Promise<void> {
  await bench.run(bench.prepare ? bench.prepare() : EMPTY);
}

async function sample(bench: Runnable, budgetNs: number): Promise<number[]> {
  const options = {
    min_cpu_time: budgetNs,
    min_samples: config!.minSamples,
    // No collection inside mitata: a forced full GC right before sampling leaves V8 slow for the next
    // ~20 iterations of these allocation-heavy loops (the heap has to grow back). We collect once per
    // scenario, before the warm-up, instead.
    gc: false,
    // never batch: every sample is one call, whatever the implementation's speed, so all rows are the same
    // statistic (mitata would otherwise average 4096 calls per sample for calls under 65 µs)
    batch_threshold: 0,
  };
  const stats = bench.prepare
    ? await measure(
      function* () {
        yield { [0]: bench.prepare!, bench: (fresh: unknown) => bench.run(fresh) };
      },
      options,
    )
    : await measure(() => bench.run(EMPTY), options);
  return stats.samples;
}

function quantile(sorted: number[], q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

async function runScenario(scenario: Scenario): Promise<ScenarioResult> {
  const t0 = performance.now();
  const data = makeData(scenario.unit === "MB/s" ? scenario.bytes : config!.chunk, config!.chunk);
  const entries: Entry[] = impls.map((impl) => {
    const entry: Entry = { impl, samples: [] };
    if (impl.skipped) entry.skipped = impl.skipped;
    else {
      try {
        entry.bench = buildFor(impl, scenario, data);
        if (!entry.bench) entry.skipped = "no equivalent";
      } catch (error) {
        entry.error = describe(error);
      }
    }
    return entry;
  });

  collect?.();

  // verification (and first warm-up): two full runs each
  for (const entry of entries) {
    if (!entry.bench) continue;
    try {
      for (let i = 1; i <= 2; i++) {
        at(scenario.id, `${entry.impl.name}: verification run ${i}`);
        await once(entry.bench);
      }
    } catch (error) {
      entry.error = describe(error);
    }
  }

  // warm-up: every implementation runs for a while, so the JIT and the heap settle before sampling
  const warmupMs = Math.max(20, config!.timeMs / 8);
  for (const entry of entries) {
    if (!entry.bench || entry.error) continue;
    at(scenario.id, `${entry.impl.name}: warm-up`);
    try {
      const t = performance.now();
      for (let i = 0; i < 3 || performance.now() - t < warmupMs; i++) await once(entry.bench);
    } catch (error) {
      entry.error = describe(error);
    }
  }

  // interleaved rounds
  const live = () => entries.filter((e) => e.bench && !e.error);
  const rounds = config!.rounds;
  const budgetNs = (config!.timeMs / rounds) * 1e6;
  for (let round = 0; round < rounds; round++) {
    const order = live();
    for (let k = 0; k < order.length; k++) {
      const entry = order[(k + round) % order.length]!;
      at(scenario.id, `${entry.impl.name}: round ${round + 1}/${rounds}`);
      try {
        entry.samples.push(...(await sample(entry.bench!, budgetNs)));
      } catch (error) {
        entry.error = describe(error);
      }
    }
  }

  // last verification after all measurements
  for (const entry of live()) {
    try {
      at(scenario.id, `${entry.impl.name}: final verification`);
      await once(entry.bench!);
    } catch (error) {
      entry.error = describe(error);
    }
  }

  const results: ImplResult[] = entries.map((entry) => {
    const name = entry.impl.name;
    if (entry.skipped) {
      return { impl: name, ok: false, skipped: entry.skipped, ...(entry.impl.skipped ? { absent: true } : {}) };
    }
    const note = entry.bench?.note ? { note: entry.bench.note } : {};
    if (entry.error || entry.samples.length === 0) {
      return { impl: name, ok: false, error: entry.error ?? "no samples", ...note };
    }
    const sorted = entry.samples.sort((a, b) => a - b);
    const median = quantile(sorted, 0.5);
    const perIteration = scenario.unit === "MB/s" ? data.bytes / 1e6 : scenario.ops;
    return {
      impl: name,
      ok: true,
      median,
      p25: quantile(sorted, 0.25),
      p75: quantile(sorted, 0.75),
      min: sorted[0]!,
      max: sorted[sorted.length - 1]!,
      samples: sorted.length,
      rate: perIteration / (median / 1e9),
      ...note,
    };
  });
  const warnings = unhandled.splice(0).map((reason) => `unhandled rejection: ${reason}`);

  return {
    id: scenario.id,
    group: scenario.group,
    title: scenario.title,
    unit: scenario.unit,
    bytes: scenario.unit === "MB/s" ? data.bytes : 0,
    ops: scenario.ops,
    chunk: data.size,
    chunks: scenario.unit === "MB/s" ? data.count : 0,
    ...(scenario.node ? { node: scenario.node } : {}),
    results,
    ...(warnings.length > 0 ? { warnings: [...new Set(warnings)] } : {}),
    ms: performance.now() - t0,
  };
}

for (const id of config.scenarios) {
  const scenario = SCENARIOS.find((s) => s.id === id);
  if (!scenario) continue;
  send({ type: "progress", scenario: id, step: "start" });
  send({ type: "scenario", result: await runScenario(scenario) });
}

clearInterval(watchdog);
send({ type: "done", ms: performance.now() - started });
