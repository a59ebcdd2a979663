/**
 * Node.js adapter: React server rendering (react-dom/server, a devDependency) with the global patch on.
 * `renderToReadableStream` builds its stream with the global `ReadableStream`, so while patched it
 * returns a fusestreams byte stream; its bytes must equal `renderToString` of the same tree, whether read
 * with a reader, through `new Response(...)`, through fusestreams transforms, or served over HTTP.
 *
 * Node.js only (the patch targets Node.js's globals); skipped with a message on Deno and Bun.
 *
 *   node tests/unit/node-adapter-react.test.ts
 */
import { Buffer } from "node:buffer";
import { createServer, get, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ReactElement, ReactNode } from "react";
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as fuse from "../../adapters/node/mod.ts";
import { fromNodeWritable, patchGlobalWebStreams, unpatchGlobalWebStreams } from "../../adapters/node/mod.ts";

const g = globalThis as unknown as Record<string, unknown>;
const runtime = "Deno" in g ? "Deno" : "Bun" in g ? "Bun" : "Node.js";
const isNode = runtime === "Node.js";
const TIMEOUT_MS = 10_000;

const nodeTest = (name: string, fn: () => Promise<void>): void => {
  if (isNode) test(name, () => bounded(fn(), name));
  else test.skip(name, fn);
};
if (!isNode) console.log(`node-adapter-react: skipped on ${runtime}: patchGlobalWebStreams targets Node.js's globals`);

function bounded<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${TIMEOUT_MS} ms: ${what}`)), TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

type ReactModule = typeof import("react");
type ServerModule = typeof import("react-dom/server");

/** Loaded on first use, so that Deno and Bun never evaluate React. */
async function loadReact(): Promise<{ React: ReactModule; server: ServerModule }> {
  const [React, server] = await Promise.all([import("react"), import("react-dom/server")]);
  return { React, server };
}

/** A page with nested components, fragments, a long list, attributes, styles and text that needs escaping. */
function page(React: ReactModule, rows: number): ReactElement {
  const h = React.createElement;
  const Row = ({ i }: { i: number }): ReactNode =>
    h(
      "tr",
      { className: i % 2 === 0 ? "even" : "odd", "data-row": i },
      h("td", null, i),
      h("td", { style: { color: i % 3 === 0 ? "red" : "blue", paddingLeft: i % 7 } }, `name <${i}> & "quoted" 'ü€'`),
      h("td", null, h(React.Fragment, null, "a", i % 5 === 0 ? h("b", null, "five") : null, "z")),
    );
  const Table = ({ n }: { n: number }): ReactNode =>
    h("table", null, h("tbody", null, Array.from({ length: n }, (_, i) => h(Row, { key: i, i }))));
  return h(
    "main",
    { id: "app" },
    h("h1", null, "Report ", rows),
    h("p", { dangerouslySetInnerHTML: { __html: "<em>raw</em>" } }),
    h("input", { type: "checkbox", defaultChecked: true, readOnly: true }),
    h(Table, { n: rows }),
  );
}

async function withPatch(fn: () => Promise<void>): Promise<void> {
  patchGlobalWebStreams();
  try {
    await fn();
  } finally {
    unpatchGlobalWebStreams();
  }
}

const isOurs = (x: unknown): boolean => Object.getPrototypeOf(x) === fuse.ReadableStream.prototype;

nodeTest(
  "React renderToReadableStream (patched) is a fusestreams stream, byte-identical to renderToString",
  async () => {
    const { React, server } = await loadReact();
    const expected = server.renderToString(page(React, 800));
    assert.ok(expected.length > 50_000, "a render big enough to come in several chunks");
    await withPatch(async () => {
      const stream = await server.renderToReadableStream(page(React, 800));
      assert.ok(isOurs(stream), "renderToReadableStream used the patched global ReadableStream");
      const reader = (stream as unknown as fuse.ReadableStream<Uint8Array>).getReader();
      const parts: Uint8Array[] = [];
      for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value);
      assert.ok(parts.length > 1, `streamed in ${parts.length} chunks`);
      assert.ok(Buffer.concat(parts).equals(Buffer.from(expected)), "same bytes as renderToString");
    });
  },
);

nodeTest("React (patched): new Response(stream).text() and through fusestreams transforms", async () => {
  const { React, server } = await loadReact();
  const expected = server.renderToString(page(React, 300));
  await withPatch(async () => {
    const viaResponse = await new Response(await server.renderToReadableStream(page(React, 300))).text();
    assert.is(viaResponse, expected);

    // TextDecoderStream (native, through the patch's pipe bridge) and a fusestreams transform.
    const TS = g["TransformStream"] as typeof fuse.TransformStream;
    let chunks = 0;
    const counted = new TS<string, string>({
      transform(text, controller) {
        chunks++;
        controller.enqueue(text);
      },
    });
    const decoded =
      ((await server.renderToReadableStream(page(React, 300))) as unknown as fuse.ReadableStream<Uint8Array>)
        .pipeThrough(new TextDecoderStream() as unknown as fuse.TransformStream<Uint8Array, string>)
        .pipeThrough(counted);
    let text = "";
    for await (const part of decoded) text += part;
    assert.is(text, expected);
    assert.ok(chunks > 0);
  });
});

nodeTest(
  "React -> CompressionStream('gzip') -> Response: the same bytes patched (ours, node:zlib) and unpatched (Node's own)",
  async () => {
    const { React, server } = await loadReact();
    const gzip = async (): Promise<Buffer> => {
      const stream = (await server.renderToReadableStream(page(React, 600))) as unknown as ReadableStream<Uint8Array>;
      const gz = stream.pipeThrough(
        new CompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>,
      );
      return Buffer.from(await new Response(gz).arrayBuffer());
    };
    const NativeCS = globalThis.CompressionStream;
    const unpatched = await gzip();
    let patched: Buffer | undefined;
    await withPatch(async () => {
      assert.is(globalThis.CompressionStream as unknown, fuse.CompressionStream, "the patch installs ours");
      assert.is.not(globalThis.CompressionStream, NativeCS);
      patched = await gzip();
    });
    assert.ok(unpatched.length > 1000);
    assert.ok(patched!.equals(unpatched), `patched ${patched!.length} bytes, unpatched ${unpatched.length}`);
  },
);

nodeTest("React (patched): served over HTTP with pipeTo(fromNodeWritable(res)), same bytes at the client", async () => {
  const { React, server: reactServer } = await loadReact();
  const expected = reactServer.renderToString(page(React, 500));
  await withPatch(async () => {
    const http: Server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      void reactServer
        .renderToReadableStream(page(React, 500))
        .then((stream) => (stream as unknown as fuse.ReadableStream<Uint8Array>).pipeTo(fromNodeWritable(res)))
        .catch((err: unknown) => res.destroy(err as Error));
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = http.address() as AddressInfo;
      const body = await new Promise<string>((resolve, reject) => {
        get(`http://127.0.0.1:${port}/`, (res) => {
          const parts: Buffer[] = [];
          res.on("data", (chunk: Buffer) => parts.push(chunk));
          res.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
          res.on("error", reject);
        }).on("error", reject);
      });
      assert.is(body, expected);
      // fetch (undici) hands out the body as a fusestreams stream while patched.
      const response = await fetch(`http://127.0.0.1:${port}/`);
      assert.ok(isOurs(response.body), "fetch body is a fusestreams stream");
      assert.is(await response.text(), expected);
    } finally {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  });
});

test.run();
