/**
 * The data the real-pipeline rows move, made without streams, and what a consumer must receive. Used by the
 * worker's scenarios and by the orchestrator's load client (expected response sizes, the echo's body).
 * Deterministic: the same bytes in every process and on every runtime.
 * @module
 */
import { SIZES } from "./catalog.ts";

const encoder = new TextEncoder();

function xorshift(seed: number): () => number {
  let x = seed | 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
}

const WORDS = ["stream", "chunk", "fusion", "queue", "pipe", "Zürich", "naïve", "€uro", "data", "render", "—", "ok"];

/** `count` HTML fragments of about `size` characters each (some non-ASCII), with a `$USER` placeholder. */
export function htmlStrings(count: number, size = 200): string[] {
  const next = xorshift(0x2545f491);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let text = "";
    while (text.length < size - 40) text += WORDS[next() % WORDS.length]! + " ";
    out.push(`<li class="row r${i % 7}" data-user="$USER"><span>${i}</span> ${text}</li>`);
  }
  return out;
}

/** The three transforms of the pipeline rows, as plain functions (the rows wrap each in a TransformStream). */
export const HTML_STEPS: readonly ((s: string) => string)[] = [
  (s) => s.replace("$USER", "ada"),
  (s) => s + "\n",
  (s) => s,
];

/** What the HTML rows must deliver: the strings through the three steps, UTF-8. */
export function htmlExpected(strings: readonly string[]): Uint8Array {
  let all = "";
  for (const s of strings) all += HTML_STEPS[2]!(HTML_STEPS[1]!(HTML_STEPS[0]!(s)));
  return encoder.encode(all);
}

/** SSE events as a server would send them, one event per chunk: `data: {"id":…,"text":…}\n\n`. */
export function sseChunks(count: number): Uint8Array<ArrayBuffer>[] {
  const next = xorshift(0x9e3779b9);
  const out: Uint8Array<ArrayBuffer>[] = [];
  for (let i = 0; i < count; i++) {
    const text = `${WORDS[next() % WORDS.length]} ${WORDS[next() % WORDS.length]} ${i}`;
    out.push(encoder.encode(`event: message\ndata: ${JSON.stringify({ id: i, text })}\n\n`) as Uint8Array<ArrayBuffer>);
  }
  return out;
}

/** The `parse` step of the SSE row for one event's data (the row's TransformStream calls it per event). */
export function sseLine(data: string): string {
  const event = JSON.parse(data) as { id: number; text: string };
  return `<p id="m${event.id}">${event.text}</p>\n`;
}

/** What the SSE row must deliver. */
export function sseExpected(chunks: readonly Uint8Array[]): Uint8Array {
  const decoder = new TextDecoder();
  let all = "";
  for (const chunk of chunks) {
    const text = decoder.decode(chunk);
    const data = /^data: (.*)$/m.exec(text)![1]!;
    all += sseLine(data);
  }
  return encoder.encode(all);
}

/** The text deltas of the mock language model and of the OpenAI-SSE proxy row. */
export function aiDeltas(count: number = SIZES.aiDeltas): string[] {
  const next = xorshift(0x85ebca6b);
  return Array.from({ length: count }, (_, i) => `${WORDS[next() % WORDS.length]}${i % 10 === 9 ? ".\n" : " "}`);
}

/** An OpenAI chat-completions stream as it arrives: one `chat.completion.chunk` event per chunk, then [DONE]. */
export function openAiChunks(deltas: readonly string[]): Uint8Array<ArrayBuffer>[] {
  const out: Uint8Array<ArrayBuffer>[] = [];
  const event = (choice: unknown) =>
    `data: ${
      JSON.stringify({
        id: "chatcmpl-bench",
        object: "chat.completion.chunk",
        created: 1764300000,
        model: "gpt-4o-mini",
        system_fingerprint: "fp_0",
        choices: [choice],
      })
    }\n\n`;
  out.push(
    encoder.encode(event({ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null })) as Uint8Array<
      ArrayBuffer
    >,
  );
  for (const d of deltas) {
    out.push(
      encoder.encode(event({ index: 0, delta: { content: d }, logprobs: null, finish_reason: null })) as Uint8Array<
        ArrayBuffer
      >,
    );
  }
  out.push(encoder.encode(event({ index: 0, delta: {}, finish_reason: "stop" })) as Uint8Array<ArrayBuffer>);
  out.push(encoder.encode("data: [DONE]\n\n") as Uint8Array<ArrayBuffer>);
  return out;
}

