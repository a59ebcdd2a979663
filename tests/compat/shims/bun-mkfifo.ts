/**
 * Stands in for the `mkfifo` package that Bun's test folder installs, for the compatibility check: makes a named
 * pipe with the system's mkfifo(1). Written here.
 * @module
 */
import { execFileSync } from "node:child_process";

/** Creates a FIFO at `path` with permission bits `mode`. */
export function mkfifo(path: string, mode: number): void {
  execFileSync("mkfifo", ["-m", mode.toString(8), path]);
}
