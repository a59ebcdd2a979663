/**
 * Bun adapter (fusestreams/bun) on real Bun: the shared runtime-adapter cases with `Bun.serve` on
 * 127.0.0.1 (tests/shared/contract-suite.ts), plus Bun's own streams and consumers:
 * `Bun.file().stream()` piped into ours, `Bun.readableStreamTo*()` taking ours while patched, and
 * `Bun.serve` sending our stream and a file.
 *
 * On other runtimes only the "wrong runtime" case runs; the rest is skipped with a message.
 *
 *   bun tests/unit/bun-adapter.test.ts
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as bun from "../../adapters/bun/mod.ts";
import {
  bounded,
  collectText,
  counter,
  currentRuntime,
  decodeText,
  encodeText,
  expectedRender,
  oursOf,
  render,
  renderRows,
  runtimeAdapterSuite,
  type Serve,
  streamInit,
  upperRow,
} from "../shared/contract-suite.ts";
import { uvuRegistrar } from "./uvu-registrar.ts";

const onBun = currentRuntime === "Bun" && typeof Bun !== "undefined";

const serve: Serve | undefined = onBun
  ? async (handler) => {
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: handler });
    return {
      url: `http://127.0.0.1:${server.port}`,
      async stop() {
        await server.stop(true);
      },
    };
  }
  : undefined;

runtimeAdapterSuite({
  runtime: "Bun",
  adapter: bun.adapter,
  here: onBun,
  serve,
  register: uvuRegistrar,
  bodyChunks: "as native",
});

// ---- Bun's own streams and consumers

const bunTest = (name: string, fn: (dir: string) => Promise<void>): void => {
  if (!onBun) {
    test.skip(`bun: ${name}`, () => undefined);
    return;
  }
  test(`bun: ${name}`, async () => {
    const dir = mkdtempSync(join(tmpdir(), "fusestreams-bun-"));
    try {
      await bounded(fn(dir), name);
    } finally {
      bun.unpatchGlobalWebStreams();
      rmSync(dir, { recursive: true, force: true });
    }
  });
};

bunTest("Bun.file().stream() pipes through ours (patch on)", async (dir) => {
  const text = renderRows(3000).join("");
  const path = join(dir, "page.html");
  writeFileSync(path, text);
  bun.patchGlobalWebStreams();
  const count = counter();
  assert.is(await collectText(Bun.file(path).stream().pipeThrough(count.stream)), text);
  assert.ok(count.chunks >= 1);
  assert.is(count.bytes, readFileSync(path).byteLength);
});

bunTest("Bun.readableStreamTo*() take our streams while patched, with exact results", async () => {
  const rows = renderRows(400);
  const text = rows.join("");
  bun.patchGlobalWebStreams();
  assert.is(await Bun.readableStreamToText(render(rows) as unknown as ReadableStream), text, "readableStreamToText");
  const bytes = await Bun.readableStreamToBytes(render(rows) as unknown as ReadableStream);
  assert.is(new TextDecoder().decode(bytes), text, "readableStreamToBytes");
  const buffer = await Bun.readableStreamToArrayBuffer(render(rows) as unknown as ReadableStream);
  assert.is(new TextDecoder().decode(buffer), text, "readableStreamToArrayBuffer");
  const blob = await Bun.readableStreamToBlob(render(rows) as unknown as ReadableStream);
  assert.is(await blob.text(), text, "readableStreamToBlob");
  const objects = [{ a: 1 }, "two", 3];
  assert.equal(
    await Bun.readableStreamToArray(oursOf<unknown>(...objects) as unknown as ReadableStream),
    objects,
    "readableStreamToArray (any chunks)",
  );
  assert.equal(
    await Bun.readableStreamToJSON(
      oursOf(new TextEncoder().encode('{"x":'), new TextEncoder().encode("[1,2]}")) as unknown as ReadableStream,
    ),
    { x: [1, 2] },
  );
});

bunTest(
  "Bun.readableStreamTo*() of a locked or disturbed stream of ours: Bun's error for a native stream in that state",
  async () => {
    const NativeRS = globalThis.ReadableStream;
    const enc = new TextEncoder();
    const make = async (RS: typeof ReadableStream, state: "locked" | "disturbed"): Promise<ReadableStream> => {
      const stream = new RS<Uint8Array>({
        start(c) {
          c.enqueue(enc.encode("a"));
          c.enqueue(enc.encode("b"));
          c.close();
        },
      });
      const reader = stream.getReader();
      if (state === "disturbed") {
        await reader.read();
        reader.releaseLock();
      }
      return stream;
    };
    const outcome = async (fn: () => unknown): Promise<string> => {
      try {
        return `ok ${JSON.stringify(await fn())}`;
      } catch (e) {
        return `${(e as Error).name}: ${(e as Error).message}`;
      }
    };
    const consumers = ["readableStreamToText", "readableStreamToBytes", "readableStreamToArray"] as const;
    for (const state of ["locked", "disturbed"] as const) {
      for (const name of consumers) {
        const consume = Bun[name] as (stream: ReadableStream) => Promise<unknown>;
        const expected = await outcome(async () => consume.call(Bun, await make(NativeRS, state)));
        assert.match(expected, /Error/, `natively, ${name} of a ${state} stream fails`);
        bun.patchGlobalWebStreams();
        try {
          const actual = await outcome(async () =>
            (Bun[name] as typeof consume).call(
              Bun,
              await make(bun.ReadableStream as unknown as typeof ReadableStream, state),
            )
          );
          assert.is(actual, expected, `${name} of a ${state} stream of ours`);
        } finally {
          bun.unpatchGlobalWebStreams();
        }
      }
    }
  },
);

bunTest("Bun.serve: our render through 3 transforms, a Bun.file body, and a request body echoed", async (dir) => {
  const rows = renderRows(800);
  const text = rows.join("");
  const path = join(dir, "page.html");
  writeFileSync(path, text);
  bun.patchGlobalWebStreams();
  const server = await serve!((req) => {
    const url = new URL(req.url);
    if (url.pathname === "/file") return new Response(Bun.file(path));
    if (url.pathname === "/file-stream") return new Response(Bun.file(path).stream().pipeThrough(counter().stream));
    if (url.pathname === "/echo") return new Response(req.body);
    return new Response(render(rows).pipeThrough(decodeText()).pipeThrough(upperRow()).pipeThrough(encodeText()));
  });
  try {
    assert.is(await (await fetch(`${server.url}/render`)).text(), expectedRender(rows), "render");
    assert.is(await (await fetch(`${server.url}/file`)).text(), text, "Bun.file");
    assert.is(await (await fetch(`${server.url}/file-stream`)).text(), text, "Bun.file().stream() through ours");
    const echoed = await fetch(`${server.url}/echo`, streamInit("POST", render(rows)));
    assert.is(await echoed.text(), text, "echo of our request body");
  } finally {
    await server.stop();
  }
});

test.run();
