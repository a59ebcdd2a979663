/**
 * Real frameworks run as an application runs them, for tests/unit/frameworks.test.ts: Hono on the runtime's own
 * server (`@hono/node-server` on Node.js, `Deno.serve`, `Bun.serve`; 127.0.0.1 only), Vercel's AI SDK with the
 * mock model of its own test utilities (no timers), eventsource-parser, React's `renderToReadableStream`, and on
 * Node.js the ends of a pipeline: a stream sent on a `ServerResponse` as a Next.js route handler sends it, with
 * `Readable.fromWeb().pipe()`, `pipeline()` and `Writable.toWeb()`, a request body read through
 * `Readable.toWeb()`, and a `fetch()` body.
 * Each case returns the bytes a client receives, so that a run with fusestreams' global patch on can be compared
 * with a run without it.
 *
 * Every framework is imported dynamically, inside the case: the test's child process puts the patch on first,
 * as an application that patches at startup does (eventsource-parser's stream class extends the global
 * TransformStream when its module is evaluated; React and the AI SDK build their streams from the globals).
 * @module
 */
import type { IncomingMessage } from "node:http";

/** What a case learns about the process it runs in. */
export interface CaseContext {
  /** whether a stream object is one of fusestreams' (always false without the patch) */
  isOurs(stream: unknown): boolean;
  runtime: "Node.js" | "Deno" | "Bun";
}

/** A case's output: what the client received, and whether the framework's streams were fusestreams'. */
export interface CaseOutput {
  bytes: Uint8Array;
  ours: boolean;
}

/** One framework case. */
export interface FrameworkCase {
  name: string;
  /** the smallest output that counts as non-trivial */
  minBytes: number;
  run(context: CaseContext): Promise<CaseOutput>;
}

const encoder = new TextEncoder();

function concat(parts: readonly Uint8Array[]): Uint8Array {
  let size = 0;
  for (const p of parts) size += p.byteLength;
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/** Every chunk of a stream, and how it ended (`ok`, or the error's name and message). */
async function readAll(stream: ReadableStream<Uint8Array>): Promise<{ parts: Uint8Array[]; end: string }> {
  const reader = stream.getReader();
  const parts: Uint8Array[] = [];
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value);
    return { parts, end: "ok" };
  } catch (error) {
    return { parts, end: error instanceof Error ? `${error.name}: ${error.message}` : `thrown: ${String(error)}` };
  }
}

/** A header line (what the client sees of the response) and the body, as one output. */
function framed(head: string, body: Uint8Array, end = "ok"): Uint8Array {
  return concat([encoder.encode(`${head}\n`), body, encoder.encode(`\n[end: ${end}]`)]);
}

function xorshift(seed: number): () => number {
  let x = seed | 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
}

const WORDS = ["stream", "Zürich", "naïve", "€", "日本語", "🦕", "chunk", "<b>&amp;</b>", '"q"', "line\nbreak"];

function words(count: number, seed: number): string[] {
  const next = xorshift(seed);
  return Array.from({ length: count }, (_, i) => `${WORDS[next() % WORDS.length]}${i % 9 === 8 ? ".\n" : " "}`);
}

