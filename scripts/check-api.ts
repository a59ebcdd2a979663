/**
 * The public API as a visible diff: each entry point's exported names (values and types, with what kind
 * of declaration each is), as `deno doc --json` reads them from the source, compared with the committed list
 * tests/api/exports.txt. Any change to what an entry point exports fails until the list is updated with
 * `--write`, so it shows up in review.
 *
 * Usage: node scripts/check-api.ts [--write]
 * @module
 */
import { readFileSync, writeFileSync } from "node:fs";
import process from "node:process";
import { ADAPTERS, BIN, isMain, rootPath, run } from "./lib.ts";

/** The entry points, as deno.json and package.json export them. */
export const API_ENTRIES: readonly string[] = ["mod.ts", ...ADAPTERS.map((a) => `adapters/${a}/mod.ts`)];
const LIST = rootPath("tests", "api", "exports.txt");

interface DocNode {
  name: string;
  declarations?: { kind: string }[];
}

/** Lines `<entry> <name> <kinds>` for every export of every entry point, sorted. */
export async function exportLines(): Promise<string[]> {
  const lines: string[] = [];
  for (const entry of API_ENTRIES) {
    const result = await run(BIN.deno, ["doc", "--json", entry], { timeoutMs: 60_000, echo: false });
    if (result.code !== 0) throw new Error(`deno doc --json ${entry} failed:\n${result.output}`);
    const doc = JSON.parse(result.stdout) as { nodes: Record<string, { symbols: DocNode[] }> };
    const symbols = Object.values(doc.nodes)[0]?.symbols ?? [];
    for (const s of symbols) {
      const kinds = [...new Set((s.declarations ?? []).map((d) => d.kind))].sort().join(",");
      lines.push(`${entry} ${s.name} ${kinds}`);
    }
  }
  return lines.sort();
}

/** Problems: one line per export added or removed against the committed list (empty when equal). */
export async function checkApi(write = false): Promise<string[]> {
  const now = await exportLines();
  const text = `# The public API: every export of every entry point (scripts/check-api.ts --write)\n${
    now.join("\n")
  }\n`;
  if (write) {
    writeFileSync(LIST, text);
    return [];
  }
  const committed = readFileSync(LIST, "utf8").split("\n").filter((l) => l !== "" && !l.startsWith("#"));
  const before = new Set(committed);
  const after = new Set(now);
  return [
    ...committed.filter((l) => !after.has(l)).map((l) => `- ${l} (in tests/api/exports.txt, no longer exported)`),
    ...now.filter((l) => !before.has(l)).map((l) => `+ ${l} (exported, not in tests/api/exports.txt)`),
  ];
}

if (isMain(import.meta.url)) {
  const write = process.argv.includes("--write");
  const problems = await checkApi(write);
  if (write) console.log(`check-api: wrote tests/api/exports.txt`);
  else if (problems.length > 0) {
    console.error(`check-api: the public API changed (${problems.length} line(s)); if intended, run --write:`);
    for (const p of problems) console.error(`  ${p}`);
    process.exitCode = 1;
  } else console.log(`check-api: OK (${API_ENTRIES.length} entry points as committed)`);
}
