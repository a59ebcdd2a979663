/**
 * Edge adapter for fusestreams: Cloudflare workerd and Vercel edge-light, and the build for browsers and
 * any other runtime with only web-standard globals (the `workerd`, `edge-light`, `browser` and default
 * export conditions). The whole fusestreams API, plus the adapter contract every runtime's adapter
 * exports (`patchGlobalWebStreams`, `unpatchGlobalWebStreams`, `isGlobalWebStreamsPatched`,
 * `toNativeReadableStream`). Web-standard globals only.
 *
 * ```ts
 * import { patchGlobalWebStreams, TransformStream } from "fusestreams/edge";
 *
 * patchGlobalWebStreams(); // workerd or edge-light
 * export default {
 *   async fetch(request: Request): Promise<Response> {
 *     const upstream = await fetch("https://example.com/");
 *     return new Response(upstream.body!.pipeThrough(new TransformStream()));
 *   },
 * };
 * ```
 *
 * Without the patch, {@link toNativeReadableStream} hands one of our streams to the runtime:
 * `new Response(toNativeReadableStream(ours))` (workerd before its `fetch_iterable_type_support`
 * compatibility flag would otherwise send the text `[object ReadableStream]`).
 * @module
 */
import type { PatchOptions, RuntimeAdapter, ToNativeReadableStream } from "../kit/contract.ts";
import { createRuntimeAdapter } from "../kit/runtime-adapter.ts";
import { toNativeReadableStream as toNative } from "../kit/to-native.ts";
import { batchedBody } from "../kit/batched-body-bridge.ts";
import { patchBodyConsumers } from "../kit/body-consumers.ts";
import { onEdgeRuntime } from "./runtime.ts";

export * from "../../mod.ts";
/** The adapter contract's types (the same on every runtime). */
export type * from "../kit/contract.ts";

/** The edge adapter as one object, checked against the adapter contract. */
export const adapter: RuntimeAdapter = /* @__PURE__ */ createRuntimeAdapter({
  runtime: "edge",
  displayName: "workerd and edge-light",
  detect: onEdgeRuntime,
  // BODY-BATCH: workerd reads a JavaScript body stream with a C++ call per chunk; batches cut them down.
  bodyBridge: batchedBody,
  // NATIVE-CODEC-THROUGH: our codecs drive workerd's own; from a native source, workerd pipes through its own.
  codecThrough: true,
  // BODY-CONSUME: text()/arrayBuffer()/bytes()/json() of a body of ours read it without the bridge.
  after: [{ name: "edge-consumers", run: (tx) => patchBodyConsumers(tx) }],
});

/**
 * Makes the global stream classes fusestreams' on workerd and edge-light, all or nothing (see the adapter
 * contract): `Response`/`Request` bodies and `fetch` responses are our streams (a shell over the native
 * body, one native read per chunk), native streams pipe into ours and ours into native ones (our
 * `CompressionStream` and `DecompressionStream` drive workerd's own; a native stream or an unread body piped
 * straight into a new one is piped by workerd through its own), and our streams are accepted by `new Response()`,
 * `new Request()` and `fetch()`: they are handed over as native streams of byte chunks, the one kind of
 * stream workerd reads on every compatibility date, each chunk carrying every byte our stream produced
 * while the runtime's previous read was in flight (BODY-BATCH). A chunk that is not an ArrayBuffer or ArrayBufferView
 * errors the body with a TypeError naming what was found.
 *
 * Anywhere else (a browser, Node.js, Deno, Bun) it throws a TypeError at once and changes nothing: Node.js,
 * Deno and Bun have adapters of their own, and in a browser the patch is not offered (it is not tested
 * there, and a page's globals are shared with every other script); use {@link toNativeReadableStream}.
 *
 * @param options See {@link PatchOptions}; `compression` changes nothing here (workerd's own compressor is fed in
 * batches either way).
 */
export function patchGlobalWebStreams(options?: PatchOptions): void {
  adapter.patchGlobalWebStreams(options);
}

/** Puts back exactly what {@link patchGlobalWebStreams} changed (does nothing when not patched). */
export function unpatchGlobalWebStreams(): void {
  adapter.unpatchGlobalWebStreams();
}

/** Whether {@link patchGlobalWebStreams} is in effect (from this copy of fusestreams). */
export function isGlobalWebStreamsPatched(): boolean {
  return adapter.isGlobalWebStreamsPatched();
}

/**
 * A native `ReadableStream` reading one of ours, for the runtime's APIs without the patch (see the
 * contract): `new Response(toNativeReadableStream(ours))`. It reads ours only when the runtime pulls, each
 * pull taking every chunk ours has queued; cancel and errors propagate both ways. Works on every runtime, browsers included.
 */
export const toNativeReadableStream: ToNativeReadableStream = toNative;
