/**
 * Shared helpers for the repository scripts (build, typecheck, test orchestration).
 * Runs on Node >= 22.18 (type stripping); not part of the published package.
 * @module
 */
import { spawn, spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, readdirSync } from "node:fs";
import { delimiter, dirname, join, relative, resolve, sep } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

/** Absolute path of the repository root (no trailing separator). */
export const ROOT: string = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** True when the module with this `import.meta.url` is the process entry point (`node scripts/x.ts`). */
export function isMain(moduleUrl: string): boolean {
  const entry = process.argv[1];
  return entry !== undefined && resolve(entry) === fileURLToPath(moduleUrl);
}

/** Absolute path inside the repository. */
export function rootPath(...parts: string[]): string {
  return join(ROOT, ...parts);
}

/** Path relative to the repository root, with forward slashes (for messages). */
export function rel(path: string): string {
  return relative(ROOT, path).split(sep).join("/");
}

/** The four runtime adapters, each at adapters/<name>/mod.ts. */
export const ADAPTERS: readonly string[] = ["node", "deno", "bun", "edge"];

/** Binaries installed as devDependencies. */
export const BIN: {
  readonly node26: string;
  readonly node22: string;
  readonly deno: string;
  readonly bun: string;
  readonly tsc: string;
} = {
  node26: rootPath("node_modules", "node", "bin", "node"),
  node22: rootPath("node_modules", "node22", "bin", "node"),
  deno: rootPath("node_modules", ".bin", "deno"),
  bun: rootPath("node_modules", ".bin", "bun"),
  tsc: rootPath("node_modules", "typescript", "bin", "tsc"),
};

/**
 * The Node.js that runs npm (`$npm_node_execpath`), i.e. the system Node users have.
 * Outside npm, the first `node` on PATH that is not one of this repository's devDependencies.
 */
export function systemNode(): string {
  const fromNpm = process.env["npm_node_execpath"];
  if (fromNpm) return fromNpm;
  const nodeModules = rootPath("node_modules") + sep;
  for (const dir of (process.env["PATH"] ?? "").split(delimiter)) {
    if (!dir || resolve(dir).startsWith(nodeModules)) continue;
    const candidate = join(dir, process.platform === "win32" ? "node.exe" : "node");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return process.execPath;
}

/**
 * How to run npm: `[command, leading arguments]`. Under `npm run`/`npm test`, the npm CLI that started us
 * (`$npm_execpath`) on the system Node; otherwise `npm` from PATH.
 */
export function npmCommand(): [string, string[]] {
  const npmCli = process.env["npm_execpath"];
  return npmCli && /\.[cm]?js$/.test(npmCli) ? [systemNode(), [npmCli]] : ["npm", []];
}

/** `--version` output of a binary (first line, trimmed), or "unknown". */
export function versionOf(bin: string, args: string[] = ["--version"]): string {
  const r = spawnSync(bin, args, { encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  const line = `${r.stdout ?? ""}`.split("\n")[0]?.trim();
  return line || "unknown";
}

/** All files under `dir` (recursively) whose name matches `test`, sorted; [] if `dir` is missing. */
export function listFiles(dir: string, test: (name: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(full, test));
    else if (entry.isFile() && test(entry.name)) out.push(full);
  }
  return out.sort();
}

/** The uvu test files: tests/unit/*.test.ts (top level only), sorted. */
export function unitTestFiles(): string[] {
  const dir = rootPath("tests", "unit");
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith(".test.ts"))
    .sort()
    .map((name) => join(dir, name));
}

/** Result of {@link run}. */
export interface RunResult {
  code: number;
  /** stdout and stderr, interleaved as they arrived */
  output: string;
  /** stdout alone */
  stdout: string;
  timedOut: boolean;
  ms: number;
}

/** Options for {@link run}. */
export interface RunOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
  /** Echo the child's output while it runs (default true). */
  echo?: boolean;
}

/**
 * Runs a command, echoing its output as it arrives and capturing it (stdout and stderr interleaved).
 * The child gets its own process group so that a timeout can stop it together with its own children.
 */
export function run(cmd: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
  const { cwd = ROOT, env = {}, timeoutMs = 300_000, echo = true } = options;
  const started = performance.now();
  return new Promise((resolvePromise) => {
    const childEnv: Record<string, string> = {};
    for (const [key, value] of Object.entries({ ...process.env, NO_COLOR: "1", FORCE_COLOR: undefined, ...env })) {
      if (value !== undefined) childEnv[key] = value;
    }
    const child = spawn(cmd, args, {
      cwd,
      env: childEnv,
      stdio: ["ignore", "pipe", "pipe"],
      detached: process.platform !== "win32",
    });
    let output = "";
    let stdout = "";
    let timedOut = false;
    const onData = (target: NodeJS.WriteStream) => (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      output += text;
      if (target === process.stdout) stdout += text;
      if (echo) target.write(text);
    };
    child.stdout.on("data", onData(process.stdout));
    child.stderr.on("data", onData(process.stderr));
    const timer = setTimeout(() => {
      timedOut = true;
      const pid = child.pid;
      if (pid === undefined) return;
      try {
        if (process.platform === "win32") child.kill("SIGKILL");
        else process.kill(-pid, "SIGKILL");
      } catch {
        // already gone
      }
    }, timeoutMs);
    const finish = (code: number, extra = "") => {
      clearTimeout(timer);
      if (extra) {
        output += extra;
        if (echo) process.stderr.write(extra);
      }
      resolvePromise({ code, output, stdout, timedOut, ms: performance.now() - started });
    };
    child.on("error", (err) => finish(127, `failed to start ${cmd}: ${err.message}\n`));
    child.on("close", (code, signal) => {
      if (timedOut) finish(124, `\n(timed out after ${Math.round(timeoutMs / 1000)}s)\n`);
      else finish(code ?? (signal ? 128 : 1), signal ? `\n(killed by ${signal})\n` : "");
    });
  });
}

/** Strips ANSI escape sequences. */
export function stripAnsi(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");
}

/** Formats milliseconds as seconds with one decimal. */
export function secs(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}
