/**
 * Bundle size of the edge entry, as issue 19 measures it: `esbuild --bundle --minify --platform=neutral` of
 * the TypeScript source adapters/edge/mod.ts (what a worker or browser bundler makes of it), then gzip
 * (default level, as `gzip` does). Also measured: bundles that import only some classes from it, to show
 * that tree-shaking drops what a user does not import (package.json says `"sideEffects": false`).
 *
 *   node scripts/size.ts               the table and the budget check (exit code 1 when over budget)
 *   node scripts/size.ts --modules     also each module's share: how many gzip bytes the full bundle loses
 *                                      without it (minified again without that module's code)
 *   node scripts/size.ts --budget=N    check the whole edge entry against N bytes instead of its budget in
 *                                      GZIP_BUDGETS (to see the check fail)
 *
 * `npm test` runs the budget check as its own step.
 * @module
 */
import * as esbuild from "esbuild";
import { resolve } from "node:path";
import process from "node:process";
import { gzipSync } from "node:zlib";
import { isMain, ROOT, rootPath } from "./lib.ts";

const EDGE = "adapters/edge/mod.ts";
const ALL_LABEL = `${EDGE} (everything)`;
const CLASSES_LABEL = "only ReadableStream, WritableStream, TransformStream";

/**
 * The budgets, in gzip bytes: the whole edge entry (the standard, fusion, the extras and the global patch),
 * and the three stream classes alone (the core without the patch, so that growth of the core and of the
 * patch machinery show separately). The suite fails when a bundle grows past its budget; raise one only
 * knowingly, with the measurement in the commit message. Issue 19's target for the whole entry is
 * EDGE_GZIP_TARGET.
 */
