/**
 * Builds the npm package into dist/:
 *
 *   dist/core/internal.js                          core/internal.ts bundled with all of core/ (platform neutral,
 *                                                  ESM): the one copy of the core
 *   dist/mod.js                                    the public names of mod.ts, re-exported from core/internal.js
 *   dist/adapters/<rt>/mod.js                      each adapter bundled with the kit (adapters/kit/), importing
 *                                                  ../../mod.js and ../../core/internal.js
 *   dist/mod.cjs, dist/adapters/<rt>/mod.cjs       CommonJS entry points: `module.exports = require("./mod.js")`
 *   dist/**\/*.d.ts                                 declarations from tsc (tsconfig.build.json), pruned to what
 *                                                  the entry points' declarations reach
 *   dist/**\/*.d.cts                                the same declarations for `require` (specifiers -> .cjs)
 *
 * One core per process: there is exactly one implementation file, dist/core/internal.js (the core's private
 * entry point: the public API plus what the kit needs; it is in no `exports` entry). dist/mod.js re-exports
 * the public names from it, and adapters do NOT get their own copy of the core: their imports of ../../mod.ts
 * and (through the kit) of core/internal.ts are kept external, so `fusestreams`, `fusestreams/node`,
 * `fusestreams/edge`, ... all share one set of classes. The CommonJS entry
 * points load the ES modules with require() (Node.js ^20.19 / >= 22.12, Bun, Deno), so a stream made through
 * `import` and a pipe made through `require` in one process are the same classes (no dual-package hazard).
 * An adapter reaches the core only through mod.ts and the kit, the kit only through core/internal.ts;
 * importing any other core/ file from adapters/ is a build error.
 *
 * The build also prints each entry point's size as `esbuild --bundle --minify` makes it (and gzip); the
 * size budget and the partial imports are scripts/size.ts's.
 *
 * Usage: node scripts/build.ts
 * @module
 */
import * as esbuild from "esbuild";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import process from "node:process";
import { gzipSync } from "node:zlib";
import { ADAPTERS, BIN, isMain, listFiles, rel, ROOT, rootPath, run, secs } from "./lib.ts";

const DIST = rootPath("dist");
const ROOT_MOD = rootPath("mod.ts");
const CORE_INTERNAL = rootPath("core", "internal.ts");
const CORE_DIR = rootPath("core") + sep;

/** Bundle targets: ES2023 everywhere (Node >= 20, current Deno/Bun, workerd, evergreen browsers). */
const TARGET = "es2023";

/** The package's entry points (source modules). */
export const ENTRY_SOURCES: readonly string[] = ["mod.ts", ...ADAPTERS.map((a) => `adapters/${a}/mod.ts`)];
/** The one bundle of the core, which dist/mod.js and the adapters' bundles import. */
const CORE_SOURCE = "core/internal.ts";

/** Output files of the build (relative to the root), for checks. */
export function expectedOutputs(): string[] {
  const out: string[] = [];
  for (const source of ENTRY_SOURCES) {
    const base = `dist/${source.replace(/\.ts$/, "")}`;
    out.push(`${base}.js`, `${base}.cjs`, `${base}.d.ts`, `${base}.d.cts`);
  }
  return out;
}

function posixRelative(fromDir: string, to: string): string {
  const r = relative(fromDir, to).split(sep).join("/");
  return r.startsWith(".") ? r : `./${r}`;
}

/**
 * Keeps an adapter's imports of the root mod.ts and of core/internal.ts external, pointing at the shared dist
 * build; the kit (adapters/kit/) is bundled into each adapter.
 */
function sharedCorePlugin(outfile: string): esbuild.Plugin {
  return {
    name: "fusestreams-shared-core",
    setup(build) {
      build.onResolve({ filter: /^\.\.?\// }, (args) => {
        const abs = resolve(args.resolveDir, args.path);
        if (abs === ROOT_MOD) {
          return { path: posixRelative(dirname(outfile), rootPath("dist", "mod.js")), external: true };
        }
        if (abs === CORE_INTERNAL) {
          return { path: posixRelative(dirname(outfile), rootPath("dist", "core", "internal.js")), external: true };
        }
        if (abs.startsWith(CORE_DIR)) {
          return {
            errors: [
              {
                text: `${rel(args.importer)} imports ${args.path} directly: adapters reach the core through ` +
                  `mod.ts and the kit through core/internal.ts (otherwise each adapter bundle gets its own copy ` +
                  `of the core classes).`,
              },
            ],
          };
        }
        return undefined;
      });
    },
  };
}