function pseudoBytes(size: number, seed: number): Uint8Array<ArrayBuffer> {
  const next = xorshift(seed);
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = next() & 0xff;
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Hono on the runtime's server

interface Served {
  url: string;
  close(): Promise<void>;
}

const g = globalThis as unknown as {
  Deno?: {
    serve(
      options: { hostname: string; port: number; onListen?: () => void },
      handler: (request: Request) => Response | Promise<Response>,
    ): { addr: { port: number }; shutdown(): Promise<void> };
  };
  Bun?: {
    serve(options: { hostname: string; port: number; fetch: (request: Request) => unknown }): {
      port: number;
      stop(force?: boolean): unknown;
    };
  };
};

async function serve(fetch: (request: Request) => Response | Promise<Response>): Promise<Served> {
  if (g.Deno) {
    const server = g.Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, fetch);
    return { url: `http://127.0.0.1:${server.addr.port}`, close: () => server.shutdown() };
  }
  if (g.Bun) {
    const server = g.Bun.serve({ hostname: "127.0.0.1", port: 0, fetch });
    return { url: `http://127.0.0.1:${server.port}`, close: async () => void (await server.stop(true)) };
  }
  const { serve } = await import("@hono/node-server");
  return await new Promise<Served>((resolve) => {
    const server = serve({ fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            (server as import("node:http").Server).closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/**
 * One request, as a client sees it: status, content type and body. On Node.js with node:http (no web streams
 * on the client side); on Deno and Bun with their fetch().
 */
async function request(url: string, body?: Uint8Array): Promise<Uint8Array> {
  if (g.Deno || g.Bun) {
    const init: RequestInit = body ? { method: "POST", body: body as Uint8Array<ArrayBuffer> } : {};
    const res = await fetch(url, init);
    const { parts, end } = await readAll(res.body!);
    return framed(`${res.status} ${res.headers.get("content-type")}`, concat(parts), end);
  }
  const http = await import("node:http");
  return await new Promise<Uint8Array>((resolve, reject) => {
    const req = http.request(url, { method: body ? "POST" : "GET" }, (res: IncomingMessage) => {
      const parts: Uint8Array[] = [];
      res.on("data", (chunk: Uint8Array) => parts.push(chunk));
      res.on("error", reject);
      res.on("end", () => resolve(framed(`${res.statusCode} ${res.headers["content-type"]}`, concat(parts))));
    });
    req.on("error", reject);
    if (body) {
      // the upload in uneven pieces, so the server reads a body of several chunks
      for (let at = 0, n = 1; at < body.byteLength; at += n, n = n * 3 + 1) req.write(body.subarray(at, at + n));
    }
    req.end();
  });
}

const ECHO = pseudoBytes(200_000, 7);

/** The Hono app; `seen` records whether each route ran on fusestreams' streams. */
async function honoApp(context: CaseContext, seen: Map<string, boolean>) {
  const { Hono } = await import("hono");
  const { streamSSE, streamText } = await import("hono/streaming");
  const app = new Hono();
  const chunks = Array.from({ length: 120 }, (_, i) => pseudoBytes(1 + ((i * 389) % 4000), i + 1));
  app.get("/stream", (c) => {
    let i = 0;
    const upper = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        controller.enqueue(chunk.map((b) => (b >= 97 && b <= 122 ? b - 32 : b)));
      },
    });
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (i < chunks.length) controller.enqueue(chunks[i++]!);
        else controller.close();
      },
    }).pipeThrough(upper);
    seen.set("hono-stream", context.isOurs(body));
    return c.body(body, 200, { "content-type": "application/octet-stream" });
  });
  app.get("/text", (c) => {
    seen.set("hono-streamtext", context.isOurs(new TransformStream()));
    return streamText(c, async (stream) => {
      for (const w of words(400, 3)) await stream.write(w);
      await stream.writeln("— done");
    });
  });
  app.get("/sse", (c) => {
    seen.set("hono-sse", context.isOurs(new TransformStream()));
    return streamSSE(c, async (stream) => {
      for (let i = 0; i < 60; i++) {
        await stream.writeSSE({
          id: String(i),
          event: i % 3 ? "delta" : "tick",
          data: `${words(3, i).join("")}\n{"i":${i}}`,
        });
      }
    });
  });
  app.post("/echo", (c) => {
    let k = 0;
    const xor = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const out = new Uint8Array(chunk.byteLength);
        for (let i = 0; i < chunk.byteLength; i++) out[i] = chunk[i]! ^ (k++ & 0xff);
        controller.enqueue(out);
      },
    });
    seen.set("hono-echo", context.isOurs(xor));
    return c.body(c.req.raw.body!.pipeThrough(xor), 200, { "content-type": "application/octet-stream" });
  });
  return app;
}

