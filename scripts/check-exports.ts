/**
 * Checks that package.json (npm) and deno.json (JSR) describe the same package:
 * same version, same export subpaths, each subpath pointing at the same module (source .ts for
 * JSR, its build in dist/ for npm: `import` -> .d.ts + .js, `require` -> .d.cts + .cjs, and for "." the
 * runtime conditions in the agreed order inside each), plus the node10 fallbacks (main/types, typesVersions).
 *
 * Usage: node scripts/check-exports.ts [--dist]   (--dist: also require every npm target to exist)
 * @module
 */
import { existsSync, readFileSync } from "node:fs";
import process from "node:process";
import { isMain, rootPath } from "./lib.ts";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * The runtime conditions of the "." export, in order, and the source module each selects. Inside the
 * outer "import" / "require" conditions (which pick the `.d.ts` or `.d.cts` declarations and the `.js` or
 * `.cjs` file), so that ESM and CommonJS consumers both get declarations of their own module format.
 * A runtime none of the conditions names gets the edge build: web-standard globals only, like the core,
 * and with the adapter contract every other condition's module has (`toNativeReadableStream`, and a
 * `patchGlobalWebStreams` that says clearly where it runs instead of being undefined); a bundle that
 * imports only the classes is the same size either way.
 */
export const ROOT_CONDITION_SOURCE: Readonly<Record<string, string>> = {
  workerd: "adapters/edge/mod.ts",
  "edge-light": "adapters/edge/mod.ts",
  bun: "adapters/bun/mod.ts",
  deno: "adapters/deno/mod.ts",
  node: "adapters/node/mod.ts",
  browser: "adapters/edge/mod.ts",
  default: "adapters/edge/mod.ts",
};

function readJson(file: string): { [key: string]: Json } {
  return JSON.parse(readFileSync(rootPath(file), "utf8")) as { [key: string]: Json };
}

function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** dist/ build paths of a source module: "adapters/node/mod.ts" -> ./dist/adapters/node/mod.{js,cjs,d.ts,d.cts}. */
export function distTargets(source: string): { import: string; require: string; types: string; requireTypes: string } {
  const base = `./dist/${source.replace(/^\.\//, "").replace(/\.ts$/, "")}`;
  return { import: `${base}.js`, require: `${base}.cjs`, types: `${base}.d.ts`, requireTypes: `${base}.d.cts` };
}

/** The npm `exports` entry a subpath of deno.json (pointing at `source`) must have in package.json. */
export function expectedNpmExport(subpath: string, source: string): Json {
  const own = distTargets(source);
  if (subpath !== ".") {
    return {
      import: { types: own.types, default: own.import },
      require: { types: own.requireTypes, default: own.require },
    };
  }
  const side = (kind: "import" | "require"): Json => {
    const out: { [key: string]: Json } = { types: kind === "import" ? own.types : own.requireTypes };
    for (const [condition, conditionSource] of Object.entries(ROOT_CONDITION_SOURCE)) {
      out[condition] = distTargets(conditionSource)[kind];
    }
    return out;
  };
  return { import: side("import"), require: side("require") };
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

  if (pkg["name"] !== "fusestreams") {
    problems.push(`package.json name is ${JSON.stringify(pkg["name"])}, expected "fusestreams"`);
  }
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
    const want = JSON.stringify(expectedNpmExport(subpath, source));
    const got = JSON.stringify(pkgExports[subpath]);
    if (got !== want) {
      problems.push(`package.json exports[${JSON.stringify(subpath)}] is ${got}, expected ${want} (same key order)`);
    }
  }

  if (pkgExports["./package.json"] !== "./package.json") problems.push('package.json should export "./package.json"');
  const root = distTargets("mod.ts");
  if (pkg["main"] !== root.require || pkg["module"] !== root.import || pkg["types"] !== root.requireTypes) {
    problems.push(
      `package.json main/module/types fallbacks should be ${root.require}, ${root.import}, ${root.requireTypes}`,
    );
  }
  // node10 resolution (moduleResolution "node"/"node10") ignores `exports`: typesVersions maps each subpath.
  const typesVersions = JSON.stringify(pkg["typesVersions"]);
  const wantTypesVersions = JSON.stringify({
    "*": Object.fromEntries(
      Object.keys(denoExports).filter((s) => s !== ".").map((
        s,
      ) => [s.slice(2), [distTargets(String(denoExports[s])).requireTypes]]),
    ),
  });
  if (typesVersions !== wantTypesVersions) {
    problems.push(`package.json typesVersions is ${typesVersions}, expected ${wantTypesVersions}`);
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
    console.log(
      `check-exports: OK (package.json and deno.json export the same subpaths${
        dist ? "; all dist/ targets exist" : ""
      })`,
    );
  }
}
