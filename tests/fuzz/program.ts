/**
 * Fuzz programs: plain-data descriptions of a stream pipeline (a source, optional stages, one consumer,
 * and the faults injected along the way), the generator that derives one from a seed, and the oracle
 * that says which chunks must arrive.
 *
 * A program is JSON: `describe()` prints it, `run.ts --program='<json>'` replays a hand-edited one.
 *
 * Two classes of program:
 *  - "exact": no pipe anywhere (sources, tee, readers, BYOB readers, async iteration, a hand-written
 *    writer loop). Every step is fixed by the standard, so ours and native must agree on everything that
 *    is compared (see compare.ts).
 *  - "piped": at least one pipeThrough/pipeTo. The standard leaves the pace of a pipe's reads to the
 *    implementation ("in parallel", "may read"), so how far the source runs ahead, and therefore how many
 *    chunks an error overtakes, legitimately differ. Such programs carry at most one fault, and compare
 *    only what the fault makes certain (see compare.ts).
 * @module
 */
import { Rng } from "./prng.ts";

/** How a callback completes: synchronously, after 1 or 3 microtask hops, or after a `setTimeout(0)`. */
export type Delay = "sync" | "micro1" | "micro3" | "macro";

/** What a cancel/abort reason is: an Error carrying a tag, a plain string, or `undefined`. */
export type ReasonKind = "error" | "string" | "undefined";

export interface DefaultSource {
  kind: "default";
  /** chunks are the numbers 1..count */
  count: number;
  /** "start": everything enqueued (and closed) in start(); "pull": pull() enqueues `perPull` chunks */
  delivery: "start" | "pull";
  perPull: number;
  pullDelay: Delay;
  /** close in the pull that enqueues the last chunk, or in the pull after it */
  closeIn: "same" | "next";
  startDelay: Delay;
  hwm: number;
  /** queuing strategy: none given, a CountQueuingStrategy, or a custom size() = (chunk % 3) + 1 */
  size: "default" | "count" | "byValue";
  /** size() throws for the chunk with this value */
  sizeThrowAt?: number;
  /** at pull number `at` (1-based; for "start": after `at` chunks) the source errors instead of enqueuing */
  error?: { at: number; how: "controller" | "throw" };
  cancelHow: "ok" | "throw" | "reject" | "async";
}

export interface ByteSource {
  kind: "bytes";
  /** segment lengths; bytes are a running counter (i % 251) */
  lengths: number[];
  delivery: "start" | "pull";
  pullDelay: Delay;
  /** answer a pending byobRequest with respond(n) / respondWithNewView(view), or always enqueue */
  useByob: "no" | "respond" | "newView";
  /** autoAllocateChunkSize (0: none) */
  autoAllocate: number;
  hwm: number;
  error?: { at: number; how: "controller" | "throw" };
  cancelHow: "ok" | "throw" | "reject" | "async";
}

export interface IterSource {
  kind: "from";
  /** ReadableStream.from() of an array, a sync iterator object or an async iterator object */
  iter: "array" | "sync" | "async";
  count: number;
  /** delay of an async iterator's next() */
  delay: Delay;
  hasReturn: boolean;
  /** next() call number `throwAt` (1-based) throws (sync) or rejects (async) */
  throwAt?: number;
}

export type Source = DefaultSource | ByteSource | IterSource;

export interface TeeStage {
  kind: "tee";
  follow: 0 | 1;
  /** the branch not followed: never read, read to the end, cancelled at once, or cancelled after `cancelAt` chunks */
  other: "ignore" | "read" | "cancel" | "cancelAt";
  cancelAt: number;
  reason: ReasonKind;
}