let server: Promise<{ served: Served; seen: Map<string, boolean> }> | undefined;

function honoCase(name: string, path: string, minBytes: number, body?: Uint8Array): FrameworkCase {
  return {
    name,
    minBytes,
    async run(context) {
      server ??= (async () => {
        const seen = new Map<string, boolean>();
        const app = await honoApp(context, seen);
        return { served: await serve(app.fetch), seen };
      })();
      const { served, seen } = await server;
      const bytes = await request(served.url + path, body);
      return { bytes, ours: seen.get(name) === true };
    },
  };
}

/** Closes the Hono server if a case started it. */
export async function closeServer(): Promise<void> {
  if (server) await (await server).served.close();
  server = undefined;
  if (nodeEnds) await (await nodeEnds).served.close();
  nodeEnds = undefined;
}

// ---------------------------------------------------------------------------------------------------
// Vercel's AI SDK

type Part = Record<string, unknown>;

function metadata(): Part[] {
  return [
    { type: "stream-start", warnings: [] },
    { type: "response-metadata", id: "resp-0", modelId: "mock-model", timestamp: new Date(0) },
  ];
}

function finish(outputTokens: number, reason: "stop" | "tool-calls"): Part {
  return {
    type: "finish",
    finishReason: { unified: reason, raw: reason },
    usage: {
      inputTokens: { total: 9, noCache: 9, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: outputTokens, text: outputTokens, reasoning: 0 },
    },
  };
}

/** A model stream: `parts`, then (when given) a wait for `gate` and an error or an abort. */
type ModelScript = { parts: Part[]; gate?: Promise<void>; then?: "error" | "abort" };

async function streamTextOf(script: ModelScript, options: Record<string, unknown> = {}) {
  const { jsonSchema, streamText, tool } = await import("ai");
  const { MockLanguageModelV4, simulateReadableStream } = await import("ai/test");
  let id = 0;
  const model = new MockLanguageModelV4({
    doStream: ({ abortSignal }) => {
      if (!script.gate) {
        const stream = simulateReadableStream({ chunks: script.parts, initialDelayInMs: null, chunkDelayInMs: null });
        return Promise.resolve({ stream } as never);
      }
      let i = 0;
      const stream = new ReadableStream<Part>({
        async pull(controller) {
          if (i < script.parts.length) return controller.enqueue(script.parts[i++]!);
          await script.gate;
          if (script.then === "error") controller.error(new Error("the model's connection broke"));
          else {
            await new Promise<void>((resolve) => {
              if (abortSignal?.aborted) resolve();
              else abortSignal?.addEventListener("abort", () => resolve(), { once: true });
            });
            controller.error(abortSignal?.reason);
          }
        },
      });
      return Promise.resolve({ stream } as never);
    },
  });
  return streamText(
    {
      model,
      prompt: "Tell me about streams.",
      tools: {
        weather: tool({
          description: "the weather in a city",
          inputSchema: jsonSchema<{ city: string }>({
            type: "object",
            properties: { city: { type: "string" } },
            required: ["city"],
          }),
          execute: ({ city }) => Promise.resolve({ city, celsius: 21 }),
        }),
      },
      _internal: { generateId: () => `id-${id++}`, now: () => 0 },
      onError: () => {},
      ...options,
    } as Parameters<typeof streamText>[0],
  );
}

function textParts(deltas: readonly string[]): Part[] {
  return [
    { type: "text-start", id: "t0" },
    ...deltas.map((delta) => ({ type: "text-delta", id: "t0", delta })),
    { type: "text-end", id: "t0" },
  ];
}

function responseOutput(res: Response, read: { parts: Uint8Array[]; end: string }): Uint8Array {
  return framed(`${res.status} ${res.headers.get("content-type")}`, concat(read.parts), read.end);
}

