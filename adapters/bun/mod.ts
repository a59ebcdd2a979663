/**
 * Bun adapter for fusestreams: the whole fusestreams API, plus the adapter contract every runtime's
 * adapter exports (`patchGlobalWebStreams`, `unpatchGlobalWebStreams`, `isGlobalWebStreamsPatched`,
 * `toNativeReadableStream`).
 *
 * ```ts
 * import { patchGlobalWebStreams, TransformStream } from "fusestreams/bun";
 *
 * patchGlobalWebStreams();
 * const res = await fetch("http://127.0.0.1:8000/");
 * const upper = res.body!.pipeThrough(new TransformStream());
 * ```
 * @module
 */
import type { PatchOptions, RuntimeAdapter, ToNativeReadableStream } from "../kit/contract.ts";
import { createRuntimeAdapter } from "../kit/runtime-adapter.ts";
import { awaitPipeWithCallerStack, noteNativeReadError } from "../kit/caller-stack.ts";
import { shellHooks } from "../kit/native-shells.ts";
import { toNativeReadableStream as toNative } from "../kit/to-native.ts";
import { ownBody, patchBodyOwners } from "./body-owners.ts";
import { patchBunConsumers } from "./consumers.ts";
import { patchBunExtensions } from "./extensions.ts";
import { directBody } from "./direct-body.ts";
import { openDirectSourceShell } from "./direct-sources.ts";
import { patchBunErrorTexts } from "./error-texts.ts";
import process from "node:process";
import { batchZlibCodec, installZlibCodec, type ZlibCodecOptions } from "../kit/zlib-codec.ts";

export * from "../../mod.ts";
/** The adapter contract's types (the same on every runtime). */
export type * from "../kit/contract.ts";

// ZLIB-SYNC (installed on this runtime only: another adapter loaded in the same process leaves the codec alone):
// CompressionStream and DecompressionStream run node:zlib's handle synchronously, the fastest codec measured on
// Bun (bench/README.md, codec rows); node:zlib is loaded when the first of them is made. A call per chunk, no
// ZLIB-COALESCE: Bun's zlib cuts its output where its input was cut, so gathering chunks would change the bytes
// from those of Bun's own CompressionStream (1.87x native with it, 1.25x without in the html-gzip codec row,
// 15 % more CPU in the codec without); the same bytes patched and unpatched come first, unless the patch option
// `compression: "batched"` asks for speed instead (step `compression`). zstd decompression stays Bun's own (its
// node:zlib handle does not report a truncated stream). Four output chunks may wait unread, so a write resolves
// before anyone reads, as with Bun's own classes.
// ZLIB-REUSE: a finished gzip/deflate compressor's handle is reset and kept for the next stream (react-gzip).
const ZLIB: ZlibCodecOptions = { coalesce: false, outputQueue: 4, reuseCompressors: true };
const loadZlib = () => process.getBuiltinModule?.("node:zlib");
if (onBun()) installZlibCodec(loadZlib, ZLIB);
/**
 * Whether the code runs on Bun: the `Bun` namespace with a version string, and a user agent that says Bun
 * (a `Bun` object put on another runtime's global by a shim does not count).
 */
function onBun(): boolean {
  const bun = (globalThis as { Bun?: { version?: unknown } }).Bun;
  const ua = (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent;
  return typeof bun?.version === "string" && typeof ua === "string" && ua.startsWith("Bun/");
}

/** The Bun adapter as one object, checked against the adapter contract. */
export const adapter: RuntimeAdapter = /* @__PURE__ */ createRuntimeAdapter({
  runtime: "bun",
  displayName: "Bun",
  detect: onBun,
  // Response.prototype.body and Request.prototype.body are non-configurable in Bun: bodies stay native.
  shared: { bodies: false },
  bodyBridge: directBody,
  // A Response/Request made from ours answers ours as its body, as Bun's answers the stream it was given.
  onBodyMade: ownBody,
  // Bun gives an error made under a native read the frames of the code awaiting it: a native pipeTo() into ours
  // does too (with the step `bun-caller-stack`).
  awaitNativePipe: awaitPipeWithCallerStack,
  after: [
    { name: "bun-consumers", run: patchBunConsumers },
    { name: "bun-body-owners", run: patchBodyOwners },
    { name: "bun-extensions", run: patchBunExtensions },
    { name: "bun error texts", run: patchBunErrorTexts },
    { name: "bun-caller-stack", run: (tx) => tx.defineValue(shellHooks, "onNativeReadError", noteNativeReadError) },
    // BUN-DIRECT-SOURCE: a direct stream made while patched, read first by ours, runs its source in ours.
    { name: "bun-direct-sources", run: (tx) => tx.defineValue(shellHooks, "openShell", openDirectSourceShell) },
    // The patch option `compression: "batched"`: chunks gathered into 16 KiB per call (ZLIB-COALESCE).
    { name: "compression", run: (tx, o) => o.compression === "batched" && batchZlibCodec(tx, loadZlib, ZLIB) },
  ],
});

/**
 * Makes Bun's global stream classes fusestreams' (all or nothing; see the adapter contract): native
 * streams (fetch and Request/Response bodies, `Blob.stream()`, `Bun.file().stream()`) pipe into ours, and ours
 * are accepted as bodies by `Response`, `Request` and `fetch`.
 *
 * @param options `compression: "batched"` lets our CompressionStream gather chunks into 16 KiB per call (less CPU,
 * other bytes than Bun's own); the default keeps Bun's bytes. See {@link PatchOptions}.
 */
export function patchGlobalWebStreams(options?: PatchOptions): void {
  adapter.patchGlobalWebStreams(options);
}

/** Puts back exactly what {@link patchGlobalWebStreams} changed. */
export function unpatchGlobalWebStreams(): void {
  adapter.unpatchGlobalWebStreams();
}

/** Whether {@link patchGlobalWebStreams} is in effect (from this copy of fusestreams). */
export function isGlobalWebStreamsPatched(): boolean {
  return adapter.isGlobalWebStreamsPatched();
}

/** A Bun `ReadableStream` reading one of ours, for Bun's APIs without the patch (see the contract). */
export const toNativeReadableStream: ToNativeReadableStream = toNative;
