/**
 * Fetch's "clone a body" for a runtime whose `Response` keeps its body's stream object (undici): the core's
 * `ReadableStreamTeeInPlace` (core/readable/readable-stream.ts), for the adapters, which reach the core's
 * internals only through the kit.
 * @module
 */
export { ReadableStreamTeeInPlace } from "../../core/internal.ts";
