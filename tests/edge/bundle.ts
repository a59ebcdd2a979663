/**
 * Bundles a worker script with esbuild for the edge runtimes: `module` (an ES module whose default export
 * has `fetch`, for workerd), `service-worker` (a classic script that calls `addEventListener("fetch")`,
 * for edge-runtime), or `script` (esbuild's ES module output of an entry without exports, which puts the
 * handler on the global `handle`: one scope at the top level, as local emulators evaluate a bundled worker
 * with `new EdgeRuntime({ initialCode })`). The entry module must export `handle(request): Promise<Response>`.
 * @module
 */
import * as esbuild from "esbuild";
import { basename, dirname } from "node:path";

/** The script formats the edge runtimes take. */
export type WorkerFormat = "module" | "service-worker" | "script";

/** Bundles `entry` (exporting `handle`) as one script of the given format and returns its code. */
export async function bundleWorker(entry: string, format: WorkerFormat): Promise<string> {
  const spec = `./${basename(entry)}`;
  const contents = format === "module"
    ? `import { handle } from ${JSON.stringify(spec)};\nexport default { fetch: (request) => handle(request) };\n`
    : format === "script"
    ? `import { handle } from ${JSON.stringify(spec)};\nglobalThis.handle = handle;\n`
    : `import { handle } from ${
      JSON.stringify(spec)
    };\naddEventListener("fetch", (event) => event.respondWith(handle(event.request)));\n`;
  const result = await esbuild.build({
    stdin: { contents, resolveDir: dirname(entry), sourcefile: `${format}-entry.js`, loader: "js" },
    bundle: true,
    write: false,
    format: format === "service-worker" ? "iife" : "esm",
    platform: "neutral",
    target: "es2022",
    conditions: ["workerd", "edge-light", "worker", "browser"],
    logLevel: "error",
  });
  return result.outputFiles[0]!.text;
}
