/**
 * Real frameworks deliver the same bytes with fusestreams' global patch on and off (tests/frameworks/cases.ts):
 * Hono on the runtime's own server (@hono/node-server on Node.js, Deno.serve, Bun.serve), Vercel's AI SDK with
 * its mock model (text and UI message stream responses, smoothStream, an aborted and an errored stream),
 * eventsource-parser, React's renderToReadableStream (plain, gzip, Suspense), and on Node.js the ends of a
 * pipeline (a Next.js-style route response, fromWeb().pipe(), pipeline(), Writable.toWeb(), an upload read
 * through Readable.toWeb(), a fetch() body).
 *
 * This file starts itself twice as a child process of the same runtime, once per side (FRAMEWORKS_SIDE=off|on):
 * the `on` child calls the runtime adapter's patchGlobalWebStreams() before any framework is imported. Each child
 * prints every case's output; the tests compare them byte for byte, and check that the output is non-trivial,
 * that the `on` side ran on fusestreams' streams and the `off` side on the runtime's.
 *
 * Mutation check: FRAMEWORKS_FLIP=<case> makes the `on` child change one byte of that case's output (`all`: every
 * case), so the comparison must fail: `FRAMEWORKS_FLIP=all node scripts/unit.ts tests/unit/frameworks.test.ts`.
 *
 *   node scripts/unit.ts tests/unit/frameworks.test.ts     (deno run -A ..., bun ..., node22)
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { CASES, closeServer } from "../frameworks/cases.ts";

const SIDE_ENV = "FRAMEWORKS_SIDE";
const OUT_ENV = "FRAMEWORKS_OUT";
const CHILD_TIMEOUT_MS = 90_000;
const CASE_TIMEOUT_MS = 15_000;

const g = globalThis as unknown as { Deno?: { execPath(): string }; Bun?: unknown };
const runtime = g.Deno ? "Deno" : g.Bun ? "Bun" : "Node.js";

interface CaseReport {
  ok: boolean;
  /** base64 of the output */
  bytes?: string;
  ours?: boolean;
  error?: string;
}

function toBase64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.byteLength; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

