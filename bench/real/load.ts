/**
 * The load client of the server rows, run by the orchestrator (Node 26, node:http, no web streams): a fixed number
 * of keep-alive connections, each sending its next request as soon as the last response has ended. Every
 * response is checked (status 200, the route's exact body size; the echo's bytes on its first responses).
 * @module
 */
import { Agent, request } from "node:http";

/** What to send, and for how long. */
export interface LoadOptions {
  port: number;
  method: "GET" | "POST";
  path: string;
  /** the request body (POST) */
  body?: Uint8Array;
  /** the body size every response must have */
  expectBytes: number;
  /** concurrent connections */
  connections: number;
  warmMs: number;
  measureMs: number;
  /** width of one sample window (ms) */
  windowMs: number;
  /** called when the warm-up ends and the measured part begins */
  onMeasure?: () => void;
}

/** Requests per second in each window of the measured part. */
export interface LoadResult {
  windows: number[];
  requests: number;
}

function once(agent: Agent, options: LoadOptions, checkEcho: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: "127.0.0.1",
        port: options.port,
        method: options.method,
        path: options.path,
        headers: options.body
          ? { "content-type": "application/octet-stream", "content-length": options.body.byteLength }
          : {},
      },
      (res) => {
        let bytes = 0;
        const parts: Buffer[] = [];
        res.on("data", (chunk: Buffer) => {
          bytes += chunk.byteLength;
          if (checkEcho) parts.push(chunk);
        });
        res.on("error", reject);
        res.on("end", () => {
          if (res.statusCode !== 200) return reject(new Error(`${options.path}: status ${res.statusCode}`));
          if (bytes !== options.expectBytes) {
            return reject(new Error(`${options.path}: ${bytes} bytes, expected ${options.expectBytes}`));
          }
          if (checkEcho && !Buffer.concat(parts).equals(options.body!)) {
            return reject(new Error(`${options.path}: the echo differs from the request body`));
          }
          resolve();
        });
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

/** Drives the server for warmMs + measureMs and counts the responses that end in each window. */
export async function drive(options: LoadOptions): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections });
  const t0 = performance.now();
  const measureAt = t0 + options.warmMs;
  const stopAt = measureAt + options.measureMs;
  const windows = new Array<number>(Math.max(1, Math.floor(options.measureMs / options.windowMs))).fill(0);
  let measuring = false;
  let sent = 0;
  const user = async () => {
    while (true) {
      const now = performance.now();
      if (now >= stopAt) return;
      if (!measuring && now >= measureAt) {
        measuring = true;
        options.onMeasure?.();
      }
      await once(agent, options, options.body !== undefined && sent++ < 4);
      const end = performance.now();
      if (end >= measureAt && end < stopAt) {
        const w = Math.floor((end - measureAt) / options.windowMs);
        if (w < windows.length) windows[w]!++;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: options.connections }, user));
  } finally {
    agent.destroy();
  }
  const perSecond = 1000 / options.windowMs;
  return { windows: windows.map((n) => n * perSecond), requests: windows.reduce((a, b) => a + b, 0) };
}
