/**
 * BUN-COALESCE: the byte chunks of a body of ours written into a `fetch` upload or a file of `Bun.write` are gathered
 * and handed to the sink's `write()` in pieces. Measured first on a `Bun.serve` response, whose sink then paid per
 * `write()` whatever its size (64 chunks of 1 KiB one by one 6,680 req/s, the same bytes in one `write()` 11,470,
 * Bun 1.4.5, 2026-11-28); responses no longer take this path (BUN-RESPONSE-AS-IS, below).
 *
 * What is gathered is written before it would grow past a piece, before a chunk that is not bytes (a string keeps
 * its place), before the body ends, and otherwise in the event loop's next turn (`setImmediate`; a `setTimeout(0)`
 * waited a millisecond on Bun). A chunk larger than a piece is written as it is, right after what was gathered
 * (joining it would only copy it). A `write()` that returns a promise (the sink is full) holds the next chunk's
 * write until it settles, as each chunk's own promise did.
 *
 * BUN-RESPONSE-AS-IS: a `Bun.serve` response is not coalesced. Its sink (Bun 1.4.5) keeps writes of up to 16 KiB in
 * a buffer of its own and sends them with the end, as it does for the chunks of Bun's own pump: each chunk written as
 * it comes leaves on the wire exactly as a native body's (the same `send`s, the same chunk framing), and joining them
 * here only added a copy (direct-body.ts; bench/README.md "Hono's `streamText()` on Bun against a JavaScript floor").
 *
 * BUN-COALESCE-WHOLE: the one-shot byte sink of `arrayBuffer()` / `bytes()` gives nothing out before the end, and
 * a `write()` per chunk cost it more than the join: it gets 64 KiB pieces, written when full or at the end, never
 * deferred.
 *
 * BUN-COALESCE-SCRATCH: the chunks are joined into one scratch buffer shared by every body, not a new one per
 * write: a new 64 KiB buffer per body cost a patched `Bun.serve` about 20 µs of CPU per request when responses were
 * still joined (its zeroing, and the page faults of the memory the collector gives back). Bun's sinks copy or send what `write()` is given
 * before it returns (a `Bun.serve` response, a `fetch` upload and a file, checked with a buffer overwritten at once,
 * the sink full or not: tests/unit/bun-bodies.test.ts); should a sink answer with a promise (it is full), the
 * scratch is left to it and the next join takes a new one.
 * @module
 */
import { copyParts } from "../kit/join-bytes.ts";
import { noop } from "../kit/natives.ts";

/** The largest piece written into a sink. */
export const COALESCE_BYTES: number = 64 * 1024;

/** The join buffer of BUN-COALESCE-SCRATCH (made when first needed): every piece fits in it. */
let scratch: Uint8Array<ArrayBuffer> | undefined;

/** Gathers the chunks written through it; see the module's documentation. */
export interface CoalescedWriter {
  /** Gathers `chunk` (bytes) or writes it after what is gathered (anything else); a promise: wait for it. */
  write(chunk: unknown): Promise<void> | undefined;
  /** Writes what is gathered now (before the body ends or fails); throws what a deferred write threw. */
  flush(): void;
}

/** Runs `fn` in the event loop's next turn: `setImmediate` (Bun, Node.js), else a `setTimeout` (where there is none). */
const afterTask: (fn: () => void) => void = typeof setImmediate === "function"
  ? (fn) => void setImmediate(fn)
  : (fn) => void setTimeout(fn, 0);

/** The bytes of a BufferSource as a Uint8Array (the chunk itself when it is one), or undefined. */
function bytesOf(chunk: unknown): Uint8Array | undefined {
  if (chunk instanceof Uint8Array) return chunk;
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  return undefined;
}

/**
 * A {@link CoalescedWriter} in front of the sink's `write` (`sinkWrite`), writing pieces of at most
 * {@link COALESCE_BYTES} of gathered chunks; with `inTime` false, what is gathered waits for a full piece or the end,
 * not for the next turn (a sink that gives nothing out before the end: Bun's one-shot byte sink).
 */
export function coalescedWriter(sinkWrite: (chunk: unknown) => unknown, inTime = true): CoalescedWriter {
  let parts: Uint8Array[] = [];
  let size = 0;
  /** A write of what is gathered is queued for the next turn. */
  let deferred = false;
  /** The sink's promise of the last write while it is pending (the sink is full). */
  let waiting: Promise<void> | undefined;
  /** What the deferred write threw (the sink failed): the next write throws it. */
  let failed: { error: unknown } | undefined;

  const sinkWritten = (written: unknown): Promise<void> | undefined => {
    if (!(written instanceof Promise)) return waiting;
    const settled: Promise<void> = written.then(() => {
      if (waiting === settled) waiting = undefined;
    });
    return (waiting = settled);
  };
  const flushNow = (): Promise<void> | undefined => {
    if (size === 0 && parts.length === 0) return waiting;
    let data: Uint8Array;
    let joined: Uint8Array | undefined;
    if (parts.length === 1) data = parts[0]!;
    else {
      copyParts(joined = scratch ??= new Uint8Array(COALESCE_BYTES), parts);
      data = joined.subarray(0, size);
    }
    parts = [];
    size = 0;
    const written = sinkWrite(data);
    // BUN-COALESCE-SCRATCH: a sink that answers with a promise may still hold what it was given.
    if (joined !== undefined && written instanceof Promise && scratch === joined) scratch = undefined;
    return sinkWritten(written);
  };
  const onNextTurn = (): void => {
    deferred = false;
    try {
      flushNow()?.then(undefined, noop);
    } catch (error) {
      failed = { error };
    }
  };
  return {
    write(chunk) {
      if (failed !== undefined) throw failed.error;
      const bytes = bytesOf(chunk);
      if (bytes === undefined) {
        flushNow();
        return sinkWritten(sinkWrite(chunk));
      }
      const length = bytes.byteLength;
      if (length > COALESCE_BYTES) {
        flushNow();
        return sinkWritten(sinkWrite(bytes));
      }
      if (size + length > COALESCE_BYTES) flushNow();
      parts.push(bytes);
      size += length;
      if (!deferred && inTime) {
        deferred = true;
        afterTask(onNextTurn);
      }
      return waiting;
    },
    flush() {
      if (failed !== undefined) throw failed.error;
      flushNow()?.then(undefined, noop);
    },
  };
}