/** Reads a response while watching its text: `onText` sees everything decoded so far after each chunk. */
async function readWatching(res: Response, onText: (text: string) => void) {
  const decoder = new TextDecoder();
  let text = "";
  const reader = res.body!.getReader();
  const parts: Uint8Array[] = [];
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      parts.push(r.value);
      text += decoder.decode(r.value, { stream: true });
      onText(text);
    }
    return { parts, end: "ok" };
  } catch (error) {
    return { parts, end: error instanceof Error ? `${error.name}: ${error.message}` : `thrown: ${String(error)}` };
  }
}

const DELTAS = words(1500, 11);
const TOOL_CALL: Part = { type: "tool-call", toolCallId: "call-0", toolName: "weather", input: '{"city":"Zürich"}' };

const aiCases: FrameworkCase[] = [
  {
    name: "ai-text",
    minBytes: 5000,
    async run(context) {
      const result = await streamTextOf({
        parts: [...metadata(), ...textParts(DELTAS), TOOL_CALL, finish(DELTAS.length, "tool-calls")],
      });
      const res = result.toTextStreamResponse();
      return { bytes: responseOutput(res, await readAll(res.body!)), ours: context.isOurs(new TransformStream()) };
    },
  },
  {
    name: "ai-ui",
    minBytes: 20_000,
    async run(context) {
      const result = await streamTextOf({
        parts: [...metadata(), ...textParts(DELTAS), TOOL_CALL, finish(DELTAS.length, "tool-calls")],
      });
      const res = result.toUIMessageStreamResponse({ generateMessageId: () => "msg-0" });
      return { bytes: responseOutput(res, await readAll(res.body!)), ours: context.isOurs(new TransformStream()) };
    },
  },
  {
    name: "ai-smooth",
    minBytes: 5000,
    async run(context) {
      const { smoothStream } = await import("ai");
      // the model's deltas cut at odd places; smoothStream re-chunks them by word (no delay: no timers)
      const text = DELTAS.join("");
      const cuts: string[] = [];
      for (let at = 0, n = 1; at < text.length; at += n, n = (n % 13) + 2) cuts.push(text.slice(at, at + n));
      const result = await streamTextOf(
        { parts: [...metadata(), ...textParts(cuts), finish(cuts.length, "stop")] },
        { experimental_transform: smoothStream({ delayInMs: null, chunking: "word" }) },
      );
      const res = result.toUIMessageStreamResponse({ generateMessageId: () => "msg-0" });
      return { bytes: responseOutput(res, await readAll(res.body!)), ours: context.isOurs(new TransformStream()) };
    },
  },
  {
    name: "ai-abort",
    minBytes: 2000,
    async run(context) {
      // the request is aborted once the client has every delta the model sent, so nothing is in flight
      const deltas = DELTAS.slice(0, 120);
      const abort = new AbortController();
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const result = await streamTextOf(
        { parts: [...metadata(), ...textParts(deltas).slice(0, -1)], gate, then: "abort" },
        { abortSignal: abort.signal },
      );
      const res = result.toUIMessageStreamResponse({ generateMessageId: () => "msg-0" });
      const read = await readWatching(res, (text) => {
        if (text.split('"type":"text-delta"').length - 1 === deltas.length && !abort.signal.aborted) {
          release();
          abort.abort(new Error("the client went away"));
        }
      });
      if (!abort.signal.aborted) throw new Error("the stream ended before every delta arrived");
      return { bytes: responseOutput(res, read), ours: context.isOurs(new TransformStream()) };
    },
  },
  {
    name: "ai-error-ui",
    minBytes: 2000,
    async run(context) {
      const deltas = DELTAS.slice(0, 80);
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const result = await streamTextOf({
        parts: [...metadata(), ...textParts(deltas).slice(0, -1)],
        gate,
        then: "error",
      });
      const res = result.toUIMessageStreamResponse({
        generateMessageId: () => "msg-0",
        onError: (error) => `model error: ${error instanceof Error ? error.message : String(error)}`,
      });
      const read = await readWatching(res, (text) => {
        if (text.split('"type":"text-delta"').length - 1 === deltas.length) release();
      });
      return { bytes: responseOutput(res, read), ours: context.isOurs(new TransformStream()) };
    },
  },
  {
    name: "ai-error-text",
    minBytes: 200,
    async run(context) {
      const deltas = DELTAS.slice(0, 80);
      const expected = deltas.join("");
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const result = await streamTextOf({
        parts: [...metadata(), ...textParts(deltas).slice(0, -1)],
        gate,
        then: "error",
      });
      const res = result.toTextStreamResponse();
      const read = await readWatching(res, (text) => {
        if (text === expected) release();
      });
      return { bytes: responseOutput(res, read), ours: context.isOurs(new TransformStream()) };
    },
  },
  {
    name: "sse-proxy",
    minBytes: 5000,
    async run(context) {
      const { EventSourceParserStream } = await import("eventsource-parser/stream");
      // an OpenAI stream cut at arbitrary places (inside events, inside multi-byte characters), CRLF and LF lines
      let wire = ": keep-alive\r\n\r\n";
      for (const [i, d] of DELTAS.slice(0, 600).entries()) {
        const json = JSON.stringify({ id: "c", object: "chat.completion.chunk", choices: [{ delta: { content: d } }] });
        wire += i % 4 === 0 ? `data: ${json}\r\n\r\n` : `event: message\ndata: ${json}\n\n`;
      }
      wire += "data: [DONE]\n\n";
      const bytes = encoder.encode(wire);
      const pieces: Uint8Array[] = [];
      for (let at = 0, n = 1; at < bytes.byteLength; at += n, n = (n * 7) % 311 + 1) {
        pieces.push(bytes.slice(at, at + n));
      }
      let i = 0;
      const wireStream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (i < pieces.length) controller.enqueue(pieces[i++]!);
          else controller.close();
        },
      });
      const body = new Response(wireStream).body!;
      const parser = new EventSourceParserStream();
      const out = body
        .pipeThrough(new TextDecoderStream())
        .pipeThrough(parser)
        .pipeThrough(
          new TransformStream<{ data: string; event?: string }, string>({
            transform(event, controller) {
              if (event.data === "[DONE]") return controller.enqueue("[DONE]\n");
              const json = JSON.parse(event.data) as { choices: { delta: { content?: string } }[] };
              controller.enqueue(`${event.event ?? "-"}|${json.choices[0]!.delta.content}`);
            },
          }),
        )
        .pipeThrough(new TextEncoderStream());
      const read = await readAll(out);
      return { bytes: framed("sse-proxy", concat(read.parts), read.end), ours: context.isOurs(parser) };
    },
  },
];

