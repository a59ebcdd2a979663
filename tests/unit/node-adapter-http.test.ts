/**
 * Node.js adapter, real-world round trips over loopback (127.0.0.1, ephemeral ports, every server closed
 * by the test itself): an HTTP server streaming a chunked render through 3 transforms to concurrent
 * clients; fetch -> transforms -> a file in a temp dir; request bodies from fusestreams streams;
 * Compression/Decompression/TextEncoder/TextDecoder streams with the global patch on.
 *
 * The tests without the patch run everywhere (Node.js, Deno, Bun); the patched ones on Node.js only.
 *
 *   node tests/unit/node-adapter-http.test.ts
 */
import { Buffer } from "node:buffer";
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, get, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { pipeline as nodePipeline, Readable } from "node:stream";
import {
  fromNodeReadable,
  fromNodeWritable,
  inspectPipeChain,
  patchGlobalWebStreams,
  ReadableStream,
  toNodeReadable,
  TransformStream,
  unpatchGlobalWebStreams,
} from "../../adapters/node/mod.ts";

const g = globalThis as unknown as Record<string, unknown>;
const runtime = "Deno" in g ? "Deno" : "Bun" in g ? "Bun" : "Node.js";
const isNode = runtime === "Node.js";
const TIMEOUT_MS = 10_000;

/** A test that fails (instead of hanging the run) when it takes longer than TIMEOUT_MS as a whole. */
const httpTest = (name: string, fn: () => Promise<void>): void => {
  test(name, async () => {
    try {
      await bounded(fn(), name, TIMEOUT_MS + 5_000);
    } finally {
      // A test that failed half-way may have left its server open: close it, so the run can exit.
      await Promise.all([...openServers].map(close));
    }
  });
};
const nodeTest = (name: string, fn: () => Promise<void>): void => {
  if (isNode) httpTest(name, fn);
  else test.skip(name, fn);
};
if (!isNode) {
  console.log(`node-adapter-http: the patched tests are skipped on ${runtime} (the global patch targets Node.js)`);
}