export const GZIP_BUDGETS: Readonly<Record<string, number>> = {
  [ALL_LABEL]: 34_960, // 34,953 with BRIDGE-KEEP-LOCK (+21 B: the batch loop locks ours again in the job it ends, the sinks' keepsLock); 34,932 with SLOT-PRIVATE (-6 B); 34,938 with BRIDGE-SYNC (+159 B: the bridge's own read request writing inside enqueue(), BatchReader.readPush in place of readOne; Bun's served streamText() 0.93-0.94x the CPU); 34,779 with the body methods' wrapping as one helper (+35 B: adapters/kit/body-methods.ts, shared by the bodies step and BODY-OWN); 34,744 with the bridge keeping ours locked at its end (+17 B: as a runtime's reader of a native body never lets go); 34,727 with BODY-OWN's check in the bridge's claim (+16 B: a body JavaScript holds or read is no consumer's to claim); 34,711 with FP-LAZY (release) (+53 B: the promise slot's lazily made reason, the reader's and writer's releases through it; iter-short 2.1-9.5x on Bun, Node 26, Deno); 34,658 with BODY-NATIVE-FED (+49 B: to-native.ts's reads locking ours at the first pull, for Deno's bodies; Deno's served echo 0.86x the CPU); 34,608 with BRIDGE-NATIVE-FED (+99 B: adapters/kit/native-fed.ts, the pipes step marking what a native stream feeds, the bridge's check; Bun's served echo 0.96x the CPU); 34,509 with NATIVE-CODEC-HANDBACK as the edge patch's step (+79 B: the core's setting and the step, so Bun's zstd bodies keep `response.body === ours`); 34,430 with NATIVE-CODEC-HANDBACK (+119 B: the native codec's lazily started pump and takeNativeOutput, the body's check; workerd gunzip-1k 0.68-0.71x -> 1.15-1.22x native); 34,311 with the pipes step reading a pair's sides once (+31 B, readPair); 34,280 with NATIVE-CODEC-THROUGH's check of the codec's class and getters (+93 B); 34,187 with NATIVE-CODEC-THROUGH (+405 B: core/compression/codec-pair.ts, the codec classes' sides made when first asked for, adapters/kit/codec-through.ts, the pipes step's check and the body shells' hand-over to a native pipe; workerd gunzip-blob 0.52x -> 1.05x native, gunzip-body 0.46x -> 0.86x, gzip-blob 0.78x -> 0.98x); 33,782 with FP-CHUNK-PROMISE (+102 B: shared/promise.ts's checks of the callback and of its promise; async-transform-6, reader-pull-6, writer-pull 1.01-1.09x on Node 26, Deno and Bun); 33,680 with FP-CODEC-INTO's core half (+166 B: the codec sink's copy and collector branch, core/shared/byte-builder.ts shared with FP-ENCODE-INTO, the untouched-readable check as a function; the edge's consumers do not take it, workerd level; Deno's pipe-html-gzip 1.38-1.42x -> 1.47-1.60x); 33,514 with FP-ENCODE-LEND's hooks (+86 B: core/shared/lent-bytes.ts, the encoder's branch, the codec transformer's shared methods and give-back, the pipe's LivePipeDestination; the pool itself stays out of this bundle; Deno's html-gzip 0.90-0.95x of the time before); 33,428 with BODY-ANSWER-NOW; 33,426 with the kit consumers' text and json by the runtime's own method (+32 B: a byte order mark dropped as the runtime drops it); 33,394 with takeEncodedText (+40 B: the taken text's cancel and release, for Bun's consumers); 33,354 with FP-ENCODE-INTO in the kit's body consumers (+294 B: core/codecs/encoded-text.ts's growing buffer, and the lock kept after a read; html-text in workerd 18.3 -> 11.8 ms); 33,044 with FP-TS-WRITE (+69 B: a write waiting on a TransformStream's backpressure holds its chunk instead of a promise chain); 32,975 with the join loop as copyParts (+11 B, shared with BUN-COALESCE-SCRATCH); 32,964 with BRIDGE-ONE (+76 B: the bridge's one-by-one reads, BatchReader.readOne); 32,888 with the patch options (+210 B: adapters/kit/patch-options.ts, their checks and TypeErrors, the options handed to every step); 32,678 with OWN-BYTES (+49 B: core/shared/own-bytes.ts, the encoder's note and the chunk check's test); 32,629 with the shells' openShell hook (+34 B, BUN-DIRECT-SOURCE's way in: a hook and a hold per shell); 32,595 with the slot box naming its owner (+45 B: a Proxy of an owner is not the owner); 32,550 with SLOT-NOT-WEAKMAP (+182 B: adapters/kit/object-slot.ts, the bridge's early release); 32,368 with FP-ENCODE-INTO (+43 B: the encoder's sink branch and its readable-side map); 32,325 with issue 27's Bun caller stack (+36 B: the shells' onNativeReadError hook, the pipes step's awaitNativePipe option); 32,289 with a registered maker for "bytes" looked up first (+4 B, BUN-BYTES); 32,285 with issue 25's BODY-PIPE-LOCK and the shells' byte-kind hook (+75 B, adapters/kit/body-shells.ts, native-shells.ts); 32,210 with issue 27's runtime error texts (+20 B, the kit's rule hook); 32,190 with the patched from() of a string as the runtime's own (issue 27, +124 B: the core's setting, the kit's probe); 32,065 with issue 25's FP-ENCODE-SHORT hook and FP-RESOLVED-WITH (+36) and the codec output queue; 31,989 with the Node patch's steps (issue 27: +71 B, the patch transaction's afterRestore for node:stream/web's ESM exports and the core's error hook); 31,918 with issue 27's Bun and edge-runtime fixes (+268: the kit's onBodyMade hook and Request-from-init, the bridge's chunk conversion, the core's runtime hooks and then-interception guard); 31,650 with the classes named by the kit, 31,978 with issue 25's text codecs (core/codecs/, +1,626 B on 30,352); 30,345 with issue 25's CompressionStream and DecompressionStream (+1,512 on 28,833: core/compression/, the edge's codec driving workerd's own streams in batches); 27,550 with issue 17's review fixes (26,752 before; 23,883 without issue 18's consumers); 27,924 with issue 20's lean streams; 28,225 with issue 18's batched bridges; 28,686 with issue 18's batch fast paths (FP-BATCH-BURST, FP-NO-PULL, sized batches); 28,837 with issue 26's layout (core/fusion/ hooks as named functions, the kit's BodyLink class)
  [CLASSES_LABEL]: 19_650, // 19,640 with FP-LAZY (release) (+44 B, as above); 19,596 with FP-CHUNK-PROMISE (+99 B, as above); 19,497 with FP-TS-WRITE (+54 B); 19,443 with the default reader's read() steps as a function of their own (+8 B, readWithPromise, for BRIDGE-ONE); 19,435 with the released-reader message of a pending read (+3 B); 19,432 with from()'s string setting (+34 B); 19,398 with FP-RESOLVED-WITH (+2 B); 19,396 with the core's error hook (issue 27: Node error codes, +9 B); 19,387 with issue 27's core hooks for Bun (source types 29 B, foreign readers 26 B), the then-interception guard (15 B) and from(null)'s message; 18,684 before issue 20's lean streams, 19,030 with them, 19,221 with core/fusion/ (issue 26: +85 B for the hooks as named functions, +14 B the pipe record), 19,228 with the byte tee ending a BYOB read at its source's close (issue 27), 19,274 with ReadableStream.from()'s string TypeError and its hint (+35 B) and a WritableStream's settle hook for node:stream's finished() (+7 B; issue 27)
};
/** Issue 19's goal for the whole edge entry (gzip bytes), printed next to the budget. */
export const EDGE_GZIP_TARGET = 12_288;

