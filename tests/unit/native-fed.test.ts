/**
 * adapters/kit/native-fed.ts (BRIDGE-NATIVE-FED): with the kit's shared patch steps on (built from the kit's source,
 * so that this file's marker is the one the patch writes, in the dist/ run too), which readable sides a body bridge
 * reads rather than pipes: those of `pipeThrough()` from a runtime's own stream or from a body, and of any
 * `pipeThrough()` after one; not those of a chain of ours. Runs on every runtime.
 *
 *   node tests/unit/native-fed.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { isNativeFed } from "../../adapters/kit/native-fed.ts";
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

test.run();
