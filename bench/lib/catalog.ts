/**
 * The benchmark scenarios (names, sizes, which implementations take part) and the data they move.
 * Shared by the orchestrator (bench/run.ts, for --filter and table titles) and the worker.
 * Nothing in here is timed.
 * @module
 */

/** How a scenario's result is reported. */
export type Unit = "MB/s" | "ops/s";

/** One benchmark row group: one table in the output. */
export interface Scenario {
  /** stable id, used by --filter and in the JSON output */
  id: string;
  /** scenario number from bench/README.md (1–9) */
  group: number;
  /** one-line description, printed above the table */
  title: string;
  unit: Unit;
  /** bytes moved per iteration (MB/s scenarios), before rounding to whole chunks */
  bytes: number;
  /** operations per iteration (ops/s scenarios) */
  ops: number;
  /** the node:stream equivalent, or undefined when there is none */
  node?: string;
}

const KiB = 1024;
const MiB = 1024 * KiB;

/** Every scenario, in output order. */
export const SCENARIOS: readonly Scenario[] = [
  {
    id: "read-loop",
    group: 1,
    title: "read loop: ReadableStream pull() enqueues one chunk, reader.read() loop",
    unit: "MB/s",
    bytes: 8 * MiB,
    ops: 0,
    node: "Readable read() pushes one chunk, consumer on('data')",
  },
  // a floor (group 11, reported under native): the least JavaScript the standard allows for the scenario above;
  // it runs right after it, before the Node adapter scenarios (whose fetch/http use can slow every promise after them)
  {
    id: "floor-read-loop",
    group: 11,
    title: "floor of read-loop: per chunk a pending promise, the pull's reaction job and an await (no streams)",
    unit: "MB/s",
    bytes: 8 * MiB,
    ops: 0,
  },
  {
    id: "write-loop",
    group: 2,
    title: "write loop: sync sink, `await writer.ready; writer.write(chunk)` per chunk, close",
    unit: "MB/s",
    bytes: 8 * MiB,
    ops: 0,
    node: "Writable, write() and await 'drain' when it returns false, end()",
  },
  {
    id: "write-await",
    group: 2,
    title: "write loop: sync sink, `await writer.write(chunk)` per chunk, close",
    unit: "MB/s",
    bytes: 8 * MiB,
    ops: 0,
    node: "Writable, await the write() callback per chunk, end()",
  },
  {
    id: "for-await",
    group: 3,
    title: "for-await over a ReadableStream (pull() enqueues one chunk)",
    unit: "MB/s",
    bytes: 8 * MiB,
    ops: 0,
    node: "for await over a Readable",
  },
  {
    id: "pipe-to",
    group: 4,
    title: "pipeTo: ReadableStream (pull) -> WritableStream (sync sink)",
    unit: "MB/s",
    bytes: 8 * MiB,
    ops: 0,
    node: "pipeline(Readable, Writable)",
  },
  {
    id: "flight",
    group: 5,
    title:
      "React Flight: type 'bytes', controller captured in start(), all chunks enqueued from outside, close, reader loop",
    unit: "MB/s",
    bytes: 4 * MiB,
    ops: 0,
    node: "Readable with no-op read(), push() every chunk from outside, push(null), on('data')",
  },
  {
    id: "floor-flight",
    group: 11,
    title:
      "floor of flight: per chunk a buffer transfer and a new Uint8Array, then an await of a resolved result (no streams)",
    unit: "MB/s",
    bytes: 4 * MiB,
    ops: 0,
  },
  {
    id: "byte-read",
    group: 6,
    title: "byte read loop: type 'bytes', pull() enqueues one chunk, default reader loop",
    unit: "MB/s",
    bytes: 4 * MiB,
    ops: 0,
  },
  {
    id: "floor-byte-read",
    group: 11,
    title:
      "floor of byte-read: per chunk a pending promise, one job (a reaction to a resolved promise, or Bun's built-in queueMicrotask), a buffer transfer and a new Uint8Array (no streams)",
    unit: "MB/s",
    bytes: 4 * MiB,
    ops: 0,
  },
  {
    id: "byte-byob",
    group: 6,
    title: "byte read loop, BYOB: pull() fills byobRequest.view and respond()s, reader.read(view) reusing the buffer",
    unit: "MB/s",
    bytes: 4 * MiB,
    ops: 0,
  },
  {
    id: "byte-tee",
    group: 7,
    title: "byte tee: type 'bytes' (start enqueues all, close), tee(), both branches read concurrently",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
  },
  {
    id: "construct-readable",
    group: 8,
    title: "construct ReadableStream({ pull() {} }) (256 per iteration, then the microtask queue drains)",
    unit: "ops/s",
    bytes: 0,
    ops: 256,
    node: "new Readable({ read() {} })",
  },
  {
    id: "iter-short",
    group: 8,
    title: "for await over 256 short streams (start() enqueues 2 chunks and closes), one after the other",
    unit: "ops/s",
    bytes: 0,
    ops: 256,
  },
  {
    id: "construct-writable",
    group: 8,
    title: "construct WritableStream({ write() {} }) (256 per iteration, then the microtask queue drains)",
    unit: "ops/s",
    bytes: 0,
    ops: 256,
    node: "new Writable({ write(c, e, cb) { cb() } })",
  },
  {
    id: "construct-transform",
    group: 8,
    title:
      "construct TransformStream({ transform(c, ctl) { ctl.enqueue(c) } }) (256 per iteration, then the microtask queue drains)",
    unit: "ops/s",
    bytes: 0,
    ops: 256,
    node: "new Transform({ transform(c, e, cb) { cb(null, c) } })",
  },
  {
    id: "pipe-through-1",
    group: 9,
    title: "pipeThrough 1x new TransformStream() -> pipeTo(WritableStream)",
    unit: "MB/s",
    bytes: 4 * MiB,
    ops: 0,
    node: "pipeline(Readable, PassThrough, Writable)",
  },
  {
    id: "pipe-through-3",
    group: 9,
    title: "pipeThrough 3x new TransformStream() -> pipeTo(WritableStream)",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
    node: "pipeline(Readable, 3x PassThrough, Writable)",
  },
  {
    id: "pipe-through-8",
    group: 9,
    title: "pipeThrough 8x new TransformStream() -> pipeTo(WritableStream)",
    unit: "MB/s",
    bytes: 1 * MiB,
    ops: 0,
    node: "pipeline(Readable, 8x PassThrough, Writable)",
  },
  {
    id: "transform-fn-1",
    group: 9,
    title: "pipeThrough 1x TransformStream({ transform(c, ctl) { ctl.enqueue(c) } }) -> pipeTo",
    unit: "MB/s",
    bytes: 4 * MiB,
    ops: 0,
    node: "pipeline(Readable, Transform(cb(null, c)), Writable)",
  },
  {
    id: "transform-fn-3",
    group: 9,
    title: "pipeThrough 3x TransformStream({ transform(c, ctl) { ctl.enqueue(c) } }) -> pipeTo",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
    node: "pipeline(Readable, 3x Transform(cb(null, c)), Writable)",
  },
  {
    id: "transform-fn-8",
    group: 9,
    title: "pipeThrough 8x TransformStream({ transform(c, ctl) { ctl.enqueue(c) } }) -> pipeTo",
    unit: "MB/s",
    bytes: 1 * MiB,
    ops: 0,
    node: "pipeline(Readable, 8x Transform(cb(null, c)), Writable)",
  },
  {
    id: "xor-3",
    group: 9,
    title: "CPU-bound chain: 3x TransformStream XOR-ing every byte into a new chunk -> pipeTo",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
    node: "pipeline(Readable, 3x XOR Transform, Writable)",
  },
  {
    id: "async-transform",
    group: 9,
    title: "async transform: 1x TransformStream({ async transform(c, ctl) { ctl.enqueue(c) } }) -> pipeTo",
    unit: "MB/s",
    bytes: 4 * MiB,
    ops: 0,
    node: "pipeline(Readable, Transform calling cb(null, c) in a promise reaction, Writable)",
  },
  {
    id: "async-transform-6",
    group: 9,
    title:
      "AI SDK shape: 6x TransformStream({ async transform(c, ctl) { ctl.enqueue(c) } }) chained by pipeThrough -> reader loop",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
  },
  {
    id: "reader-pull-6",
    group: 9,
    title:
      "AI SDK shape: 6x ReadableStream({ async pull(ctl) { ctl.enqueue((await reader.read()).value) } }), each reading the one before -> reader loop",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
  },
  {
    id: "writer-pull",
    group: 9,
    title:
      "Hono streaming shape: each chunk's writer.write() awaited into a TransformStream() read by a ReadableStream({ async pull }) forwarding it -> reader loop",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
  },
  {
    id: "floor-async-transform-6",
    group: 11,
    title:
      "floor of async-transform-6: per chunk and stage the async transform(), a promise resolved with its promise and the three reactions the standard makes (no streams)",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
  },
  {
    id: "floor-reader-pull-6",
    group: 11,
    title:
      "floor of reader-pull-6: per chunk and stage a pending read, the async pull() awaiting it, a promise resolved with its promise and the pull reaction (no streams)",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
  },
  {
    id: "gzip-mixed",
    group: 9,
    title:
      "mixed chain: transform -> native CompressionStream('gzip') -> native DecompressionStream('gzip') -> transform -> pipeTo",
    unit: "MB/s",
    bytes: 256 * KiB,
    ops: 0,
    node: "pipeline(Readable, Transform, zlib.createGzip(), zlib.createGunzip(), Transform, Writable)",
  },
  {
    id: "html-gzip",
    group: 9,
    title:
      "issue 25's pipeline: 4,000 HTML strings -> 3 TransformStreams -> TextEncoderStream -> CompressionStream('gzip') -> new Response(s).arrayBuffer()",
    unit: "ops/s",
    bytes: 0,
    ops: 1,
  },
  {
    id: "chain-reader",
    group: 9,
    title: "pipeThrough 3x TransformStream({ transform }) -> reader.read() loop",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
    node: "pipeline(Readable, 3x Transform) -> on('data') on the last",
  },
  {
    id: "chain-for-await",
    group: 9,
    title: "pipeThrough 3x TransformStream({ transform }) -> for-await",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
    node: "pipeline(Readable, 3x Transform) -> for await over the last",
  },
  // 10: Node adapter (bench/scenarios/node-adapter.ts): global classes with each implementation's patch on
  // group 13: batched reads and consumers (issue 18); before the Node adapter scenarios, as the floors are
  {
    id: "batch-pull",
    group: 13,
    title:
      "batched reads, pull source (pull() enqueues one chunk, highWaterMark 16): ours for-await over batches(stream), others for-await over the stream",
    unit: "MB/s",
    bytes: 8 * MiB,
    ops: 0,
    node: "for await over a Readable (read() pushes one chunk)",
  },
  {
    id: "floor-batch-pull",
    group: 11,
    title:
      "floor of batch-pull: per chunk the row's pull(controller) (by Reflect.apply; its enqueue() an array push) and its reaction job, one wake per batch of up to 64 (no streams)",
    unit: "MB/s",
    bytes: 8 * MiB,
    ops: 0,
  },
  {
    id: "batch-push",
    group: 13,
    title:
      "batched reads, push source (controller captured in start(), bursts of 64 enqueue()s, one per MessageChannel task): ours batches(), others for-await",
    unit: "MB/s",
    bytes: 8 * MiB,
    ops: 0,
    node: "for await over a Readable, push() bursts of 64 from MessageChannel tasks",
  },
  {
    id: "floor-batch-push",
    group: 11,
    title:
      "floor of batch-push: the producer's tasks (64 enqueue()s each, an array push), one wake of the consumer per burst (no streams)",
    unit: "MB/s",
    bytes: 8 * MiB,
    ops: 0,
  },
  {
    id: "consume-bytes",
    group: 13,
    title:
      "consume a pull source (highWaterMark 16) into one buffer: ours bytes(stream), native new Response(stream).arrayBuffer()",
    unit: "MB/s",
    bytes: 8 * MiB,
    ops: 0,
    node: "node:stream/consumers buffer(Readable)",
  },
  {
    id: "floor-consume-bytes",
    group: 11,
    title:
      "floor of consume-bytes: floor-batch-pull's work, then one buffer sized once and every chunk copied into it (no streams)",
    unit: "MB/s",
    bytes: 8 * MiB,
    ops: 0,
  },
  {
    id: "consume-text",
    group: 13,
    title: "consume a pull source (highWaterMark 16) as text: ours text(stream), native new Response(stream).text()",
    unit: "MB/s",
    bytes: 8 * MiB,
    ops: 0,
    node: "node:stream/consumers text(Readable)",
  },
  {
    id: "floor-consume-text",
    group: 11,
    title: "floor of consume-text: as floor-consume-bytes, then one UTF-8 decode of the whole (no streams)",
    unit: "MB/s",
    bytes: 8 * MiB,
    ops: 0,
  },
  {
    id: "to-native-pull",
    group: 13,
    title:
      "toNativeReadableStream, pull source (highWaterMark 16): ours toNativeReadableStream(stream) read by the runtime's for-await, native for-await over the stream",
    unit: "MB/s",
    bytes: 8 * MiB,
    ops: 0,
  },
  {
    id: "to-native-push",
    group: 13,
    title:
      "toNativeReadableStream, push source (bursts of 64 enqueue()s per MessageChannel task): ours toNativeReadableStream(stream) read by the runtime's for-await, native for-await",
    unit: "MB/s",
    bytes: 8 * MiB,
    ops: 0,
  },
  {
    id: "text-lines",
    group: 13,
    title:
      "TextLineStream: 1 KiB strings of 80-byte lines, piped through, for-await over the lines (native: npm textlinestream 1.1.1, Deno std's TextLineStream, on native streams)",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
  },
  // group 14: the text codecs (issue 25), on every runtime; before the adapter scenarios, as group 13
  {
    id: "codec-encode",
    group: 14,
    title:
      "TextEncoderStream alone (no patch): 1 KiB strings of text (1 code unit in 12 outside ASCII, pairs cut) -> TextEncoderStream -> reader loop",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
  },
  {
    id: "codec-decode",
    group: 14,
    title:
      "TextDecoderStream alone (no patch): 1 KiB byte chunks of UTF-8 text (characters cut) -> TextDecoderStream -> reader loop",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
  },
  {
    id: "codec-encode-words",
    group: 14,
    title:
      "TextEncoderStream alone (no patch): 4,000 short strings as a model streams them (a word or two, 3-60 code units, some outside ASCII; AI SDK deltas and SSE lines) -> TextEncoderStream -> reader loop; strings/s",
    unit: "ops/s",
    bytes: 0,
    ops: 4000,
  },
  {
    id: "codec-html",
    group: 14,
    title:
      "patch on: 4,000 HTML strings -> 3 TransformStreams -> TextEncoderStream -> new Response(s).arrayBuffer(); strings/s",
    unit: "ops/s",
    bytes: 0,
    ops: 4000,
  },
  {
    id: "codec-html-native-codec",
    group: 14,
    title: "codec-html with the runtime's own TextEncoderStream between our streams (the patch leaving codecs native)",
    unit: "ops/s",
    bytes: 0,
    ops: 4000,
  },
  {
    id: "codec-sse",
    group: 14,
    title:
      "patch on: native body of 4,000 SSE events -> TextDecoderStream -> SSE parser (JSON) -> TextEncoderStream -> new Response(s).arrayBuffer(); events/s",
    unit: "ops/s",
    bytes: 0,
    ops: 4000,
  },
  {
    id: "codec-sse-native-codec",
    group: 14,
    title: "codec-sse with the runtime's own TextDecoderStream and TextEncoderStream between our streams",
    unit: "ops/s",
    bytes: 0,
    ops: 4000,
  },
  {
    id: "node-response-forward",
    group: 10,
    title: "Response forwarding: native byte-stream body (new Response(native).body) -> 1 transform -> WritableStream",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
  },
  {
    id: "node-fetch-3",
    group: 10,
    title: "fetch() from a loopback http server (1 KiB res.write()s) -> 3 transforms -> WritableStream",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
  },
  {
    id: "node-response-text",
    group: 10,
    title: "new Response(ReadableStream (pull enqueues one chunk)).text()",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
  },
  {
    id: "node-file-http",
    group: 10,
    title: "fs.createReadStream (1 KiB reads) -> 3 transforms -> http.ServerResponse -> loopback client",
    unit: "MB/s",
    bytes: 1 * MiB,
    ops: 0,
  },
  {
    id: "node-memory-chain",
    group: 10,
    title:
      "in-memory node:stream Readable (1 KiB pushes) -> 3 transforms -> node:stream Writable (the file -> http chain without I/O)",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
  },
  {
    id: "node-memory-pipeline",
    group: 10,
    title:
      "in-memory Readable -> Readable.toWeb -> 3 transforms -> Readable.fromWeb -> stream.pipeline() into a Writable",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
  },
  {
    id: "node-from-web",
    group: 10,
    title:
      "web pull source (highWaterMark 16) -> Readable.fromWeb() -> stream.pipeline() into a Writable (ours: the patch's toNodeReadable, read in batches)",
    unit: "MB/s",
    bytes: 8 * MiB,
    ops: 0,
  },
  {
    id: "node-from-web-push",
    group: 10,
    title:
      "web push source (bursts of 64 enqueue()s per MessageChannel task) -> Readable.fromWeb() -> stream.pipeline() into a Writable",
    unit: "MB/s",
    bytes: 8 * MiB,
    ops: 0,
  },
  {
    id: "node-react",
    group: 10,
    title: "React renderToReadableStream (react-dom/server, 1500-row table, ~220 KB in ~55 chunks) -> reader loop",
    unit: "ops/s",
    bytes: 0,
    ops: 1,
  },
  // 10, floors (native only): the same I/O without the transforms and pipes, or without web streams (README.md, Node adapter)
  {
    id: "node-floor-response-forward",
    group: 10,
    title:
      "floor of node-response-forward: the native byte-stream source read by a bare native reader loop (native only)",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
  },
  {
    id: "node-floor-fetch",
    group: 10,
    title:
      "floor of node-fetch-3: the same fetch() with its native body read by a reader loop, no transform and no pipe (native only)",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
  },
  {
    id: "node-floor-file-http",
    group: 10,
    title:
      "floor of node-file-http: fs.createReadStream 'data' -> res.write() one microtask later, no web streams (native only)",
    unit: "MB/s",
    bytes: 1 * MiB,
    ops: 0,
  },
  // 12: Deno and Bun adapters (bench/scenarios/runtime-adapter.ts): global classes with the runtime adapter's patch on
  {
    id: "rt-response-forward",
    group: 12,
    title:
      "Deno/Bun: Response forwarding: native byte-stream body (new Response(native).body) -> 1 transform -> WritableStream",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
  },
  {
    id: "rt-fetch-3",
    group: 12,
    title:
      "Deno/Bun: fetch() from an in-process Deno.serve / Bun.serve (native body, 1 KiB chunks) -> 3 transforms -> WritableStream",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
  },
  {
    id: "rt-response-text",
    group: 12,
    title: "Deno/Bun: new Response(ReadableStream (pull enqueues one chunk)).text()",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
  },
  {
    id: "rt-response-bytes-text",
    group: 12,
    title: "Deno/Bun: new Response(ReadableStream ({ type: 'bytes' }, pull enqueues one chunk)).text()",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
  },
  {
    id: "rt-response-bytes-forward",
    group: 12,
    title:
      "Deno/Bun: new Response(ReadableStream ({ type: 'bytes' })).body -> 1 transform -> WritableStream, all of the global classes",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
  },
  {
    id: "rt-response-read",
    group: 12,
    title: "Deno/Bun: new Response(ReadableStream (pull enqueues one chunk)).body read by a reader loop",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
  },
  {
    id: "rt-response-rewrap",
    group: 12,
    title:
      "Deno/Bun: a middleware rewrapping a route's Response (new Response(res.body.pipeThrough(transform), res)) -> arrayBuffer()",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
  },
  {
    id: "rt-response-writer-pull",
    group: 12,
    title:
      "Deno/Bun: Hono's stream() shape as a body: each writer.write() awaited into a TransformStream read by an async pull() -> new Response(s).arrayBuffer()",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
  },
  {
    id: "rt-request-echo",
    group: 12,
    title:
      "Deno/Bun: 64 requests, each new Request(POST, 4 KiB).body -> 1 transform -> new Response(s).arrayBuffer() (the streams and bodies made per request)",
    unit: "ops/s",
    bytes: 0,
    ops: 64,
  },
  {
    id: "rt-serve-3",
    group: 12,
    title:
      "Deno/Bun: a Deno.serve / Bun.serve route streaming a pull source through 3 transforms to a loopback fetch() client",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
  },
  {
    id: "rt-serve-0",
    group: 12,
    title:
      "Deno/Bun: a Deno.serve / Bun.serve route returning a pull source as its body (no transforms) to a loopback fetch() client",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
  },
  {
    id: "rt-serve-writer",
    group: 12,
    title:
      "Deno/Bun: a Deno.serve / Bun.serve route returning Hono's stream() shape (writer.write() into a TransformStream read by an async pull(), one chunk per wake) to a loopback fetch() client",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
  },
  {
    id: "rt-proxy",
    group: 12,
    title:
      "Deno/Bun: a route forwarding a fetch() body untouched (new Response(upstream.body)) from a file route (FsFile.readable / Bun.file) to a loopback fetch() client",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
  },
  // 12, floors (native only): the same I/O without the transforms and pipes
  {
    id: "rt-floor-response-forward",
    group: 12,
    title:
      "floor of rt-response-forward: the native byte-stream source read by a bare native reader loop (native only)",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
  },
  {
    id: "rt-floor-fetch",
    group: 12,
    title:
      "floor of rt-fetch-3: the same fetch() with its native body read by a reader loop, no transform and no pipe (native only)",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
  },
  {
    id: "rt-floor-serve",
    group: 12,
    title: "floor of rt-serve-3: the same route returning the native pull source without transforms (native only)",
    unit: "MB/s",
    bytes: 2 * MiB,
    ops: 0,
  },
];

