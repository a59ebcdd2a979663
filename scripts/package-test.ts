/**
 * The package as users get it: `npm pack` once, then, from that one tarball,
 *
 *   1. the file list: exactly dist/, README.md, LICENSE, CHANGELOG.md (and package.json);
 *   2. `attw <tarball> --profile strict` (@arethetypeswrong/cli): types resolve, in the right module format,
 *      for every entry point under node10, node16 (from ESM and from CJS) and bundler resolution;
 *   3. `publint run <tarball> --strict`, which must print no message at all;
 *      then install into an empty temporary project (`npm install --offline`: the package has no dependencies,
 *      so nothing is fetched);
 *   4. consumer type checks (tests/package/types/) against the installed declarations: `module: nodenext`
 *      from .mts and .cts files, `moduleResolution: bundler`, with lib.dom, with @types/node and with both;
 *      and README.md's ```ts examples: type-checked (nodenext, @types/node), and run on Node 26 unless marked
 *      `no-run` (examples marked `deno` are checked and run by Deno, `jsr:` mapped to the source);
 *   5. tests/package/consumer.mjs in that project: import() and require() of every entry point, one core,
 *      3-transform chains, on the system Node (20), Node 22, Node 26, Bun, and Deno through `npm:` specifiers
 *      with the project's node_modules (an unreachable registry is configured, to prove nothing is fetched).
 *
 * scripts/test.ts runs these steps; `node scripts/package-test.ts` runs them alone (after `npm run build`).
 * @module
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { allTargets } from "./check-exports.ts";
import { BIN, isMain, npmCommand, rootPath, run, type RunResult, systemNode, versionOf } from "./lib.ts";

const TMP = rootPath(".tmp", "package");
const PROJECT = join(TMP, "consumer");

/** What `npm pack --json` reports about the tarball. */
export interface PackResult {
  /** Absolute path of the tarball. */
  tarball: string;
  /** Paths inside the package, sorted. */
  files: string[];
  /** Packed size in bytes. */
  size: number;
  /** Unpacked size in bytes. */
  unpackedSize: number;
}

/** `npm pack` into `destination` (dist/ must be built: prepack is skipped). Throws with npm's output on failure. */
export async function npmPack(destination: string = TMP): Promise<PackResult> {
  rmSync(destination, { recursive: true, force: true });
  mkdirSync(destination, { recursive: true });
  const [cmd, prefix] = npmCommand();
  const result = await run(cmd, [...prefix, "pack", "--json", "--ignore-scripts", "--pack-destination", destination], {
    echo: false,
    timeoutMs: 120_000,
  });
  if (result.code !== 0) throw new Error(`npm pack failed (exit ${result.code}):\n${result.output}`);
  const report = JSON.parse(result.stdout) as {
    filename: string;
    files: { path: string }[];
    size: number;
    unpackedSize: number;
  }[];
  const entry = report[0];
  if (entry === undefined) throw new Error(`npm pack reported nothing:\n${result.output}`);
  return {
    tarball: join(destination, entry.filename),
    files: entry.files.map((f) => f.path).sort(),
    size: entry.size,
    unpackedSize: entry.unpackedSize,
  };
}

