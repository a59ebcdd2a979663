/**
 * Checks a WPT_DIR against tests/wpt/MANIFEST.txt: every listed file present with the listed number of
 * characters (Unicode code points), plus the two requirements of the manifest's header notes
 * (test-utils.js defines assert_typed_array_equals; recording-streams.js passes `type: extras.type`).
 *
 *   WPT_DIR=/path/to/wpt node tests/wpt/check-dir.ts [path/to/MANIFEST.txt]
 *
 * Default manifest: tests/wpt/MANIFEST.txt. Exits 1 when something is missing.
 * @module
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import process from "node:process";
import { countChars, MANIFEST, readManifest } from "./manifest.ts";

const wptEnv = process.env["WPT_DIR"];
if (!wptEnv) {
  console.error("check-dir: set WPT_DIR to the folder to check");
  process.exit(2);
}
const wptDir = resolve(wptEnv);
const manifest = resolve(process.argv[2] ?? MANIFEST);
if (!existsSync(manifest)) {
  console.error(`check-dir: manifest not found at ${manifest}`);
  process.exit(2);
}

const problems: string[] = [];
const rows = readManifest(manifest);
for (const { path, repo, commit, chars } of rows) {
  const file = join(wptDir, path);
  if (!existsSync(file)) {
    problems.push(`missing ${path} (from ${repo} at ${commit})`);
    continue;
  }
  const count = countChars(readFileSync(file, "utf8"));
  if (count !== chars) problems.push(`${path}: ${count} characters, manifest says ${chars}`);
}

const testUtils = join(wptDir, "streams", "resources", "test-utils.js");
if (!existsSync(testUtils)) problems.push("missing streams/resources/test-utils.js (needed by most tests)");
else if (!readFileSync(testUtils, "utf8").includes("assert_typed_array_equals")) {
  problems.push("streams/resources/test-utils.js does not define assert_typed_array_equals (too old)");
}
const recording = join(wptDir, "streams", "resources", "recording-streams.js");
if (existsSync(recording) && !readFileSync(recording, "utf8").includes("type: extras.type")) {
  problems.push("streams/resources/recording-streams.js: recordingReadableStream does not pass `type: extras.type`");
}

for (const problem of problems) console.log(`  ${problem}`);
console.log(
  `${rows.length} manifest rows checked in ${wptDir}: ${
    problems.length === 0 ? "OK" : `${problems.length} problem(s)`
  }`,
);
process.exit(problems.length === 0 ? 0 : 1);