/** The scenarios whose id or title contains `filter` (case-insensitive); all when `filter` is empty. */
export function selectScenarios(filter: string): Scenario[] {
  const needles = filter.toLowerCase().split(",").filter(Boolean);
  if (needles.length === 0) return SCENARIOS.slice();
  return SCENARIOS.filter((s) =>
    needles.some((n) => s.id.toLowerCase().includes(n) || s.title.toLowerCase().includes(n))
  );
}

/** XOR keys of the three CPU-bound stages; the data arrives XOR-ed with all three. */
export const XOR_KEYS: readonly number[] = [0x5a, 0xa5, 0x3c];

/** Byte stride of the checksum samples (a prime, so samples drift across chunk boundaries). */
export const STRIDE = 997;

/**
 * Expected totals for one consumer: the byte count and a checksum that depends on the byte order but not on
 * how the bytes are cut into chunks (every STRIDE-th byte of the whole stream, folded with h * 31 + b + 1).
 * The scenario modules carry their own copy of the running version (see Tally there).
 */
export interface Expect {
  bytes: number;
  sum: number;
}

/** The reference checksum over a list of chunks. */
export function expectOf(chunks: readonly Uint8Array[]): Expect {
  let pos = 0;
  let next = 0;
  let sum = 0;
  for (const chunk of chunks) {
    const end = pos + chunk.byteLength;
    while (next < end) {
      sum = (Math.imul(sum, 31) + chunk[next - pos]! + 1) | 0;
      next += STRIDE;
    }
    pos = end;
  }
  return { bytes: pos, sum };
}

