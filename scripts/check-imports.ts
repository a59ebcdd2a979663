/**
 * The layering, checked from each module's imports (static, type-only and dynamic):
 *
 * - `mod.ts` imports only `core/mod.ts`;
 * - `core/` imports nothing outside itself (no package, no runtime module);
 * - the kit (`adapters/kit/`) imports only itself and the core's private entry point `core/internal.ts`;
 * - each adapter (`adapters/<runtime>/`) imports only itself, the kit and the public `mod.ts`, plus its
 *   runtime's own modules (`node:` on Node.js, Deno and Bun, `bun:` on Bun; none on the edge).
 *
 * Usage: node scripts/check-imports.ts
 * @module
 */
import { readFileSync } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";
import process from "node:process";
import { blankCommentsAndStrings } from "./check-core.ts";
import { isMain, listFiles, rel, ROOT, rootPath } from "./lib.ts";

/** One import of a module: its specifier and the line it is on. */
interface ImportSite {
  specifier: string;
  line: number;
}

/** Every module specifier `src` imports or re-exports (comments ignored). */
export function importsOf(src: string): ImportSite[] {
  const blanked = blankCommentsAndStrings(src);
  const sites: ImportSite[] = [];
  // In the blanked text a specifier is a pair of quotes after `from`, `import` or `import(`; its contents
  // are read from the source at the same offsets.
  for (const m of blanked.matchAll(/\b(?:from|import)\s*\(?\s*(["'])(\s*)\1/g)) {
    const start = m.index + m[0].length - m[2]!.length - 1;
    const specifier = src.slice(start, start + m[2]!.length);
    let line = 1;
    for (let i = 0; i < m.index; i++) if (src.charCodeAt(i) === 10) line++;
    sites.push({ specifier, line });
  }
  return sites;
}

/** The root-relative posix path a relative specifier names. */
function target(file: string, specifier: string): string {
  return relative(ROOT, resolve(dirname(file), specifier)).split(sep).join("/");
}

/** What `file` (root-relative posix path) may import: undefined when allowed, else why not. */
export function disallowed(file: string, specifier: string, to: string | undefined): string | undefined {
  const area = file === "mod.ts"
    ? "root"
    : file.startsWith("core/")
    ? "core"
    : file.startsWith("adapters/kit/")
    ? "kit"
    : /^adapters\/[^/]+\//.test(file)
    ? "adapter"
    : undefined;
  if (area === undefined) return undefined;
  if (to === undefined) {
    const runtime = /^adapters\/([^/]+)\//.exec(file)?.[1];
    if (area === "adapter" && specifier.startsWith("node:") && ["node", "deno", "bun"].includes(runtime!)) {
      return undefined;
    }
    if (area === "adapter" && specifier.startsWith("bun:") && runtime === "bun") return undefined;
    return `${specifier}: ${
      area === "adapter" ? `the ${runtime} adapter` : `a ${area} module`
    } imports no package or ` +
      `runtime module${area === "adapter" ? " but its runtime's own" : ""}`;
  }
  switch (area) {
    case "root":
      return to === "core/mod.ts" ? undefined : `${specifier}: mod.ts re-exports core/mod.ts only`;
    case "core":
      return to.startsWith("core/") ? undefined : `${specifier}: core/ imports nothing outside itself`;
    case "kit":
      return to.startsWith("adapters/kit/") || to === "core/internal.ts"
        ? undefined
        : `${specifier}: the kit reaches the core only through core/internal.ts`;
    case "adapter": {
      const own = /^adapters\/[^/]+\//.exec(file)![0];
      return to.startsWith(own) || to.startsWith("adapters/kit/") || to === "mod.ts"
        ? undefined
        : `${specifier}: an adapter imports only its own files, the kit (adapters/kit/) and the public mod.ts`;
    }
  }
}

/** The modules the layering covers. */
export function layeredFiles(): string[] {
  return [
    rootPath("mod.ts"),
    ...listFiles(rootPath("core"), (n) => n.endsWith(".ts")),
    ...listFiles(rootPath("adapters"), (n) => n.endsWith(".ts")),
  ];
}

/** Returns "file:line: problem" for each import that breaks the layering. */
export function checkImports(files: string[] = layeredFiles()): string[] {
  const problems: string[] = [];
  for (const file of files) {
    const name = rel(file).split(sep).join("/");
    for (const site of importsOf(readFileSync(file, "utf8"))) {
      const to = site.specifier.startsWith(".") ? target(file, site.specifier) : undefined;
      const why = disallowed(name, site.specifier, to);
      if (why !== undefined) problems.push(`${name}:${site.line}: ${why}`);
    }
  }
  return problems;
}

if (isMain(import.meta.url)) {
  const files = layeredFiles();
  const problems = checkImports(files);
  if (problems.length > 0) {
    console.error(`check-imports: ${problems.length} problem(s):`);
    for (const p of problems) console.error(`  ${p}`);
    process.exitCode = 1;
  } else console.log(`check-imports: OK (${files.length} modules: core, kit and adapters layered)`);
}
