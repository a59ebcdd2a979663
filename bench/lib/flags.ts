/**
 * Command-line options of the benchmark runners (bench/run.ts, bench/memory.ts): `--name` or `--name=value`.
 * @module
 */
import process from "node:process";

/**
 * The options in `argv` as a map from name to value ("" for a bare `--name`). `--help` / `-h` prints `usage` and
 * exits; an argument that is not an option, or an option not in `known`, is reported through `fail`.
 */
export function readFlags(
  argv: string[],
  known: readonly string[],
  usage: string,
  fail: (message: string) => never,
): Map<string, string> {
  const values = new Map<string, string>();
  for (const arg of argv) {
    if (arg === "--help" || arg === "-h") {
      console.log(usage);
      process.exit(0);
    }
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!m) fail(`unexpected argument ${JSON.stringify(arg)}`);
    values.set(m[1]!, m[2] ?? "");
  }
  for (const key of values.keys()) if (!known.includes(key)) fail(`unknown option --${key}`);
  return values;
}
