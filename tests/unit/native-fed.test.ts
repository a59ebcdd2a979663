/**
 * adapters/kit/native-fed.ts (BRIDGE-NATIVE-FED): with the kit's shared patch steps on (built from the kit's source,
 * so that this file's marker is the one the patch writes, in the dist/ run too), which readable sides a body bridge
 * reads rather than pipes: those of `pipeThrough()` from a runtime's own stream or from a body, and of any
 * `pipeThrough()` after one; not those of a chain of ours; and BODY-NATIVE-FED, how the Deno adapter's body bridge
 * (`batchedBodyParts`) reads such a readable side. Runs on every runtime.
 *
 *   node tests/unit/native-fed.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { isNativeFed, markNativeFed } from "../../adapters/kit/native-fed.ts";
import { batchedBodyParts, claimBatchedBody } from "../../adapters/kit/batched-body-bridge.ts";
import * as fuse from "../../mod.ts";
import { isBodyShell } from "../../adapters/kit/body-shells.ts";
import { isNativeReadable } from "../../adapters/kit/natives.ts";
import { createGlobalPatch } from "../../adapters/kit/global-patch.ts";

const g = globalThis as unknown as Record<PropertyKey, unknown>;
// Bun's body getters cannot be replaced: its bodies stay native there (as with Bun's adapter), shells elsewhere.
const patch = createGlobalPatch({ runtime: "edge", checkRuntime: () => undefined, shared: { bodies: !("Bun" in g) } });
const NativeRS = globalThis.ReadableStream;
const NativeTS = globalThis.TransformStream;

function nativeSource(): ReadableStream<Uint8Array> {
  return new NativeRS<Uint8Array>({
    start(c) {
      c.enqueue(new Uint8Array([1, 2]));
      c.close();
    },
  });
}

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<number[]> {
  const out: number[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) out.push(...chunk);
  return out;
}

test("native-fed: pipeThrough() from a native stream or an untouched body, and after one; not from ours", async () => {
  patch.patchGlobalWebStreams();
  try {
    const fromNative = nativeSource().pipeThrough(new TransformStream());
    const body = new Response(new Uint8Array([3, 4])).body!;
    // a shell of the runtime's own body, or (Bun) that body itself; Node.js's undici may make it with the global class
    const runtimeBody = isBodyShell(body) || isNativeReadable(body);
    if ("Deno" in g || "Bun" in g) assert.ok(runtimeBody, "the body is the runtime's own or a shell of it");
    const fromBody = body.pipeThrough(new TransformStream());
    const after = fromNative.pipeThrough(new TransformStream());
    const ours = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new Uint8Array([5]));
        c.close();
      },
    });
    const fromOurs = ours.pipeThrough(new TransformStream());
    const intoNative = new ReadableStream<Uint8Array>().pipeThrough(new NativeTS());
    assert.equal(
      [fromNative, fromBody, after, fromOurs, intoNative].map(isNativeFed),
      [true, runtimeBody, true, false, false],
    );
    // and what they carry is unchanged
    assert.equal(await bytesOf(after), [1, 2]);
    assert.equal(await bytesOf(fromBody), [3, 4]);
    assert.equal(await new Response(fromOurs).arrayBuffer().then((b) => [...new Uint8Array(b)]), [5]);
  } finally {
    patch.unpatchGlobalWebStreams();
  }
});

test("native-fed: nothing is marked without the patch", () => {
  const fromNative = nativeSource().pipeThrough(new NativeTS());
  assert.is(isNativeFed(fromNative), false);
});

/**
 * A readable side of ours marked as fed by a native stream, carrying `chunks` one per task (as a native body's
 * reads come), then ending with `end` (a close, or this error); `cancelled` gets each cancel's reason.
 */
function fedReadable(
  chunks: unknown[],
  end?: Error,
  cancelled: unknown[] = [],
  pulled = { count: 0 },
): fuse.ReadableStream<unknown> {
  let i = 0;
  const source = new fuse.ReadableStream<unknown>({
    async pull(c) {
      await new Promise((r) => setTimeout(r, 0));
      pulled.count++;
      if (i < chunks.length) c.enqueue(chunks[i++]);
      else if (end === undefined) c.close();
      else c.error(end);
    },
    cancel(reason) {
      cancelled.push(reason);
    },
  }, { highWaterMark: 0 });
  const readable = source.pipeThrough(new fuse.TransformStream());
  markNativeFed(readable);
  return readable;
}