export interface TransformStage {
  kind: "transform";
  /** "none": a transformer without transform(); identity/map (2x+1)/split (2x, 2x+1)/filter (drop x % 3 == 0) */
  op: "none" | "identity" | "map" | "split" | "filter";
  delay: Delay;
  startDelay: Delay;
  flush: "none" | "extra" | "throw";
  flushDelay: Delay;
  hasCancel: boolean;
  wHwm: number;
  rHwm: number;
  /** at the `at`-th transform() call: throw, controller.error(), or enqueue then controller.terminate() */
  fault?: { at: number; how: "throw" | "error" | "terminate" };
  preventClose: boolean;
  preventAbort: boolean;
  preventCancel: boolean;
  /**
   * the pipe's AbortSignal is aborted at the end of source step `abortAtStep`. Never the last step: the step
   * that closes the source would race the pipe noticing the close ("in parallel" in the standard; Bun notices
   * it at once and ignores the abort, ours and the reference implementation honour the abort).
   */
  abortAtStep?: number;
  abortReason: ReasonKind;
}

export type Stage = TeeStage | TransformStage;

export interface SinkSpec {
  hwm: number;
  size: "default" | "byValue";
  writeDelay: Delay;
  startDelay: Delay;
  /** at the `at`-th write(): throw, return a rejected promise, or controller.error() */
  fault?: { at: number; how: "throw" | "reject" | "error" };
  closeHow: "ok" | "throw";
  abortHow: "ok" | "throw";
}

export type Consumer =
  | { kind: "reader"; batch: number; cancelAt?: number; reason: ReasonKind; releaseAt?: number }
  | { kind: "byob"; sizes: number[]; reuse: boolean; cancelAt?: number; reason: ReasonKind }
  | { kind: "iterate"; breakAt?: number; how: "break" | "throw"; preventCancel: boolean }
  | {
    kind: "pipeTo";
    sink: SinkSpec;
    preventClose: boolean;
    preventAbort: boolean;
    preventCancel: boolean;
    abortAtStep?: number;
    abortReason: ReasonKind;
  }
  | { kind: "writer"; sink: SinkSpec; awaitReady: boolean; abortAt?: number; reason: ReasonKind };

export interface Program {
  seed: number;
  source: Source;
  stages: Stage[];
  consumer: Consumer;
}

/** true when a pipe (pipeThrough or pipeTo) appears anywhere. */
export function isPiped(p: Program): boolean {
  return p.consumer.kind === "pipeTo" || p.stages.some((s) => s.kind === "transform");
}

/** true when the stream the consumer reads is a byte stream (byte source, only tees after it). */
export function endsInBytes(p: Program): boolean {
  return p.source.kind === "bytes" && p.stages.every((s) => s.kind === "tee");
}

/** The program as one line of JSON (replay with run.ts --program='...'). */
export function describe(p: Program): string {
  return JSON.stringify(p);
}

// ---------------------------------------------------------------------------------------------------
// Generator

const DELAYS: readonly (readonly [number, Delay])[] = [
  [5, "sync"],
  [2, "micro1"],
  [2, "micro3"],
  [2, "macro"],
];

function delay(rng: Rng): Delay {
  return rng.weighted(DELAYS);
}

function reason(rng: Rng): ReasonKind {
  return rng.weighted(
    [
      [3, "error"],
      [1, "string"],
      [1, "undefined"],
    ] as const,
  );
}

function hwm(rng: Rng): number {
  return rng.weighted(
    [
      [3, 0],
      [4, 1],
      [2, 2],
      [1, 4],
      [1, 16],
    ] as const,
  );
}

/** Number of source "steps" (pulls / next() calls) that happen if everything is read. */
export function sourceSteps(s: Source): number {
  switch (s.kind) {
    case "default":
      if (s.delivery === "start") return 0;
      return s.count === 0 ? 1 : Math.ceil(s.count / s.perPull) + (s.closeIn === "next" ? 1 : 0);
    case "bytes":
      return s.delivery === "start" ? 0 : s.lengths.length + (s.lengths.length === 0 ? 1 : 0);
    case "from":
      return s.iter === "array" ? 0 : s.count + 1;
  }
}

