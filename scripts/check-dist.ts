/**
 * Checks the built package in dist/ the way a consumer sees it, through the package's own name
 * ("fusestreams", "fusestreams/node", ...; Node resolves a package's self-reference via `exports`).
 * Meant to run on the system Node (>= 20, no TypeScript support): scripts/test.ts bundles this file
 * to plain JavaScript first. Runs as is on Node >= 22.18 too.
 *
 * - ESM and CJS entry points all load and expose the same export names as dist/mod.js;
 * - every subpath, through import and through require, hands out the very same classes (one core);
 * - a stream built from the CJS build and from the ESM build works;
 * - no .d.ts file still refers to a relative `.ts` module.
 * @module
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";

const SUBPATHS = ["fusestreams", "fusestreams/node", "fusestreams/deno", "fusestreams/bun", "fusestreams/edge"];

const problems: string[] = [];
const require = createRequire(import.meta.url);
const root = join(require.resolve("fusestreams/package.json"), "..");

function names(ns: object): string[] {
  return Object.keys(ns)
    .filter((k) => k !== "default" && k !== "__esModule" && k !== "module.exports")
    .sort();
}

type Namespace = Record<string, unknown>;

const esmCore = (await import(pathToFileURL(join(root, "dist", "mod.js")).href)) as Namespace;
const cjsCore = require(join(root, "dist", "mod.cjs")) as Namespace;
const expected = names(esmCore);
if (expected.length === 0) problems.push("dist/mod.js exports nothing");
if (names(cjsCore).join() !== expected.join()) {
  problems.push(`dist/mod.cjs exports [${names(cjsCore).join(", ")}], dist/mod.js [${expected.join(", ")}]`);
}
// One core per process: the CommonJS build is the ES module itself, so every export is the very same object.
for (const name of expected) {
  if (cjsCore[name] !== esmCore[name]) {
    problems.push(`dist/mod.cjs's ${name} is not dist/mod.js's (two copies of the core)`);
  }
}

for (const specifier of SUBPATHS) {
  let esm: Namespace;
  let cjs: Namespace;
  try {
    esm = (await import(specifier)) as Namespace;
    cjs = require(specifier) as Namespace;
  } catch (err) {
    problems.push(`${specifier}: failed to load: ${err instanceof Error ? err.message : String(err)}`);
    continue;
  }
  // Adapters may add extras, but never drop anything from the core API.
  for (const [kind, ns, core] of [["import", esm, esmCore], ["require", cjs, cjsCore]] as const) {
    for (const name of expected) {
      if (!(name in ns)) problems.push(`${kind}("${specifier}") lacks ${name}`);
      else if (ns[name] !== core[name]) {
        problems.push(`${kind}("${specifier}").${name} is a different object than dist/mod's`);
      }
    }
  }
  if (names(esm).join() !== names(cjs).join()) {
    problems.push(`${specifier}: ESM exports [${names(esm).join(", ")}] differ from CJS [${names(cjs).join(", ")}]`);
  }
}

// Both builds produce working streams.
for (const [kind, ns] of [["esm", esmCore], ["cjs", cjsCore]] as const) {
  try {
    const RS = ns["ReadableStream"] as typeof ReadableStream;
    const reader = new RS<string>({
      start(c) {
        c.enqueue(kind);
        c.close();
      },
    }).getReader();
    const first = await reader.read();
    const second = await reader.read();
    if (first.value !== kind || first.done || !second.done) problems.push(`${kind}: ReadableStream round trip failed`);
  } catch (err) {
    problems.push(`${kind}: ReadableStream threw: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function declarations(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...declarations(full));
    else if (entry.name.endsWith(".d.ts")) out.push(full);
  }
  return out;
}
const dts = declarations(join(root, "dist"));
for (const file of dts) {
  const text = readFileSync(file, "utf8");
  const m = /(["'])\.{1,2}\/[^"'\n]*?(?<!\.d)\.ts\1/.exec(text);
  if (m) problems.push(`${file.slice(root.length + 1)} still refers to ${m[0]}`);
}

if (problems.length > 0) {
  console.error(`check-dist: ${problems.length} problem(s) on Node ${process.version}:`);
  for (const p of problems) console.error(`  ${p}`);
  process.exitCode = 1;
} else {
  console.log(
    `check-dist: OK on Node ${process.version}: ${SUBPATHS.length} entry points x (import, require) load, ` +
      `share one core (${expected.length} exports), ${dts.length} .d.ts files use .js specifiers`,
  );
}