// ---------------------------------------------------------------------------------------------------
// React

async function reactTree(rows: number, suspense: boolean) {
  const React = await import("react");
  const h = React.createElement;
  const Row = ({ i }: { i: number }) =>
    h(
      "tr",
      { className: i % 2 ? "odd" : "even", "data-i": i },
      h("td", null, i),
      h("td", { style: { color: i % 3 ? "blue" : "red" } }, `name <${i}> & "q" ${WORDS[i % WORDS.length]}`),
    );
  const table = h("table", null, h("tbody", null, Array.from({ length: rows }, (_, i) => h(Row, { key: i, i }))));
  if (!suspense) return h("main", { id: "app" }, h("h1", null, "Report"), table);
  // a boundary whose content arrives after the shell: React streams the fallback first, the content later
  const data = new Promise<string>((resolve) => setTimeout(() => resolve("late data ü€"), 5));
  const Late = () => h("section", null, React.use(data), table);
  return h(
    "html",
    null,
    h("body", null, h("h1", null, "Shell"), h(React.Suspense, { fallback: h("p", null, "loading…") }, h(Late))),
  );
}

async function render(rows: number, suspense: boolean) {
  const { renderToReadableStream } = await import("react-dom/server");
  // read at once: with a Suspense boundary the shell and its fallback come first, the content later
  return await renderToReadableStream(await reactTree(rows, suspense));
}