/**
 * dist/mod.js: the public names of mod.ts (its exports when loaded from source), re-exported from the core's
 * one bundle, so that `fusestreams` shows exactly the public API while sharing the classes with the kit.
 */
async function writePublicEntry(): Promise<void> {
  const api = (await import(pathToFileURL(ROOT_MOD).href)) as Record<string, unknown>;
  const names = Object.keys(api).sort();
  writeFileSync(
    rootPath("dist", "mod.js"),
    `// The public API of fusestreams: the public names of the core's one bundle (./core/internal.js).\n` +
      `export {\n${names.map((n) => `  ${n},\n`).join("")}} from "./core/internal.js";\n`,
  );
}

/** Platform and external modules of an entry point's bundle. */
function platformOf(source: string): { platform: esbuild.Platform; external: string[] } {
  const adapter = /^adapters\/([^/]+)\/mod\.ts$/.exec(source)?.[1];
  const platform: esbuild.Platform = adapter === "node" ? "node" : "neutral";
  const external = adapter === "node" || adapter === "deno" ? ["node:*"] : adapter === "bun" ? ["node:*", "bun:*"] : [];
  return { platform, external };
}

function buildOptions(source: string): esbuild.BuildOptions {
  // The core's bundle is platform neutral, like the root entry it re-exports.
  const adapter = /^adapters\/([^/]+)\/mod\.ts$/.exec(source)?.[1];
  const outfile = rootPath("dist", source.replace(/\.ts$/, ".js"));
  const { platform, external } = platformOf(source);
  return {
    absWorkingDir: ROOT,
    entryPoints: [rootPath(source)],
    outfile,
    bundle: true,
    format: "esm",
    platform,
    target: TARGET,
    external,
    // neutral platform: no package.json main-field guessing (the core has no dependencies anyway)
    mainFields: platform === "neutral" ? [] : undefined,
    plugins: adapter ? [sharedCorePlugin(outfile)] : [],
    charset: "utf8",
    legalComments: "none",
    logLevel: "warning",
    write: true,
  };
}

/** The CommonJS entry point next to an ES module entry point: it require()s the ES module (one core). */
function writeCommonJsEntry(source: string): void {
  const esm = source.replace(/\.ts$/, ".js");
  const name = esm.split("/").at(-1)!;
  writeFileSync(
    rootPath("dist", source.replace(/\.ts$/, ".cjs")),
    `"use strict";\n` +
      `// CommonJS entry point of ${esm}: the ES module itself, loaded with require() (Node.js ^20.19 / >= 22.12,\n` +
      `// Bun, Deno), so that import and require share one copy of fusestreams' classes.\n` +
      `module.exports = require("./${name}");\n`,
  );
}

