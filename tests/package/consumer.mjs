// A user's program, run by scripts/package-test.ts in a temporary project where the packed tarball was
// installed (node_modules/fusestreams), on Node 20, 22 and 26, Bun and Deno. Plain JavaScript: Node 20 runs it.
//
//   node consumer.mjs [--import-first]       Deno: deno run -A consumer.mjs (imports through `npm:`)
//
// For every entry point: import() it and require() it (both orders across the two runs), check both give the
// same classes as the bare import (one core per process), run a 3-transform chain with its classes, and run
// one chain whose stages come from different entry points and from import and require mixed.
import { createRequire } from "node:module";
import process from "node:process";

const SUBPATHS = ["fusestreams", "fusestreams/node", "fusestreams/deno", "fusestreams/bun", "fusestreams/edge"];
const isDeno = typeof globalThis.Deno === "object";
const prefix = isDeno ? "npm:" : "";
const require = createRequire(import.meta.url);
const importFirst = process.argv.includes("--import-first");
const problems = [];

const loaded = new Map();
for (const subpath of SUBPATHS) {
  const load = {
    import: async () => await import(prefix + subpath),
    require: async () => require(subpath),
  };
  const order = importFirst ? ["import", "require"] : ["require", "import"];
  const namespaces = {};
  for (const kind of order) {
    try {
      namespaces[kind] = await load[kind]();
    } catch (err) {
      problems.push(`${kind}("${subpath}") failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  loaded.set(subpath, namespaces);
}

const base = loaded.get("fusestreams")?.import;
const CLASSES = [
  "ReadableStream",
  "WritableStream",
  "TransformStream",
  "ReadableStreamDefaultReader",
  "CountQueuingStrategy",
];

/**
 * Upper-cases, appends "!", repeats: three TransformStreams from `transformApis`, between a source from
 * `sourceApi` and a WritableStream from `sinkApi`; `inspectPipeChain` of the sink's namespace reports the links.
 */
async function chain(sourceApi, transformApis, sinkApi) {
  const stages = [
    (c) => c.toUpperCase(),
    (c) => `${c}!`,
    (c) => c + c,
  ];
  let stream = sourceApi.ReadableStream.from(["a", "b", "c"]);
  stages.forEach((fn, i) => {
    stream = stream.pipeThrough(
      new transformApis[i].TransformStream({ transform: (chunk, ctl) => ctl.enqueue(fn(chunk)) }),
    );
  });
  const out = [];
  const sink = new sinkApi.WritableStream({ write: (chunk) => void out.push(chunk) });
  await stream.pipeTo(sink);
  const report = sinkApi.inspectPipeChain(sink);
  return { out: out.join(","), mode: report.mode };
}
const EXPECTED = "A!A!,B!B!,C!C!";

let chains = 0;
if (base === undefined) problems.push('import("fusestreams") did not load');
else {
  for (const [subpath, namespaces] of loaded) {
    for (const [kind, ns] of Object.entries(namespaces)) {
      for (const name of CLASSES) {
        if (ns[name] !== base[name]) {
          problems.push(`${kind}("${subpath}").${name} is not the class import("fusestreams") gives`);
        }
      }
      try {
        const { out, mode } = await chain(ns, [ns, ns, ns], ns);
        chains++;
        if (out !== EXPECTED) problems.push(`${kind}("${subpath}"): chain gave ${out}, expected ${EXPECTED}`);
        if (mode !== "fused") problems.push(`${kind}("${subpath}"): chain was ${mode}, expected fused`);
      } catch (err) {
        problems.push(`${kind}("${subpath}"): chain failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
  // One chain, stages from everywhere: a stream made through import piped into a pipe made through require.
  const all = [...loaded.values()].flatMap((n) => [n.import, n.require]).filter(Boolean);
  try {
    const { out, mode } = await chain(
      loaded.get("fusestreams").import,
      [all[1], all[4], all[7] ?? all[2]],
      loaded.get("fusestreams/edge").require,
    );
    chains++;
    if (out !== EXPECTED || mode !== "fused") problems.push(`mixed import/require chain gave ${out} (${mode})`);
  } catch (err) {
    problems.push(`mixed import/require chain failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

const runtime = isDeno
  ? `Deno ${globalThis.Deno.version.deno}`
  : process.versions.bun
  ? `Bun ${process.versions.bun}`
  : `Node ${process.version}`;
if (problems.length > 0) {
  console.error(`consumer: ${problems.length} problem(s) on ${runtime}:`);
  for (const p of problems) console.error(`  ${p}`);
  process.exitCode = 1;
} else {
  console.log(
    `consumer: OK on ${runtime} (${
      importFirst ? "import, then require" : "require, then import"
    }): ${SUBPATHS.length} entry points ` +
      `x (import, require) load, share one core, ${chains} 3-transform chains fused (1 mixing import and require)`,
  );
}
