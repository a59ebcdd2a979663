/**
 * Bun's test files import `harness` and `mkfifo` (modules of Bun's own test folder); ours stand in for them
 * (tests/compat/shims), through a tsconfig.json in `<COMPAT_DIR>/bun/test` whose paths name this checkout's
 * shims. scripts/compat-fetch.ts writes it when it assembles the folder, and scripts/compat.ts again before
 * Bun's files run, so a folder assembled from another checkout still finds the shims.
 * @module
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { rootPath } from "../../scripts/lib.ts";

/** Writes `<dir>/bun/test/tsconfig.json` mapping `harness` and `mkfifo` to this checkout's shims. */
export function writeBunShims(dir: string): void {
  const testDir = join(dir, "bun", "test");
  mkdirSync(testDir, { recursive: true });
  const tsconfig = {
    compilerOptions: {
      paths: {
        harness: [rootPath("tests", "compat", "shims", "bun-harness.ts")],
        mkfifo: [rootPath("tests", "compat", "shims", "bun-mkfifo.ts")],
      },
    },
  };
  writeFileSync(join(testDir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2) + "\n");
}