function genSource(rng: Rng, allowFaults: () => boolean, piped: boolean): Source {
  const kind = rng.weighted(
    [
      [5, "default"],
      [3, "bytes"],
      [2, "from"],
    ] as const,
  );
  const count = rng.weighted(
    [
      [1, 0],
      [6, rng.int(1, 6)],
      [2, rng.int(7, 20)],
    ] as const,
  );
  if (kind === "default") {
    const s: DefaultSource = {
      kind,
      count,
      delivery: rng.chance(0.3) ? "start" : "pull",
      perPull: rng.weighted(
        [
          [4, 1],
          [2, 2],
          [1, 3],
        ] as const,
      ),
      pullDelay: delay(rng),
      closeIn: rng.chance(0.3) ? "next" : "same",
      startDelay: rng.chance(0.7) ? "sync" : delay(rng),
      hwm: hwm(rng),
      size: rng.weighted(
        [
          [3, "default"],
          [1, "count"],
          [2, "byValue"],
        ] as const,
      ),
      cancelHow: rng.weighted(
        [
          [5, "ok"],
          [1, "throw"],
          [1, "reject"],
          [1, "async"],
        ] as const,
      ),
    };
    // size() runs only for chunks that go into the queue, not for one handed straight to a pending read
    // (ReadableStreamDefaultControllerEnqueue step 3), and whether a pipe has a read pending is up to the
    // implementation: a throwing size() only in programs without pipes.
    if (!piped && s.size === "byValue" && count > 0 && rng.chance(0.15) && allowFaults()) {
      s.sizeThrowAt = rng.int(1, count);
    } else if (rng.chance(0.25) && allowFaults()) {
      const steps = s.delivery === "start" ? count : sourceSteps(s);
      s.error = {
        at: rng.int(s.delivery === "start" ? 0 : 1, Math.max(1, steps)),
        how: rng.pick(["controller", "throw"] as const),
      };
    }
    return s;
  }
  if (kind === "bytes") {
    const lengths: number[] = [];
    for (let i = 0; i < count; i++) {
      lengths.push(rng.weighted(
        [
          [1, 1],
          [4, rng.int(2, 8)],
          [2, rng.int(9, 40)],
        ] as const,
      ));
    }
    const s: ByteSource = {
      kind,
      lengths,
      delivery: rng.chance(0.25) ? "start" : "pull",
      pullDelay: delay(rng),
      useByob: rng.weighted(
        [
          [2, "no"],
          [3, "respond"],
          [1, "newView"],
        ] as const,
      ),
      autoAllocate: rng.chance(0.35) ? rng.pick([1, 4, 16, 64]) : 0,
      hwm: rng.pick([0, 0, 1, 8, 64]),
      cancelHow: rng.weighted(
        [
          [5, "ok"],
          [1, "throw"],
          [1, "reject"],
        ] as const,
      ),
    };
    if (rng.chance(0.25) && allowFaults()) {
      const steps = s.delivery === "start" ? count : sourceSteps(s);
      s.error = {
        at: rng.int(s.delivery === "start" ? 0 : 1, Math.max(1, steps)),
        how: rng.pick(["controller", "throw"] as const),
      };
    }
    return s;
  }
  const s: IterSource = {
    kind,
    iter: rng.pick(["array", "sync", "async", "async"] as const),
    count,
    delay: delay(rng),
    hasReturn: rng.chance(0.7),
  };
  if (s.iter !== "array" && rng.chance(0.25) && allowFaults()) s.throwAt = rng.int(1, count + 1);
  return s;
}

function genSink(rng: Rng, allowFaults: () => boolean, totalWrites: number, minHwm: number): SinkSpec {
  const sink: SinkSpec = {
    hwm: Math.max(minHwm, hwm(rng)),
    size: rng.chance(0.2) ? "byValue" : "default",
    writeDelay: delay(rng),
    startDelay: rng.chance(0.7) ? "sync" : delay(rng),
    closeHow: "ok",
    abortHow: rng.chance(0.2) ? "throw" : "ok",
  };
  if (rng.chance(0.25) && allowFaults()) {
    sink.fault = { at: rng.int(1, Math.max(1, totalWrites)), how: rng.pick(["throw", "reject", "error"] as const) };
  } else if (rng.chance(0.08) && allowFaults()) {
    sink.closeHow = "throw";
  }
  return sink;
}

