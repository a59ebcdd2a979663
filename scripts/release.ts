/**
 * Release check. Publishes nothing: it checks that a release could be cut from this tree and prints the two
 * publish commands to run by hand.
 *
 *   node scripts/release.ts --dry-run [--skip-tests]      (npm run release:dry-run)
 *
 * 1. package.json and deno.json carry the same version, a valid semver, and CHANGELOG.md has a
 *    `## [<version>]` section (a note, not a failure, while that section has no release date);
 * 2. the whole test suite passes (`npm test`, i.e. scripts/test.ts; `--skip-tests` skips it, and says so);
 * 3. the size budget holds (scripts/size.ts: its budgets for the edge entry, and whether issue 19's target is met);
 * 4. `npm pack` contains exactly dist/, README.md, LICENSE, CHANGELOG.md (and package.json), with the version;
 * 5. prints `npm publish <tarball>` and `deno publish`, and whether the git tree is clean (deno publish
 *    refuses a dirty tree).
 *
 * Exit code 0 only when every check passed.
 * @module
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import process from "node:process";
import { build } from "./build.ts";
import { rel, rootPath, run, systemNode } from "./lib.ts";
import { npmPack, tarballProblems } from "./package-test.ts";
import { checkSizeBudget } from "./size.ts";

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

function readJson(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(rootPath(file), "utf8")) as Record<string, unknown>;
}

/** Version checks: the same semver in both manifests and a CHANGELOG section for it. */
export function versionChecks(): { checks: Check[]; notes: string[]; version: string } {
  const checks: Check[] = [];
  const notes: string[] = [];
  const npmVersion = String(readJson("package.json")["version"]);
  const jsrVersion = String(readJson("deno.json")["version"]);
  checks.push({
    name: "package.json and deno.json carry the same version",
    ok: npmVersion === jsrVersion,
    detail: `package.json ${npmVersion}, deno.json ${jsrVersion}`,
  });
  checks.push({ name: "the version is semver", ok: SEMVER.test(npmVersion), detail: npmVersion });
  const changelog = readFileSync(rootPath("CHANGELOG.md"), "utf8");
  const escaped = npmVersion.replace(/[.+]/g, "\\$&");
  const section = new RegExp(`^## \\[${escaped}\\](?: - (.*))?$`, "m").exec(changelog);
  checks.push({
    name: `CHANGELOG.md has a section for ${npmVersion}`,
    ok: section !== null,
    detail: section ? section[0] : `no "## [${npmVersion}]" heading`,
  });
  if (section && !/^\d{4}-\d{2}-\d{2}$/.test((section[1] ?? "").trim())) {
    notes.push(
      `CHANGELOG.md's ${npmVersion} section has no release date yet (${
        JSON.stringify(section[0])
      }): set it before publishing`,
    );
  }
  return { checks, notes, version: npmVersion };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (!args.includes("--dry-run")) {
    console.error("release: only --dry-run exists. Nothing is published from here: run the printed commands by hand.");
    process.exitCode = 2;
    return;
  }
  const skipTests = args.includes("--skip-tests");
  const { checks, notes, version } = versionChecks();

  if (skipTests) {
    notes.push("--skip-tests: the test suite was NOT run");
    if (!(await build())) checks.push({ name: "build", ok: false, detail: "npm run build failed" });
  } else {
    console.log("release: running the test suite (npm test) ...");
    // scripts/test.ts builds dist/ itself; run it as npm would, on this Node with the system Node for npm.
    const result = await run(process.execPath, [rootPath("scripts", "test.ts")], {
      env: { npm_node_execpath: systemNode() },
      timeoutMs: 30 * 60_000,
    });
    const summary = result.output.trim().split("\n").at(-1) ?? "";
    checks.push({ name: "the test suite passes", ok: result.code === 0, detail: summary });
  }

  // npm test has a size budget step too; measured again here so that --skip-tests checks it as well.
  checks.push({
    name: "the size budget holds (scripts/size.ts)",
    ok: await checkSizeBudget(),
    detail: "see the table above",
  });

  let tarball: string | undefined;
  try {
    const pack = await npmPack(rootPath(".tmp", "release"));
    tarball = pack.tarball;
    const problems = tarballProblems(pack.files);
    checks.push({
      name: "the tarball holds exactly dist/, README.md, LICENSE, CHANGELOG.md and package.json",
      ok: problems.length === 0,
      detail: problems.length > 0
        ? problems.join("; ")
        : `${pack.files.length} files, ${(pack.size / 1024).toFixed(1)} KiB`,
    });
    checks.push({
      name: "the tarball is named for the version",
      ok: tarball.endsWith(`fusestreams-${version}.tgz`),
      detail: rel(tarball),
    });
  } catch (err) {
    checks.push({ name: "npm pack", ok: false, detail: err instanceof Error ? err.message : String(err) });
  }

  const git = spawnSync("git", ["status", "--porcelain"], { cwd: rootPath(), encoding: "utf8" });
  if (git.status === 0 && git.stdout.trim() !== "") {
    notes.push("the git tree has uncommitted changes: deno publish refuses that, commit first");
  }

  console.log(`\nrelease --dry-run for fusestreams ${version}:`);
  for (const c of checks) console.log(`  ${c.ok ? "ok  " : "FAIL"}  ${c.name}: ${c.detail}`);
  for (const n of notes) console.log(`  note  ${n}`);
  const failed = checks.filter((c) => !c.ok);
  if (failed.length > 0) {
    console.log(`\nrelease: ${failed.length} check(s) failed; do not publish.`);
    process.exitCode = 1;
    return;
  }
  console.log("\nEvery check passed. To publish (by hand, nothing was published):");
  console.log(
    `  npm publish ${tarball ? rel(tarball) : `fusestreams-${version}.tgz`}   # npm, the tarball checked above`,
  );
  console.log("  deno publish                                   # JSR, from a clean checkout of this commit");
}

await main();
