/**
 * Deno adapter for fusestreams: the whole fusestreams API, plus the adapter contract every runtime's
 * adapter exports (`patchGlobalWebStreams`, `unpatchGlobalWebStreams`, `isGlobalWebStreamsPatched`,
 * `toNativeReadableStream`).
 *
 * ```ts
 * import { patchGlobalWebStreams, TransformStream } from "fusestreams/deno";
 *
 * patchGlobalWebStreams();
 * const res = await fetch("http://127.0.0.1:8000/");
 * const upper = res.body!.pipeThrough(new TransformStream());
 * ```
 * @module
 */
import type { PatchOptions, RuntimeAdapter, ToNativeReadableStream } from "../kit/contract.ts";
import { createRuntimeAdapter } from "../kit/runtime-adapter.ts";
import { patchMadeBodies, rememberMadeBody } from "../kit/made-bodies.ts";
import { toNativeReadableStream as toNative } from "../kit/to-native.ts";
import { batchedBodyParts } from "../kit/batched-body-bridge.ts";
import { collectByBatches, patchBodyConsumers, withCodecBytes } from "../kit/body-consumers.ts";
import { shellHooks } from "../kit/native-shells.ts";
import { patchNodeStreamSymbols } from "../kit/node-stream-symbols.ts";
import { patchInspect } from "./inspect.ts";
import { patchDenoErrorTexts } from "./error-texts.ts";
import { patchInternalSlots } from "./internal-slots.ts";
import { patchDenoControllerErrors } from "./node-stream.ts";
import { aroundIterableBody, patchBodyStreams } from "./native-global.ts";
import { patchTransfer } from "../kit/transfer.ts";
import { openResourceReader } from "./resource-reader.ts";
import { isNativeByteStream } from "./byte-kind.ts";
import process from "node:process";
import { batchZlibCodec, installZlibCodec, type ZlibCodecOptions } from "../kit/zlib-codec.ts";

export * from "../../mod.ts";
/** The adapter contract's types (the same on every runtime). */
export type * from "../kit/contract.ts";

// ZLIB-SYNC (installed on this runtime only: another adapter loaded in the same process leaves the codec alone):
// CompressionStream and DecompressionStream run node:zlib's handle synchronously, the fastest codec
// measured on Deno (bench/README.md, codec rows); node:zlib is loaded when the first of them is made. Deno's own
// CompressionStream ends every chunk's output with a flush and writes 255 as the gzip header's OS byte, and so
// does ours here: the same bytes for gzip, deflate and deflate-raw. Brotli compression stays Deno's own (its
// compressor is many times faster than node:zlib's at its default quality).
const ZLIB: ZlibCodecOptions = {
  flushEachChunk: true,
  gzipOs: 255,
  compressFormats: ["gzip", "deflate", "deflate-raw"],
  // FP-ENCODE-LEND: a new ArrayBuffer per encoded chunk costs Deno about 1.5 µs (bench/README.md, "FP-ENCODE-LEND").
  lendEncoderChunks: true,
};
const loadZlib = () => process.getBuiltinModule?.("node:zlib");
if (onDeno()) installZlibCodec(loadZlib, ZLIB);

/**
 * Whether the code runs on Deno: the `Deno` namespace with a version string, and a user agent that says
 * Deno (a `Deno` object put on another runtime's global by a shim does not count).
 */
function onDeno(): boolean {
  const deno = (globalThis as { Deno?: { version?: { deno?: unknown } } }).Deno;
  const ua = (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent;
  return typeof deno?.version?.deno === "string" && typeof ua === "string" && ua.startsWith("Deno/");
}

/** The Deno adapter as one object, checked against the adapter contract. */
export const adapter: RuntimeAdapter = /* @__PURE__ */ createRuntimeAdapter({
  runtime: "deno",
  displayName: "Deno",
  detect: onDeno,
  bodyBridge: batchedBodyParts,
  aroundBodyInit: aroundIterableBody,
  // BODY-OWN: a Response/Request made from ours answers ours as its body, as Deno's answers the stream it was given.
  onBodyMade: rememberMadeBody,
  before: [
    { name: "made-bodies", run: patchMadeBodies },
    { name: "deno node:stream errors", run: patchDenoControllerErrors },
    { name: "node:stream symbols", run: patchNodeStreamSymbols },
  ],
  after: [
    { name: "deno-body-streams", run: patchBodyStreams },
    { name: "deno-internal-slots", run: patchInternalSlots },
    { name: "deno-inspect", run: patchInspect },
    { name: "deno-consumers", run: (tx) => patchBodyConsumers(tx, withCodecBytes(collectByBatches)) },
    { name: "deno-resource-reads", run: (tx) => tx.defineValue(shellHooks, "openReader", openResourceReader) },
    { name: "deno-byte-kind", run: (tx) => tx.defineValue(shellHooks, "isByteStream", isNativeByteStream) },
    { name: "transfer", run: patchTransfer },
    { name: "deno error texts", run: patchDenoErrorTexts },
    // The patch option `compression: "batched"`: no flush per chunk, chunks gathered into 16 KiB (ZLIB-COALESCE).
    { name: "compression", run: (tx, o) => o.compression === "batched" && batchZlibCodec(tx, loadZlib, ZLIB) },
  ],
});

/**
 * Makes Deno's global stream classes fusestreams' (all or nothing; see the adapter contract): native
 * streams (fetch and Request/Response bodies, `Blob.stream()`, `FsFile.readable`) pipe into ours, and ours
 * are accepted as bodies by `Response`, `Request` and `fetch`.
 *
 * @param options `compression: "batched"` lets our CompressionStream gather chunks and flush none of them per chunk
 * (less CPU, smaller output, other bytes than Deno's own, and a chunk's output no longer at once); the default
 * keeps Deno's bytes and its flush per chunk. See {@link PatchOptions}.
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

/** A Deno `ReadableStream` reading one of ours, for Deno's APIs without the patch (see the contract). */
export const toNativeReadableStream: ToNativeReadableStream = toNative;