/** One measured bundle. */
export interface SizeRow {
  label: string;
  minified: number;
  gzip: number;
}

function gzipSize(code: Uint8Array | string): number {
  return gzipSync(code).byteLength;
}

/** `esbuild --bundle --minify --platform=neutral` of an entry file, or of `contents` importing from the root. */
async function bundle(
  entry: { file: string } | { contents: string },
  ignoreSideEffectsFlag = false,
): Promise<esbuild.BuildResult> {
  return esbuild.build({
    absWorkingDir: ROOT,
    ...("file" in entry
      ? { entryPoints: [rootPath(entry.file)] }
      : { stdin: { contents: entry.contents, resolveDir: ROOT, loader: "ts" as const, sourcefile: "size-entry.ts" } }),
    bundle: true,
    minify: true,
    platform: "neutral",
    format: "esm",
    write: false,
    logLevel: "warning",
    plugins: ignoreSideEffectsFlag ? [everyModuleMayHaveSideEffects] : [],
  });
}

/**
 * Resolves every relative import as a module that may have side effects, overriding package.json's
 * `"sideEffects": false`: esbuild then keeps each top-level statement it cannot prove pure, so an import for
 * side effects alone shows what module-level code does (nothing, for `sideEffects: false` to be true).
 */
const everyModuleMayHaveSideEffects: esbuild.Plugin = {
  name: "every-module-may-have-side-effects",
  setup(build) {
    build.onResolve(
      { filter: /^\.\.?\// },
      (args) => ({ path: resolve(args.resolveDir, args.path), sideEffects: true }),
    );
  },
};

function row(label: string, result: esbuild.BuildResult): SizeRow {
  const code = result.outputFiles![0]!.contents;
  return { label, minified: code.byteLength, gzip: gzipSize(code) };
}

/** The full edge entry and the partial imports from it. */
export async function measureEdge(): Promise<SizeRow[]> {
  const only = (names: string) => ({ contents: `export { ${names} } from "./${EDGE}";` });
  const jobs: [string, { file: string } | { contents: string }][] = [
    [ALL_LABEL, { file: EDGE }],
    [CLASSES_LABEL, only("ReadableStream, WritableStream, TransformStream")],
    ["only ReadableStream", only("ReadableStream")],
    ["only TransformStream", only("TransformStream")],
    ["only WritableStream", only("WritableStream")],
    ["only toNativeReadableStream, ReadableStream", only("toNativeReadableStream, ReadableStream")],
    ["only TextEncoderStream, TextDecoderStream", only("TextEncoderStream, TextDecoderStream")],
  ];
  const rows = await Promise.all(jobs.map(async ([label, entry]) => row(label, await bundle(entry))));
  const sideEffectsOnly = await bundle({ contents: `import "./${EDGE}";` }, true);
  rows.push(row('import for side effects only, "sideEffects" flag ignored', sideEffectsOnly));
  return rows;
}

/**
 * Each module's share of the full edge bundle: the gzip (and minified) bytes the bundle loses when that
 * module's code is left out and the rest minified again. Shares are not additive (gzip finds repeats across
 * modules), but they rank where the bytes go.
 */
export async function moduleShares(): Promise<{ module: string; gzip: number; minified: number }[]> {
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: [rootPath(EDGE)],
    bundle: true,
    platform: "neutral",
    format: "esm",
    write: false,
    logLevel: "warning",
  });
  // Unminified, esbuild starts each module's code with a `// path` comment. The final export list goes
  // (it would name what a left-out module declared); transform() does not tree-shake, so nothing else drops.
  const text = result.outputFiles![0]!.text.replace(/\nexport \{[^}]*\};\s*$/, "\n");
  const parts = text.split(/^(?=\/\/ [\w./-]+\.ts\n)/m);
  const minify = async (code: string) =>
    (await esbuild.transform(code, { minify: true, format: "esm", loader: "js" })).code;
  const full = await minify(parts.join(""));
  const fullGzip = gzipSize(full);
  const shares = [];
  for (let i = 0; i < parts.length; i++) {
    const name = /^\/\/ (\S+)/.exec(parts[i]!)?.[1];
    if (name === undefined) continue;
    const rest = await minify(parts.filter((_, j) => j !== i).join(""));
    shares.push({ module: name, gzip: fullGzip - gzipSize(rest), minified: full.length - rest.length });
  }
  return shares.sort((a, b) => b.gzip - a.gzip);
}