/** The source data of one scenario: `count` chunks of `size` bytes, each a view of one shared buffer. */
export interface Data {
  size: number;
  count: number;
  bytes: number;
  chunks: Uint8Array<ArrayBuffer>[];
  /** what a consumer of the unchanged data must see */
  expect: Expect;
  /** what a consumer after the three XOR stages must see */
  expectXor: Expect;
}

const cache = new Map<string, Data>();

/**
 * Pseudo-text (a 64-symbol alphabet from a fixed xorshift sequence, so every chunk differs and gzip has
 * something to find): `bytes` rounded down to whole chunks of `size`, at least one chunk.
 */
export function makeData(bytes: number, size: number): Data {
  const count = Math.max(1, Math.floor(bytes / size));
  const key = `${count}x${size}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const all = new Uint8Array(count * size);
  let x = 0x2545f491;
  for (let i = 0; i < all.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    const r = (x >>> 0) % 100;
    // mostly lower-case letters and spaces, a few markup characters
    all[i] = r < 15 ? 32 : r < 95 ? 97 + (r % 26) : 60 + (r % 3);
  }
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  for (let i = 0; i < count; i++) chunks.push(all.subarray(i * size, (i + 1) * size));
  const mask = XOR_KEYS.reduce((a, k) => a ^ k, 0);
  const xored = all.map((b) => b ^ mask);
  const data: Data = {
    size,
    count,
    bytes: all.length,
    chunks,
    expect: expectOf(chunks),
    expectXor: expectOf([xored]),
  };
  cache.set(key, data);
  return data;
}

/** Fresh copies of the chunks, each with its own ArrayBuffer (byte streams transfer what they are given). */
export function freshChunks(data: Data): Uint8Array<ArrayBuffer>[] {
  const out = new Array<Uint8Array<ArrayBuffer>>(data.count);
  for (let i = 0; i < data.count; i++) out[i] = data.chunks[i]!.slice();
  return out;
}
