/**
 * Runs a worker script in edge-runtime (Vercel's Edge Runtime, a Node.js vm with its primitives) behind an
 * HTTP server on 127.0.0.1, in a process of its own (a global patch inside edge-runtime changes classes it
 * shares with the Node.js realm that hosts it). Two ways in:
 *
 *   node tests/edge/edge-runtime-server.ts <script.js> [seconds]
 *     a service-worker script behind edge-runtime's own server (`runServer`);
 *   node tests/edge/edge-runtime-server.ts <script.js> [seconds] --evaluate
 *     as local emulators enter it: `new EdgeRuntime({ initialCode })` with a bundle evaluated as a classic
 *     script (tests/edge/bundle.ts, format `script`), the handler taken with `runtime.evaluate("handle")`,
 *     and each request made with the vm's `Request` class in the Node.js realm and handed to it.
 *
 * Prints `LISTEN <url>` when ready. Stops when its standard input ends (the test that started it closes
 * it or exits) or after `seconds` (default 120), whichever comes first.
 * @module
 */
import { EdgeRuntime, runServer } from "edge-runtime";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import process from "node:process";
import { Readable } from "node:stream";

const args = process.argv.slice(2);
const evaluate = args.includes("--evaluate");
const [script, seconds = "120"] = args.filter((a) => !a.startsWith("--"));
if (script === undefined) throw new Error("usage: edge-runtime-server.ts <script.js> [seconds] [--evaluate]");
const runtime = new EdgeRuntime({ initialCode: readFileSync(script, "utf8") });

/** A request of this server as a web Request of the vm's class (`VmRequest`), its body a Node.js web stream. */
function webRequest(VmRequest: typeof Request, req: IncomingMessage, base: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new VmRequest(new URL(req.url ?? "/", base), {
    method: req.method,
    headers,
    body: hasBody ? Readable.toWeb(req) as unknown as ReadableStream<Uint8Array> : null,
    duplex: "half",
  } as RequestInit);
}

/** Sends `response` (from the handler in the vm) to `res`, its body read with a reader as it comes. */
async function send(response: Response, res: ServerResponse): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.flushHeaders();
  const body = response.body;
  if (body !== null) {
    const reader = body.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) res.write(r.value);
  }
  res.end();
}

/** An HTTP server calling the handler the script put on the vm's global `handle`. */
async function evaluateServer(): Promise<{ url: string; close(): Promise<void> }> {
  const handle = runtime.evaluate("handle") as (request: Request) => Promise<Response>;
  const VmRequest = runtime.evaluate("Request") as typeof Request;
  const server = createServer((req, res) => {
    const url = `http://${req.headers.host ?? "127.0.0.1"}`;
    handle(webRequest(VmRequest, req, url)).then((response) => send(response, res)).catch((error: unknown) => {
      process.stderr.write(`edge-runtime-server: the response was cut short: ${String(error)}\n`);
      res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const server = evaluate ? await evaluateServer() : await runServer({ runtime, host: "127.0.0.1", port: 0 });
process.stdout.write(`LISTEN ${server.url}\n`);

// edge-runtime's server awaits the body pump inside its request handler: a response body that errors
// (as a test makes one do on purpose) rejects the handler, which would end this process. Log and go on.
process.on("unhandledRejection", (reason) => {
  process.stderr.write(
    `edge-runtime-server: a request handler failed (the response was cut short): ${String(reason)}\n`,
  );
});

let stopping = false;
const stop = (code: number): void => {
  if (stopping) return;
  stopping = true;
  const force = setTimeout(() => process.exit(code), 2000);
  force.unref();
  server.close().then(() => process.exit(code), () => process.exit(code));
};
process.stdin.on("end", () => stop(0));
process.stdin.on("error", () => stop(0));
process.stdin.resume();
setTimeout(() => {
  process.stderr.write(`edge-runtime-server: stopping after ${seconds} s\n`);
  stop(3);
}, Number(seconds) * 1000).unref();