const reactCases: FrameworkCase[] = [
  {
    name: "react",
    minBytes: 20_000,
    async run(context) {
      const stream = await render(400, false);
      const read = await readAll(stream);
      return { bytes: framed("react", concat(read.parts), read.end), ours: context.isOurs(stream) };
    },
  },
  {
    name: "react-gzip",
    minBytes: 2000,
    async run(context) {
      const stream = await render(400, false);
      const read = await readAll(stream.pipeThrough(new CompressionStream("gzip")));
      return { bytes: concat(read.parts), ours: context.isOurs(stream) };
    },
  },
  {
    name: "react-suspense",
    minBytes: 5000,
    async run(context) {
      const stream = await render(100, true);
      const read = await readAll(stream);
      return { bytes: framed("react-suspense", concat(read.parts), read.end), ours: context.isOurs(stream) };
    },
  },
];

// ---------------------------------------------------------------------------------------------------
// Node.js: the ends of a pipeline (a stream handed to node:http's response, a request or fetch body read)

/** A page as an application streams it: strings -> a TransformStream -> TextEncoderStream (the globals). */
function pageStream(): ReadableStream<Uint8Array> {
  const strings = words(1200, 5);
  let i = 0;
  return new ReadableStream<string>({
    pull(controller) {
      if (i < strings.length) controller.enqueue(`<li>${strings.slice(i, i += 7).join("")}</li>\n`);
      else controller.close();
    },
  })
    .pipeThrough(
      new TransformStream<string, string>({
        transform(chunk, controller) {
          controller.enqueue(chunk.replace("Zürich", "<em>Zürich</em>"));
        },
      }),
    )
    .pipeThrough(new TextEncoderStream());
}

/** An XOR over the bytes (position-dependent, so a lost, repeated or reordered byte shows). */
function xorStream(): TransformStream<Uint8Array, Uint8Array> {
  let k = 0;
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      const out = new Uint8Array(chunk.byteLength);
      for (let i = 0; i < chunk.byteLength; i++) out[i] = chunk[i]! ^ (k++ & 0xff);
      controller.enqueue(out);
    },
  });
}

/**
 * A Next.js 16 route handler's Response sent on a ServerResponse the way Next sends it on Node.js (status and
 * headers copied, then `body.pipeTo()` a global WritableStream that flushes the headers at the first chunk,
 * writes each chunk with `'drain'` backpressure and ends the response on close, with an AbortSignal for an early
 * close): the same steps as bench/real/scenarios/next-route.ts.
 */
async function sendLikeNext(response: Response, res: import("node:http").ServerResponse): Promise<void> {
  res.statusCode = response.status;
  response.headers.forEach((value, name) => res.setHeader(name, value));
  const controller = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) controller.abort(new Error("the response closed early"));
  });
  let drained: (() => void) | undefined;
  res.on("drain", () => drained?.());
  let headersSent = false;
  await response.body!.pipeTo(
    new WritableStream<Uint8Array>({
      async write(chunk) {
        if (!headersSent) {
          headersSent = true;
          res.flushHeaders();
        }
        if (!res.write(chunk)) await new Promise<void>((resolve) => (drained = resolve));
      },
      close() {
        return new Promise<void>((resolve) => res.end(resolve));
      },
    }),
    { signal: controller.signal },
  );
}

type NodeWebReadable = import("node:stream/web").ReadableStream<Uint8Array>;

