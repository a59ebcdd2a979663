/**
 * Memory benchmark worker: measures, in this fresh process, the bytes one live stream of one shape keeps
 * after a full garbage collection. Started by bench/memory.ts once per (runtime, shape, implementation):
 *
 *   <runtime> [--expose-gc] bench/memory-worker.ts <shape> <impl> <count> <oursUrl>
 *
 * Method: build and drop a warm-up batch (code, maps and one-time caches are made then), collect, read the
 * heap; build `count` streams of the shape and keep them in an array; let the microtask queue and a timer
 * turn pass (start() reactions, pipes' first reads); collect, read the heap; print
 * (after - before) / count on one line as `@@memory {json}`.
 * @module
 */
// First import: the runtime's own classes, before anything can patch them.
import { NATIVE } from "./natives.ts";
import type { WebImpl } from "./scenarios/web.ts";

/** What one shape builds: the objects to keep alive for one stream. */
type Build = (impl: WebImpl) => unknown;

/** The six shapes of issue 20, by id (bench/README.md, "Memory"). */
export const SHAPES: Record<string, Build> = {
  // `new ReadableStream({ pull })`
  "readable": (impl) => new impl.ReadableStream({ pull() {} }),
  // + `getReader()`: the reader keeps the stream
  "readable-reader": (impl) => new impl.ReadableStream({ pull() {} }).getReader(),
  // `new WritableStream({ write })`
  "writable": (impl) => new impl.WritableStream({ write() {} }),
  // `new TransformStream({ transform })`
  "transform": (impl) =>
    new impl.TransformStream({
      transform(chunk: unknown, c: TransformStreamDefaultController) {
        c.enqueue(chunk);
      },
    }),
  // a byte stream whose controller is captured in start() (the React Flight pattern)
  "bytes-start": (impl) => {
    let controller: unknown;
    const stream = new impl.ReadableStream({
      type: "bytes",
      start(c: unknown) {
        controller = c;
      },
    } as unknown as UnderlyingDefaultSource);
    return [stream, controller];
  },
  // a source piped through three transforms, the end not consumed (a body held while the client is slow)
  "pipe-through-3": (impl) => {
    const source = new impl.ReadableStream({ pull() {} });
    let end = source;
    for (let i = 0; i < 3; i++) {
      end = end.pipeThrough(
        new impl.TransformStream({
          transform(chunk: unknown, c: TransformStreamDefaultController) {
            c.enqueue(chunk);
          },
        }),
      );
    }
    return [source, end];
  },
};

const g = globalThis as unknown as {
  Deno?: { memoryUsage(): { heapUsed: number } };
  Bun?: { gc(force: boolean): void };
  gc?: () => void;
  process?: { memoryUsage(): { heapUsed: number } };
};

function collect(): void {
  if (g.Bun) g.Bun.gc(true);
  else if (typeof g.gc === "function") g.gc();
  else throw new Error("no exposed garbage collector (node --expose-gc, deno --v8-flags=--expose-gc)");
}

async function heapUsed(): Promise<number> {
  // settle: start() reactions and pipe reads run in microtasks; a timer turn lets every one of them run
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setTimeout(resolve, 0));
  collect();
  collect();
  if (g.Deno) return g.Deno.memoryUsage().heapUsed;
  if (g.Bun) {
    const jsc = (await import("bun:jsc" as string)) as { heapStats(): { heapSize: number } };
    return jsc.heapStats().heapSize;
  }
  return g.process!.memoryUsage().heapUsed;
}

async function loadImpl(name: string, oursUrl: string): Promise<WebImpl> {
  if (name === "native") return NATIVE;
  if (name === "ours") {
    const m = (await import(oursUrl)) as Record<string, unknown>;
    return {
      ReadableStream: m["ReadableStream"],
      WritableStream: m["WritableStream"],
      TransformStream: m["TransformStream"],
    } as WebImpl;
  }
  if (name === "fast") {
    const m = (await import("experimental-fast-webstreams")) as Record<string, unknown>;
    return {
      ReadableStream: m["FastReadableStream"],
      WritableStream: m["FastWritableStream"],
      TransformStream: m["FastTransformStream"],
    } as WebImpl;
  }
  throw new Error(`unknown implementation ${name}`);
}

const args = (g as { Deno?: { args: string[] } }).Deno?.args ??
  (globalThis as unknown as { process: { argv: string[] } }).process.argv.slice(2);
const [shape, implName, countArg, oursUrl] = args;
const build = SHAPES[shape ?? ""];
if (!build || !implName || !countArg || !oursUrl) {
  throw new Error(`usage: memory-worker.ts <${Object.keys(SHAPES).join("|")}> <ours|native|fast> <count> <oursUrl>`);
}
const count = Number(countArg);
const impl = await loadImpl(implName, oursUrl);

// warm-up: everything made once per process (compiled code, maps, caches) is made here and kept
{
  const warm: unknown[] = [];
  for (let i = 0; i < 2000; i++) warm.push(build(impl));
  await heapUsed();
  warm.length = 0;
}
const keep: unknown[] = new Array(count).fill(null); // allocated before the baseline
const before = await heapUsed();
for (let i = 0; i < count; i++) keep[i] = build(impl);
const after = await heapUsed();
const bytes = (after - before) / count;
if (keep.length !== count) throw new Error("unreachable");
console.log("@@memory " + JSON.stringify({ shape, impl: implName, count, bytes, before, after }));
