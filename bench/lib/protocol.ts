/**
 * What the orchestrator (bench/run.ts) sends to the worker (bench/worker.ts) and what comes back.
 * The worker prints one line per message on stdout: MESSAGE_PREFIX + JSON.
 * @module
 */

/** Prefix of the worker's result lines on stdout. */
export const MESSAGE_PREFIX = "@@bench ";

/** Environment variable carrying the JSON WorkerConfig. */
export const CONFIG_ENV = "FUSESTREAMS_BENCH_CONFIG";

/**
 * The implementations, in default order. `control` is the native classes again (noise floor); `iter` is Node 26's
 * node:stream/iter, a reference row for the batched-read scenarios (group 13) only, not in the default selection
 * (it needs --experimental-stream-iter, which would change Node's Readable for every other scenario too). `alt`
 * is fusestreams from another checkout (`--alt=DIR`), measured exactly as `ours`: an A/B of two versions.
 */
export const IMPLS: readonly string[] = ["ours", "native", "fast", "node", "iter", "control", "alt"];

/** Default --impl selection. */
export const DEFAULT_IMPLS: readonly string[] = ["ours", "native", "fast", "node"];

export interface WorkerConfig {
  impls: string[];
  /** scenario ids, in order */
  scenarios: string[];
  /** chunk size in bytes */
  chunk: number;
  /** measurement rounds per scenario; every round measures each implementation once, in rotated order */
  rounds: number;
  /** sampling time per implementation and scenario, over all rounds (ms) */
  timeMs: number;
  /** minimum samples per implementation and round */
  minSamples: number;
  /** URL of the module providing `ours` (mod.ts, or dist/mod.js on Node 20) */
  oursUrl: string;
  /** URL of the `alt` implementation's mod.ts (another checkout, `--alt=DIR`), when `alt` is selected */
  altUrl?: string;
  /** file extension of the scenario modules next to the worker (".ts", or ".mjs" when bundled) */
  ext: string;
  /** the worker gives up when one step takes longer (ms) */
  hangMs: number;
}

export interface ImplResult {
  impl: string;
  ok: boolean;
  /** set when the implementation failed (verification, exception, unsupported) */
  error?: string;
  /** set when the implementation does not take part (no equivalent, not on this runtime) */
  skipped?: string;
  /** set with `skipped` when the implementation is missing on this runtime altogether (see the start notes) */
  absent?: boolean;
  /** how this implementation ran the scenario, when it differs from the others */
  note?: string;
  /** statistics of the pooled samples, in nanoseconds per iteration */
  median?: number;
  p25?: number;
  p75?: number;
  min?: number;
  max?: number;
  samples?: number;
  /** MB/s (10^6 bytes) or ops/s at the median */
  rate?: number;
}

export interface ScenarioResult {
  id: string;
  group: number;
  title: string;
  unit: "MB/s" | "ops/s";
  /** bytes moved per iteration (MB/s) */
  bytes: number;
  /** operations per iteration (ops/s) */
  ops: number;
  chunk: number;
  chunks: number;
  /** description of the node:stream variant */
  node?: string;
  results: ImplResult[];
  /** e.g. unhandled promise rejections seen while the scenario ran */
  warnings?: string[];
  ms: number;
}

export interface StartMessage {
  type: "start";
  /** e.g. "Node v26.10.0" */
  runtime: string;
  platform: string;
  cpu: string;
  gc: boolean;
  impls: string[];
  notes: string[];
}

export interface ScenarioMessage {
  type: "scenario";
  result: ScenarioResult;
}

export interface ProgressMessage {
  type: "progress";
  scenario: string;
  step: string;
}

export interface DoneMessage {
  type: "done";
  ms: number;
}

export type Message = StartMessage | ScenarioMessage | ProgressMessage | DoneMessage;