/** `count` chunks of `size` bytes of pseudo-text, views of one buffer (the server rows' byte route). */
export function byteChunks(count: number, size = 1024): Uint8Array<ArrayBuffer>[] {
  const next = xorshift(0x27d4eb2f);
  const all = new Uint8Array(count * size);
  for (let i = 0; i < all.length; i++) {
    const r = next() % 100;
    all[i] = r < 15 ? 32 : r < 95 ? 97 + (r % 26) : 60 + (r % 3);
  }
  return Array.from({ length: count }, (_, i) => all.subarray(i * size, (i + 1) * size));
}

/** The server rows' HTML page: `SIZES.serverChunks` fragments of about 1 KiB. */
export function pageStrings(): string[] {
  return htmlStrings(SIZES.serverChunks, 1024);
}

/** The strings the Hono streamText() route writes. */
export function textStrings(): string[] {
  return htmlStrings(SIZES.serverChunks, 1000);
}

/** Response body size (bytes) of each server route, for the load client's check of every response. */
export function expectedBytes(path: string): number {
  switch (path) {
    case "/stream":
      return SIZES.serverChunks * 1024;
    case "/text":
      return encoder.encode(textStrings().join("")).byteLength;
    case "/echo":
      return SIZES.echoBytes;
    case "/page":
      return htmlExpected(pageStrings()).byteLength;
  }
  throw new Error(`no such route: ${path}`);
}

// ---- checks ----

/** Byte-order-sensitive checksum of every 61st byte (cheap enough to run on every iteration). */
export function checksum(bytes: Uint8Array): number {
  let h = bytes.byteLength | 0;
  for (let i = 0; i < bytes.byteLength; i += 61) h = (Math.imul(h, 31) + bytes[i]! + 1) | 0;
  return h;
}

let crcTable: Uint32Array | undefined;

/** CRC-32 (IEEE 802.3, as gzip's trailer carries it). */
export function crc32(bytes: Uint8Array): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.byteLength; i++) crc = crcTable[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * Throws unless `gz` is one gzip member whose trailer names `expected` (its CRC-32 and length): the compressor
 * was given exactly those bytes. A lost or repeated output chunk is caught by the full inflate in the rows'
 * verification runs (gunzip()).
 */
export function checkGzipTrailer(gz: Uint8Array, expected: { crc: number; size: number }): void {
  if (gz.byteLength < 18 || gz[0] !== 0x1f || gz[1] !== 0x8b) throw new Error(`not gzip (${gz.byteLength} bytes)`);
  const view = new DataView(gz.buffer, gz.byteOffset, gz.byteLength);
  const crc = view.getUint32(gz.byteLength - 8, true);
  const size = view.getUint32(gz.byteLength - 4, true);
  if (crc !== expected.crc || size !== (expected.size >>> 0)) {
    throw new Error(`gzip trailer crc ${crc}/size ${size}, expected ${expected.crc}/${expected.size}`);
  }
}

/** Throws unless `got` and `want` are the same bytes. */
export function checkBytes(got: Uint8Array, want: Uint8Array, what: string): void {
  if (got.byteLength !== want.byteLength) {
    throw new Error(`${what}: ${got.byteLength} bytes, expected ${want.byteLength}`);
  }
  for (let i = 0; i < got.byteLength; i++) {
    if (got[i] !== want[i]) throw new Error(`${what}: byte ${i} is ${got[i]}, expected ${want[i]}`);
  }
}