/** Problems with the packed file list: it must be exactly dist/, README.md, LICENSE, CHANGELOG.md and package.json. */
export function tarballProblems(files: string[]): string[] {
  const problems: string[] = [];
  const pkg = JSON.parse(readFileSync(rootPath("package.json"), "utf8")) as { exports: never };
  const required = new Set(["package.json", "README.md", "LICENSE", "CHANGELOG.md"]);
  for (const target of allTargets(pkg.exports)) required.add(target.replace(/^\.\//, ""));
  const missing = [...required].filter((f) => !files.includes(f));
  const unexpected = files.filter((f) => !(f.startsWith("dist/") || required.has(f)));
  if (missing.length > 0) problems.push(`missing from the package: ${missing.join(", ")}`);
  if (unexpected.length > 0) problems.push(`unexpected in the package: ${unexpected.join(", ")}`);
  if (!files.some((f) => f.startsWith("dist/"))) problems.push("the package has no dist/ files");
  return problems;
}

/** `attw <tarball> --profile strict`. */
export function runAttw(tarball: string): Promise<RunResult> {
  return run(process.execPath, [
    rootPath("node_modules", "@arethetypeswrong", "cli", "dist", "index.js"),
    tarball,
    "--profile",
    "strict",
  ], {
    timeoutMs: 180_000,
  });
}

/** Makes an empty project in .tmp/package/consumer and installs the tarball into it, offline. */
export async function installTarball(tarball: string): Promise<RunResult> {
  rmSync(PROJECT, { recursive: true, force: true });
  mkdirSync(PROJECT, { recursive: true });
  writeFileSync(
    join(PROJECT, "package.json"),
    `${JSON.stringify({ name: "fusestreams-consumer", private: true }, null, 2)}\n`,
  );
  // Deno: use this node_modules as it is (no npm registry lookups).
  writeFileSync(join(PROJECT, "deno.json"), `${JSON.stringify({ nodeModulesDir: "manual" }, null, 2)}\n`);
  const [cmd, prefix] = npmCommand();
  return run(cmd, [...prefix, "install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball], {
    cwd: PROJECT,
    timeoutMs: 120_000,
  });
}

/** `publint run <tarball> --strict`; passes only when publint has no message at all (not even a suggestion). */
export async function runPublint(tarball: string): Promise<boolean> {
  const result = await run(process.execPath, [
    rootPath("node_modules", "publint", "src", "cli.js"),
    "run",
    tarball,
    "--strict",
  ], {
    timeoutMs: 120_000,
  });
  return result.code === 0 && /All good!/.test(result.output);
}

/** One consumer type-check setup. */
export interface TypeSetup {
  name: string;
  files: string[];
  compilerOptions: Record<string, unknown>;
}

const LIB_ES = ["es2023"];
const LIB_DOM = ["es2023", "dom", "dom.iterable", "dom.asynciterable"];
const NODENEXT = { module: "nodenext", moduleResolution: "nodenext" };
const BUNDLER = { module: "esnext", moduleResolution: "bundler" };

/** The setups: module resolution x (lib.dom | @types/node | both). */
export const TYPE_SETUPS: readonly TypeSetup[] = [
  {
    name: "nodenext (.mts + .cts), @types/node",
    files: ["web.mts", "web.cts", "node.mts", "node.cts"],
    compilerOptions: { ...NODENEXT, lib: LIB_ES, types: ["node"] },
  },
  {
    name: "nodenext (.mts + .cts), lib.dom",
    files: ["web.mts", "web.cts"],
    compilerOptions: { ...NODENEXT, lib: LIB_DOM, types: [] },
  },
  {
    name: "nodenext (.mts + .cts), lib.dom + @types/node",
    files: ["web.mts", "web.cts", "node-dom.mts"],
    compilerOptions: { ...NODENEXT, lib: LIB_DOM, types: ["node"] },
  },
  { name: "bundler, lib.dom", files: ["web.mts"], compilerOptions: { ...BUNDLER, lib: LIB_DOM, types: [] } },
  {
    name: "bundler, @types/node",
    files: ["web.mts", "node.mts"],
    compilerOptions: { ...BUNDLER, lib: LIB_ES, types: ["node"] },
  },
];

/** Type-checks tests/package/types/ in the consumer project, once per setup. Returns the failed setups' names. */
export async function checkConsumerTypes(setups: readonly TypeSetup[] = TYPE_SETUPS): Promise<string[]> {
  const dir = join(PROJECT, "types");
  cpSync(rootPath("tests", "package", "types"), dir, { recursive: true });
  const failed: string[] = [];
  for (const setup of setups) {
    const config = join(dir, `tsconfig.${setup.name.replace(/[^a-z0-9]+/gi, "-")}.json`);
    writeFileSync(
      config,
      JSON.stringify({
        compilerOptions: {
          target: "es2023",
          strict: true,
          noEmit: true,
          // our declarations are checked too, against each lib
          skipLibCheck: false,
          typeRoots: [rootPath("node_modules", "@types")],
          ...setup.compilerOptions,
        },
        files: setup.files,
      }),
    );
    const result = await run(process.execPath, [BIN.tsc, "-p", config, "--pretty", "false"], {
      cwd: dir,
      timeoutMs: 180_000,
    });
    console.log(`consumer types, ${setup.name}: ${result.code === 0 ? "OK" : "FAILED"}`);
    if (result.code !== 0) failed.push(setup.name);
  }
  return failed;
}

/**
 * A TypeScript example of README.md: a ```ts block. After `ts`, `no-run` keeps it from being run (a server),
 * and `deno` makes it a Deno example: checked and run by Deno (only checked with `no-run`), its
 * `jsr:@fusestreams/fusestreams` and `fusestreams` imports mapped to this repository's source (what JSR
 * publishes).
 */
export interface ReadmeExample {
  /** 1-based line of the opening fence in README.md. */
  line: number;
  code: string;
  run: boolean;
  deno: boolean;
}

/** The ```ts blocks of README.md. */
export function readmeExamples(): ReadmeExample[] {
  const out: ReadmeExample[] = [];
  const lines = readFileSync(rootPath("README.md"), "utf8").split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^```ts(\s.*)?$/.exec(lines[i]!);
    if (!open) continue;
    const flags = (open[1] ?? "").trim().split(/\s+/);
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== "```"; i++) body.push(lines[i]!);
    out.push({
      line: start + 1,
      code: `${body.join("\n")}\n`,
      run: !flags.includes("no-run"),
      deno: flags.includes("deno"),
    });
  }
  return out;
}

/**
 * README.md's TypeScript examples against the installed package: each is type-checked (nodenext, strict,
 * @types/node) and, unless marked `no-run`, run on Node 26 in the consumer project; Deno examples are
 * checked and run by Deno against the source. Returns the problems.
 */
export async function checkReadmeExamples(): Promise<
  { typeProblems: string[]; runProblems: string[]; checked: number; ran: number }
> {
  const dir = join(PROJECT, "readme");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const examples = readmeExamples();
  const file = (e: ReadmeExample) => join(dir, `readme-line-${e.line}.mts`);
  for (const e of examples) writeFileSync(file(e), `${e.code}export {};\n`);
  const checked = examples.filter((e) => !e.deno);
  const typeProblems: string[] = [];
  if (checked.length > 0) {
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          ...NODENEXT,
          target: "es2023",
          lib: LIB_ES,
          types: ["node"],
          typeRoots: [rootPath("node_modules", "@types")],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
        },
        files: checked.map((e) => file(e)),
      }),
    );
    const result = await run(process.execPath, [BIN.tsc, "-p", join(dir, "tsconfig.json"), "--pretty", "false"], {
      cwd: dir,
      timeoutMs: 180_000,
    });
    if (result.code !== 0) {
      typeProblems.push(
        "README.md examples fail to type-check (readme-line-N.mts: N is the line of the example's fence)",
      );
    }
  }
  const runProblems: string[] = [];
  const runnable = examples.filter((e) => e.run);
  const importMap = join(dir, "deno-import-map.json");
  const jsr = "jsr:@fusestreams/fusestreams";
  writeFileSync(
    importMap,
    JSON.stringify({
      imports: Object.fromEntries([
        [jsr, rootPath("mod.ts")],
        ...["node", "deno", "bun", "edge"].map((a) => [`${jsr}/${a}`, rootPath("adapters", a, "mod.ts")]),
        ["fusestreams", rootPath("adapters", "deno", "mod.ts")],
        ...["node", "deno", "bun", "edge"].map((a) => [`fusestreams/${a}`, rootPath("adapters", a, "mod.ts")]),
      ]),
    }),
  );
  // Deno examples that must not run (a server) are still type-checked by Deno.
  for (const e of examples.filter((x) => x.deno && !x.run)) {
    const result = await run(BIN.deno, ["check", "--no-config", "--import-map", importMap, file(e)], {
      cwd: dir,
      timeoutMs: 60_000,
      echo: false,
      env: { DENO_DIR: join(TMP, "deno-dir") },
    });
    if (result.code !== 0) typeProblems.push(`README.md line ${e.line} (Deno) fails to type-check\n${result.output}`);
  }
  for (const e of runnable) {
    const result = e.deno
      ? await run(BIN.deno, ["run", "--check", "-A", "--no-config", "--import-map", importMap, file(e)], {
        cwd: dir,
        timeoutMs: 60_000,
        echo: false,
        env: { DENO_DIR: join(TMP, "deno-dir") },
      })
      : await run(BIN.node26, [file(e)], { cwd: dir, timeoutMs: 30_000, echo: false });
    if (result.code !== 0) runProblems.push(`README.md line ${e.line}: exit code ${result.code}\n${result.output}`);
  }
  console.log(
    `README examples: ${examples.length} \`\`\`ts blocks, ${checked.length} type-checked by tsc${
      typeProblems.length ? " (FAILED)" : ""
    }, ` +
      `${runnable.length} run (Deno examples checked and run by Deno; ${runProblems.length} failed)`,
  );
  for (const p of runProblems) console.log(p);
  return { typeProblems, runProblems, checked: checked.length, ran: runnable.length };
}

