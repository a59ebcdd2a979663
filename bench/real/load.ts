/**
 * The load client of the server rows, run by the orchestrator (Node 26, no web streams): a fixed number of
 * keep-alive HTTP/1.1 connections on raw `node:net` sockets, each sending its next request as soon as the last
 * response has ended, as wrk and oha do. A request is one prebuilt buffer written once; a response is parsed
 * as it arrives (status line, `content-length` or chunked framing) without a header object or a stream per
 * request, so the client costs a fraction of what the server under test does (node:http cost about as much as
 * the servers, which flattened their ratios). Every response is checked (status 200, the route's exact body
 * size; the echo's bytes on its first responses).
 * @module
 */
import { connect, type Socket } from "node:net";

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

/** Requests per second in each window of the measured part, and the client's own CPU time. */
export interface LoadResult {
  windows: number[];
  requests: number;
  /** the client's CPU time per response during the measured part (µs), this process's all threads */
  clientCpuUs: number;
  /** connections the server closed between responses (the request in flight sent again on a new one) */
  reconnects: number;
}

const CR = 0x0d;
const LF = 0x0a;
const HEAD_END = Buffer.from("\r\n\r\n");
const LINE_END = Buffer.from("\r\n");

/** The request every connection sends, as one buffer. */
function requestBytes(options: LoadOptions): Buffer {
  const head = `${options.method} ${options.path} HTTP/1.1\r\nhost: 127.0.0.1:${options.port}\r\n` +
    (options.body ? `content-type: application/octet-stream\r\ncontent-length: ${options.body.byteLength}\r\n` : "") +
    "\r\n";
  return options.body ? Buffer.concat([Buffer.from(head, "latin1"), options.body]) : Buffer.from(head, "latin1");
}

/** Where in a response the parser is (`#part`). */
const HEAD = 0;
const SIZED = 1;
const CHUNK_SIZE = 2;
const CHUNK_DATA = 3;
const CHUNK_END = 4;
const TRAILERS = 5;

/**
 * One HTTP/1.1 response parser over a keep-alive connection: `push()` every buffer the socket gives; it calls
 * `done` once per complete response with its status and body size (and its bytes when `collect` is set).
 */
class ResponseReader {
  #part: number = HEAD;
  #pending: Buffer | undefined;
  #status = 0;
  #bytes = 0;
  #left = 0;
  #parts: Buffer[] | undefined;
  #done: (status: number, bytes: number, body: Buffer[] | undefined) => void;

  constructor(done: (status: number, bytes: number, body: Buffer[] | undefined) => void) {
    this.#done = done;
  }

  /** True when no byte of the response being waited for has come. */
  between(): boolean {
    return this.#part === HEAD && this.#pending === undefined;
  }

  /** Starts a response; its body's parts are kept when `collect` is true. */
  expect(collect: boolean): void {
    this.#part = HEAD;
    this.#status = 0;
    this.#bytes = 0;
    this.#parts = collect ? [] : undefined;
  }