/** Rejects after TIMEOUT_MS so that a stuck stream fails the test instead of hanging the run. */
function bounded<T>(promise: Promise<T>, what: string, ms: number = TIMEOUT_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  openServers.add(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}` };
}

/** Servers started by listen() and not closed yet. */
const openServers = new Set<Server>();

function close(server: Server): Promise<void> {
  if (!openServers.delete(server)) return Promise.resolve();
  (server as Server & { closeAllConnections?: () => void }).closeAllConnections?.();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A GET with node:http; resolves with the status, headers and the body as text. */
function httpGet(
  url: string,
): Promise<{ status: number; headers: IncomingMessage["headers"]; body: string; chunks: number }> {
  return new Promise((resolve, reject) => {
    get(url, (res) => {
      const parts: Buffer[] = [];
      res.on("data", (chunk: Buffer) => parts.push(chunk));
      res.on(
        "end",
        () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(parts).toString(),
            chunks: parts.length,
          }),
      );
      res.on("error", reject);
    }).on("error", reject);
  });
}

const ROWS = 200;

/** The "render": rows produced asynchronously, a few per pull. */
function renderRows(RS: typeof ReadableStream): ReadableStream<{ id: number; name: string }> {
  let id = 0;
  return new RS<{ id: number; name: string }>(
    {
      async pull(controller) {
        await new Promise((resolve) => setImmediate(resolve));
        for (let i = 0; i < 10 && id < ROWS; i++, id++) controller.enqueue({ id, name: `item ${id}` });
        if (id >= ROWS) controller.close();
      },
    },
    { highWaterMark: 4 },
  );
}

/** Transform 1: row -> HTML; transform 2: wrap in a document; transform 3: text -> bytes. */
function renderTransforms(TS: typeof TransformStream) {
  const toHtml = new TS<{ id: number; name: string }, string>({
    transform(row, c) {
      c.enqueue(`<li data-id="${row.id}">${row.name}</li>\n`);
    },
  });
  const document = new TS<string, string>({
    start(c) {
      c.enqueue("<!doctype html><ul>\n");
    },
    transform(html, c) {
      c.enqueue(html);
    },
    flush(c) {
      c.enqueue("</ul>\n");
    },
  });
  const encoder = new TextEncoder();
  const encode = new TS<string, Uint8Array>({
    transform(text, c) {
      c.enqueue(encoder.encode(text));
    },
  });
  return [toHtml, document, encode] as const;
}

function expectedDocument(): string {
  let html = "<!doctype html><ul>\n";
  for (let id = 0; id < ROWS; id++) html += `<li data-id="${id}">item ${id}</li>\n`;
  return `${html}</ul>\n`;
}

function serveRender(RS: typeof ReadableStream, TS: typeof TransformStream) {
  return (_req: IncomingMessage, res: ServerResponse): void => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    const [a, b, c] = renderTransforms(TS);
    void renderRows(RS).pipeThrough(a).pipeThrough(b).pipeThrough(c).pipeTo(fromNodeWritable(res)).catch(
      (err: unknown) => {
        res.destroy(err as Error);
      },
    );
  };
}

httpTest("http: a chunked render through 3 transforms reaches 8 concurrent clients intact", async () => {
  const { server, url } = await listen(serveRender(ReadableStream, TransformStream));
  try {
    const results = await bounded(Promise.all(Array.from({ length: 8 }, () => httpGet(url))), "8 clients");
    const expected = expectedDocument();
    for (const r of results) {
      assert.is(r.status, 200);
      assert.is(r.headers["transfer-encoding"], "chunked");
      assert.is(r.body, expected);
      assert.ok(r.chunks > 1, "the body arrived in several chunks");
    }
  } finally {
    await close(server);
  }
});

httpTest("http: a client that disconnects mid-render cancels the server's stream chain", async () => {
  let cancelled: (reason: unknown) => void;
  const cancelledPromise = new Promise((resolve) => (cancelled = resolve));
  const { server, url } = await listen((_req, res) => {
    let n = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(c) {
        c.enqueue(new TextEncoder().encode(`chunk ${n++}\n`.padEnd(1024, ".")));
        return new Promise((resolve) => setTimeout(resolve, 1));
      },
      cancel(reason) {
        cancelled(reason);
      },
    });
    void endless.pipeThrough(new TransformStream()).pipeTo(fromNodeWritable(res)).catch(() => {});
  });
  try {
    await bounded(
      new Promise<void>((resolve, reject) => {
        const req = get(url, (res) => {
          res.once("data", () => {
            req.destroy();
            resolve();
          });
        });
        req.on("error", () => {});
        req.on("close", resolve);
        setTimeout(() => reject(new Error("no data")), TIMEOUT_MS).unref();
      }),
      "first chunk",
    );
    const reason = await bounded(cancelledPromise, "cancel of the server stream");
    assert.instance(reason, Error, "cancelled with the connection's error");
  } finally {
    await close(server);
  }
});

// ---- fs / Node Readable -> 3 transforms -> http.ServerResponse: one pipeTo(), fused transforms ----

/**
 * How the chain reaches the response: one `pipeTo(fromNodeWritable(res))`, or
 * `stream.pipeline(toNodeReadable(chain), res)`.
 */
type ChainMode = "pipeTo" | "pipeline";

/** What the server-side chain of {@link serveChain} ended with. */
interface ChainOutcome {
  /** the pipeTo() rejection reason or pipeline()'s error, or "fulfilled" */
  result: unknown;
  source: Readable;
  response: ServerResponse;
  /** the report of inspectPipeChain() on the response's WritableStream, taken when the pipe settled */
  report: ReturnType<typeof inspectPipeChain>;
  /** reasons the three transforms' cancel() got (a transform is cancelled when its readable side is) */
  cancelled: unknown[];
  /** the arguments of every `res.destroy()` call, in order */
  destroyedWith: unknown[];
  /**
   * The error the web side of the chain was failed with from downstream: the pipe's rejection for
   * pipeTo(), the error pipeline() destroyed toNodeReadable's Readable with (pipeline() may hand its
   * callback another error object, and on Node.js 20 calls it before the destroy has finished).
   */
  upstreamError: () => unknown;
}

/**
 * Serves `source()` through 3 pass-through transforms into the response with one pipeTo(), as the README's
 * example does (`.catch(err => res.destroy(err))`); `onChunk(n, res)` runs in the second transform for
 * every chunk (n counts from 1). Resolves `outcome` once the pipe settled.
 */
function serveChain(mode: ChainMode, source: () => Readable, onChunk?: (n: number, res: ServerResponse) => void) {
  let settle!: (outcome: ChainOutcome) => void;
  const outcome = new Promise<ChainOutcome>((resolve) => (settle = resolve));
  const handler = (_req: IncomingMessage, res: ServerResponse): void => {
    const readable = source();
    const cancelled: unknown[] = [];
    const destroyedWith: unknown[] = [];
    const destroy = res.destroy;
    res.destroy = function (this: ServerResponse, err?: Error) {
      destroyedWith.push(err);
      return destroy.call(this, err);
    } as typeof res.destroy;
    let n = 0;
    const stage = (check: boolean) =>
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, c) {
          if (check) onChunk?.(++n, res);
          c.enqueue(chunk);
        },
        cancel(reason) {
          cancelled.push(reason);
        },
      });
    const out = fromNodeReadable(readable).pipeThrough(stage(false)).pipeThrough(stage(true)).pipeThrough(stage(false));
    const nodeDestroyedWith: unknown[] = [];
    const done = (result: unknown, report: ReturnType<typeof inspectPipeChain>): void =>
      settle({
        result,
        source: readable,
        response: res,
        report,
        cancelled,
        destroyedWith,
        upstreamError: () => (mode === "pipeline" ? nodeDestroyedWith[0] : result),
      });
    if (mode === "pipeline") {
      const node = toNodeReadable(out);
      const destroyNode = node.destroy;
      node.destroy = function (this: Readable, err?: Error) {
        nodeDestroyedWith.push(err);
        return destroyNode.call(this, err);
      } as typeof node.destroy;
      nodePipeline(node, res, (err) => done(err ?? "fulfilled", inspectPipeChain(out)));
      return;
    }
    const sink = fromNodeWritable(res);
    out
      .pipeTo(sink)
      .then(
        () => "fulfilled",
        (err: unknown) => {
          res.destroy(err as Error);
          return err;
        },
      )
      .then((result) => done(result, inspectPipeChain(sink)));
  };
  return { handler, outcome };
}

/** GET that resolves with how the response ended: "end" with the body, or "aborted"/an error. */
function getOutcome(
  url: string,
  onFirstData?: (req: ReturnType<typeof get>) => void,
): Promise<{ ended: "end" | "aborted" | "error"; bytes: number; body: Buffer }> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let bytes = 0;
    let settled = false;
    const done = (ended: "end" | "aborted" | "error") => {
      if (settled) return;
      settled = true;
      resolve({ ended, bytes, body: Buffer.concat(parts) });
    };
    const req = get(url, (res) => {
      res.on("data", (chunk: Buffer) => {
        if (bytes === 0) onFirstData?.(req);
        bytes += chunk.byteLength;
        parts.push(chunk);
      });
      res.on("end", () => done(res.complete ? "end" : "aborted"));
      res.on("aborted", () => done("aborted"));
      res.on("error", () => done("error"));
      res.on("close", () => done(res.complete ? "end" : "aborted"));
    });
    req.on("error", () => done("error"));
  });
}

/** Lets pending callbacks, ticks and microtasks run (errors still travelling along a chain arrive). */
async function ticks(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** A byte Readable of `count` 1 KiB chunks that calls `fail(this)` instead of pushing chunk `failAt`. */
function failingReadable(count: number, failAt: number, fail: (r: Readable) => void): Readable {
  let i = 0;
  return new Readable({
    highWaterMark: 1024,
    read() {
      if (i === failAt) {
        fail(this);
        return;
      }
      if (i++ === count) this.push(null);
      else setImmediate(() => this.push(Buffer.alloc(1024, 97)));
    },
  });
}

for (const mode of ["pipeTo", "pipeline"] as const) {
  httpTest(
    `${mode}: fs -> 3 transforms -> http response: every byte, transforms fused, the fs stream closed after 'end'`,
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "fusestreams-node-"));
      const file = join(dir, "page.bin");
      const payload = Buffer.alloc(300 * 1024);
      for (let i = 0; i < payload.length; i++) payload[i] = (i * 7 + (i >> 10)) & 255;
      writeFileSync(file, payload);
      const { handler, outcome } = serveChain(mode, () => createReadStream(file, { highWaterMark: 1024 }));
      const { server, url } = await listen(handler);
      try {
        const got = await bounded(getOutcome(url), "response");
        assert.is(got.ended, "end");
        assert.ok(got.body.equals(payload), "the file's bytes, in order");
        const o = await bounded(outcome, "pipe settled");
        assert.is(o.result, "fulfilled");
        assert.ok(o.response.writableFinished);
        assert.ok(o.source.destroyed, "the fs stream closed its file");
        assert.equal(
          o.report.links.slice(0, 3).map((l) => [l.mode, l.directWrites]),
          [
            ["fused", 300],
            ["fused", 300],
            ["fused", 300],
          ],
          JSON.stringify(o.report),
        );
        await ticks();
        assert.equal(o.cancelled, [], "nothing was cancelled");
      } finally {
        await close(server);
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  httpTest(
    `${mode}: fs chain, error of the Node source mid-stream: the response is destroyed with the same error`,
    async () => {
      const boom = new Error("disk failed");
      const { handler, outcome } = serveChain(mode, () => failingReadable(100, 10, (r) => r.destroy(boom)));
      const { server, url } = await listen(handler);
      try {
        const got = await bounded(getOutcome(url), "response");
        assert.is.not(got.ended, "end", "the client does not see a complete response");
        assert.ok(got.bytes < 100 * 1024);
        const o = await bounded(outcome, "pipe settled");
        assert.is(o.result, boom, "pipeTo() rejects with the source's error");
        assert.ok(o.response.destroyed);
        assert.is(o.destroyedWith[0], boom, "the response was destroyed with the same error (abort)");
        await ticks();
        assert.equal(o.cancelled.length, 3, "each transform aborted with it");
        assert.ok(o.cancelled.every((reason) => reason === boom), "the same error object");
      } finally {
        await close(server);
      }
    },
  );

  httpTest(
    `${mode}: fs chain, a transform that throws: the fs stream and the response are destroyed with its error`,
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "fusestreams-node-"));
      const file = join(dir, "page.bin");
      writeFileSync(file, Buffer.alloc(200 * 1024, 98));
      const boom = new Error("transform failed");
      const { handler, outcome } = serveChain(
        mode,
        () => createReadStream(file, { highWaterMark: 1024 }),
        (n) => {
          if (n === 20) throw boom;
        },
      );
      const { server, url } = await listen(handler);
      try {
        const got = await bounded(getOutcome(url), "response");
        assert.is.not(got.ended, "end");
        const o = await bounded(outcome, "pipe settled");
        assert.is(o.result, boom);
        await ticks();
        assert.ok(o.source.destroyed, "the fs stream was destroyed (cancel)");
        assert.is(o.source.errored, boom, "with the transform's error");
        assert.is(o.destroyedWith[0], boom, "the response was destroyed with the same error (abort)");
        // the first transform is cancelled (its readable side), the third aborted (its writable side)
        assert.equal(o.cancelled.length, 2, o.cancelled.map(String).join());
        assert.ok(o.cancelled.every((reason) => reason === boom), "with the same error object");
      } finally {
        await close(server);
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  httpTest(
    `${mode}: fs chain, the response fails mid-stream: the pipe rejects with its error, the fs stream is destroyed`,
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "fusestreams-node-"));
      const file = join(dir, "page.bin");
      writeFileSync(file, Buffer.alloc(200 * 1024, 99));
      const boom = new Error("socket failed");
      const { handler, outcome } = serveChain(
        mode,
        () => createReadStream(file, { highWaterMark: 1024 }),
        (n, res) => {
          if (n === 20) res.destroy(boom);
        },
      );
      const { server, url } = await listen(handler);
      try {
        const got = await bounded(getOutcome(url), "response");
        assert.is.not(got.ended, "end");
        const o = await bounded(outcome, "pipe settled");
        // A ServerResponse destroyed with an error emits 'close' and no 'error': pipeline() reports a premature
        // close, and so does fromNodeWritable on Deno, whose ServerResponse does not keep the error in `errored`.
        const premature = mode === "pipeline" || runtime === "Deno";
        const expected = premature
          ? (o.result as { code?: string }).code === "ERR_STREAM_PREMATURE_CLOSE" && o.result
          : boom;
        if (runtime === "Deno" && mode === "pipeTo") {
          console.log(
            "node-adapter-http: on Deno, a ServerResponse destroyed with an error is seen as a premature close",
          );
        }
        assert.is(o.result, expected, "the chain fails with the destination's error");
        await ticks();
        const upstream = mode === "pipeline" ? o.upstreamError() : expected;
        if (mode === "pipeline") assert.is((upstream as { code?: string }).code, "ERR_STREAM_PREMATURE_CLOSE");
        assert.ok(o.source.destroyed, "the fs stream was destroyed (cancel)");
        assert.is(o.source.errored, upstream, "with the destination's error");
        assert.equal(o.cancelled.length, 3, "every transform was cancelled");
        assert.ok(o.cancelled.every((reason) => reason === upstream), "with the destination's error");
      } finally {
        await close(server);
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  httpTest(
    `${mode}: fs chain, the client disconnects mid-response: premature close cancels the chain, the fs stream is destroyed`,
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "fusestreams-node-"));
      const file = join(dir, "page.bin");
      writeFileSync(file, Buffer.alloc(4 * 1024 * 1024, 100));
      const { handler, outcome } = serveChain(mode, () => createReadStream(file, { highWaterMark: 1024 }));
      const { server, url } = await listen(handler);
      try {
        const got = await bounded(getOutcome(url, (req) => req.destroy()), "response");
        assert.is.not(got.ended, "end");
        const o = await bounded(outcome, "pipe settled");
        assert.is((o.result as { code?: string }).code, "ERR_STREAM_PREMATURE_CLOSE", String(o.result));
        await ticks();
        const upstream = o.upstreamError();
        assert.is((upstream as { code?: string }).code, "ERR_STREAM_PREMATURE_CLOSE", String(upstream));
        assert.ok(o.source.destroyed, "the fs stream was destroyed (cancel)");
        assert.is(o.source.errored, upstream, "with the same error");
        assert.equal(o.cancelled.length, 3, "every transform was cancelled");
        assert.ok(o.cancelled.every((reason) => reason === upstream), "with the same error");
      } finally {
        await close(server);
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
}

httpTest("fetch -> 2 transforms -> file (temp dir), without the patch: fusestreams from the native body", async () => {
  const dir = mkdtempSync(join(tmpdir(), "fusestreams-node-"));
  const payload = Buffer.alloc(256 * 1024, "abcdefghij");
  const { server, url } = await listen((_req, res) => {
    fromNodeReadable(Readable_from_chunks(payload, 10_000))
      .pipeTo(fromNodeWritable(res))
      .catch((err: unknown) => res.destroy(err as Error));
  });
  try {
    const response = await bounded(fetch(url), "fetch");
    const body = ReadableStream.from(response.body as unknown as AsyncIterable<Uint8Array>);
    const file = join(dir, "out.txt");
    let bytes = 0;
    await bounded(
      body
        .pipeThrough(
          new TransformStream<Uint8Array, Uint8Array>({
            transform(chunk, c) {
              bytes += chunk.byteLength;
              c.enqueue(chunk);
            },
          }),
        )
        .pipeThrough(
          new TransformStream<Uint8Array, Uint8Array>({
            transform(chunk, c) {
              c.enqueue(chunk.map((x) => x - 32)); // upper case
            },
          }),
        )
        .pipeTo(fromNodeWritable(createWriteStream(file))),
      "pipe to file",
    );
    assert.is(bytes, payload.byteLength);
    assert.ok(readFileSync(file).equals(Buffer.from(payload.toString().toUpperCase())));
  } finally {
    await close(server);
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A Node.js Readable over `data` in `size`-byte slices (node:stream Readable.from with Buffers). */
function Readable_from_chunks(data: Buffer, size: number) {
  const chunks: Buffer[] = [];
  for (let i = 0; i < data.byteLength; i += size) chunks.push(data.subarray(i, i + size));
  return toNodeReadable(ReadableStream.from(chunks));
}

httpTest("fetch with a fusestreams request body (duplex: half), echoed back, without the patch", async () => {
  const { server, url } = await listen((req, res) => {
    res.writeHead(200, { "content-type": "application/octet-stream" });
    fromNodeReadable(req)
      .pipeTo(fromNodeWritable(res))
      .catch((err: unknown) => res.destroy(err as Error));
  });
  try {
    const parts = ["re", "quest ", "body"];
    const body = ReadableStream.from(parts.map((p) => new TextEncoder().encode(p)));
    const init = { method: "POST", body, duplex: "half" } as unknown as RequestInit;
    const response = await bounded(fetch(url, init), "fetch POST");
    assert.is(await response.text(), "request body");
  } finally {
    await close(server);
  }
});

nodeTest("patched: fetch bodies are fusestreams streams; render server, gzip on the wire, file output", async () => {
  const dir = mkdtempSync(join(tmpdir(), "fusestreams-node-"));
  patchGlobalWebStreams();
  try {
    // Server side uses only the globals (now fusestreams), plus the native CompressionStream.
    const RS = g["ReadableStream"] as typeof ReadableStream;
    const TS = g["TransformStream"] as typeof TransformStream;
    const { server, url } = await listen((_req, res) => {
      res.writeHead(200, { "content-type": "text/html", "content-encoding": "gzip" });
      const [a, b, c] = renderTransforms(TS);
      void renderRows(RS)
        .pipeThrough(a)
        .pipeThrough(b)
        .pipeThrough(c)
        .pipeThrough(new CompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>)
        .pipeTo(fromNodeWritable(res))
        .catch((err: unknown) => res.destroy(err as Error));
    });
    try {
      // fetch decodes gzip itself; the body is fusestreams.
      const response = await bounded(fetch(url), "fetch");
      const body = response.body!;
      assert.is(Object.getPrototypeOf(body), ReadableStream.prototype, "response.body is a fusestreams stream");
      const file = join(dir, "render.html");
      await bounded(
        (body as unknown as ReadableStream<Uint8Array>)
          .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
          .pipeThrough(new TS<string, string>({ transform: (t, ctl) => ctl.enqueue(t.replaceAll("item", "ITEM")) }))
          .pipeThrough(new TextEncoderStream() as unknown as TransformStream<string, Uint8Array>)
          .pipeTo(fromNodeWritable(createWriteStream(file))),
        "fetch -> transforms -> file",
      );
      assert.is(readFileSync(file, "utf8"), expectedDocument().replaceAll("item", "ITEM"));

      // The same bytes by hand: gzip body read raw with node:http, then DecompressionStream.
      const raw = await bounded(
        new Promise<IncomingMessage>((resolve, reject) => get(url, resolve).on("error", reject)),
        "raw GET",
      );
      assert.is(raw.headers["content-encoding"], "gzip");
      const text = await new Response(
        fromNodeReadable(raw).pipeThrough(
          new DecompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>,
        ) as unknown as BodyInit,
      ).text();
      assert.is(text, expectedDocument());

      // Response consumption of a fetch body, and a file streamed back as a request body.
      const again = await bounded(fetch(url), "fetch 2");
      assert.is(await again.text(), expectedDocument());
      assert.ok(again.bodyUsed);
    } finally {
      await close(server);
    }
  } finally {
    unpatchGlobalWebStreams();
    rmSync(dir, { recursive: true, force: true });
  }
});

nodeTest("patched: a file uploaded as a fusestreams request body, echoed through the server", async () => {
  const dir = mkdtempSync(join(tmpdir(), "fusestreams-node-"));
  patchGlobalWebStreams();
  try {
    const file = join(dir, "upload.bin");
    const data = Buffer.alloc(200_000);
    for (let i = 0; i < data.length; i++) data[i] = (i * 31) & 0xff;
    await new Promise<void>((resolve, reject) => {
      const w = createWriteStream(file);
      w.on("error", reject);
      w.end(data, () => resolve());
    });
    const { server, url } = await listen((req, res) => {
      fromNodeReadable(req)
        .pipeTo(fromNodeWritable(res))
        .catch((err: unknown) => res.destroy(err as Error));
    });
    try {
      const init = {
        method: "POST",
        body: fromNodeReadable(createReadStream(file)),
        duplex: "half",
      } as unknown as RequestInit;
      const response = await bounded(fetch(url, init), "upload");
      const echoed = Buffer.from(await response.arrayBuffer());
      assert.ok(echoed.equals(data), "the echoed bytes equal the file");
    } finally {
      await close(server);
    }
  } finally {
    unpatchGlobalWebStreams();
    rmSync(dir, { recursive: true, force: true });
  }
});

nodeTest("patched: aborting a fetch errors its fusestreams body; the server sees the disconnect", async () => {
  patchGlobalWebStreams();
  let serverClosed!: () => void;
  const serverSawClose = new Promise<void>((resolve) => (serverClosed = resolve));
  const { server, url } = await listen((_req, res) => {
    res.writeHead(200);
    res.write("first chunk");
    res.on("close", () => serverClosed()); // never ends by itself
  });
  try {
    const controller = new AbortController();
    const response = await bounded(fetch(url, { signal: controller.signal }), "fetch");
    const reader = (response.body as unknown as ReadableStream<Uint8Array>).getReader();
    const first = await bounded(reader.read(), "first chunk");
    assert.is(new TextDecoder().decode(first.value), "first chunk");
    const reason = new Error("enough");
    controller.abort(reason);
    const err = await bounded(
      reader.read().then(
        () => undefined,
        (e: unknown) => e,
      ),
      "read after abort",
    );
    assert.is(err, reason, "the body errors with the abort reason");
    await bounded(serverSawClose, "server close");
  } finally {
    unpatchGlobalWebStreams();
    await close(server);
  }
});

nodeTest("patched: aborting an upload with an endless fusestreams request body rejects the fetch", async () => {
  patchGlobalWebStreams();
  let received = 0;
  let gotData!: () => void;
  const serverGotData = new Promise<void>((resolve) => (gotData = resolve));
  const { server, url } = await listen((req) => {
    req.on("data", (chunk: Buffer) => {
      received += chunk.byteLength;
      gotData();
    });
    req.on("error", () => {});
  });
  try {
    const controller = new AbortController();
    // undici keeps reading an aborted upload's body (it cannot cancel it: its own reader holds the
    // lock), with native streams too; so the source stops by itself once the fetch is aborted, otherwise
    // its timers would keep the process alive after the test.
    let pulls = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (controller.signal.aborted || ++pulls > 20_000) {
          c.close();
          return;
        }
        c.enqueue(new Uint8Array(1024));
        return new Promise((resolve) => setTimeout(resolve, 1));
      },
    });
    const init = { method: "POST", body, duplex: "half", signal: controller.signal } as unknown as RequestInit;
    const pending = fetch(url, init).then(
      () => undefined,
      (e: unknown) => e,
    );
    await bounded(serverGotData, "upload started");
    const reason = new Error("stop uploading");
    controller.abort(reason);
    assert.is(await bounded(pending, "fetch rejection"), reason);
    assert.ok(received > 0);
  } finally {
    unpatchGlobalWebStreams();
    await close(server);
  }
});

test.run();
