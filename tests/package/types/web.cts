// Type-checked against the packed tarball by scripts/package-test.ts (CommonJS consumer: the `require`
// declarations, .d.cts). Runs with lib.dom and with @types/node.
import { ReadableStream, TransformStream, WritableStream } from "fusestreams";
import edge = require("fusestreams/edge");
// The ESM declarations of the same package, from this CommonJS file: a stream typed by one is the other.
type EsmReadableStream<R> = import("fusestreams", { with: { "resolution-mode": "import" }}).ReadableStream<R>;
type EsmConstructor = typeof import("fusestreams", { with: { "resolution-mode": "import" }}).ReadableStream;

const ours = new ReadableStream<string>({ start: (c) => c.enqueue("x") });
const asGlobal: globalThis.ReadableStream<string> = ours;
export const back: ReadableStream<string> = asGlobal;
export const asEsm: EsmReadableStream<string> = ours;
export const fromEsm: ReadableStream<string> = null! as EsmReadableStream<string>;
export const sameConstructorType: EsmConstructor = ReadableStream;
export const sameClass: boolean = edge.ReadableStream === ReadableStream;
export const response: Response = new Response(new ReadableStream({ type: "bytes" }));
export const encoded: ReadableStream<Uint8Array<ArrayBuffer>> = ours.pipeThrough(new TextEncoderStream());
export const chained: Promise<void> = ours
  .pipeThrough(new TransformStream<string, string>({ transform: (chunk, c) => c.enqueue(chunk.toUpperCase()) }))
  .pipeTo(new WritableStream<string>());
