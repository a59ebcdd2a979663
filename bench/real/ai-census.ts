/**
 * The stream stages of the AI SDK rows (`ai-text`, `ai-ui`), counted: one run of each row over the runtime's own
 * streams (no patch), with the global `TransformStream` and `ReadableStream` replaced by subclasses that count the
 * streams the SDK makes and every call of their `transform()` and `pull()`, sorted by whether it returned a
 * promise (an `async` callback: the shape of `floor-async-transform-6` and `floor-reader-pull-6`, group 11 of
 * `npm run bench`) or not. The counts and those floors give the least time the standard allows for the SDK's
 * stream stages (bench/README.md, "How far the AI SDK rows can go").
 *
 *   node bench/real/ai-census.ts
 * @module
 */
import { aiDeltas } from "./data.ts";

type Counts = Map<string, number>;
type Callback = (this: unknown, ...args: unknown[]) => unknown;
type Dict = Record<string, unknown>;

let counts: Counts = new Map();
function count(key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function isThenable(x: unknown): boolean {
  return (typeof x === "object" || typeof x === "function") && x !== null &&
    typeof (x as { then?: unknown }).then === "function";
}

/** `object` with its method `name` wrapped to count its calls as `label sync` or `label async`. */
function counted(object: Dict | undefined, name: string, label: string): Dict | undefined {
  if (object === undefined || object === null) return object;
  const method = object[name];
  if (typeof method !== "function") return object;
  const copy: Dict = Object.create(object);
  copy[name] = function (this: unknown, ...args: unknown[]): unknown {
    const result = (method as Callback).apply(object, args);
    count(`${label} ${isThenable(result) ? "async" : "sync"}`);
    return result;
  };
  return copy;
}

const NativeTransformStream = globalThis.TransformStream;
const NativeReadableStream = globalThis.ReadableStream;

class CountingTransformStream extends NativeTransformStream<unknown, unknown> {
  constructor(transformer?: Dict, writableStrategy?: QueuingStrategy, readableStrategy?: QueuingStrategy) {
    count(typeof transformer?.transform === "function" ? "TransformStream" : "TransformStream (identity)");
    super(counted(transformer, "transform", "transform()"), writableStrategy, readableStrategy);
  }
}

class CountingReadableStream extends NativeReadableStream<unknown> {
  constructor(source?: Dict, strategy?: QueuingStrategy) {
    count(source?.type === "bytes" ? "ReadableStream (bytes)" : "ReadableStream");
    super(counted(source, "pull", "pull()") as UnderlyingDefaultSource, strategy);
  }
}

const g = globalThis as unknown as Dict;
g.TransformStream = CountingTransformStream;
g.ReadableStream = CountingReadableStream;

// imported after the globals are replaced, as the rows import the SDK after the patch
const ai = await import("./scenarios/ai.ts");
const parts = ai.modelParts(aiDeltas());
for (const id of ["ai-text", "ai-ui"] as const) {
  counts = new Map();
  const result = ai.run(parts);
  const response = id === "ai-text"
    ? result.toTextStreamResponse()
    : result.toUIMessageStreamResponse({ generateMessageId: () => "msg-0" });
  const bytes = (await response.arrayBuffer()).byteLength;
  // the SDK settles its last promises (onFinish, the tool's steps) after the body ends
  await new Promise((resolve) => setTimeout(resolve, 20));
  const line = [...counts].sort(([a], [b]) => a < b ? -1 : 1).map(([key, n]) => `${key} ${n}`).join(", ");
  console.log(`${id} (${bytes} bytes): ${line}`);
}
