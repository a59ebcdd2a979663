/**
 * Builds the npm package into dist/:
 *
 *   dist/mod.js, dist/mod.cjs                      mod.ts bundled with all of core/ (platform neutral)
 *   dist/adapters/<rt>/mod.js, .cjs                each adapter bundled, importing ../../mod.js (or .cjs)
 *   dist/**\/*.d.ts                                 declarations from tsc (tsconfig.build.json)
 *
 * Adapters do NOT get their own copy of the core: their import of ../../mod.ts is kept external and
 * pointed at dist/mod.js / dist/mod.cjs, so `fusestreams`, `fusestreams/node`, `fusestreams/edge`, ...
 * all share one set of classes (no instanceof / brand-check surprises between entry points).
 * For the same reason an adapter must reach the core only through mod.ts; importing core/ files
 * directly is a build error.
 *
 * Usage: node scripts/build.ts
 * @module
 */
import * as esbuild from "esbuild";
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";
import process from "node:process";
import { ADAPTERS, BIN, isMain, listFiles, rel, ROOT, rootPath, run, secs } from "./lib.ts";

const DIST = rootPath("dist");
const ROOT_MOD = rootPath("mod.ts");
const CORE_DIR = rootPath("core") + sep;
/** core/interop/ (the adapter contract and the runtime-agnostic patch machinery) reaches the core only through mod.ts, so adapters may bundle it. */
const INTEROP_DIR = rootPath("core", "interop") + sep;

/** Bundle targets: ES2023 everywhere (Node >= 20, current Deno/Bun, workerd, evergreen browsers). */
const TARGET = "es2023";

type Format = "esm" | "cjs";
const EXT: Record<Format, string> = { esm: ".js", cjs: ".cjs" };

/** Output files of the build (relative to the root), for checks. */
export function expectedOutputs(): string[] {
  const out: string[] = [];
  for (const source of ["mod.ts", ...ADAPTERS.map((a) => `adapters/${a}/mod.ts`)]) {
    const base = `dist/${source.replace(/\.ts$/, "")}`;
    out.push(`${base}.js`, `${base}.cjs`, `${base}.d.ts`);
  }
  return out;
}

function posixRelative(fromDir: string, to: string): string {
  const r = relative(fromDir, to).split(sep).join("/");
  return r.startsWith(".") ? r : `./${r}`;
}

/** Keeps an adapter's import of the root mod.ts external, pointing at the shared dist build. */
function sharedCorePlugin(outfile: string, format: Format): esbuild.Plugin {
  return {
    name: "fusestreams-shared-core",
    setup(build) {
      build.onResolve({ filter: /^\.\.?\// }, (args) => {
        const abs = resolve(args.resolveDir, args.path);
        if (abs === ROOT_MOD) {
          return { path: posixRelative(dirname(outfile), rootPath("dist", `mod${EXT[format]}`)), external: true };
        }
        if (abs.startsWith(CORE_DIR) && !abs.startsWith(INTEROP_DIR)) {
          return {
            errors: [
              {
                text:
                  `${rel(args.importer)} imports ${args.path} directly: adapters must import the core through ` +
                  `mod.ts (otherwise each adapter bundle gets its own copy of the core classes).`,
              },
            ],
          };
        }
        return undefined;
      });
    },
  };
}

function buildOptions(source: string, format: Format): esbuild.BuildOptions {
  const adapter = /^adapters\/([^/]+)\/mod\.ts$/.exec(source)?.[1];
  const outfile = rootPath("dist", source.replace(/\.ts$/, EXT[format]));
  const platform: esbuild.Platform = adapter === "node" ? "node" : "neutral";
  const external =
    adapter === "node" || adapter === "deno" ? ["node:*"] : adapter === "bun" ? ["node:*", "bun:*"] : [];
  return {
    absWorkingDir: ROOT,
    entryPoints: [rootPath(source)],
    outfile,
    bundle: true,
    format,
    platform,
    target: TARGET,
    external,
    // neutral platform: no package.json main-field guessing (the core has no dependencies anyway)
    mainFields: platform === "neutral" ? [] : undefined,
    plugins: adapter ? [sharedCorePlugin(outfile, format)] : [],
    charset: "utf8",
    legalComments: "none",
    logLevel: "warning",
    write: true,
  };
}

/** tsc writes .d.ts files with the source's `.ts` specifiers; point them at the `.js` siblings. */
function rewriteDeclarationSpecifiers(): number {
  let changed = 0;
  for (const file of listFiles(DIST, (n) => n.endsWith(".d.ts"))) {
    const text = readFileSync(file, "utf8");
    const next = text.replace(
      /(["'])(\.{1,2}\/[^"'\n]*?)(?<!\.d)\.ts\1/g,
      (_m, quote: string, path: string) => `${quote}${path}.js${quote}`,
    );
    if (next !== text) {
      writeFileSync(file, next);
      changed++;
    }
  }
  return changed;
}

/** Builds everything; returns false (after printing why) on failure. */
export async function build(): Promise<boolean> {
  const started = performance.now();
  rmSync(DIST, { recursive: true, force: true });

  const sources = ["mod.ts", ...ADAPTERS.map((a) => `adapters/${a}/mod.ts`)];
  const jobs = sources.flatMap((source) => (["esm", "cjs"] as const).map((format) => buildOptions(source, format)));
  try {
    await Promise.all(jobs.map((options) => esbuild.build(options)));
  } catch (err) {
    // esbuild has already printed the diagnostics
    console.error(`build: esbuild failed: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`);
    return false;
  }
  const esbuildMs = performance.now() - started;

  const tsc = await run(process.execPath, [BIN.tsc, "-p", "tsconfig.build.json"], { timeoutMs: 120_000 });
  if (tsc.code !== 0) {
    console.error("build: tsc (declarations) failed");
    return false;
  }
  const rewritten = rewriteDeclarationSpecifiers();

  const missing = expectedOutputs().filter((f) => !existsSync(rootPath(f)));
  if (missing.length > 0) {
    console.error(`build: missing outputs: ${missing.join(", ")}`);
    return false;
  }
  const sizes = expectedOutputs()
    .filter((f) => !f.endsWith(".d.ts"))
    .map((f) => `${f.slice("dist/".length)} ${(statSync(rootPath(f)).size / 1024).toFixed(1)} KiB`);
  console.log(`build: esbuild ${jobs.length} bundles in ${secs(esbuildMs)}; ${sizes.join(", ")}`);
  console.log(
    `build: tsc declarations in ${secs(tsc.ms)} (${listFiles(DIST, (n) => n.endsWith(".d.ts")).length} .d.ts files, ` +
      `${rewritten} with .ts specifiers rewritten to .js)`,
  );
  console.log(`build: OK in ${secs(performance.now() - started)}`);
  return true;
}

if (isMain(import.meta.url)) {
  if (!(await build())) process.exitCode = 1;
}
