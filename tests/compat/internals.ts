/**
 * Reads tests/compat/INTERNALS.txt: the compatibility check's findings that read a runtime's internals or compare
 * internal identity (and their cascades), each with the reason a drop-in cannot satisfy it.
 * @module
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Absolute path of tests/compat/INTERNALS.txt. */
export const INTERNALS: string = join(dirname(fileURLToPath(import.meta.url)), "INTERNALS.txt");

/** One row of INTERNALS.txt. */
export interface KnownInternal {
  /** A runtime name, or "node" for node22 and node26. */
  readonly runtime: string;
  /** The end of the file's MANIFEST.txt path, or a /regex/. */
  readonly file: string;
  /** The test's name, a /regex/, or "*". */
  readonly test: string;
  /** Text the failure message contains, or "*". */
  readonly message: string;
  /** Why a drop-in cannot satisfy it. */
  readonly reason: string;
}

/** Parses INTERNALS.txt; throws with the line number on a malformed line. */
export function readInternals(file: string = INTERNALS): KnownInternal[] {
  const rows: KnownInternal[] = [];
  readFileSync(file, "utf8").split("\n").forEach((line, index) => {
    if (line.trim() === "" || line.startsWith("#")) return;
    const cells = line.split("\t");
    if (cells.length !== 5 || cells.some((c) => c === "")) {
      throw new Error(`${file}:${index + 1}: expected 5 non-empty tab-separated columns`);
    }
    const [runtime, path, test, message, reason] = cells as [string, string, string, string, string];
    rows.push({ runtime, file: path, test, message, reason });
  });
  return rows;
}

function matches(pattern: string, value: string, whole: boolean): boolean {
  if (pattern === "*") return true;
  if (pattern.length > 2 && pattern.startsWith("/") && pattern.endsWith("/")) {
    return new RegExp(pattern.slice(1, -1)).test(value);
  }
  return whole ? value === pattern : value.includes(pattern);
}

/** The reason of the first row that matches a finding, or undefined. */
export function matchInternal(
  rows: readonly KnownInternal[],
  runtime: string,
  file: string,
  test: string,
  message: string,
): string | undefined {
  for (const row of rows) {
    const runtimeOk = row.runtime === runtime || (row.runtime === "node" && runtime.startsWith("node"));
    const fileOk = row.file.startsWith("/") ? matches(row.file, file, false) : file.endsWith(row.file);
    if (runtimeOk && fileOk && matches(row.test, test, true) && matches(row.message, message, false)) {
      return row.reason;
    }
  }
  return undefined;
}
