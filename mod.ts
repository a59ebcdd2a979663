/**
 * fusestreams: the WHATWG Streams Standard (ReadableStream, WritableStream, TransformStream, their readers,
 * writers and controllers, and the queuing strategies) in one promise-light, runtime-agnostic core.
 *
 * The exports are drop-in replacements for the runtime's global classes:
 *
 * ```ts
 * import { ReadableStream, TransformStream, WritableStream } from "fusestreams";
 * ```
 * @module
 */
export * from "./core/mod.ts";