/** Derives a program from a seed (the same program on every runtime). */
export function generate(seed: number): Program {
  const rng = new Rng(seed);
  // Decide first whether this program pipes: piped programs get at most one fault.
  const piped = rng.chance(0.5);
  let faultBudget = piped ? (rng.chance(0.8) ? 1 : 0) : rng.int(0, 3);
  const allowFaults = (): boolean => {
    if (faultBudget <= 0) return false;
    faultBudget--;
    return true;
  };
  // Faults are rolled in random order of position so the one fault of a piped program is not always at the source.
  const source = genSource(rng, () => rng.chance(0.6) && allowFaults(), piped);
  const steps = sourceSteps(source);
  const stages: Stage[] = [];
  const nStages = piped ? rng.int(0, 4) : rng.weighted(
    [
      [3, 0],
      [2, 1],
      [1, 2],
    ] as const,
  );
  let expected = source.kind === "bytes" ? 0 : (source.kind === "default" || source.kind === "from" ? source.count : 0);
  for (let i = 0; i < nStages; i++) {
    if (!piped || rng.chance(0.25)) {
      const t: TeeStage = {
        kind: "tee",
        follow: rng.pick([0, 1] as const),
        other: rng.weighted(
          [
            [3, "ignore"],
            [3, "read"],
            [1, "cancel"],
            [1, "cancelAt"],
          ] as const,
        ),
        cancelAt: rng.int(0, Math.max(0, expected)),
        reason: reason(rng),
      };
      if ((t.other === "cancel" || t.other === "cancelAt") && !allowFaults()) t.other = "read";
      stages.push(t);
      continue;
    }
    const t: TransformStage = {
      kind: "transform",
      op: rng.weighted(
        [
          [1, "none"],
          [3, "identity"],
          [2, "map"],
          [2, "split"],
          [1, "filter"],
        ] as const,
      ),
      delay: delay(rng),
      startDelay: rng.chance(0.8) ? "sync" : delay(rng),
      flush: rng.chance(0.25) ? "extra" : "none",
      flushDelay: delay(rng),
      hasCancel: rng.chance(0.5),
      // A pipe never writes into a writable whose highWaterMark is 0 (desiredSize stays 0, the pipe waits for
      // it to become positive): spec-conformant deadlock, so pipe destinations get highWaterMark >= 1.
      wHwm: Math.max(1, hwm(rng)),
      rHwm: hwm(rng),
      preventClose: rng.chance(0.1),
      preventAbort: rng.chance(0.1),
      preventCancel: rng.chance(0.1),
      abortReason: reason(rng),
    };
    if (rng.chance(0.2) && allowFaults()) {
      const r = rng.int(0, 2);
      if (r === 0 && steps > 1) t.abortAtStep = rng.int(1, steps - 1);
      else if (r === 1 && expected > 0) {
        t.fault = { at: rng.int(1, expected), how: rng.pick(["throw", "error", "terminate"] as const) };
      } else t.flush = "throw";
    }
    // A transformer without transform() has no call to fail in.
    if (t.op === "none" && t.fault) t.op = "identity";
    if (t.op === "split") expected *= 2;
    if (t.flush === "extra") expected += 1;
    stages.push(t);
  }
  const bytes = source.kind === "bytes" && stages.every((s) => s.kind === "tee");
  let consumer: Consumer;
  const kind = piped
    ? rng.weighted(
      [
        [1, "reader"],
        [1, "iterate"],
        [3, "pipeTo"],
      ] as const,
    )
    : rng.weighted(
      [
        [3, "reader"],
        [bytes ? 3 : 0, "byob"],
        [2, "iterate"],
        [2, "writer"],
      ] as const,
    );
  const at = (): number => rng.int(0, Math.max(0, expected + 1));
  switch (kind) {
    case "reader": {
      const c: Consumer = {
        kind,
        batch: rng.weighted(
          [
            [4, 1],
            [1, 2],
            [1, 3],
          ] as const,
        ),
        reason: reason(rng),
      };
      if (rng.chance(0.3) && allowFaults()) c.cancelAt = at();
      if (rng.chance(0.15)) c.releaseAt = at();
      consumer = c;
      break;
    }
    case "byob": {
      const sizes: number[] = [];
      const n = rng.int(1, 4);
      for (let i = 0; i < n; i++) sizes.push(rng.pick([1, 2, 3, 5, 8, 16, 64]));
      const c: Consumer = { kind, sizes, reuse: rng.chance(0.4), reason: reason(rng) };
      if (rng.chance(0.3) && allowFaults()) c.cancelAt = rng.int(0, 6);
      consumer = c;
      break;
    }
    case "iterate": {
      const c: Consumer = { kind, how: rng.chance(0.7) ? "break" : "throw", preventCancel: rng.chance(0.25) };
      if (rng.chance(0.4) && allowFaults()) c.breakAt = at();
      consumer = c;
      break;
    }
    case "pipeTo": {
      const c: Consumer = {
        kind,
        sink: genSink(rng, allowFaults, expected, 1),
        preventClose: rng.chance(0.15),
        preventAbort: rng.chance(0.15),
        preventCancel: rng.chance(0.15),
        abortReason: reason(rng),
      };
      if (steps > 1 && rng.chance(0.2) && allowFaults()) c.abortAtStep = rng.int(1, steps - 1);
      // A failing sink with preventClose: the pipe fulfills if it noticed the source's close before the
      // failure, rejects otherwise, and how far it read ahead is the implementation's choice.
      if (c.sink.fault) c.preventClose = false;
      consumer = c;
      break;
    }
    case "writer": {
      const awaitReady = rng.chance(0.7);
      const c: Consumer = {
        kind,
        // awaiting `ready` of a highWaterMark-0 writable before the first write never ends (same as above)
        sink: genSink(rng, allowFaults, expected, awaitReady ? 1 : 0),
        awaitReady,
        reason: reason(rng),
      };
      if (rng.chance(0.25) && allowFaults()) c.abortAt = at();
      consumer = c;
      break;
    }
  }
  const program: Program = { seed, source, stages, consumer };
  // When a piped program's fault is downstream of the source, whether the pipe cancels the source or had
  // already read it to its end depends on how far the pipe read ahead (the standard leaves that open); a
  // cancel() that fails would then decide the pipe's result one way or the other. So it succeeds.
  if (
    piped && faultOrigin(program) > 0 && source.kind !== "from" &&
    (source.cancelHow === "throw" || source.cancelHow === "reject")
  ) {
    source.cancelHow = "ok";
  }
  // Likewise a transform's flush() that is still running when a cancel or abort from downstream arrives: the
  // cancel waits for it and fails with its error (an enqueue() into the cancelled readable side throws), and
  // whether the close reached the flush first is the pipes' pace (seed 13658). So such a flush is synchronous.
  if (piped) {
    const origin = faultOrigin(program);
    for (const [i, st] of stages.entries()) {
      if (st.kind === "transform" && st.flush === "extra" && origin > i + 1) st.flushDelay = "sync";
    }
  }
  return program;
}

