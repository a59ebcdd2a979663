/**
 * Runs a service-worker script in edge-runtime (Vercel's Edge Runtime, a Node.js vm with its primitives)
 * behind its HTTP server on 127.0.0.1, in a process of its own (a global patch inside edge-runtime changes
 * classes it shares with the Node.js realm that hosts it).
 *
 *   node tests/edge/edge-runtime-server.ts <script.js> [seconds]
 *
 * Prints `LISTEN <url>` when ready. Stops when its standard input ends (the test that started it closes
 * it or exits) or after `seconds` (default 120), whichever comes first.
 * @module
 */
import { EdgeRuntime, runServer } from "edge-runtime";
import { readFileSync } from "node:fs";
import process from "node:process";

const [script, seconds = "120"] = process.argv.slice(2);
if (script === undefined) throw new Error("usage: edge-runtime-server.ts <script.js> [seconds]");
const runtime = new EdgeRuntime({ initialCode: readFileSync(script, "utf8") });
const server = await runServer({ runtime, host: "127.0.0.1", port: 0 });
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