/** One run of tests/package/consumer.mjs. */
export interface ConsumerRun {
  label: string;
  cmd: string;
  args: string[];
  env?: Record<string, string>;
}

/** The runtime runs of the consumer program (both load orders are spread over the runtimes). */
export function consumerRuns(): ConsumerRun[] {
  const script = join(PROJECT, "consumer.mjs");
  const system = systemNode();
  const systemVersion = versionOf(system);
  return [
    { label: `system node ${systemVersion}, require first`, cmd: system, args: [script] },
    { label: `system node ${systemVersion}, import first`, cmd: system, args: [script, "--import-first"] },
    { label: `node ${versionOf(BIN.node22)}, import first`, cmd: BIN.node22, args: [script, "--import-first"] },
    { label: `node ${versionOf(BIN.node26)}, require first`, cmd: BIN.node26, args: [script] },
    { label: `bun ${versionOf(BIN.bun)}, import first`, cmd: BIN.bun, args: [script, "--import-first"] },
    {
      label: `${versionOf(BIN.deno).replace(/\s*\(.*$/, "")} (npm: specifiers), require first`,
      cmd: BIN.deno,
      args: ["run", "-A", script],
      // A registry nobody listens on and a fresh cache: the local node_modules must be enough.
      env: { NPM_CONFIG_REGISTRY: "http://127.0.0.1:9/", DENO_DIR: join(TMP, "deno-dir") },
    },
  ];
}

