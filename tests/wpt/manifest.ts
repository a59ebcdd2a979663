/**
 * Reads tests/wpt/MANIFEST.txt, the list of WPT files the suites need and where each comes from
 * (used by scripts/wpt-fetch.ts and tests/wpt/check-dir.ts).
 * @module
 */
import { readFileSync } from "node:fs";
import { rootPath } from "../../scripts/lib.ts";

/** The repository's manifest. */
export const MANIFEST: string = rootPath("tests", "wpt", "MANIFEST.txt");

/** One manifest row: a file under the WPT root and the public copy it comes from. */
export interface ManifestRow {
  /** path relative to the WPT root, e.g. `streams/piping/abort.any.js` */
  readonly path: string;
  /** GitHub repository, `owner/name` */
  readonly repo: string;
  /** path of the file in that repository */
  readonly source: string;
  /** commit of that repository */
  readonly commit: string;
  /** length of the file as used, in Unicode code points */
  readonly chars: number;
}

/** Parses a manifest file (tab-separated rows; `#` lines are comments). Throws on a malformed row. */
export function readManifest(file: string = MANIFEST): ManifestRow[] {
  const rows: ManifestRow[] = [];
  readFileSync(file, "utf8").split("\n").forEach((line, index) => {
    if (line.trim() === "" || line.startsWith("#")) return;
    const [path, repo, source, commit, chars, ...rest] = line.split("\t");
    const count = Number(chars);
    if (!path || !repo || !source || !commit || rest.length > 0 || !Number.isSafeInteger(count) || count < 0) {
      throw new Error(
        `${file}:${index + 1}: expected 5 tab-separated fields (path, repository, path there, commit, characters)`,
      );
    }
    rows.push({ path, repo, source, commit, chars: count });
  });
  return rows;
}

/** Length of a text in Unicode code points, the unit of the manifest's last column. */
export function countChars(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}
