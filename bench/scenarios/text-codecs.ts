/**
 * Group 14: the text codecs (issue 25), on Node.js, Deno and Bun.
 *
 * - `codec-encode` / `codec-decode`: the classes alone, no patch: `ours` is fusestreams' ReadableStream and
 *   TextEncoderStream / TextDecoderStream, `native` the runtime's; a pull source of text (about one code unit in
 *   twelve outside ASCII, some astral) cut into 1 KiB strings or 1 KiB byte chunks (so characters and surrogate
 *   pairs are split across chunks), through the codec, read by a reader loop.
 * - `codec-encode-words`: the same with the strings a model's output streams as (AI SDK text deltas and the SSE lines of
 *   its UI message stream): 4,000 strings of 3 to 60 code units, some with characters outside ASCII.
 * - `codec-html` / `codec-sse`: the pipelines of issue 25's table, written against the *global* classes with
 *   each implementation's global patch on (`native`: no patch), drained by `new Response(s).arrayBuffer()`:
 *   4,000 HTML strings → 3 TransformStreams → TextEncoderStream; and a native body of 4,000 SSE events (one per
 *   chunk, OpenAI chat-completion chunks) → TextDecoderStream → an SSE parser (a TransformStream: JSON.parse each
 *   event, re-serialize its text) → TextEncoderStream. `ours` uses fusestreams' codec classes (the global ones
 *   once the patch installs them); the `-native-codec` rows keep the runtime's codecs between our streams, which
 *   is what an application gets when the patch leaves the codecs native.
 *
 * As in runtime-adapter.ts, a patch is switched only when the implementation being measured changes, the state
 * lives in the object `load()` returns (Bun evaluates `text-codecs.ts?impl=…` once for all queries), and every
 * run verifies its output (length and checksum).
 * @module
 */
import { type Data, type Expect, expectOf } from "../lib/catalog.ts";
import { Tally } from "../lib/tally.ts";

type RS = typeof ReadableStream;
type TS = typeof TransformStream;
type TES = typeof TextEncoderStream;
type TDS = typeof TextDecoderStream;

/** The runtime's own classes, captured before anything was imported (bench/natives.ts). */
export interface NativeCodecs {
  ReadableStream: RS;
  TextEncoderStream: TES;
  TextDecoderStream: TDS;
}

/** One runnable benchmark. */
export interface CodecBench {
  run: (fresh: unknown) => Promise<void>;
  note?: string;
}

/** What `load()` gives the worker. */
export interface CodecBenches {
  build(id: string, data: Data, natives: NativeCodecs): CodecBench | undefined;
}

/** Pipelines move this many strings / events per iteration. */
export const PIPELINE_ITEMS = 4000;

const G = globalThis as unknown as { Deno?: unknown; Bun?: unknown };
const runtime = G.Deno !== undefined ? "deno" : G.Bun !== undefined ? "bun" : "node";

/** What one implementation contributes. */
interface Impl {
  enter(): void;
  leave(): void;
  /** the classes of the classes-only rows */
  RS: RS;
  TES: TES;
  TDS: TDS;
}

/**
 * Loads implementation `implName` (`native`, `ours` or `alt`; others take no part): for ours, the runtime's
 * adapter next to `oursUrl` (its patch, and the codec classes it exports).
 */
export async function load(oursUrl: string, implName: string, natives: NativeCodecs): Promise<CodecBenches> {
  let impl: Impl | undefined;
  let loadError: string | undefined;
  try {
    if (implName === "native") {
      impl = {
        enter() {},
        leave() {},
        RS: natives.ReadableStream,
        TES: natives.TextEncoderStream,
        TDS: natives.TextDecoderStream,
      };
    } else if (implName === "ours" || implName === "alt") {
      const ext = oursUrl.endsWith(".ts") ? "ts" : "js";
      const adapter = (await import(new URL(`./adapters/${runtime}/mod.${ext}`, oursUrl).href)) as {
        patchGlobalWebStreams(): void;
        unpatchGlobalWebStreams(): void;
        ReadableStream: RS;
        TextEncoderStream?: TES;
        TextDecoderStream?: TDS;
      };
      if (adapter.TextEncoderStream === undefined || adapter.TextDecoderStream === undefined) {
        throw new Error("this build exports no TextEncoderStream / TextDecoderStream");
      }
      impl = {
        enter: adapter.patchGlobalWebStreams,
        leave: adapter.unpatchGlobalWebStreams,
        RS: adapter.ReadableStream,
        TES: adapter.TextEncoderStream,
        TDS: adapter.TextDecoderStream,
      };
    }
  } catch (error) {
    loadError = error instanceof Error ? error.message : String(error);
  }
  return {
    build(id, data, nativeCodecs) {
      if (loadError !== undefined) throw new Error(`could not load ${implName}: ${loadError}`);
      return impl && buildBench(id, data, nativeCodecs, implName, impl);
    },
  };
}