async function readAll(native: ReadableStream<Uint8Array>, slow = false): Promise<{ bytes: number[]; end: unknown }> {
  const reader = native.getReader();
  const bytes: number[] = [];
  try {
    for (;;) {
      if (slow) await new Promise((r) => setTimeout(r, 1));
      const { done, value } = await reader.read();
      if (done) return { bytes, end: "closed" };
      bytes.push(...value!);
    }
  } catch (error) {
    return { bytes, end: error };
  }
}

test("BODY-NATIVE-FED: every byte in order, ours locked only at the first pull, its error by identity", async () => {
  for (const slow of [false, true]) {
    const chunks = Array.from({ length: 40 }, (_, i) => new Uint8Array(i % 7).fill(i));
    const readable = fedReadable(chunks);
    const native = batchedBodyParts(readable as never, "Response");
    assert.is(readable.locked, false, "nothing read before the first pull");
    const { bytes, end } = await readAll(native, slow);
    assert.equal(bytes, chunks.flatMap((c) => [...c]), slow ? "slow reader" : "fast reader");
    assert.is(end, "closed");
  }
  const boom = new Error("boom");
  const failing = await readAll(
    batchedBodyParts(fedReadable([new Uint8Array([1]), new Uint8Array([2])], boom) as never, "Response"),
  );
  assert.equal(failing.bytes, [1, 2], "the chunks before the error");
  assert.is(failing.end, boom, "the error, by identity");
});

test("BODY-NATIVE-FED: a consumer that stops reading stops ours within the high-water marks (no read-ahead)", async () => {
  const pulled = { count: 0 };
  const chunks = Array.from({ length: 40 }, (_, i) => new Uint8Array([i]));
  const reader = batchedBodyParts(fedReadable(chunks, undefined, [], pulled) as never, "Response").getReader();
  assert.equal([...(await reader.read()).value!], [0]);
  await new Promise((r) => setTimeout(r, 30));
  // one chunk read, one in the transform's writable side (high-water mark 1), one in the pipe's hands
  assert.ok(pulled.count <= 3, `the source was pulled ${pulled.count} times for one chunk read`);
  reader.releaseLock();
});

test("BODY-NATIVE-FED: a chunk that is not bytes is a TypeError after the chunks before it, and cancels ours", async () => {
  const cancelled: unknown[] = [];
  const result = await readAll(
    batchedBodyParts(
      fedReadable([new Uint8Array([1]), "text", new Uint8Array([3])], undefined, cancelled) as never,
      "Response",
    ),
  );
  assert.equal(result.bytes, [1]);
  assert.instance(result.end, TypeError);
  assert.match(
    String((result.end as Error).message),
    "Response: a body stream chunk must be an ArrayBuffer or ArrayBufferView",
  );
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(cancelled, [result.end], "ours cancelled with the same error");
});

test("BODY-NATIVE-FED: claimed by a whole-body consumer before its first pull, not after; cancel before and during", async () => {
  const readable = fedReadable([new Uint8Array([1])]);
  const native = batchedBodyParts(readable as never, "Response");
  const claimed = claimBatchedBody(native);
  assert.is(claimed?.stream, readable, "claimed: the consumer reads ours itself");
  assert.is(claimed?.context, "Response");
  assert.is(claimBatchedBody(native), undefined, "claimed once");
  assert.equal(await readAll(native), { bytes: [], end: "closed" }, "the native stream then closes unread");
  assert.is(readable.locked, false, "ours left to the consumer");

  const pulled = batchedBodyParts(fedReadable([new Uint8Array([2]), new Uint8Array([3])]) as never, "Response");
  const reader = pulled.getReader();
  assert.equal([...(await reader.read()).value!], [2]);
  reader.releaseLock();
  assert.is(claimBatchedBody(pulled), undefined, "not once pulled");

  const early: unknown[] = [];
  const before = fedReadable([new Uint8Array([4])], undefined, early);
  await batchedBodyParts(before as never, "Response").cancel("early");
  assert.equal(early, ["early"], "cancelled before the first pull: ours with the reason");
  const late: unknown[] = [];
  const during = batchedBodyParts(
    fedReadable([new Uint8Array([5]), new Uint8Array([6])], undefined, late) as never,
    "Response",
  );
  const r = during.getReader();
  await r.read();
  await r.cancel("late");
  assert.equal(late, ["late"], "cancelled mid-way: ours with the reason");
});

test.run();
