/**
 * Tree-shaking of the consumers, batched reads and helpers (issue 18) and of the codecs (issue 25): a bundle
 * that imports only the stream classes from the edge entry (esbuild --bundle --minify --platform=neutral, as
 * scripts/size.ts measures it) must contain no byte of core/consumers/, core/helpers/, core/batching/,
 * core/compression/ or core/codecs/, so such a bundle does not grow with them. Run by `npm test`; on its own:
 * `node scripts/check-treeshake.ts`.
 * @module
 */
import * as esbuild from "esbuild";
import process from "node:process";
import { isMain, ROOT } from "./lib.ts";

const ENTRIES: Record<string, string> = {
  "only ReadableStream": "ReadableStream",
  "only TransformStream": "TransformStream",
  "ReadableStream, WritableStream, TransformStream": "ReadableStream, WritableStream, TransformStream",
};
const NOT_IN = /^core\/(consumers|helpers|batching|compression|codecs)\//;

/** Problems found (empty when every bundle is free of the consumers' code). */
export async function checkTreeShaking(): Promise<string[]> {
  const problems: string[] = [];
  for (const [label, names] of Object.entries(ENTRIES)) {
    const result = await esbuild.build({
      stdin: { contents: `export { ${names} } from "./adapters/edge/mod.ts";`, resolveDir: ROOT, loader: "ts" },
      absWorkingDir: ROOT,
      bundle: true,
      minify: true,
      platform: "neutral",
      format: "esm",
      write: false,
      metafile: true,
      logLevel: "warning",
    });
    const output = Object.values(result.metafile.outputs)[0]!;
    const kept = Object.entries(output.inputs).filter(([path, input]) => NOT_IN.test(path) && input.bytesInOutput > 0);
    for (const [path, input] of kept) problems.push(`${label}: ${input.bytesInOutput} bytes of ${path}`);
    console.log(
      `tree-shaking: ${label}: ${output.bytes} bytes minified, ${
        kept.length === 0 ? "nothing" : `${kept.length} modules`
      } of the consumers, helpers and codecs`,
    );
  }
  return problems;
}

if (isMain(import.meta.url)) {
  const problems = await checkTreeShaking();
  for (const p of problems) console.error(`  ${p}`);
  process.exitCode = problems.length === 0 ? 0 : 1;
}