/** Position of the fault in a piped program (Infinity: no fault). */
export function faultOrigin(p: Program): number {
  const s = p.source;
  if (s.kind === "default" && (s.error || s.sizeThrowAt !== undefined)) return 0;
  if (s.kind === "bytes" && s.error) return 0;
  if (s.kind === "from" && s.throwAt !== undefined) return 0;
  for (const [i, st] of p.stages.entries()) {
    if (st.kind === "tee") {
      if (st.other === "cancel" || st.other === "cancelAt") return i + 1;
    } else {
      if (st.abortAtStep !== undefined) return i + 0.5;
      if (st.fault || st.flush === "throw") return i + 1;
    }
  }
  const c = p.consumer;
  switch (c.kind) {
    case "reader":
    case "byob":
      if (c.cancelAt !== undefined) return p.stages.length + 1;
      break;
    case "iterate":
      if (c.breakAt !== undefined) return p.stages.length + 1;
      break;
    case "pipeTo":
    case "writer":
      if (c.sink.fault || c.sink.closeHow === "throw") return p.stages.length + 1;
      if (c.kind === "pipeTo" && c.abortAtStep !== undefined) return p.stages.length + 1;
      if (c.kind === "writer" && c.abortAt !== undefined) return p.stages.length + 1;
      break;
  }
  return Number.POSITIVE_INFINITY;
}

