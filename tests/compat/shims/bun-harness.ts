/**
 * Stands in for the `harness` module of Bun's test folder when the compatibility check runs Bun's stream tests
 * (resolved through the tsconfig.json that scripts/compat-fetch.ts writes in $COMPAT_DIR/bun/test). Written here:
 * only the helpers those test files import, with the behaviour their names promise.
 * @module
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { mkdirSync, writeFileSync } from "node:fs";
import process from "node:process";

/** True on macOS. */
export const isMacOS: boolean = process.platform === "darwin";
/** True on Windows. */
export const isWindows: boolean = process.platform === "win32";
/** True on Linux. */
export const isLinux: boolean = process.platform === "linux";

/** The environment for a child Bun: this one, quiet and colourless. */
export const bunEnv: Record<string, string> = Object.fromEntries(
  Object.entries({ ...process.env, NO_COLOR: "1", BUN_DEBUG_QUIET_LOGS: "1" }).filter(
    (entry): entry is [string, string] => entry[1] !== undefined && entry[0] !== "FORCE_COLOR",
  ),
);

/** The Bun running this test. */
export function bunExe(): string {
  return process.execPath;
}

/** A new empty folder under the system's temporary folder. */
export function tmpdirSync(prefix = "bun-compat-"): string {
  return mkdtempSync(join(realpathSync(tmpdir()), prefix));
}

/** File contents by relative path; a nested object is a folder. */
export interface DirectoryTree {
  [name: string]: string | Uint8Array | DirectoryTree;
}

function write(base: string, tree: DirectoryTree): void {
  for (const [name, contents] of Object.entries(tree)) {
    const path = join(base, name);
    mkdirSync(dirname(path), { recursive: true });
    if (typeof contents === "string" || contents instanceof Uint8Array) writeFileSync(path, contents);
    else {
      mkdirSync(path, { recursive: true });
      write(path, contents);
    }
  }
}

/** A temporary folder holding `tree`, removed when disposed (`using dir = tempDir(...)`). */
export function tempDir(prefix: string, tree: DirectoryTree): string & Disposable & AsyncDisposable {
  const base = tmpdirSync(prefix + "_");
  write(base, tree);
  const remove = () => rmSync(base, { recursive: true, force: true });
  return Object.assign(new String(base), {
    [Symbol.dispose]: remove,
    [Symbol.asyncDispose]: async () => remove(),
  }) as unknown as string & Disposable & AsyncDisposable;
}

/** Runs the garbage collector. */
export function gc(force = true): void {
  Bun.gc(force);
}
