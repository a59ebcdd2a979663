/**
 * The adapter contract suite (tests/shared/contract-suite.ts) for the Node.js adapter (fusestreams/node):
 * on Node.js 20 (dist), 22 and 26, with a node:http server on 127.0.0.1 handing the suite's handlers web
 * Requests and sending their Responses, as Node frameworks do. On Deno and Bun only the "another runtime"
 * cases run.
 *
 *   node tests/unit/node-contract.test.ts
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import process from "node:process";
import { Readable } from "node:stream";
import * as node from "../../adapters/node/mod.ts";
import { test } from "uvu";
import { runtimeAdapterSuite, type Serve } from "../shared/contract-suite.ts";
import { uvuRegistrar } from "./uvu-registrar.ts";

const g = globalThis as { Deno?: unknown; Bun?: unknown };
const onNode = g.Deno === undefined && g.Bun === undefined && process.release?.name === "node";

/** A web Request of a node:http request (its body a web stream reading the socket). */
function toRequest(req: IncomingMessage, origin: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) { for (const v of value) headers.append(name, v); }
    else if (value !== undefined) headers.set(name, value);
  }
  const method = req.method ?? "GET";
  const body = method === "GET" || method === "HEAD" ? undefined : Readable.toWeb(req);
  return new Request(new URL(req.url ?? "/", origin), {
    method,
    headers,
    body: body as BodyInit | undefined,
    duplex: "half",
  } as RequestInit);
}

/** Sends a web Response on a node:http response, reading its body to the end (or failing the socket). */
async function send(response: Response, res: ServerResponse): Promise<void> {
  res.writeHead(response.status, [...response.headers].flat());
  if (response.body !== null) {
    for await (const chunk of response.body) {
      if (!res.write(chunk)) await new Promise((resolve) => res.once("drain", resolve));
    }
  }
  res.end();
}

const serve: Serve | undefined = onNode
  ? async (handler) => {
    let origin = "";
    const server = createServer((req, res) => {
      void (async () => {
        try {
          await send(await handler(toRequest(req, origin)), res);
        } catch {
          // A body that fails mid-way cuts the response short, as a server does.
          res.destroy();
        }
      })();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return {
      url: origin,
      stop: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  }
  : undefined;

runtimeAdapterSuite({
  runtime: "Node.js",
  adapter: node.adapter,
  here: onNode,
  serve,
  register: uvuRegistrar,
  // undici reads a stream of ours itself (the patch leaves body-init to it): its rules for chunks apply.
  bodyChunks: "as native",
});
test.run();
