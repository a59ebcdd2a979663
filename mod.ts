/**
 * fusestreams: the WHATWG Streams Standard (ReadableStream, WritableStream, TransformStream, their readers,
 * writers and controllers, and the queuing strategies) in one promise-light, runtime-agnostic core, with
 * pipe chains of fusestreams streams fused into direct calls.
 *
 * The exports are drop-in replacements for the runtime's global classes, and their TypeScript types are the
 * global stream interfaces, so fusestreams streams and native ones mix freely:
 *
 * ```ts
 * import { ReadableStream, TransformStream, WritableStream } from "fusestreams";
 *
 * const upper = new TransformStream<string, string>({
 *   transform(chunk, controller) {
 *     controller.enqueue(chunk.toUpperCase());
 *   },
 * });
 * const seen: string[] = [];
 * await ReadableStream.from(["a", "b"])
 *   .pipeThrough(upper)
 *   .pipeTo(new WritableStream({ write: (chunk) => void seen.push(chunk) }));
 * // seen: ["A", "B"]
 * ```
 *
 * Runtime extras live in the runtime entry points: `fusestreams/node`, `fusestreams/deno`, `fusestreams/bun`
 * and `fusestreams/edge` (each re-exports this whole API).
 * @module
 */
export * from "./core/mod.ts";
