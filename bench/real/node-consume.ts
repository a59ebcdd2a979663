/**
 * NODE-CONSUME with ÷ without, in one Node.js process with the patch on: the in-process rows of bench/real
 * (each drains its pipeline with `arrayBuffer()` of a Response) run with the patch's `arrayBuffer()` (our
 * reading of our body) and with undici's own method put back for the "without" side, the sides alternating
 * (ABBA...) within the same process, so both see the same machine load, the same warmed-up code and the same
 * heap. Reported per row: median wall time and CPU time per iteration of each side, and without ÷ with.
 *
 *   node bench/real/node-consume.ts [--filter=pipe,ai] [--rounds=6] [--iterations=20]
 * @module
 */
import process from "node:process";
import { readFlags } from "../lib/flags.ts";
import type { InprocRow, Natives } from "./scenarios/env.ts";

const USAGE = "usage: node bench/real/node-consume.ts [--filter=IDS] [--rounds=N] [--iterations=N]";
const ROWS = ["pipe-html", "pipe-html-gzip", "pipe-sse", "ai-text", "ai-ui", "ai-sse-proxy", "react-gzip"];

function fail(message: string): never {
  console.error(`node-consume: ${message}\n${USAGE}`);
  process.exit(2);
}

const flags = readFlags(process.argv.slice(2), ["filter", "rounds", "iterations"], USAGE, fail);
const needles = (flags.get("filter") ?? "").split(",").map((s) => s.trim()).filter(Boolean);
const rounds = Number(flags.get("rounds") ?? 6);
const iterations = Number(flags.get("iterations") ?? 20);
if (!Number.isInteger(rounds) || rounds < 2 || !Number.isInteger(iterations) || iterations < 1) {
  fail("--rounds needs an integer >= 2, --iterations a positive integer");
}

process.env.NODE_ENV = "production";
const natives: Natives = { ReadableStream: globalThis.ReadableStream };
const undiciArrayBuffer = Object.getOwnPropertyDescriptor(Response.prototype, "arrayBuffer")!;
const { patchGlobalWebStreams } = await import("../../adapters/node/mod.ts");
patchGlobalWebStreams();
const patchedArrayBuffer = Object.getOwnPropertyDescriptor(Response.prototype, "arrayBuffer")!;
if (patchedArrayBuffer.value === undiciArrayBuffer.value) fail("the patch left Response.prototype.arrayBuffer alone");

/** Puts the patch's arrayBuffer() (with) or undici's (without) on Response.prototype. */
function side(withStep: boolean): void {
  Object.defineProperty(Response.prototype, "arrayBuffer", withStep ? patchedArrayBuffer : undiciArrayBuffer);
}

async function build(id: string): Promise<InprocRow> {
  if (id.startsWith("pipe-")) return (await import("./scenarios/pipelines.ts")).build(id, natives);
  if (id.startsWith("ai-")) return await (await import("./scenarios/ai.ts")).build(id, natives);
  return (await import("./scenarios/react.ts")).build(id);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

console.log(`Node.js ${process.version}: NODE-CONSUME with ÷ without (patch on), ${rounds} rounds x ${iterations}`);
for (const id of ROWS.filter((r) => needles.length === 0 || needles.some((n) => r.includes(n)))) {
  const row = await build(id);
  const wall: Record<"with" | "without", number[]> = { with: [], without: [] };
  const cpu: Record<"with" | "without", number[]> = { with: [], without: [] };
  for (const withStep of [true, false]) {
    side(withStep);
    await row.verify();
  }
  for (let r = 0; r < rounds; r++) {
    // ABBA: with, without, without, with, ...
    for (const withStep of r % 2 === 0 ? [true, false] : [false, true]) {
      side(withStep);
      const key = withStep ? "with" : "without";
      for (let i = 0; i < 3; i++) await row.run();
      for (let i = 0; i < iterations; i++) {
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        await row.run();
        wall[key].push(performance.now() - t0);
        const c = process.cpuUsage(c0);
        cpu[key].push((c.user + c.system) / 1000);
      }
    }
  }
  side(true);
  await row.verify();
  const w = { with: median(wall.with), without: median(wall.without) };
  const c = { with: median(cpu.with), without: median(cpu.without) };
  console.log(
    `${id.padEnd(15)} wall: with ${w.with.toFixed(2)} ms, without ${w.without.toFixed(2)} ms, ` +
      `${(w.without / w.with).toFixed(2)}x | CPU: with ${c.with.toFixed(2)} ms, without ${c.without.toFixed(2)} ms, ${
        (c.without / c.with).toFixed(2)
      }x`,
  );
}