const RELATIVE_SPECIFIER = /(\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)(["'])(\.{1,2}\/[^"'\n]*?)\2/g;

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

/**
 * Deletes the .d.ts files no entry point's declarations reach (tsc writes one per source file, internals
 * included; the public declarations only reach core/api/, core/types.ts and a few more). Returns the kept files.
 */
function pruneDeclarations(): string[] {
  const keep = new Set<string>();
  const pending = ENTRY_SOURCES.map((s) => rootPath("dist", s.replace(/\.ts$/, ".d.ts")));
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (keep.has(file)) continue;
    if (!existsSync(file)) throw new Error(`declaration ${rel(file)} is referenced but was not emitted`);
    keep.add(file);
    for (const m of readFileSync(file, "utf8").matchAll(RELATIVE_SPECIFIER)) {
      pending.push(resolve(dirname(file), m[3]!.replace(/\.js$/, ".d.ts")));
    }
  }
  for (const file of listFiles(DIST, (n) => n.endsWith(".d.ts"))) if (!keep.has(file)) rmSync(file);
  return [...keep].sort();
}

/** Writes a .d.cts twin of each .d.ts, its relative specifiers pointing at .cjs (CommonJS declarations). */
function writeCommonJsDeclarations(files: string[]): void {
  for (const file of files) {
    const text = readFileSync(file, "utf8").replace(
      RELATIVE_SPECIFIER,
      (_m, head: string, quote: string, path: string) => `${head}${quote}${path.replace(/\.js$/, ".cjs")}${quote}`,
    );
    writeFileSync(file.replace(/\.d\.ts$/, ".d.cts"), text);
  }
}

/** A size line: minified bytes and gzip bytes. */
export interface BundleSize {
  label: string;
  minified: number;
  gzip: number;
}

/**
 * `esbuild --bundle --minify` of each built entry point (everything it imports included; platform neutral
 * except the Node adapter), gzip at the default level. Partial imports (tree-shaking) and the size budget
 * are scripts/size.ts's (`npm run size`).
 */
export async function measureSizes(): Promise<BundleSize[]> {
  const bundle = async (label: string, options: esbuild.BuildOptions): Promise<BundleSize> => {
    const result = await esbuild.build({
      absWorkingDir: ROOT,
      bundle: true,
      minify: true,
      format: "esm",
      target: TARGET,
      write: false,
      logLevel: "warning",
      legalComments: "none",
      ...options,
    });
    const code = result.outputFiles![0]!.contents;
    return { label, minified: code.byteLength, gzip: gzipSync(code).byteLength };
  };
  const jobs = ENTRY_SOURCES.map((source) => {
    const { platform, external } = platformOf(source);
    const file = `dist/${source.replace(/\.ts$/, ".js")}`;
    return bundle(file.slice("dist/".length), { entryPoints: [rootPath(file)], platform, external, mainFields: [] });
  });
  return Promise.all(jobs);
}

function bytes(n: number): string {
  return `${n.toLocaleString("en-US")} B`;
}

/** Builds everything; returns false (after printing why) on failure. */
export async function build(): Promise<boolean> {
  const started = performance.now();
  rmSync(DIST, { recursive: true, force: true });

  try {
    const bundled = [CORE_SOURCE, ...ENTRY_SOURCES.filter((s) => s !== "mod.ts")];
    await Promise.all(bundled.map((source) => esbuild.build(buildOptions(source))));
    await writePublicEntry();
  } catch (err) {
    // esbuild has already printed the diagnostics
    console.error(`build: esbuild failed: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`);
    return false;
  }
  for (const source of ENTRY_SOURCES) writeCommonJsEntry(source);
  const esbuildMs = performance.now() - started;

  const tsc = await run(process.execPath, [BIN.tsc, "-p", "tsconfig.build.json"], { timeoutMs: 120_000 });
  if (tsc.code !== 0) {
    console.error("build: tsc (declarations) failed");
    return false;
  }
  const rewritten = rewriteDeclarationSpecifiers();
  const emitted = listFiles(DIST, (n) => n.endsWith(".d.ts")).length;
  let kept: string[];
  try {
    kept = pruneDeclarations();
  } catch (err) {
    console.error(`build: ${err instanceof Error ? err.message : String(err)}`);
    return false;
  }
  writeCommonJsDeclarations(kept);

  const missing = expectedOutputs().filter((f) => !existsSync(rootPath(f)));
  if (missing.length > 0) {
    console.error(`build: missing outputs: ${missing.join(", ")}`);
    return false;
  }
  console.log(
    `build: esbuild ${ENTRY_SOURCES.length} ES module bundles and ${ENTRY_SOURCES.length} CommonJS entry points in ${
      secs(esbuildMs)
    }`,
  );
  console.log(
    `build: tsc declarations in ${
      secs(tsc.ms)
    } (${emitted} .d.ts emitted, ${rewritten} with .ts specifiers rewritten to .js; ` +
      `${kept.length} reached from the entry points kept, each with a .d.cts twin)`,
  );
  const sizes = await measureSizes();
  const width = Math.max(...sizes.map((s) => s.label.length));
  console.log("build: sizes (esbuild --bundle --minify, then gzip at the default level):");
  for (const s of sizes) {
    console.log(`  ${s.label.padEnd(width)}  ${bytes(s.minified).padStart(9)} min  ${bytes(s.gzip).padStart(8)} gzip`);
  }
  console.log(`build: OK in ${secs(performance.now() - started)}`);
  return true;
}

if (isMain(import.meta.url)) {
  if (!(await build())) process.exitCode = 1;
}
