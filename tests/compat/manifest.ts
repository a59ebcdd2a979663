/**
 * Reads tests/compat/MANIFEST.txt: every upstream file or folder the compatibility check runs or needs, by
 * repository, path and commit, with the git object id it must have there. References only: the files stay
 * outside the repository, in the folder named by $COMPAT_DIR.
 * @module
 */
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

/** Absolute path of tests/compat/MANIFEST.txt. */
export const MANIFEST: string = join(dirname(fileURLToPath(import.meta.url)), "MANIFEST.txt");

/** The suites a row belongs to; each runtime runs some of them (see SUITES_OF in scripts/compat.ts). */
export const SETS = ["deno", "std", "node22", "node26", "bun"] as const;

/** One suite of the manifest. */
export type SetName = (typeof SETS)[number];

/** One line of the manifest. */
export interface ManifestRow {
  /** The suite. */
  readonly set: SetName;
  /** `test`: a file the check runs; `support`: a file or folder the tests need. */
  readonly role: "test" | "support";
  /** Where it goes, relative to $COMPAT_DIR; a folder ends with "/". */
  readonly dest: string;
  /** `owner/name` of the public repository. */
  readonly repo: string;
  /** Path in that repository ("." for its whole tree); a folder ends with "/". */
  readonly path: string;
  /** The full commit id. */
  readonly commit: string;
  /** The git blob id (file) or tree id (folder) that `path` has at `commit`. */
  readonly object: string;
}

/** Parses the manifest (tab-separated, `#` comments); throws with the line number on a malformed line. */
export function readManifest(file: string = MANIFEST): ManifestRow[] {
  const rows: ManifestRow[] = [];
  readFileSync(file, "utf8").split("\n").forEach((line, index) => {
    if (line.trim() === "" || line.startsWith("#")) return;
    const cells = line.split("\t");
    const [set, role, dest, repo, path, commit, object] = cells;
    const fail = (why: string): never => {
      throw new Error(`${file}:${index + 1}: ${why}`);
    };
    if (cells.length !== 7) fail(`expected 7 tab-separated columns, found ${cells.length}`);
    if (!(SETS as readonly string[]).includes(set!)) fail(`unknown set "${set}"`);
    if (role !== "test" && role !== "support") fail(`unknown role "${role}"`);
    if (!/^[0-9a-f]{40}$/.test(commit!) || !/^[0-9a-f]{40}$/.test(object!)) fail("commit and object are 40 hex digits");
    if (dest!.startsWith("/") || dest!.split("/").includes("..")) fail(`dest must stay inside $COMPAT_DIR: ${dest}`);
    if (dest!.endsWith("/") !== (path!.endsWith("/") || path === ".")) fail("a folder's dest and path both end with /");
    rows.push({
      set: set as SetName,
      role: role as ManifestRow["role"],
      dest: dest!,
      repo: repo!,
      path: path!,
      commit: commit!,
      object: object!,
    });
  });
  return rows;
}

/** $COMPAT_DIR as an absolute path, or undefined when the variable is not set. */
export function compatDir(): string | undefined {
  const dir = process.env["COMPAT_DIR"];
  return dir ? resolve(dir) : undefined;
}
