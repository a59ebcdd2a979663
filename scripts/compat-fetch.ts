/**
 * Assembles the compatibility check's upstream tests into a folder outside the repository: every row of
 * tests/compat/MANIFEST.txt, taken with git from its repository at its commit, and checked against the git object
 * id the manifest lists (a file's blob id, a folder's tree id), so the folder holds exactly the pinned text.
 *
 *   node scripts/compat-fetch.ts --dir=<folder> [--sets=deno,std,node22,node26,bun]
 *        [--git=<owner/name>=<local clone>]... [--cache=<folder>]
 *   node scripts/compat-fetch.ts --dir=<folder> --check [--sets=...]
 *
 * A repository given with --git is read from that clone (it must contain the listed commits). Any other is
 * fetched into --cache (default <folder>/.git-cache) with `git fetch --depth=1 https://github.com/<owner/name>
 * <commit>`, one shallow fetch per listed commit. Then it writes the shims the upstream files expect from their
 * own repositories (see tests/compat/README.md): Bun's `harness` module, written here, resolved through a
 * tsconfig.json in <folder>/bun/test.
 *
 * --check writes nothing: it hashes every listed file already in the folder (`git hash-object`) against its blob id
 * and checks that every listed folder exists (how to check a folder assembled by hand, e.g. the Bun files).
 *
 * Exit code 0 when every row was written (or checked) with its listed object id, 1 otherwise, 2 for bad arguments.
 * @module
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { compatDir, type ManifestRow, readManifest, type SetName, SETS } from "../tests/compat/manifest.ts";
import { writeBunShims } from "../tests/compat/bun-shims.ts";

const USAGE = "usage: node scripts/compat-fetch.ts --dir=<folder> [--sets=deno,std,node22,node26,bun] " +
  "[--git=<owner/name>=<local clone>]... [--cache=<folder>] [--check]";

interface Options {
  dir: string;
  sets: Set<SetName>;
  clones: Map<string, string>;
  cache: string | undefined;
  check: boolean;
}

function parseArgs(argv: string[]): Options {
  let dir = compatDir();
  let cache: string | undefined;
  let sets = new Set<SetName>(SETS);
  const clones = new Map<string, string>();
  let check = false;
  for (const arg of argv) {
    if (arg === "--check") {
      check = true;
      continue;
    }
    const [key, ...rest] = arg.split("=");
    const value = rest.join("=");
    if (key === "--dir") dir = resolve(value);
    else if (key === "--cache") cache = resolve(value);
    else if (key === "--sets") {
      const names = value.split(",").filter(Boolean);
      for (const name of names) {
        if (!(SETS as readonly string[]).includes(name)) usage(`unknown set "${name}"`);
      }
      sets = new Set(names as SetName[]);
    } else if (key === "--git") {
      const at = value.indexOf("=");
      if (at <= 0) usage(`--git takes <owner/name>=<local clone>, got "${value}"`);
      clones.set(value.slice(0, at), resolve(value.slice(at + 1)));
    } else usage(arg === "--help" ? "" : `unknown argument "${arg}"`);
  }
  if (!dir) usage("--dir (or $COMPAT_DIR) is required");
  return { dir: dir!, sets, clones, cache, check };
}

function usage(why: string): never {
  console.error(why ? `compat-fetch: ${why}\n${USAGE}` : USAGE);
  process.exit(why ? 2 : 0);
}

function git(gitDir: string, args: string[]): string {
  return execFileSync("git", ["--git-dir", gitDir, ...args], { encoding: "utf8", maxBuffer: 64 << 20 }).trim();
}

/** The git directory of a clone (a work tree's .git, or a bare repository). */
function gitDirOf(clone: string): string {
  return existsSync(join(clone, ".git")) ? join(clone, ".git") : clone;
}

