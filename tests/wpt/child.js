// fusestreams WPT runner, child side: runs ONE .any.js test file in the current runtime (Node.js >= 20, Deno,
// Bun) and streams its results to stdout as marked JSON lines (see `emit`). Started by tests/wpt/run.ts;
// plain JavaScript so that Node 20 can run it. Configuration arrives as JSON in FUSESTREAMS_WPT_CHILD:
//   { file, wptDir, impl: "native" | "ours", modUrl, testTimeout, harnessTimeout }
// With impl "ours" the module's stream classes replace the globals; so do its text codec and compression classes
// when it exports them (otherwise the runtime's own stay, and the "codecs" message says so).
import { readFileSync, writeSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import vm from "node:vm";
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

/** The codec classes of encoding/streams and compression: ours when the module exports them, else the runtime's. */
const CODEC_GLOBALS = ["TextEncoderStream", "TextDecoderStream", "CompressionStream", "DecompressionStream"];

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
    installGlobal(name, mod[name]);
  }
  const codecs = {};
  for (const name of CODEC_GLOBALS) {
    if (typeof mod[name] === "function") {
      installGlobal(name, mod[name]);
      codecs[name] = "ours";
    } else {
      codecs[name] = typeof globalThis[name] === "function" ? "native" : "missing";
    }
  }
  emit({ e: "codecs", codecs });
} else {
  const codecs = {};
  for (const name of CODEC_GLOBALS) codecs[name] = typeof globalThis[name] === "function" ? "native" : "missing";
  emit({ e: "codecs", codecs });
}

/** Installs a class the way WebIDL exposes an interface object: writable, configurable, not enumerable. */
function installGlobal(name, value) {
  Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
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

// Each script runs as a classic script of this realm (vm.runInThisContext), in order, like the <script> elements of
// a WPT page: top-level function, var, let, const and class declarations of one script are visible to the next,
// whether or not it is strict (an indirect eval would keep a strict script's declarations, and every let/const, to
// itself).
for (const path of [...scripts, config.file]) {
  let code;
  try {
    code = path === config.file ? source : readFileSync(path, "utf8");
  } catch (error) {
    harness.harnessError(`cannot read ${path}: ${describe(error)}`);
    continue;
  }
  try {
    vm.runInThisContext(code, { filename: path });
  } catch (error) {
    harness.harnessError(`${path} threw while loading: ${describe(error)}`);
  }
}

harness.done();