/**
 * Prints the table; returns whether every budgeted bundle is within its budget. `edgeBudget` replaces the
 * whole entry's budget (`--budget=N`, to see the check fail).
 */
export async function checkSizeBudget(edgeBudget: number = GZIP_BUDGETS[ALL_LABEL]!): Promise<boolean> {
  const budgets: Record<string, number> = { ...GZIP_BUDGETS, [ALL_LABEL]: edgeBudget };
  const rows = await measureEdge();
  const width = Math.max(...rows.map((r) => r.label.length));
  console.log(`esbuild ${esbuild.version} --bundle --minify --platform=neutral, then gzip (bytes):`);
  let ok = true;
  for (const r of rows) {
    const budget = budgets[r.label];
    const over = budget !== undefined && r.gzip > budget;
    if (over) ok = false;
    const note = budget === undefined ? "" : `  budget ${budget}${over ? `: OVER by ${r.gzip - budget}` : ""}`;
    console.log(
      `  ${r.label.padEnd(width)}  ${String(r.minified).padStart(7)} min  ${String(r.gzip).padStart(7)} gzip${note}`,
    );
  }
  const edge = rows[0]!.gzip;
  console.log(
    `size budget: ${ok ? "within" : "OVER"}; issue 19's target for ${EDGE}, ${EDGE_GZIP_TARGET} bytes gzip: ` +
      (edge <= EDGE_GZIP_TARGET ? "met" : `not met (${edge - EDGE_GZIP_TARGET} bytes over)`),
  );
  if (!ok) console.error("size budget: a bundle grew past its budget (scripts/size.ts, GZIP_BUDGETS)");
  return ok;
}

if (isMain(import.meta.url)) {
  const budgetArg = process.argv.find((a) => a.startsWith("--budget="));
  const ok = await checkSizeBudget(budgetArg ? Number(budgetArg.slice("--budget=".length)) : undefined);
  if (process.argv.includes("--modules")) {
    console.log("\nmodule shares of the full edge bundle (bytes lost without the module; not additive):");
    for (const s of await moduleShares()) {
      console.log(`  ${String(s.gzip).padStart(6)} gzip ${String(s.minified).padStart(7)} min  ${s.module}`);
    }
  }
  if (!ok) process.exitCode = 1;
}
