/**
 * Downloads the WPT suites (streams, encoding/streams, compression) into a folder: every file listed in
 * tests/wpt/MANIFEST.txt, from `<base-url>/<repository>/<commit>/<path there>` (default base
 * https://raw.githubusercontent.com), each checked against the manifest's character count. The files are Web
 * Platform Tests and stay outside the repository.
 *
 *   npm run wpt:fetch -- --dir=<folder> [--base-url=<url>]
 *   WPT_DIR=<folder> npm run wpt -- --runtime=node26 --impl=ours
 *
 * Exit code 0 when every file was written with its listed length, 1 otherwise, 2 for bad arguments.
 * @module
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { countChars, MANIFEST, type ManifestRow, readManifest } from "../tests/wpt/manifest.ts";

const USAGE = "usage: npm run wpt:fetch -- --dir=<folder> [--base-url=<url>]";
const DEFAULT_BASE = "https://raw.githubusercontent.com";
const PARALLEL = 4;
const TIMEOUT_MS = 30_000;

/** The manifest's note on recording-streams.js: the listed commit lacks this line, the listed count includes it. */
const RECORDING = {
  path: "streams/resources/recording-streams.js",
  anchor:
    "self.recordingReadableStream = (extras = {}, strategy) => {\n  let controllerToCopyOver;\n  const stream = new ReadableStream({\n",
  line: "    type: extras.type,\n",
};

/** Thrown when the host cannot be reached at all (no HTTP answer), as opposed to a bad answer for one file. */
class Unreachable extends Error {}

function parseArgs(argv: string[]): { dir: string; base: string } {
  let dir: string | undefined;
  let base = DEFAULT_BASE;
  for (const arg of argv) {
    if (arg.startsWith("--dir=")) dir = arg.slice("--dir=".length);
    else if (arg.startsWith("--base-url=")) base = arg.slice("--base-url=".length).replace(/\/+$/, "");
    else {
      console.error(arg === "--help" ? USAGE : `wpt:fetch: unknown argument "${arg}"\n${USAGE}`);
      process.exit(arg === "--help" ? 0 : 2);
    }
  }
  if (!dir) {
    console.error(`wpt:fetch: --dir is required\n${USAGE}`);
    process.exit(2);
  }
  return { dir: resolve(dir), base };
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? err.cause.message : undefined;
  return cause ? `${err.message}: ${cause}` : err.message;
}

async function download(url: string): Promise<Uint8Array> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (err) {
    throw new Unreachable(describe(err));
  }
  if (!response.ok) throw new Error(`HTTP ${response.status} for ${url}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** The file as used: the downloaded bytes, with the manifest's one documented edit applied. */
function asUsed(row: ManifestRow, bytes: Uint8Array): { bytes: Uint8Array; text: string } {
  const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
  if (row.path !== RECORDING.path || text.includes(RECORDING.line)) return { bytes, text };
  const at = text.indexOf(RECORDING.anchor);
  if (at < 0) return { bytes, text };
  const edited = text.slice(0, at + RECORDING.anchor.length) + RECORDING.line +
    text.slice(at + RECORDING.anchor.length);
  return { bytes: new TextEncoder().encode(edited), text: edited };
}

async function main(): Promise<void> {
  const { dir, base } = parseArgs(process.argv.slice(2));
  const rows = readManifest();
  const problems: string[] = [];
  let written = 0;
  let unreachable: string | undefined;
  let next = 0;

  async function worker(): Promise<void> {
    while (unreachable === undefined && next < rows.length) {
      const row = rows[next++]!;
      const url = `${base}/${row.repo}/${row.commit}/${row.source}`;
      try {
        const file = asUsed(row, await download(url));
        const count = countChars(file.text);
        if (count !== row.chars) {
          problems.push(`${row.path}: ${count} characters, manifest says ${row.chars} (${url}); not written`);
          continue;
        }
        const target = join(dir, row.path);
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(target, file.bytes);
        written++;
      } catch (err) {
        if (err instanceof Unreachable) unreachable ??= `${url}: ${err.message}`;
        else problems.push(`${row.path}: ${describe(err)}`);
      }
    }
  }
  await Promise.all(Array.from({ length: PARALLEL }, worker));

  if (unreachable !== undefined) {
    console.error(
      [
        `wpt:fetch: cannot reach ${base} (${unreachable}).`,
        `Stopped after that: ${written} of ${rows.length} WPT files were written to ${dir}.`,
        "The WPT files are not in this repository or on npm. Other ways to get them:",
        `  - run this command on a machine that can reach ${new URL(base).host} and copy the folder here;`,
        "  - behind an HTTP proxy: NODE_USE_ENV_PROXY=1 HTTPS_PROXY=http://<proxy>:<port> npm run wpt:fetch -- --dir=...;",
        "  - from a mirror that serves <repository>/<commit>/<path> like raw.githubusercontent.com: --base-url=<url>;",
        "  - by hand from clones of the listed repositories: for each row of tests/wpt/MANIFEST.txt,",
        "    git -C <clone> show <commit>:<path there> > <folder>/<path>, then apply the recording-streams.js note in its header.",
        "Then check the folder with: WPT_DIR=<folder> node tests/wpt/check-dir.ts",
      ].join("\n"),
    );
    process.exit(1);
  }
  for (const problem of problems) console.error(`  ${problem}`);
  console.log(`wpt:fetch: ${written} of ${rows.length} files written to ${dir} (manifest ${MANIFEST})`);
  if (problems.length > 0) {
    console.error(`wpt:fetch: ${problems.length} file(s) failed`);
    process.exit(1);
  }
  console.log(`next: WPT_DIR=${dir} npm run wpt -- --runtime=node26 --impl=ours`);
}

await main();
