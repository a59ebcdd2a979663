/**
 * Edge adapter for fusestreams (Cloudflare workerd, Vercel edge-light, browsers; web-standard globals only): the whole fusestreams API, plus the adapter contract every runtime's
 * adapter exports (`patchGlobalWebStreams`, `unpatchGlobalWebStreams`, `isGlobalWebStreamsPatched`,
 * `toNativeReadableStream`).
 *
 * ```ts
 * import { patchGlobalWebStreams, TransformStream } from "fusestreams/edge";
 *
 * patchGlobalWebStreams();
 * const res = await fetch("https://example.com/");
 * const upper = res.body!.pipeThrough(new TransformStream());
 * ```
 * @module
 */
import type {
  IsGlobalWebStreamsPatched,
  PatchGlobalWebStreams,
  RuntimeAdapter,
  ToNativeReadableStream,
  UnpatchGlobalWebStreams,
} from "../../core/interop/adapter.ts";
import { createGlobalPatch } from "../../core/interop/global-patch.ts";
import { runtimeMismatch } from "../../core/interop/runtime.ts";
import { toNativeReadableStream as toNative } from "../../core/interop/to-native.ts";

export * from "../../mod.ts";
export type {
  IsGlobalWebStreamsPatched,
  PatchGlobalWebStreams,
  RuntimeAdapter,
  RuntimeName,
  ToNativeReadableStream,
  UnpatchGlobalWebStreams,
} from "../../core/interop/adapter.ts";

/**
 * Whether this is an edge runtime or a browser: Vercel's edge-light (the `EdgeRuntime` global), workerd
 * (`navigator.userAgent` "Cloudflare-Workers") or any runtime whose user agent is not Node.js, Deno or Bun
 * (those have adapters of their own).
 */
function onEdge(): boolean {
  const g = globalThis as { EdgeRuntime?: unknown; navigator?: { userAgent?: unknown } };
  if (g.EdgeRuntime !== undefined) return true;
  const ua = g.navigator?.userAgent;
  return typeof ua === "string" && !/^(?:Node\.js|Deno|Bun)\//.test(ua);
}

const globalPatch = createGlobalPatch({
  runtime: "edge",
  checkRuntime: () => runtimeMismatch("edge runtimes (workerd, edge-light, browsers)", onEdge()),
});

/**
 * Makes the runtime's global stream classes fusestreams' (all or nothing; see the adapter contract): native
 * streams (fetch and Request/Response bodies, `Blob.stream()`) pipe into ours, and ours
 * are accepted as bodies by `Response`, `Request` and `fetch`.
 */
export const patchGlobalWebStreams: PatchGlobalWebStreams = globalPatch.patchGlobalWebStreams;

/** Puts back exactly what {@link patchGlobalWebStreams} changed. */
export const unpatchGlobalWebStreams: UnpatchGlobalWebStreams = globalPatch.unpatchGlobalWebStreams;

/** Whether {@link patchGlobalWebStreams} is in effect (from this copy of fusestreams). */
export const isGlobalWebStreamsPatched: IsGlobalWebStreamsPatched = globalPatch.isGlobalWebStreamsPatched;

/** A native `ReadableStream` reading one of ours, for the runtime's APIs without the patch (see the contract). */
export const toNativeReadableStream: ToNativeReadableStream = toNative;

/** The edge adapter as one object, checked against the adapter contract. */
export const adapter: RuntimeAdapter = {
  runtime: "edge",
  patchGlobalWebStreams,
  unpatchGlobalWebStreams,
  isGlobalWebStreamsPatched,
  toNativeReadableStream,
};
