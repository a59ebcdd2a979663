/**
 * Checks that package.json (npm) and deno.json (JSR) describe the same package:
 * same version, same export subpaths, each subpath pointing at the same module (source .ts for
 * JSR, its build in dist/ for npm), `types` first and the runtime conditions in the agreed order.
 *
 * Usage: node scripts/check-exports.ts [--dist]   (--dist: also require every npm target to exist)
 * @module
 */
import { existsSync, readFileSync } from "node:fs";
import process from "node:process";
import { isMain, rootPath } from "./lib.ts";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Conditions of the "." export, in order. */
export const ROOT_CONDITIONS: readonly string[] = [
  "types",
  "workerd",
  "edge-light",
  "bun",
  "deno",
  "node",
  "browser",
  "default",
];

/** Which build each runtime condition of "." selects (the source module, relative to the root). */
const ROOT_CONDITION_SOURCE: Record<string, string> = {
  workerd: "adapters/edge/mod.ts",
  "edge-light": "adapters/edge/mod.ts",
  bun: "adapters/bun/mod.ts",
  deno: "adapters/deno/mod.ts",
  node: "adapters/node/mod.ts",
  browser: "adapters/edge/mod.ts",
  default: "mod.ts",
};

function readJson(file: string): { [key: string]: Json } {
  return JSON.parse(readFileSync(rootPath(file), "utf8")) as { [key: string]: Json };
}

function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** dist/ build paths of a source module: "adapters/node/mod.ts" -> ./dist/adapters/node/mod.{js,cjs,d.ts}. */
export function distTargets(source: string): { import: string; require: string; types: string } {
  const base = `./dist/${source.replace(/^\.\//, "").replace(/\.ts$/, "")}`;
  return { import: `${base}.js`, require: `${base}.cjs`, types: `${base}.d.ts` };
}

/** Every string target in an exports tree. */
export function allTargets(node: Json | undefined): string[] {
  if (typeof node === "string") return [node];
  if (isObject(node)) return Object.values(node).flatMap(allTargets);
  return [];
}

/** Returns a list of problems (empty when consistent). */
export function checkExports(options: { dist?: boolean } = {}): string[] {
  const problems: string[] = [];
  const pkg = readJson("package.json");
  const deno = readJson("deno.json");

  if (pkg["name"] !== "fusestreams") problems.push(`package.json name is ${JSON.stringify(pkg["name"])}, expected "fusestreams"`);
  if (deno["name"] !== "@fusestreams/fusestreams") problems.push(`deno.json name is ${JSON.stringify(deno["name"])}`);
  if (pkg["version"] !== deno["version"]) {
    problems.push(`version mismatch: package.json ${String(pkg["version"])} vs deno.json ${String(deno["version"])}`);
  }
  if (pkg["license"] !== deno["license"]) problems.push("license differs between package.json and deno.json");
  const deps = pkg["dependencies"];
  if (isObject(deps) && Object.keys(deps).length > 0) problems.push("package.json must have no runtime dependencies");

  const pkgExports = pkg["exports"];
  const denoExports = deno["exports"];
  if (!isObject(pkgExports) || !isObject(denoExports)) {
    problems.push("both package.json and deno.json need an `exports` object");
    return problems;
  }

  const npmSubpaths = Object.keys(pkgExports).filter((k) => k !== "./package.json").sort();
  const jsrSubpaths = Object.keys(denoExports).sort();
  if (npmSubpaths.join() !== jsrSubpaths.join()) {
    problems.push(`subpaths differ: package.json [${npmSubpaths.join(", ")}] vs deno.json [${jsrSubpaths.join(", ")}]`);
  }

  for (const subpath of jsrSubpaths) {
    const source = denoExports[subpath];
    if (typeof source !== "string") {
      problems.push(`deno.json exports[${subpath}] must be a string`);
      continue;
    }
    if (!existsSync(rootPath(source))) problems.push(`deno.json exports[${subpath}] -> ${source} does not exist`);
    const entry = pkgExports[subpath];
    if (!isObject(entry)) {
      problems.push(`package.json exports[${subpath}] must be a conditions object`);
      continue;
    }
    const keys = Object.keys(entry);
    if (keys[0] !== "types") problems.push(`package.json exports[${subpath}]: "types" must come first (got ${keys.join(", ")})`);
    const expected = distTargets(source);
    if (entry["types"] !== expected.types) {
      problems.push(`package.json exports[${subpath}].types is ${JSON.stringify(entry["types"])}, expected ${expected.types}`);
    }
    if (subpath === ".") {
      if (keys.join() !== ROOT_CONDITIONS.join()) {
        problems.push(`package.json exports["."] conditions must be [${ROOT_CONDITIONS.join(", ")}], got [${keys.join(", ")}]`);
      }
      for (const [condition, conditionSource] of Object.entries(ROOT_CONDITION_SOURCE)) {
        const want = distTargets(conditionSource);
        const got = entry[condition];
        if (!isObject(got) || got["import"] !== want.import || got["require"] !== want.require) {
          problems.push(
            `package.json exports["."].${condition} should be { import: ${want.import}, require: ${want.require} }`,
          );
        }
      }
    } else {
      if (entry["import"] !== expected.import || entry["require"] !== expected.require) {
        problems.push(`package.json exports[${subpath}] should import ${expected.import} / require ${expected.require}`);
      }
    }
  }

  if (pkgExports["./package.json"] !== "./package.json") problems.push('package.json should export "./package.json"');
  if (pkg["main"] !== "./dist/mod.cjs" || pkg["module"] !== "./dist/mod.js" || pkg["types"] !== "./dist/mod.d.ts") {
    problems.push("package.json main/module/types fallbacks should be ./dist/mod.cjs, ./dist/mod.js, ./dist/mod.d.ts");
  }

  if (options.dist) {
    for (const target of new Set(allTargets(pkgExports))) {
      if (!existsSync(rootPath(target))) problems.push(`missing build output: ${target} (run npm run build)`);
    }
  }
  return problems;
}

if (isMain(import.meta.url)) {
  const dist = process.argv.includes("--dist");
  const problems = checkExports({ dist });
  if (problems.length > 0) {
    console.error(`check-exports: ${problems.length} problem(s):`);
    for (const p of problems) console.error(`  ${p}`);
    process.exitCode = 1;
  } else {
    console.log(`check-exports: OK (package.json and deno.json export the same subpaths${dist ? "; all dist/ targets exist" : ""})`);
  }
}
