/**
 * Bundles a worker script with esbuild for the edge runtimes: `module` (an ES module whose default export
 * has `fetch`, for workerd) or `service-worker` (a classic script that calls `addEventListener("fetch")`,
 * for edge-runtime). The entry module must export `handle(request): Promise<Response>`.
 * @module
 */
import * as esbuild from "esbuild";
import { basename, dirname } from "node:path";

/** The two script formats the edge runtimes take. */
export type WorkerFormat = "module" | "service-worker";

/** Bundles `entry` (exporting `handle`) as one script of the given format and returns its code. */
export async function bundleWorker(entry: string, format: WorkerFormat): Promise<string> {
  const spec = `./${basename(entry)}`;
  const contents = format === "module"
    ? `import { handle } from ${JSON.stringify(spec)};\nexport default { fetch: (request) => handle(request) };\n`
    : `import { handle } from ${
      JSON.stringify(spec)
    };\naddEventListener("fetch", (event) => event.respondWith(handle(event.request)));\n`;
  const result = await esbuild.build({
    stdin: { contents, resolveDir: dirname(entry), sourcefile: `${format}-entry.js`, loader: "js" },
    bundle: true,
    write: false,
    format: format === "module" ? "esm" : "iife",
    platform: "neutral",
    target: "es2022",
    conditions: ["workerd", "edge-light", "worker", "browser"],
    logLevel: "error",
  });
  return result.outputFiles[0]!.text;
}