/** A local repository holding every listed commit of `repo`: the --git clone, or a shallow fetch into the cache. */
function repositoryFor(repo: string, commits: Set<string>, options: Options): string {
  const given = options.clones.get(repo);
  if (given) return gitDirOf(given);
  const gitDir = join(options.cache ?? join(options.dir, ".git-cache"), repo.replace("/", "+") + ".git");
  if (!existsSync(gitDir)) {
    mkdirSync(gitDir, { recursive: true });
    git(gitDir, ["init", "--bare", "--quiet"]);
  }
  for (const commit of commits) {
    const has = spawnSync("git", ["--git-dir", gitDir, "cat-file", "-e", `${commit}^{commit}`]).status === 0;
    if (has) continue;
    console.log(`compat-fetch: fetching ${repo} ${commit.slice(0, 12)}`);
    git(gitDir, ["fetch", "--quiet", "--depth=1", `https://github.com/${repo}.git`, commit]);
  }
  return gitDir;
}

/** The object a row names, as the repository has it at the row's commit. */
function objectAt(gitDir: string, row: ManifestRow): string {
  const spec = row.path === "." ? `${row.commit}^{tree}` : `${row.commit}:${row.path.replace(/\/$/, "")}`;
  return git(gitDir, ["rev-parse", "--verify", "--quiet", spec]);
}

/** Writes one row: a file from its blob, a folder from `git archive` of its tree (symlinks and modes kept). */
function extract(gitDir: string, row: ManifestRow, dir: string): void {
  const dest = join(dir, row.dest);
  if (row.dest.endsWith("/")) {
    mkdirSync(dest, { recursive: true });
    const archive = spawnSync("git", ["--git-dir", gitDir, "archive", "--format=tar", row.object], {
      maxBuffer: 1 << 30,
    });
    if (archive.status !== 0) throw new Error(`git archive ${row.object}: ${archive.stderr}`);
    const untar = spawnSync("tar", ["-x", "-C", dest], { input: archive.stdout });
    if (untar.status !== 0) throw new Error(`tar -x into ${dest}: ${untar.stderr}`);
    return;
  }
  mkdirSync(dirname(dest), { recursive: true });
  writeFileSync(
    dest,
    execFileSync("git", ["--git-dir", gitDir, "cat-file", "blob", row.object], { maxBuffer: 1 << 28 }),
  );
}

/** --check: every listed file has its blob id, every listed folder exists. */
function check(rows: readonly ManifestRow[], dir: string): number {
  let failed = 0;
  for (const row of rows) {
    const dest = join(dir, row.dest);
    let why = "";
    if (!existsSync(dest)) why = "missing";
    else if (!row.dest.endsWith("/")) {
      const id = execFileSync("git", ["hash-object", dest], { encoding: "utf8" }).trim();
      if (id !== row.object) why = `blob ${id}, the manifest lists ${row.object}`;
    }
    if (why) {
      console.error(`compat-fetch: ${row.dest}: ${why}`);
      failed++;
    }
  }
  console.log(`compat-fetch: ${rows.length - failed} of ${rows.length} rows as listed in ${dir}, ${failed} not`);
  return failed;
}

function main(): void {
  const options = parseArgs(process.argv.slice(2));
  const rows = readManifest().filter((row) => options.sets.has(row.set));
  if (options.check) process.exit(check(rows, options.dir) === 0 ? 0 : 1);
  const byRepo = new Map<string, Set<string>>();
  for (const row of rows) {
    const commits = byRepo.get(row.repo) ?? new Set<string>();
    commits.add(row.commit);
    byRepo.set(row.repo, commits);
  }
  let failed = 0;
  let written = 0;
  for (const [repo, commits] of byRepo) {
    let gitDir: string;
    try {
      gitDir = repositoryFor(repo, commits, options);
    } catch (err) {
      console.error(`compat-fetch: ${repo}: ${(err as Error).message}`);
      failed += rows.filter((row) => row.repo === repo).length;
      continue;
    }
    for (const row of rows.filter((r) => r.repo === repo)) {
      let found = "";
      try {
        found = objectAt(gitDir, row);
      } catch {
        // not at that commit: reported below
      }
      if (found !== row.object) {
        console.error(
          `compat-fetch: ${row.repo} ${row.commit.slice(0, 12)} ${row.path}: ` +
            (found ? `object ${found}, the manifest lists ${row.object}` : "not found"),
        );
        failed++;
        continue;
      }
      extract(gitDir, row, options.dir);
      written++;
    }
  }
  if (options.sets.has("bun")) writeBunShims(options.dir);
  console.log(`compat-fetch: ${written} of ${rows.length} rows written to ${options.dir}, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}

main();