/** The patch currently on, shared with the adapter scenarios of this runtime (the same slot they use). */
const ACTIVE = Symbol.for(
  runtime === "node" ? "fusestreams.bench.activePatch" : "fusestreams.bench.runtimeAdapterActive",
);
interface Active {
  owner: string;
  leave(): void;
}

function activatePatch(implName: string, impl: Impl): void {
  const slot = globalThis as unknown as { [ACTIVE]?: Active };
  const current = slot[ACTIVE];
  if (current?.owner === implName) return;
  current?.leave();
  slot[ACTIVE] = undefined;
  impl.enter();
  slot[ACTIVE] = { owner: implName, leave: impl.leave };
}

/** Takes any patch off (the classes-only rows run on the runtime's own globals). */
function deactivatePatch(): void {
  const slot = globalThis as unknown as { [ACTIVE]?: Active };
  slot[ACTIVE]?.leave();
  slot[ACTIVE] = undefined;
}

// ---- data (built once per process) ----

const WORDS = [
  "stream",
  "chunk",
  "fused",
  "café",
  "naïve",
  "reader",
  "writer",
  "€100",
  "pipe",
  "transform",
  "😀",
  "bytes",
  "text",
  "Grüße",
  "queue",
  "response",
];

function words(seed: number, count: number): string {
  let x = seed * 2654435761 >>> 0;
  let out = "";
  for (let i = 0; i < count; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out += (i === 0 ? "" : " ") + WORDS[(x >>> 0) % WORDS.length];
  }
  return out;
}

/** The same fold as Tally.addAscii over a string's code units: what a consumer of `text` must see. */
function expectText(text: string): Expect {
  const tally = new Tally();
  tally.addAscii(text);
  return { bytes: tally.bytes, sum: tally.sum };
}

interface TextData {
  strings: string[];
  chunks: Uint8Array<ArrayBuffer>[];
  text: string;
  expectText: Expect;
  expectBytes: Expect;
}
const textCache = new Map<number, TextData>();

/** About `data.bytes` of text in 1 KiB strings (cut at any code unit) and in 1 KiB byte chunks (cut at any byte). */
function textData(data: Data): TextData {
  let cached = textCache.get(data.bytes);
  if (cached) return cached;
  let text = "";
  for (let i = 0; text.length < data.bytes; i++) text += `${words(i + 1, 8)}\n`;
  const strings: string[] = [];
  for (let i = 0; i < text.length; i += data.size) strings.push(text.slice(i, i + data.size));
  const all = new TextEncoder().encode(text);
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  for (let i = 0; i < all.length; i += data.size) chunks.push(all.slice(i, i + data.size));
  cached = { strings, chunks, text, expectText: expectText(text), expectBytes: expectOf([all]) };
  textCache.set(data.bytes, cached);
  return cached;
}

interface PipelineData {
  html: string[];
  htmlExpect: Expect;
  events: Uint8Array<ArrayBuffer>[];
  sseExpect: Expect;
}
let pipelineCache: PipelineData | undefined;

interface WordData {
  strings: string[];
  expectBytes: Expect;
}
let wordCache: WordData | undefined;

/** `PIPELINE_ITEMS` short strings: a word or two (text deltas), every third as an SSE line of a UI message stream. */
function wordData(): WordData {
  if (wordCache) return wordCache;
  const strings: string[] = [];
  for (let i = 0; i < PIPELINE_ITEMS; i++) {
    const delta = `${words(i + 11, 1 + (i % 2))} `;
    strings.push(
      i % 3 === 2 ? `data: {"type":"text-delta","id":"text-0","delta":${JSON.stringify(delta)}}\n\n` : delta,
    );
  }
  wordCache = { strings, expectBytes: expectOf([new TextEncoder().encode(strings.join(""))]) };
  return wordCache;
}

function pipelineData(): PipelineData {
  if (pipelineCache) return pipelineCache;
  const encoder = new TextEncoder();
  const html: string[] = [];
  for (let i = 0; i < PIPELINE_ITEMS; i++) {
    html.push(
      `<tr class="row r${i % 7}"><td>${i}</td><td>${words(i + 7, 6)}</td><td><a href="/item/${i}">open</a></td></tr>\n`,
    );
  }
  const events: Uint8Array<ArrayBuffer>[] = [];
  let out = "";
  for (let i = 0; i < PIPELINE_ITEMS; i++) {
    const content = `${words(i + 3, 2)} `;
    const event = {
      id: "chatcmpl-fusestreams",
      object: "chat.completion.chunk",
      created: 1764288000,
      model: "gpt-bench",
      choices: [{ index: 0, delta: { content }, finish_reason: null }],
    };
    events.push(encoder.encode(`data: ${JSON.stringify(event)}\n\n`));
    out += `data: ${JSON.stringify({ text: content })}\n\n`;
  }
  pipelineCache = {
    html,
    htmlExpect: expectOf([encoder.encode(html.join(""))]),
    events,
    sseExpect: expectOf([encoder.encode(out)]),
  };
  return pipelineCache;
}

