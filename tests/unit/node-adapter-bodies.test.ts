/**
 * Node.js adapter, patch on: bad input in bodies made from our streams gets the runtime's own errors, as
 * for a native stream in the same state (undici reads our streams itself), and nothing is stringified.
 * Node.js only; skipped with a message elsewhere.
 *
 *   node tests/unit/node-adapter-bodies.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { patchGlobalWebStreams, ReadableStream, unpatchGlobalWebStreams } from "../../adapters/node/mod.ts";

const g = globalThis as unknown as Record<string, unknown>;
const runtime = "Deno" in g ? "Deno" : "Bun" in g ? "Bun" : "Node.js";
const NativeRS = globalThis.ReadableStream;
const nodeTest = runtime === "Node.js" ? test : test.skip;
if (runtime !== "Node.js") {
  console.log(`node-adapter-bodies: skipped on ${runtime}: the Node.js adapter's patch refuses to run there`);
}

/** The error (name and message) a promise rejects with, or "fulfilled". */
async function outcome(p: Promise<unknown>): Promise<string> {
  return p.then(
    () => "fulfilled",
    (e: Error) => `${e.name}: ${e.message}`,
  );
}

async function patched(fn: () => Promise<void>): Promise<void> {
  patchGlobalWebStreams();
  try {
    await fn();
  } finally {
    unpatchGlobalWebStreams();
  }
}

nodeTest(
  "a chunk that is not bytes ends the body with the TypeError a native stream gets; nothing is stringified",
  async () => {
    for (const bad of ["text", 42, { a: 1 }, null]) {
      const native = await outcome(new Response(
        new NativeRS({
          start(c) {
            c.enqueue(bad);
            c.close();
          },
        }),
      ).text());
      await patched(async () => {
        const ours = await outcome(new Response(ReadableStream.from([bad]) as unknown as BodyInit).text());
        assert.match(ours, /^TypeError: /, `chunk ${String(bad)}`);
        assert.is(ours, native, `the same error as a native stream for the chunk ${String(bad)}`);
      });
    }
  },
);

nodeTest("a locked or disturbed stream is refused with the error a native stream in that state gets", async () => {
  const nativeLocked = new NativeRS();
  nativeLocked.getReader();
  const nativeDisturbed = new NativeRS();
  await nativeDisturbed.cancel();
  const expected = [nativeLocked, nativeDisturbed].map((s) => {
    try {
      new Response(s);
      return "accepted";
    } catch (e) {
      return `${(e as Error).name}: ${(e as Error).message}`;
    }
  });
  assert.match(expected[0]!, /^TypeError/);
  await patched(async () => {
    const locked = new ReadableStream<Uint8Array>();
    locked.getReader();
    const disturbed = new ReadableStream<Uint8Array>();
    await disturbed.cancel();
    const got = [locked, disturbed].map((s) => {
      try {
        new Response(s as unknown as BodyInit);
        return "accepted";
      } catch (e) {
        return `${(e as Error).name}: ${(e as Error).message}`;
      }
    });
    assert.equal(got, expected);
  });
});

test.run();
