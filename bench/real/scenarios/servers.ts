/**
 * The server rows: a Hono app served by the runtime's own server (`@hono/node-server` on Node.js, `Deno.serve`,
 * `Bun.serve`), and the ends of a pipeline (how a web stream reaches the socket). Every server listens on
 * 127.0.0.1, port 0; the orchestrator's load client drives it. Imported by the worker after the patch.
 * @module
 */
import { Hono } from "hono";
import { streamText } from "hono/streaming";
import { SIZES } from "../catalog.ts";
import { byteChunks, pageStrings, textStrings } from "../data.ts";
import { htmlPipeline } from "./pipelines.ts";

/** A started server. */
export interface Served {
  port: number;
  close(): Promise<void>;
}

interface DenoServer {
  addr: { port: number };
  shutdown(): Promise<void>;
}
interface BunServer {
  port: number;
  stop(force?: boolean): Promise<void> | void;
}
const g = globalThis as unknown as {
  Deno?: {
    serve(
      options: { hostname: string; port: number; onListen?: () => void },
      handler: (request: Request) => Response | Promise<Response>,
    ): DenoServer;
  };
  Bun?: { serve(options: { hostname: string; port: number; fetch: (request: Request) => unknown }): BunServer };
};

function identity<T>(): TransformStream<T, T> {
  return new TransformStream<T, T>({
    transform(chunk, controller) {
      controller.enqueue(chunk);
    },
  });
}

const BYTES = byteChunks(SIZES.serverChunks);

/** The streaming route's body: a pull source of 64 x 1 KiB through one transform. */
function byteStream(): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < BYTES.length) controller.enqueue(BYTES[i++]!);
      else controller.close();
    },
  }).pipeThrough(identity());
}

const PAGE = pageStrings();
const TEXT = textStrings();

/** The page of the `end-*` rows: 64 HTML strings -> 3 TransformStreams -> TextEncoderStream. */
function pageStream(): ReadableStream<Uint8Array> {
  return htmlPipeline(PAGE);
}

/** The Hono app of the hono-* rows and `end-hono`. */
export function honoApp(): Hono {
  const app = new Hono();
  app.get("/stream", (c) => c.body(byteStream(), 200, { "content-type": "application/octet-stream" }));
  app.get("/text", (c) =>
    streamText(c, async (stream) => {
      for (const s of TEXT) await stream.write(s);
    }));
  app.post("/echo", (c) => c.body(c.req.raw.body!.pipeThrough(identity<Uint8Array>()), 200));
  app.get("/page", (c) => c.body(pageStream(), 200, { "content-type": "text/html; charset=utf-8" }));
  return app;
}

async function serveFetch(handler: (request: Request) => Response | Promise<Response>): Promise<Served> {
  if (g.Deno) {
    const server = g.Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler);
    return { port: server.addr.port, close: () => server.shutdown() };
  }
  if (g.Bun) {
    const server = g.Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: handler });
    return { port: server.port, close: async () => void (await server.stop(true)) };
  }
  const { serve } = await import("@hono/node-server");
  return await new Promise<Served>((resolve) => {
    const server = serve({ fetch: handler, hostname: "127.0.0.1", port: 0 }, (info) => {
      resolve({
        port: info.port,
        close: () =>
          new Promise<void>((done) => {
            // the load client's keep-alive connections would hold close() open
            (server as import("node:http").Server).closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

async function nodeServer(
  handle: (res: import("node:http").ServerResponse) => void | Promise<void>,
): Promise<Served> {
  const { createServer } = await import("node:http");
  const server = createServer((req, res) => {
    req.resume();
    Promise.resolve(handle(res)).catch((error) => res.destroy(error));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return {
    port: address.port,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

/** Starts the server of row `id`. */
export async function start(id: string): Promise<Served> {
  switch (id) {
    case "hono-stream":
    case "hono-streamtext":
    case "hono-echo":
    case "end-hono":
      return await serveFetch(honoApp().fetch);
    case "end-serve":
      return await serveFetch(() =>
        new Response(pageStream(), { headers: { "content-type": "text/html; charset=utf-8" } })
      );
    case "end-fromweb": {
      const { Readable } = await import("node:stream");
      return await nodeServer((res) => {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        Readable.fromWeb(pageStream() as unknown as import("node:stream/web").ReadableStream<Uint8Array>).pipe(res);
      });
    }
    case "end-next": {
      const { sendLikeNext } = await import("./next-route.ts");
      return await nodeServer((res) =>
        sendLikeNext(new Response(pageStream(), { headers: { "content-type": "text/html; charset=utf-8" } }), res)
      );
    }
  }
  throw new Error(`servers.ts has no row ${id}`);
}