// ---- building blocks ----

function stringSource<T>(RS: RS, items: readonly T[]): ReadableStream<T> {
  let i = 0;
  return new RS<T>({
    pull(controller) {
      controller.enqueue(items[i++]!);
      if (i === items.length) controller.close();
    },
  });
}

function passOn(TS: TS): TransformStream<string, string> {
  return new TS<string, string>({
    transform(chunk, controller) {
      controller.enqueue(chunk);
    },
  });
}

interface ChatChunk {
  choices: { delta: { content: string } }[];
}

/** An SSE parser: each `data:` event's JSON parsed, its text re-serialized as an event of its own. */
function sseParser(TS: TS): TransformStream<string, string> {
  let buffer = "";
  return new TS<string, string>({
    transform(chunk, controller) {
      buffer = buffer === "" ? chunk : buffer + chunk;
      let end;
      while ((end = buffer.indexOf("\n\n")) !== -1) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (event.startsWith("data: ")) {
          const parsed = JSON.parse(event.slice(6)) as ChatChunk;
          controller.enqueue(`data: ${JSON.stringify({ text: parsed.choices[0]!.delta.content })}\n\n`);
        }
      }
    },
  });
}

async function drain(body: ReadableStream<Uint8Array>, expect: Expect, what: string): Promise<void> {
  const tally = new Tally();
  tally.add(new Uint8Array(await new Response(body).arrayBuffer()));
  tally.check(expect, what);
}

function buildBench(
  id: string,
  data: Data,
  natives: NativeCodecs,
  implName: string,
  impl: Impl,
): CodecBench | undefined {
  const globals = (): { RS: RS; TS: TS } => ({ RS: globalThis.ReadableStream, TS: globalThis.TransformStream });
  switch (id) {
    case "codec-encode":
    case "codec-encode-words": {
      const { strings, expectBytes } = id === "codec-encode" ? textData(data) : wordData();
      return {
        async run() {
          deactivatePatch();
          const tally = new Tally();
          const reader = stringSource(impl.RS, strings).pipeThrough(new impl.TES()).getReader();
          for (;;) {
            const result = await reader.read();
            if (result.done) break;
            tally.add(result.value);
          }
          tally.check(expectBytes, id);
        },
      };
    }
    case "codec-decode": {
      const { chunks, expectText: expected } = textData(data);
      return {
        async run() {
          deactivatePatch();
          const tally = new Tally();
          const reader = stringSource<BufferSource>(impl.RS, chunks).pipeThrough(new impl.TDS()).getReader();
          for (;;) {
            const result = await reader.read();
            if (result.done) break;
            tally.addAscii(result.value);
          }
          tally.check(expected, id);
        },
      };
    }
    case "codec-html":
    case "codec-html-native-codec": {
      const { html, htmlExpect } = pipelineData();
      const TES = id === "codec-html" ? impl.TES : natives.TextEncoderStream;
      return {
        async run() {
          activatePatch(implName, impl);
          const { RS, TS } = globals();
          const body = stringSource(RS, html)
            .pipeThrough(passOn(TS))
            .pipeThrough(passOn(TS))
            .pipeThrough(passOn(TS))
            .pipeThrough(new TES() as unknown as TransformStream<string, Uint8Array>);
          await drain(body, htmlExpect, id);
        },
      };
    }
    case "codec-sse":
    case "codec-sse-native-codec": {
      const { events, sseExpect } = pipelineData();
      const native = id === "codec-sse-native-codec";
      const TES = native ? natives.TextEncoderStream : impl.TES;
      const TDS = native ? natives.TextDecoderStream : impl.TDS;
      return {
        async run() {
          activatePatch(implName, impl);
          const { TS } = globals();
          const upstream = new Response(stringSource(natives.ReadableStream, events)).body!;
          const body = upstream
            .pipeThrough(new TDS() as unknown as TransformStream<Uint8Array, string>)
            .pipeThrough(sseParser(TS))
            .pipeThrough(new TES() as unknown as TransformStream<string, Uint8Array>);
          await drain(body, sseExpect, id);
        },
      };
    }
    default:
      return undefined;
  }
}