  push(data: Buffer): void {
    const buf = this.#pending ? Buffer.concat([this.#pending, data]) : data;
    this.#pending = undefined;
    let at = 0;
    while (at < buf.length) {
      switch (this.#part) {
        case HEAD: {
          const end = buf.indexOf(HEAD_END, at);
          if (end < 0) return void (this.#pending = buf.subarray(at));
          const empty = this.#head(buf.toString("latin1", at, end));
          at = end + 4;
          if (empty) this.#finish();
          break;
        }
        case SIZED: {
          at = this.#take(buf, at);
          if (this.#left === 0) this.#finish();
          break;
        }
        case CHUNK_SIZE: {
          const end = buf.indexOf(LINE_END, at);
          if (end < 0) return void (this.#pending = buf.subarray(at));
          const size = parseInt(buf.toString("latin1", at, end), 16);
          if (!(size >= 0)) throw new Error(`bad chunk size line ${JSON.stringify(buf.toString("latin1", at, end))}`);
          at = end + 2;
          this.#left = size;
          this.#part = size === 0 ? TRAILERS : CHUNK_DATA;
          break;
        }
        case CHUNK_DATA: {
          at = this.#take(buf, at);
          if (this.#left === 0) this.#part = CHUNK_END;
          break;
        }
        case CHUNK_END: {
          if (buf.length - at < 2) return void (this.#pending = buf.subarray(at));
          if (buf[at] !== CR || buf[at + 1] !== LF) throw new Error("chunk data not followed by CRLF");
          at += 2;
          this.#part = CHUNK_SIZE;
          break;
        }
        case TRAILERS: {
          const end = buf.indexOf(LINE_END, at);
          if (end < 0) return void (this.#pending = buf.subarray(at));
          const empty = end === at;
          at = end + 2;
          if (empty) this.#finish();
          break;
        }
      }
    }
  }

  /** Reads the status and the framing; true when the body is empty (`content-length: 0`). */
  #head(text: string): boolean {
    this.#status = Number(text.slice(9, 12));
    const lower = text.toLowerCase();
    const length = /\r\ncontent-length:\s*(\d+)/.exec(lower);
    if (/\r\ntransfer-encoding:[^\r]*chunked/.test(lower)) {
      this.#part = CHUNK_SIZE;
      return false;
    } else if (length) {
      this.#part = SIZED;
      this.#left = Number(length[1]);
      return this.#left === 0;
    } else {
      throw new Error(`a response with neither content-length nor chunked framing: ${text.split("\r\n")[0]}`);
    }
  }

  /** Takes up to `#left` body bytes of `buf` from `at`; returns the offset after them. */
  #take(buf: Buffer, at: number): number {
    const n = Math.min(this.#left, buf.length - at);
    this.#bytes += n;
    this.#left -= n;
    if (this.#parts) this.#parts.push(Buffer.from(buf.subarray(at, at + n)));
    return at + n;
  }

  #finish(): void {
    this.#part = HEAD;
    this.#done(this.#status, this.#bytes, this.#parts);
  }
}

/** Drives the server for warmMs + measureMs and counts the responses that end in each window. */
export async function drive(options: LoadOptions): Promise<LoadResult> {
  const request = requestBytes(options);
  const t0 = performance.now();
  const measureAt = t0 + options.warmMs;
  const stopAt = measureAt + options.measureMs;
  const windows = new Array<number>(Math.max(1, Math.floor(options.measureMs / options.windowMs))).fill(0);
  let measuring = false;
  let cpuAtMeasure: NodeJS.CpuUsage | undefined;
  let checked = 0;
  const sockets: Socket[] = [];

  let reconnects = 0;
  /** One user: a connection at a time, each request sent when the last response has ended. */
  const user = (): Promise<void> =>
    new Promise((resolve, reject) => {
      let socket: Socket;
      let settled = false;
      /** responses the current connection has answered */
      let answered = 0;
      const fail = (error: Error) => {
        if (settled) return;
        settled = true;
        socket.destroy();
        reject(error);
      };
      const send = () => {
        const now = performance.now();
        if (now >= stopAt) {
          settled = true;
          socket.end();
          return resolve();
        }
        if (!measuring && now >= measureAt) {
          measuring = true;
          cpuAtMeasure = process.cpuUsage();
          options.onMeasure?.();
        }
        reader.expect(options.body !== undefined && checked++ < 4);
        socket.write(request);
      };
      const reader = new ResponseReader((status, bytes, body) => {
        if (status !== 200) return fail(new Error(`${options.path}: status ${status}`));
        if (bytes !== options.expectBytes) {
          return fail(new Error(`${options.path}: ${bytes} bytes, expected ${options.expectBytes}`));
        }
        if (body && !Buffer.concat(body).equals(options.body!)) {
          return fail(new Error(`${options.path}: the echo differs from the request body`));
        }
        answered++;
        const end = performance.now();
        if (end >= measureAt && end < stopAt) {
          const w = Math.floor((end - measureAt) / options.windowMs);
          if (w < windows.length) windows[w]!++;
        }
        send();
      });
      // A server may close a keep-alive connection between responses (Deno.serve does now and then, with or
      // without the patch; node:http's agent dropped such sockets unseen): when the connection had answered
      // and no byte of the response to the request in flight has come, that request is sent again on a new
      // connection, and counted. A connection that answered nothing (a server gone) fails the run.
      const open = () => {
        answered = 0;
        socket = connect({ host: "127.0.0.1", port: options.port, noDelay: true });
        sockets.push(socket);
        let lost: Error | undefined;
        socket.on("connect", send);
        socket.on("data", (data: Buffer) => {
          try {
            reader.push(data);
          } catch (error) {
            fail(error instanceof Error ? error : new Error(String(error)));
          }
        });
        socket.on("error", (error) => (lost = error));
        socket.on("close", () => {
          if (settled) return;
          if (!reader.between() || answered === 0) {
            return fail(lost ?? new Error(`${options.path}: the server closed the connection before a response ended`));
          }
          reconnects++;
          open();
        });
      };
      open();
    });

  try {
    await Promise.all(Array.from({ length: options.connections }, user));
  } finally {
    for (const socket of sockets) socket.destroy();
  }
  const cpu = process.cpuUsage(cpuAtMeasure);
  const requests = windows.reduce((a, b) => a + b, 0);
  const perSecond = 1000 / options.windowMs;
  return {
    windows: windows.map((n) => n * perSecond),
    requests,
    clientCpuUs: (cpu.user + cpu.system) / Math.max(1, requests),
    reconnects,
  };
}