function fromBase64(text: string): Uint8Array {
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/** The runtime adapter's public entry point: the TypeScript source, or the package when this file is bundled. */
function adapterUrl(): string {
  const name = runtime === "Deno" ? "deno" : runtime === "Bun" ? "bun" : "node";
  return import.meta.url.endsWith(".ts")
    ? new URL(`../../adapters/${name}/mod.ts`, import.meta.url).href
    : import.meta.resolve(`fusestreams/${name}`);
}

interface Adapter {
  patchGlobalWebStreams(): void;
  isGlobalWebStreamsPatched(): boolean;
  ReadableStream: abstract new (...args: never[]) => unknown;
  WritableStream: abstract new (...args: never[]) => unknown;
  TransformStream: abstract new (...args: never[]) => unknown;
}

/** The child: the patch (side `on`), then every case; the report goes to the file FRAMEWORKS_OUT names. */
async function child(side: string): Promise<void> {
  let adapter: Adapter | undefined;
  if (side === "on") {
    adapter = (await import(adapterUrl())) as Adapter;
    adapter.patchGlobalWebStreams();
    if (!adapter.isGlobalWebStreamsPatched()) throw new Error("the patch did not go on");
  }
  const isOurs = (x: unknown): boolean =>
    adapter !== undefined &&
    (x instanceof adapter.ReadableStream || x instanceof adapter.WritableStream ||
      x instanceof adapter.TransformStream);
  const flip = process.env["FRAMEWORKS_FLIP"];
  const reports: Record<string, CaseReport> = {};
  // An error a framework throws outside the case's promise chain (from a job or a callback) fails the case at once
  // instead of leaving it pending; a case that neither settles nor throws fails after CASE_TIMEOUT_MS.
  let failCase: (error: unknown) => void = () => {};
  process.on("uncaughtException", (error) => failCase(error));
  process.on("unhandledRejection", (error) => failCase(error));
  for (const c of CASES) {
    try {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const failed = new Promise<never>((_, reject) => {
        failCase = reject;
        timer = setTimeout(() => reject(new Error(`no result within ${CASE_TIMEOUT_MS} ms`)), CASE_TIMEOUT_MS);
      });
      const out = await Promise.race([c.run({ isOurs, runtime }), failed]).finally(() => clearTimeout(timer));
      if (side === "on" && (flip === c.name || flip === "all") && out.bytes.byteLength > 0) {
        out.bytes[out.bytes.byteLength >> 1]! ^= 1;
      }
      reports[c.name] = { ok: true, bytes: toBase64(out.bytes), ours: out.ours };
    } catch (error) {
      reports[c.name] = { ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
    }
  }
  await closeServer();
  writeFileSync(process.env[OUT_ENV]!, JSON.stringify(reports));
}

/** Starts this file as a child of the same runtime and collects its report. */
function runChild(side: "off" | "on"): Promise<Record<string, CaseReport>> {
  const self = fileURLToPath(import.meta.url);
  const [cmd, args] = g.Deno ? [g.Deno.execPath(), ["run", "-A", self]] : [process.execPath, [self]];
  const dir = mkdtempSync(join(tmpdir(), "fusestreams-frameworks-"));
  const out = join(dir, `${side}.json`);
  return new Promise<Record<string, CaseReport>>((resolve, reject) => {
    const proc = spawn(cmd, args, {
      env: { ...process.env, [SIDE_ENV]: side, [OUT_ENV]: out, NODE_ENV: "production" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    proc.stderr!.on("data", (c: Uint8Array) => (stderr += new TextDecoder().decode(c)));
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      reject(new Error(`the ${side} child took longer than ${CHILD_TIMEOUT_MS} ms\n${stderr}`));
    }, CHILD_TIMEOUT_MS);
    proc.on("error", reject);
    proc.on("exit", (code) => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(readFileSync(out, "utf8")) as Record<string, CaseReport>);
      } catch {
        reject(new Error(`the ${side} child (exit code ${code}) wrote no report\n${stderr}`));
      }
    });
  }).finally(() => rmSync(dir, { recursive: true, force: true }));
}

/** Where two outputs first differ, with the text around it. */
function firstDifference(a: Uint8Array, b: Uint8Array): string {
  const n = Math.min(a.byteLength, b.byteLength);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  const around = (x: Uint8Array) => JSON.stringify(new TextDecoder().decode(x.subarray(Math.max(0, i - 40), i + 40)));
  return `sizes ${a.byteLength} (off) and ${b.byteLength} (on), first difference at byte ${i}:\n  off ${
    around(a)
  }\n  on  ${around(b)}`;
}

const side = process.env[SIDE_ENV];
if (side) {
  await child(side);
  // servers and sockets of the frameworks may keep the loop alive
  process.exit(0);
} else {
  const [off, on] = await Promise.all([runChild("off"), runChild("on")]);
  for (const c of CASES) {
    const name = `frameworks (${runtime}): ${c.name} is byte-identical with the patch on and off`;
    test(name, () => {
      const a = off[c.name];
      const b = on[c.name];
      assert.ok(a?.ok, `the unpatched run failed: ${a?.error}`);
      assert.ok(b?.ok, `the patched run failed: ${b?.error}`);
      const bytesOff = fromBase64(a!.bytes!);
      const bytesOn = fromBase64(b!.bytes!);
      assert.ok(bytesOff.byteLength >= c.minBytes, `only ${bytesOff.byteLength} bytes (at least ${c.minBytes})`);
      assert.is(a!.ours, false, "the unpatched run used the runtime's own streams");
      assert.is(b!.ours, true, "the patched run used fusestreams' streams");
      const same = bytesOff.byteLength === bytesOn.byteLength && bytesOff.every((x, i) => x === bytesOn[i]);
      assert.ok(same, firstDifference(bytesOff, bytesOn));
    });
  }
  test.run();
}
