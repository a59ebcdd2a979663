// fusestreams WPT runner, child side: runs ONE .any.js test file in the current runtime (Node.js >= 20, Deno,
// Bun) and streams its results to stdout as marked JSON lines (see `emit`). Started by tests/wpt/run.ts;
// plain JavaScript so that Node 20 can run it. Configuration arrives as JSON in FUSESTREAMS_WPT_CHILD:
//   { file, wptDir, impl: "native" | "ours", modUrl, testTimeout, harnessTimeout }
import { readFileSync, writeSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { createHarness } from "./harness.js";

/** The stream classes --impl=ours replaces (all of mod.ts's classes). */
const STREAM_GLOBALS = [
  "ReadableStream",
  "ReadableStreamDefaultReader",
  "ReadableStreamBYOBReader",
  "ReadableStreamDefaultController",
  "ReadableByteStreamController",
  "ReadableStreamBYOBRequest",
  "WritableStream",
  "WritableStreamDefaultWriter",
  "WritableStreamDefaultController",
  "TransformStream",
  "TransformStreamDefaultController",
  "ByteLengthQueuingStrategy",
  "CountQueuingStrategy",
];

/** Every line the parent reads starts with this marker; anything else on stdout is the tests' own output. */
const MARK = "\u0001wpt ";

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Writes one marked line synchronously. stdout is a non-blocking socket when the parent reads it through a
 * pipe, so a burst of small writes can meet EAGAIN: wait a millisecond and retry instead of losing the line.
 */
function emit(message) {
  const bytes = new TextEncoder().encode(MARK + JSON.stringify(message) + "\n");
  let offset = 0;
  let retries = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(1, bytes, offset, bytes.length - offset);
    } catch (error) {
      if (error?.code !== "EAGAIN" || ++retries > 30_000) throw error;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}

function describe(value) {
  try {
    if (typeof value === "object" && value !== null) {
      const name = value.name ?? value.constructor?.name ?? "Object";
      return value.message !== undefined ? `${name}: ${value.message}` : String(value);
    }
    return String(value);
  } catch {
    return "(unprintable value)";
  }
}

function runtimeLabel() {
  if (typeof globalThis.Deno !== "undefined") return `deno ${globalThis.Deno.version.deno}`;
  if (typeof globalThis.Bun !== "undefined") return `bun ${globalThis.Bun.version}`;
  return `node ${process.version}`;
}

function finish(code) {
  process.exit(code);
}

const config = JSON.parse(process.env.FUSESTREAMS_WPT_CHILD ?? "null");
if (!config || typeof config.file !== "string") {
  process.stderr.write("tests/wpt/child.js: started without FUSESTREAMS_WPT_CHILD; use tests/wpt/run.ts\n");
  finish(2);
}

const harness = createHarness({
  testTimeout: config.testTimeout,
  onRegister(test) {
    emit({ e: "reg", i: test.index, n: test.name });
  },
  onResult(test) {
    emit({ e: "res", i: test.index, s: test.status, m: test.message });
  },
  onHarnessError(message) {
    emit({ e: "herr", m: message });
  },
  onComplete() {
    emit({ e: "done" });
    finish(0);
  },
});

// Errors outside test steps are harness errors, as in a browser's testharness.js: reported, not fatal.
if (typeof globalThis.Deno !== "undefined") {
  globalThis.addEventListener("error", (event) => {
    event.preventDefault();
    harness.harnessError(`uncaught exception: ${describe(event.error ?? event.message)}`);
  });
  globalThis.addEventListener("unhandledrejection", (event) => {
    event.preventDefault();
    harness.harnessError(`unhandled rejection: ${describe(event.reason)}`);
  });
} else {
  process.on("uncaughtException", (error) => harness.harnessError(`uncaught exception: ${describe(error)}`));
  process.on("unhandledRejection", (reason) => harness.harnessError(`unhandled rejection: ${describe(reason)}`));
}

// The global environment a WPT worker-style test expects.
if (globalThis.self !== globalThis) globalThis.self = globalThis;
globalThis.GLOBAL = {
  isWindow: () => false,
  isWorker: () => false,
  isShadowRealm: () => false,
};
if (typeof globalThis.gc !== "function" && typeof globalThis.Bun !== "undefined") {
  globalThis.gc = () => globalThis.Bun.gc(true);
}

emit({ e: "start", runtime: runtimeLabel(), gc: typeof globalThis.gc === "function" });

if (config.impl === "ours") {
  let mod;
  try {
    mod = await import(config.modUrl);
  } catch (error) {
    emit({ e: "fatal", m: `cannot import ${config.modUrl}: ${describe(error)}` });
    finish(3);
  }
  for (const name of STREAM_GLOBALS) {
    if (typeof mod[name] !== "function") {
      emit({ e: "fatal", m: `${config.modUrl} does not export a class named ${name}` });
      finish(3);
    }
    // Like a WebIDL interface object: writable, configurable, not enumerable.
    Object.defineProperty(globalThis, name, {
      value: mod[name],
      writable: true,
      configurable: true,
      enumerable: false,
    });
  }
}

for (const [name, value] of Object.entries(harness.api)) globalThis[name] = value;

/** `// META: key=value` lines at the top of a test file, in order. */
function metaOf(source) {
  const metas = [];
  for (const raw of source.split("\n")) {
    const line = raw.trim();
    if (line === "") continue;
    if (!line.startsWith("//")) break;
    const match = /^\/\/\s*META:\s*([\w-]+)=(.*)$/.exec(line);
    if (match) metas.push([match[1], match[2].trim()]);
  }
  return metas;
}

function scriptPath(spec) {
  return spec.startsWith("/") ? join(config.wptDir, spec) : resolve(dirname(config.file), spec);
}

const source = readFileSync(config.file, "utf8");
const scripts = metaOf(source).filter(([key]) => key === "script").map(([, spec]) => scriptPath(spec));

if (config.harnessTimeout > 0) {
  setTimeout(() => {
    harness.harnessError(`harness timeout (${config.harnessTimeout} ms): unfinished tests end as TIMEOUT or NOTRUN`);
    harness.abort("harness timeout");
  }, config.harnessTimeout);
}

// Each script runs as global code (indirect eval), in order, like the <script> elements of a WPT page.
for (const path of [...scripts, config.file]) {
  let code;
  try {
    code = path === config.file ? source : readFileSync(path, "utf8");
  } catch (error) {
    harness.harnessError(`cannot read ${path}: ${describe(error)}`);
    continue;
  }
  try {
    (0, eval)(`${code}\n//# sourceURL=${pathToFileURL(path).href}\n`);
  } catch (error) {
    harness.harnessError(`${path} threw while loading: ${describe(error)}`);
  }
}

harness.done();
