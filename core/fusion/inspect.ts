/**
 * inspectPipeChain(): which path the pipes of a chain took (FP-FUSE, core/README.md). Not part of the
 * standard: a fusestreams extra, so that a silent fallback to the spec's promise-driven path is visible.
 * @module
 */
import { typeError } from "../shared/webidl.ts";
import { writableStreamInternalOrUndefined } from "../writable/brand.ts";
import type { WritableStreamInternal } from "../writable/stream-internal.ts";
import { readableStreamInternalOrUndefined } from "../readable/brand.ts";
import type { ReadableStreamInternal } from "../readable/stream-internal.ts";
import { HasDirectWriteGate } from "./gate.ts";
import { type PipeRecord, PipeRecordOf } from "./pipe-record.ts";

/**
 * How a pipe moved its chunks so far: `"fused"` when every chunk was handed to the destination by a direct
 * call, `"spec"` when every chunk took the standard's path (queued at the destination's writer), `"mixed"`
 * when both happened, `"idle"` when no chunk has been written yet.
 */
export type PipeLinkMode = "fused" | "mixed" | "spec" | "idle";

/** One pipe of a chain, as {@link inspectPipeChain} reports it. */
export interface PipeLinkReport {
  /** How this pipe moved its chunks so far. */
  readonly mode: PipeLinkMode;
  /** Chunks handed straight to the destination's sink or transformer. */
  readonly directWrites: number;
  /**
   * Chunks written through the destination's writer queue, as the standard describes, or handed to a sink
   * that returned a promise. Not counted: writes queued before the destination's start() finished, and the
   * (at most two) chunks a pipe held for a transform's backpressure and wrote through the writer as it stopped.
   */
  readonly specWrites: number;
  /**
   * Why the latest chunk that took the standard's path could not be fused, e.g. "the destination's write()
   * or transform() returned a promise"; `undefined` when every chunk was fused.
   */
  readonly reason: string | undefined;
  /** `false` once the pipe has finished (its promise settled or is about to). */
  readonly active: boolean;
  /** `"transform"` when the destination is a TransformStream's writable side, else `"sink"`. */
  readonly destination: "transform" | "sink";
}

/** The pipes that feed a stream, from the first (nearest the source) to the last. */
export interface PipeChainReport {
  /**
   * `"fused"`: every link that moved chunks was fused; `"partly-fused"`: some chunks were fused and some were
   * not; `"spec"`: none was; `"idle"`: no link has moved a chunk yet; `"none"`: no fusestreams pipe feeds it.
   */
  readonly mode: "fused" | "partly-fused" | "spec" | "idle" | "none";
  /** Each pipe, first (nearest the source) to last. */
  readonly links: readonly PipeLinkReport[];
  /**
   * What feeds the first link: `"source"` (an underlying source, `ReadableStream.from()`, a tee branch or
   * another stream that is not the readable side of a transform), or `"unpiped"` (the readable side of a
   * TransformStream whose writable side is written by a writer, or by a pipe of another implementation).
   */
  readonly head: "source" | "unpiped" | "none";
}

/** The fields of a pipe (readable/pipe-to.ts) this module reads. */
interface PipeLink extends PipeRecord {
  readonly source: ReadableStreamInternal;
  readonly dest: WritableStreamInternal;
  readonly directWrites: number;
  readonly specWrites: number;
  readonly fallback: string | undefined;
}

/** The pipe recorded on `dest` (a Pipe of readable/pipe-to.ts, which has every field of a link). */
function linkOf(dest: WritableStreamInternal | undefined): PipeLink | undefined {
  return dest === undefined ? undefined : PipeRecordOf(dest) as PipeLink | undefined;
}

/** The writable side of the transform `readable` is the readable side of, if it is one. */
function transformWritableOf(readable: ReadableStreamInternal): WritableStreamInternal | undefined {
  const transform = readable.transform as { writable: WritableStreamInternal } | undefined;
  return transform?.writable;
}

function linkReport(pipe: PipeLink): PipeLinkReport {
  const { directWrites, specWrites } = pipe;
  const mode: PipeLinkMode = directWrites === 0
    ? (specWrites === 0 ? "idle" : "spec")
    : (specWrites === 0 ? "fused" : "mixed");
  return {
    mode,
    directWrites,
    specWrites,
    reason: specWrites === 0 ? undefined : pipe.fallback,
    active: pipe.active,
    destination: HasDirectWriteGate(pipe.dest) ? "transform" : "sink",
  };
}

/**
 * Reports how the pipes feeding `stream` moved their chunks: pass the end of a chain (the readable a
 * `pipeThrough()` chain returned, or the WritableStream a chain was piped to) and get one entry per
 * `pipeTo()`/`pipeThrough()` link between fusestreams streams, from the source to `stream`.
 *
 * Fused links hand each chunk to the next transformer or sink by direct calls; a link falls back to the
 * standard's promise-driven path where fusion cannot keep the standard's behaviour (a transformer or sink
 * that returns a promise, writes queued behind a busy destination, a stream of another implementation), and
 * `reason` says why.
 *
 * @example
 * ```ts
 * import { inspectPipeChain, ReadableStream, TransformStream } from "fusestreams";
 *
 * const out = ReadableStream.from(["a", "b"]).pipeThrough(new TransformStream()).pipeThrough(new TransformStream());
 * for await (const chunk of out) console.log(chunk);
 * inspectPipeChain(out).mode; // "fused"
 * ```
 * @throws {TypeError} when `stream` is not a fusestreams ReadableStream or WritableStream.
 */
export function inspectPipeChain(stream: unknown): PipeChainReport {
  let pipe: PipeLink | undefined;
  const readable = readableStreamInternalOrUndefined(stream);
  if (readable !== undefined) {
    pipe = linkOf(transformWritableOf(readable));
    if (pipe === undefined) {
      return { mode: "none", links: [], head: readable.transform !== undefined ? "unpiped" : "none" };
    }
  } else {
    const writable = writableStreamInternalOrUndefined(stream);
    if (writable === undefined) {
      throw typeError("inspectPipeChain() takes a fusestreams ReadableStream or WritableStream");
    }
    pipe = linkOf(writable);
    if (pipe === undefined) return { mode: "none", links: [], head: "none" };
  }
  const links: PipeLinkReport[] = [];
  let head: PipeChainReport["head"] = "source";
  // Walk upstream: a pipe's source is the readable side of a transform whose writable side another pipe feeds.
  const seen = new Set<PipeLink>();
  while (pipe !== undefined && !seen.has(pipe)) {
    seen.add(pipe);
    links.push(linkReport(pipe));
    const upstream = transformWritableOf(pipe.source);
    if (upstream === undefined) break;
    pipe = linkOf(upstream);
    if (pipe === undefined) head = "unpiped";
  }
  links.reverse();
  let fused = 0;
  let spec = 0;
  for (const link of links) {
    if (link.mode === "fused") fused++;
    else if (link.mode === "spec") spec++;
    else if (link.mode === "mixed") {
      fused++;
      spec++;
    }
  }
  const mode = fused === 0 ? (spec === 0 ? "idle" : "spec") : (spec === 0 ? "fused" : "partly-fused");
  return { mode, links, head };
}
