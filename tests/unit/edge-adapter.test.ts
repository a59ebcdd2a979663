/**
 * The edge adapter outside the edge: on Node, Deno and Bun its global patch must refuse at once and change
 * nothing (each of them has its own adapter), while toNativeReadableStream(), which needs only the
 * web-standard ReadableStream, works anywhere. The edge runtimes themselves are tested in tests/edge
 * (workerd and edge-runtime, started by `npm test`).
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as edge from "../../adapters/edge/mod.ts";
import { diffSnapshot, takeSnapshot } from "../shared/snapshot.ts";

const NativeReadableStream = globalThis.ReadableStream;

/** What changed since `before`. */
function changes(before: ReturnType<typeof takeSnapshot>): string[] {
  return diffSnapshot(before, takeSnapshot({ edge }));
}

test("edge patchGlobalWebStreams() outside workerd/edge-light throws at once and changes nothing", () => {
  const before = takeSnapshot({ edge });
  let error: unknown;
  try {
    edge.patchGlobalWebStreams();
  } catch (e) {
    error = e;
  }
  assert.instance(error, Error, "it did not throw");
  const message = (error as Error).message;
  assert.match(message, /workerd/);
  assert.match(message, /edge-light/);
  const ua = (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent;
  if (ua !== undefined) assert.ok(message.includes(ua), `the message names the runtime (${ua}): ${message}`);
  assert.is(edge.isGlobalWebStreamsPatched(), false);
  assert.equal(changes(before), []);
  assert.is(globalThis.ReadableStream, NativeReadableStream);
});

test("edge unpatchGlobalWebStreams() without a patch does nothing", () => {
  const before = takeSnapshot({ edge });
  edge.unpatchGlobalWebStreams();
  assert.equal(changes(before), []);
});

test("edge toNativeReadableStream() gives a native stream with the exact bytes, here too", async () => {
  const chunks = [new Uint8Array([1, 2, 3]), new Uint8Array([4]), new Uint8Array([5, 6])];
  const native = edge.toNativeReadableStream(edge.ReadableStream.from(chunks));
  assert.instance(native, NativeReadableStream);
  assert.is(edge.readableStreamState(native), undefined, "not one of ours");
  const bytes = new Uint8Array(await new Response(native).arrayBuffer());
  assert.equal(Array.from(bytes), [1, 2, 3, 4, 5, 6]);
});

test.run();
