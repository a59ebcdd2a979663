/**
 * BUN-COALESCE and BUN-COALESCE-WHOLE (adapters/bun/coalesced-writes.ts): the writer in front of a Bun sink's
 * `write()`, driven with a recording sink (it copies what it is given before returning, as Bun's sinks do: the
 * join buffer is reused). What the sink gets: the same bytes in the same order, gathered pieces no larger than the
 * piece size, a chunk larger than a piece handed over as it is (not copied) after what was gathered, a string in
 * its place, what a task gathered written in the next turn without a flush (unless the writer never defers: the
 * one-shot byte sink). Pure JavaScript: runs everywhere (the next-turn case where there is a `setImmediate`).
 *
 *   node tests/unit/bun-coalesced-writes.test.ts   deno run -A tests/unit/bun-coalesced-writes.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { COALESCE_BYTES, coalescedWriter } from "../../adapters/bun/coalesced-writes.ts";
import { concat, same } from "../shared/compression-suite.ts";

/** The bytes the sink was given, one piece after the other. */
const joined = (parts: readonly unknown[]): Uint8Array => concat(parts as Uint8Array[]);

/** A sink recording copies of what it was given, and the very objects. */
function recordingSink(): { write: (chunk: unknown) => undefined; copies: unknown[]; given: unknown[] } {
  const copies: unknown[] = [];
  const given: unknown[] = [];
  return {
    copies,
    given,
    write(chunk) {
      given.push(chunk);
      copies.push(chunk instanceof Uint8Array ? chunk.slice() : chunk);
      return undefined;
    },
  };
}

function filled(length: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (seed * 31 + i * 7) & 255;
  return bytes;
}

const task = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));
/**
 * The event loop's next turn, when the writer writes what a task gathered: an immediate where the runtime has
 * `setImmediate` (Bun, Node.js; Node may run a 0 ms timer before an immediate queued earlier), else a timer task.
 */
const nextTurn = typeof setImmediate === "function"
  ? (): Promise<void> => new Promise((resolve) => setImmediate(resolve))
  : task;

test("an upload's 128 chunks of 1 KiB reach the sink as two 64 KiB pieces, in order", () => {
  const sink = recordingSink();
  const writer = coalescedWriter(sink.write);
  const chunks = Array.from({ length: 128 }, (_, i) => filled(1024, i));
  for (const chunk of chunks) assert.is(writer.write(chunk), undefined);
  writer.flush();
  assert.equal(sink.copies.map((c) => (c as Uint8Array).byteLength), [COALESCE_BYTES, COALESCE_BYTES]);
  same(joined(sink.copies), concat(chunks), "the same bytes, in order");
});

test("a chunk larger than a piece is handed over as it is, after what was gathered", () => {
  const sink = recordingSink();
  const writer = coalescedWriter(sink.write);
  const small = [filled(100, 1), filled(200, 2)];
  const big = filled(COALESCE_BYTES + 1, 3);
  const tail = filled(50, 4);
  writer.write(small[0]);
  writer.write(small[1]);
  writer.write(big);
  writer.write(tail);
  writer.flush();
  assert.equal(sink.copies.map((c) => (c as Uint8Array).byteLength), [300, COALESCE_BYTES + 1, 50]);
  assert.ok(sink.given[1] === big, "the big chunk itself, not a copy");
  same(joined(sink.copies), concat([...small, big, tail]), "the same bytes, in order");
});

test("gathered pieces never pass the piece size, whatever the chunk sizes; the bytes stay as written", () => {
  const piece = COALESCE_BYTES;
  const sink = recordingSink();
  const writer = coalescedWriter(sink.write);
  const chunks: Uint8Array[] = [];
  let seed = 7;
  for (let i = 0; i < 400; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const length = i % 37 === 0 ? piece + (seed % 5000) : seed % (piece / 2 + 1);
    chunks.push(filled(length, i));
  }
  for (const chunk of chunks) writer.write(chunk);
  writer.flush();
  let big = 0;
  for (const given of sink.given) {
    if ((given as Uint8Array).byteLength <= piece) continue;
    big++;
    assert.ok(chunks.includes(given as Uint8Array), "a write above the piece size is a whole chunk of its own");
  }
  assert.is(big, chunks.filter((c) => c.byteLength > piece).length, "each big chunk written alone");
  same(joined(sink.copies), concat(chunks), "the same bytes, in order");
});

test("a string keeps its place; what a task gathered leaves a task later without a flush", async () => {
  const sink = recordingSink();
  const writer = coalescedWriter(sink.write);
  writer.write(filled(10, 1));
  writer.write("text");
  writer.write(filled(20, 2));
  assert.equal(sink.copies.map((c) => (typeof c === "string" ? c : (c as Uint8Array).byteLength)), [10, "text"]);
  await nextTurn();
  assert.equal(sink.copies.map((c) => (typeof c === "string" ? c : (c as Uint8Array).byteLength)), [10, "text", 20]);
});

test("what a task gathered leaves in the event loop's next turn (before an immediate queued after it)", async () => {
  // (a setTimeout(0) of the writer's would hold the bytes for a millisecond on Bun)
  const sink = recordingSink();
  const writer = coalescedWriter(sink.write);
  writer.write(filled(30, 3));
  writer.write(filled(40, 4));
  assert.equal(sink.copies.length, 0);
  await nextTurn();
  assert.equal(sink.copies.map((c) => (c as Uint8Array).byteLength), [70]);
});

test("the one-shot byte sink's writer (no deferred write) writes only full pieces and at a flush", async () => {
  const sink = recordingSink();
  const writer = coalescedWriter(sink.write, false);
  const chunks = Array.from({ length: 100 }, (_, i) => filled(1000, i));
  for (const chunk of chunks) writer.write(chunk);
  await task();
  assert.equal(sink.copies.map((c) => (c as Uint8Array).byteLength), [65000]);
  writer.flush();
  assert.equal(sink.copies.map((c) => (c as Uint8Array).byteLength), [65000, 35000]);
  same(joined(sink.copies), concat(chunks), "the same bytes, in order");
});

test.run();