// ---------------------------------------------------------------------------------------------------
// Oracle

/** The i-th byte of a byte source. */
export function byteAt(i: number): number {
  return i % 251;
}

/** What a flush "extra" enqueues in stage i (numbers), and its byte-chunk form. */
export function flushExtra(stage: number): number {
  return -(100 + stage);
}
export const FLUSH_EXTRA_BYTE = 238;

/** Output chunks of one transform op on a number chunk. */
export function applyOp(op: TransformStage["op"], x: number): number[] {
  switch (op) {
    case "none":
    case "identity":
      return [x];
    case "map":
      return [2 * x + 1];
    case "split":
      return [2 * x, 2 * x + 1];
    case "filter":
      return x % 3 === 0 ? [] : [x];
  }
}

/** Byte form of an op (applied to each byte; splitting and filtering keep the concatenation). */
export function applyByteOp(op: TransformStage["op"], b: number): number {
  return op === "map" ? (b + 1) & 0xff : b;
}

/**
 * The ideal chunk sequences, as if nothing failed except `terminate` (which closes early). For byte data the
 * unit is one byte (chunk boundaries are not modelled). Keys: "src" (what the source produces), "t<i>"
 * (what stage i's transform() receives, one number or one byte per unit), "tee<i>" (the other branch of
 * tee stage i), "out" (what the consumer receives, or the sink is written).
 */
export interface Expected {
  bytes: boolean;
  seqs: Record<string, number[]>;
  /**
   * Points whose sequence may end early at a place the oracle cannot know: byte data through a transform
   * that terminates at its k-th transform() call (k counts chunks, and byte chunk boundaries are not
   * modelled), and everything downstream of it, each with what the flushes downstream of the cut append
   * behind it. There only the prefix invariant holds (after that tail, if it arrived, is taken off).
   */
  partial: Map<string, number[]>;
}

export function oracle(p: Program): Expected {
  const s = p.source;
  const bytes = s.kind === "bytes";
  let seq: number[] = [];
  if (s.kind === "bytes") {
    let n = 0;
    for (const len of s.lengths) for (let i = 0; i < len; i++) seq.push(byteAt(n++));
  } else {
    for (let i = 1; i <= s.count; i++) seq.push(i);
  }
  const seqs: Record<string, number[]> = { src: seq };
  const partial = new Map<string, number[]>();
  // bytes only: after a terminating stage, what later flushes append behind the unknown cut
  let tail: number[] | undefined;
  p.stages.forEach((st, i) => {
    if (st.kind === "tee") {
      seqs[`tee${i}`] = seq;
      if (tail) partial.set(`tee${i}`, tail);
      return;
    }
    seqs[`t${i}`] = seq;
    if (tail) partial.set(`t${i}`, tail);
    const out: number[] = [];
    let terminated = false;
    if (bytes && st.fault?.how === "terminate") {
      // terminate() after the k-th transform() call: which byte that is depends on the chunk boundaries
      terminated = true;
      partial.set(`t${i}`, tail ?? []);
      tail = [];
    }
    for (let k = 0; k < seq.length; k++) {
      const x = seq[k]!;
      if (bytes) out.push(applyByteOp(st.op, x));
      else out.push(...applyOp(st.op, x));
      if (!bytes && st.fault?.how === "terminate" && st.fault.at === k + 1) {
        terminated = true;
        seqs[`t${i}`] = seq.slice(0, k + 1);
        break;
      }
    }
    if (tail && !terminated) tail = tail.map((b) => applyByteOp(st.op, b));
    if (!terminated && st.flush === "extra") {
      const extra = bytes ? [FLUSH_EXTRA_BYTE, i & 0xff] : [flushExtra(i)];
      if (tail) tail.push(...extra);
      else out.push(...extra);
    }
    seq = out;
  });
  seqs["out"] = seq;
  if (tail) partial.set("out", tail);
  return { bytes, seqs, partial };
}