/** The routes of the Node.js end cases; `seen` records whether each ran on fusestreams' streams. */
async function nodeEndsServer(context: CaseContext, seen: Map<string, boolean>): Promise<Served> {
  const http = await import("node:http");
  const { Readable, Writable } = await import("node:stream");
  const { pipeline } = await import("node:stream/promises");
  const html = { "content-type": "text/html; charset=utf-8" };
  const routes: Record<string, (req: IncomingMessage, res: import("node:http").ServerResponse) => unknown> = {
    "/next": (_req, res) => {
      const response = new Response(pageStream(), { status: 200, headers: html });
      seen.set("node-next-route", context.isOurs(response.body));
      return sendLikeNext(response, res);
    },
    "/fromweb": (_req, res) => {
      const page = pageStream();
      seen.set("node-fromweb-pipe", context.isOurs(page));
      res.writeHead(200, html);
      Readable.fromWeb(page as unknown as NodeWebReadable).pipe(res);
    },
    "/pipeline": (_req, res) => {
      const page = pageStream();
      seen.set("node-pipeline", context.isOurs(page));
      res.writeHead(200, html);
      return pipeline(page, res);
    },
    "/toweb": (_req, res) => {
      const page = pageStream();
      seen.set("node-toweb-pipeto", context.isOurs(page));
      res.writeHead(200, html);
      return page.pipeTo(Writable.toWeb(res) as WritableStream<Uint8Array>);
    },
    "/upload": (req, res) => {
      const body = Readable.toWeb(req) as unknown as ReadableStream<Uint8Array>;
      seen.set("node-upload", context.isOurs(body));
      res.writeHead(200, { "content-type": "application/octet-stream" });
      const out = body.pipeThrough(xorStream());
      Readable.fromWeb(out as unknown as NodeWebReadable).pipe(res);
    },
    "/bytes": (_req, res) => {
      // no web stream on this side: the bytes a fetch() reads in the node-fetch-body case
      res.writeHead(200, { "content-type": "application/octet-stream" });
      for (let at = 0, n = 1; at < ECHO.byteLength; at += n, n = (n * 5) % 9001 + 1) {
        res.write(ECHO.subarray(at, at + n));
      }
      res.end();
    },
  };
  const server = http.createServer((req, res) => {
    const route = routes[req.url ?? ""];
    if (!route) return void res.writeHead(404).end();
    Promise.resolve(route(req, res)).catch((error: unknown) => res.destroy(error as Error));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as import("node:net").AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

let nodeEnds: Promise<{ served: Served; seen: Map<string, boolean> }> | undefined;

/** The server of the Node.js end cases, started by the first of them. */
function nodeEndsStarted(context: CaseContext): Promise<{ served: Served; seen: Map<string, boolean> }> {
  return nodeEnds ??= (async () => {
    const seen = new Map<string, boolean>();
    return { served: await nodeEndsServer(context, seen), seen };
  })();
}

function nodeEndCase(name: string, path: string, minBytes: number, body?: Uint8Array): FrameworkCase {
  return {
    name,
    minBytes,
    async run(context) {
      const { served, seen } = await nodeEndsStarted(context);
      const bytes = await request(served.url + path, body);
      return { bytes, ours: seen.get(name) === true };
    },
  };
}

/** Node.js only: the paths Node.js frameworks take to send a web stream, and a request or fetch body read. */
const nodeEndCases: FrameworkCase[] = g.Deno || g.Bun ? [] : [
  nodeEndCase("node-next-route", "/next", 5000),
  nodeEndCase("node-fromweb-pipe", "/fromweb", 5000),
  nodeEndCase("node-pipeline", "/pipeline", 5000),
  nodeEndCase("node-toweb-pipeto", "/toweb", 5000),
  nodeEndCase("node-upload", "/upload", ECHO.byteLength, ECHO),
  {
    name: "node-fetch-body",
    minBytes: ECHO.byteLength,
    async run(context) {
      const { served } = await nodeEndsStarted(context);
      const res = await fetch(served.url + "/bytes");
      const body = res.body!;
      const read = await readAll(body.pipeThrough(xorStream()));
      return { bytes: responseOutput(res, read), ours: context.isOurs(body) };
    },
  },
];

/** Every case, in run order. */
export const CASES: readonly FrameworkCase[] = [
  honoCase("hono-stream", "/stream", 100_000),
  honoCase("hono-streamtext", "/text", 2000),
  honoCase("hono-sse", "/sse", 2000),
  honoCase("hono-echo", "/echo", ECHO.byteLength, ECHO),
  ...aiCases,
  ...reactCases,
  ...nodeEndCases,
];