/** Copies the consumer program into the project and runs it once per run. Returns the failed runs' labels. */
export async function runConsumers(runs: readonly ConsumerRun[] = consumerRuns()): Promise<string[]> {
  cpSync(rootPath("tests", "package", "consumer.mjs"), join(PROJECT, "consumer.mjs"));
  const failed: string[] = [];
  for (const r of runs) {
    const result = await run(r.cmd, r.args, { cwd: PROJECT, env: r.env, timeoutMs: 120_000 });
    if (result.code !== 0) {
      console.log(`(${r.label}: exit code ${result.code})`);
      failed.push(r.label);
    }
  }
  return failed;
}

if (isMain(import.meta.url)) {
  if (!existsSync(rootPath("dist", "mod.js"))) {
    console.error("package-test: dist/ is not built (npm run build)");
    process.exit(1);
  }
  const failures: string[] = [];
  const pack = await npmPack();
  console.log(`npm pack: ${pack.tarball} (${pack.files.length} files, ${(pack.size / 1024).toFixed(1)} KiB)`);
  for (const p of tarballProblems(pack.files)) failures.push(p);
  if ((await runAttw(pack.tarball)).code !== 0) failures.push("attw");
  if (!(await runPublint(pack.tarball))) failures.push("publint");
  if ((await installTarball(pack.tarball)).code !== 0) failures.push("npm install");
  else {
    failures.push(...(await checkConsumerTypes()).map((s) => `types: ${s}`));
    const readme = await checkReadmeExamples();
    failures.push(...readme.typeProblems, ...readme.runProblems.map((p) => p.split("\n")[0]!));
    failures.push(...(await runConsumers()).map((s) => `consumer: ${s}`));
  }
  if (failures.length > 0) {
    console.error(`package-test: FAILED: ${failures.join("; ")}`);
    process.exitCode = 1;
  } else {
    console.log("package-test: OK");
  }
}
