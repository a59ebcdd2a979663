/**
 * TextEncoderStream and TextDecoderStream (core/codecs/): chunk boundaries at every position, lone surrogates,
 * bad chunks, fatal mode, byte order marks, labels, cancel and abort mid-stream, fusion, and ours mixed with the
 * runtime's own streams both ways. The decoder is checked against a UTF-8 decoder written here from the Encoding
 * Standard (§4.1 "decode", §8.1.1 "UTF-8 decoder", with the streaming steps of §7.3) and against the runtime's
 * own TextDecoderStream.
 *
 *   node tests/unit/text-codecs.test.ts   deno run -A tests/unit/text-codecs.test.ts   bun tests/unit/text-codecs.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  inspectPipeChain,
  ReadableStream,
  TextDecoderStream,
  TextEncoderStream,
  TransformStream,
  WritableStream,
} from "../../mod.ts";
import { rejection, tracked } from "./stream-test-helpers.ts";
import { utf8SequenceEnd, utf8UnfinishedStart } from "../../core/codecs/utf8-boundary.ts";
import { utf8EncodeShort } from "../../core/codecs/utf8-encode.ts";
import { setShortEncoder } from "../../core/codecs/short-encode-hook.ts";
// From the core's private entry point: in the dist run, the one copy of the core the classes come from.
import { collectEncodedText } from "../../core/internal.ts";
import * as fuse from "../../mod.ts";
import * as nodeAdapter from "../../adapters/node/mod.ts";
import * as denoAdapter from "../../adapters/deno/mod.ts";
import * as bunAdapter from "../../adapters/bun/mod.ts";

const NativeReadableStream = globalThis.ReadableStream;
const NativeWritableStream = globalThis.WritableStream;
const NativeTextEncoderStream = globalThis.TextEncoderStream;
const NativeTextDecoderStream = globalThis.TextDecoderStream;
const NativeResponse = globalThis.Response;
const runtimeGlobals = globalThis as { Deno?: unknown; Bun?: unknown };
/** The adapter of the runtime this runs on (its patch installs the codecs with the stream classes). */
const adapter = runtimeGlobals.Deno !== undefined
  ? denoAdapter
  : runtimeGlobals.Bun !== undefined
  ? bunAdapter
  : nodeAdapter;

const LEAD = "\uD83D"; // the two halves of U+1F600
const TRAIL = "\uDE00";
const FFFD = [0xef, 0xbf, 0xbd];

/** A deterministic pseudo-random generator (mulberry32): the same cases on every runtime and every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function collect<T>(stream: globalThis.ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

type Pair<I, O> = { readable: globalThis.ReadableStream<O>; writable: globalThis.WritableStream<I> };

/** What `chunks` written one by one into `pair` (then closed) come out as, or the error the stream ends with. */
async function through<I, O>(pair: Pair<I, O>, chunks: readonly I[]): Promise<{ out: O[]; error?: unknown }> {
  const writer = pair.writable.getWriter();
  const reading = (async () => {
    const out: O[] = [];
    const reader = pair.readable.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return { out };
        out.push(value);
      }
    } catch (error) {
      return { out, error };
    }
  })();
  for (const chunk of chunks) writer.write(chunk).catch(() => {});
  writer.close().catch(() => {});
  return reading;
}

const hex = (bytes: Uint8Array | readonly number[]): string => Array.from(bytes, (b) => b.toString(16)).join(" ");

/** Splits `items` at the given sorted cut positions. */
function cut<T extends { slice(a: number, b?: number): T }>(items: T, length: number, cuts: number[]): T[] {
  const parts: T[] = [];
  let from = 0;
  for (const at of [...cuts, length]) {
    parts.push(items.slice(from, at));
    from = at;
  }
  return parts;
}

// ---- A reference decoder, from the Encoding Standard ----------------------------------------------------------

/**
 * The UTF-8 decoder of the Encoding Standard (§8.1.1) with "decode and enqueue a chunk" / "flush and enqueue"
 * (§7.3): the strings a TextDecoderStream enqueues for `chunks`, or where it errors in fatal mode.
 */
function referenceUtf8(
  chunks: readonly Uint8Array[],
  fatal: boolean,
  ignoreBOM: boolean,
): { out: string[]; error: boolean } {
  let needed = 0;
  let seen = 0;
  let codePoint = 0;
  let lower = 0x80;
  let upper = 0xbf;
  let bomSeen = false;
  const out: string[] = [];
  const serialize = (scalars: number[]): void => {
    let s = "";
    for (const scalar of scalars) {
      if (!ignoreBOM && !bomSeen) {
        bomSeen = true;
        if (scalar === 0xfeff) continue;
      }
      s += String.fromCodePoint(scalar);
    }
    if (s !== "") out.push(s);
  };
  for (const chunk of chunks) {
    const scalars: number[] = [];
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (needed === 0) {
        if (byte <= 0x7f) {
          scalars.push(byte);
        } else if (byte >= 0xc2 && byte <= 0xdf) {
          needed = 1;
          codePoint = byte & 0x1f;
        } else if (byte >= 0xe0 && byte <= 0xef) {
          if (byte === 0xe0) lower = 0xa0;
          if (byte === 0xed) upper = 0x9f;
          needed = 2;
          codePoint = byte & 0xf;
        } else if (byte >= 0xf0 && byte <= 0xf4) {
          if (byte === 0xf0) lower = 0x90;
          if (byte === 0xf4) upper = 0x8f;
          needed = 3;
          codePoint = byte & 0x7;
        } else {
          if (fatal) return { out, error: true };
          scalars.push(0xfffd);
        }
        continue;
      }
      if (byte < lower || byte > upper) {
        codePoint = needed = seen = 0;
        lower = 0x80;
        upper = 0xbf;
        i--; // "restore byte to ioQueue"
        if (fatal) return { out, error: true };
        scalars.push(0xfffd);
        continue;
      }
      lower = 0x80;
      upper = 0xbf;
      codePoint = (codePoint << 6) | (byte & 0x3f);
      if (++seen === needed) {
        scalars.push(codePoint);
        codePoint = needed = seen = 0;
      }
    }
    serialize(scalars);
  }
  if (needed !== 0) {
    if (fatal) return { out, error: true };
    serialize([0xfffd]);
  }
  return { out, error: false };
}

/**
 * Where the reference UTF-8 decoder stands after all of `bytes`: the index of the lead byte of the sequence it
 * is still inside, or the length when it needs no more bytes.
 */
function referenceUnfinishedStart(bytes: Uint8Array): number {
  let needed = 0;
  let seen = 0;
  let lower = 0x80;
  let upper = 0xbf;
  let start = bytes.length;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (needed === 0) {
      start = i;
      if (byte >= 0xc2 && byte <= 0xdf) needed = 1;
      else if (byte >= 0xe0 && byte <= 0xef) {
        if (byte === 0xe0) lower = 0xa0;
        if (byte === 0xed) upper = 0x9f;
        needed = 2;
      } else if (byte >= 0xf0 && byte <= 0xf4) {
        if (byte === 0xf0) lower = 0x90;
        if (byte === 0xf4) upper = 0x8f;
        needed = 3;
      }
      continue;
    }
    if (byte < lower || byte > upper) {
      needed = seen = 0;
      lower = 0x80;
      upper = 0xbf;
      i--;
      continue;
    }
    lower = 0x80;
    upper = 0xbf;
    if (++seen === needed) needed = seen = 0;
  }
  return needed === 0 ? bytes.length : start;
}

/** Bytes that exercise the UTF-8 decoder: ASCII, continuation bytes, every kind of lead, bytes never valid, a BOM. */
const INTERESTING = [
  0x41,
  0x00,
  0x7f,
  0x80,
  0x8f,
  0x90,
  0x9f,
  0xa0,
  0xbf,
  0xc0,
  0xc1,
  0xc2,
  0xdf,
  0xe0,
  0xe1,
  0xed,
  0xee,
  0xef,
  0xbb,
  0xf0,
  0xf1,
  0xf4,
  0xf5,
  0xff,
];

/** Every range boundary of a continuation byte, ASCII, leads and bytes never valid. */
const BOUNDARIES = [0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc2, 0xe0, 0xed, 0xf0, 0xf4, 0xff];

function randomBytes(next: () => number, length: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    bytes[i] = next() < 0.7 ? INTERESTING[Math.floor(next() * INTERESTING.length)]! : Math.floor(next() * 256);
  }
  return bytes;
}

function randomCuts(next: () => number, length: number, count: number): number[] {
  const cuts = new Set<number>();
  for (let i = 0; i < count; i++) cuts.add(Math.floor(next() * (length + 1)));
  return [...cuts].sort((a, b) => a - b);
}

test("utf8UnfinishedStart (FP-DECODE-WHOLE): where the reference decoder stands, for every tail of up to 4 bytes", () => {
  const prefixes = [[], [0x41], [0xe2], [0xf0, 0x9f], [0x80, 0x80, 0x80]];
  let checked = 0;
  const tail = new Uint8Array(4);
  const check = (length: number): void => {
    for (const prefix of prefixes) {
      const bytes = new Uint8Array([...prefix, ...tail.subarray(0, length)]);
      const expected = referenceUnfinishedStart(bytes);
      if (utf8UnfinishedStart(bytes, bytes.length) !== expected) {
        assert.is(utf8UnfinishedStart(bytes, bytes.length), expected, hex(bytes));
      }
      checked++;
    }
  };
  // tails of up to 3 bytes from INTERESTING, of 4 bytes from the range boundaries
  for (const a of INTERESTING) {
    tail[0] = a;
    check(1);
    for (const b of INTERESTING) {
      tail[1] = b;
      check(2);
      for (const c of INTERESTING) {
        tail[2] = c;
        check(3);
      }
    }
  }
  for (const a of BOUNDARIES) {
    tail[0] = a;
    for (const b of BOUNDARIES) {
      tail[1] = b;
      for (const c of BOUNDARIES) {
        tail[2] = c;
        for (const d of BOUNDARIES) {
          tail[3] = d;
          check(4);
        }
      }
    }
  }
  assert.ok(checked > 300_000);
  assert.is(utf8UnfinishedStart(new Uint8Array(0), 0), 0);
});

/** Where the reference decoder's first sequence in `bytes` ends (completed, or ended by an error); -1 if unfinished. */
function referenceSequenceEnd(bytes: Uint8Array): number {
  const lead = bytes[0]!;
  let needed = lead >= 0xf0 ? 3 : lead >= 0xe0 ? 2 : 1;
  let lower = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
  let upper = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
  for (let i = 1; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte < lower || byte > upper) return i; // the error; the byte is read again
    lower = 0x80;
    upper = 0xbf;
    if (--needed === 0) return i + 1;
  }
  return -1;
}

test("utf8SequenceEnd (FP-DECODE-WHOLE): where a cut character ends in the next bytes, for every cut and 3 next bytes", () => {
  const cutCharacters: number[][] = [];
  for (const lead of [0xc2, 0xdf, 0xe0, 0xe1, 0xed, 0xef, 0xf0, 0xf1, 0xf4]) {
    cutCharacters.push([lead]);
    for (const second of INTERESTING) {
      const two = [lead, second];
      if (utf8UnfinishedStart(new Uint8Array(two), 2) === 0) cutCharacters.push(two);
      for (const third of INTERESTING) {
        const three = [lead, second, third];
        if (utf8UnfinishedStart(new Uint8Array(three), 3) === 0) cutCharacters.push(three);
      }
    }
  }
  assert.ok(cutCharacters.length > 30);
  let checked = 0;
  for (const cutCharacter of cutCharacters) {
    for (const a of BOUNDARIES) {
      for (const b of BOUNDARIES) {
        for (const c of BOUNDARIES) {
          const next = [a, b, c];
          for (let taken = 0; taken <= 3; taken++) {
            const bytes = new Uint8Array([...cutCharacter, ...next.slice(0, taken)]);
            const expected = referenceSequenceEnd(bytes);
            if (utf8SequenceEnd(bytes, bytes.length) !== expected) {
              assert.is(utf8SequenceEnd(bytes, bytes.length), expected, hex(bytes));
            }
            checked++;
          }
        }
      }
    }
  }
  assert.ok(checked > 100_000);
});

// ---- TextEncoderStream -----------------------------------------------------------------------------------------

test("TextEncoderStream: each string becomes one chunk of its UTF-8 bytes, each chunk over a buffer of its own", async () => {
  const strings = ["héllo", " wörld €", "😀", "plain ascii", "\u0000\u007f\u0080\u07ff\u0800\uffff"];
  const { out } = await through(new TextEncoderStream(), strings);
  assert.is(out.length, strings.length);
  const encoder = new TextEncoder();
  for (let i = 0; i < strings.length; i++) {
    const chunk = out[i]!;
    assert.ok(chunk instanceof Uint8Array);
    assert.is(Object.getPrototypeOf(chunk), Uint8Array.prototype);
    assert.is(chunk.byteOffset, 0);
    assert.is(chunk.buffer.byteLength, chunk.byteLength);
    assert.is(hex(chunk), hex(encoder.encode(strings[i]!)));
  }
});

test("TextEncoderStream: a string cut into two chunks at every code unit, and into single code units", async () => {
  const text = `a${LEAD}${TRAIL}é€${LEAD}${TRAIL}${LEAD}${TRAIL}z\u{10FFFF}`;
  const whole = hex(new TextEncoder().encode(text));
  for (let at = 0; at <= text.length; at++) {
    const { out } = await through(new TextEncoderStream(), [text.slice(0, at), text.slice(at)]);
    assert.is(out.map((c) => hex(c)).join(" ").trim(), whole, `cut at ${at}`);
    assert.ok(out.every((c) => c.byteLength > 0), `cut at ${at}: no empty chunk`);
  }
  const units = await through(new TextEncoderStream(), text.split(""));
  assert.is(units.out.map((c) => hex(c)).join(" "), whole);
});

test("TextEncoderStream: a leading surrogate at a chunk's end is held for the next chunk, U+FFFD at the end", async () => {
  const encode = async (chunks: string[]): Promise<string[]> =>
    (await through(new TextEncoderStream(), chunks)).out.map((c) => hex(c));
  const heart = hex(new TextEncoder().encode(`${LEAD}${TRAIL}`));
  const fffd = hex(FFFD);
  assert.equal(await encode([LEAD, TRAIL]), [heart]);
  assert.equal(await encode([LEAD, `${TRAIL}${LEAD}`, TRAIL]), [heart, heart]);
  assert.equal(await encode([LEAD]), [fffd]); // at the flush
  assert.equal(await encode([LEAD, "A"]), [`${fffd} 41`]);
  assert.equal(await encode([LEAD, LEAD, TRAIL]), [fffd, heart]);
  assert.equal(await encode([LEAD, LEAD]), [fffd, fffd]);
  assert.equal(await encode([`${LEAD}${LEAD}`, TRAIL]), [fffd, heart]);
  assert.equal(await encode([TRAIL, `${LEAD}${TRAIL}`]), [fffd, heart]);
  assert.equal(await encode([LEAD, "", "", TRAIL]), [heart]); // carried past empty chunks
  assert.equal(await encode([LEAD, ""]), [fffd]);
  assert.equal(await encode(["", "", ""]), []);
  assert.equal(await encode([]), []);
  assert.equal(await encode([`x${TRAIL}y`]), [`78 ${fffd} 79`]);
});

test("TextEncoderStream: the same chunks as the runtime's own TextEncoderStream, for random strings cut at random", async () => {
  const next = random(7);
  const units = ["a", "é", "€", LEAD, TRAIL, `${LEAD}${TRAIL}`, "\u{10FFFF}", "", "\n"];
  for (let round = 0; round < 150; round++) {
    let text = "";
    const length = Math.floor(next() * 12);
    for (let i = 0; i < length; i++) text += units[Math.floor(next() * units.length)];
    const chunks = cut(text, text.length, randomCuts(next, text.length, Math.floor(next() * 5)));
    const ours = await through(new TextEncoderStream(), chunks);
    const native = await through(new NativeTextEncoderStream(), chunks);
    assert.equal(ours.out.map((c) => hex(c)), native.out.map((c) => hex(c)), JSON.stringify(chunks));
  }
});

test("utf8EncodeShort (FP-ENCODE-SHORT): the bytes and buffer of TextEncoder.encode, for every kind of code unit", () => {
  const encoder = new TextEncoder();
  const check = (text: string) => {
    const ours = utf8EncodeShort(text, Infinity)!;
    assert.is(Object.getPrototypeOf(ours), Uint8Array.prototype);
    assert.is(ours.byteOffset, 0);
    assert.is(ours.buffer.byteLength, ours.byteLength);
    assert.is(hex(ours), hex(encoder.encode(text)), JSON.stringify(text));
  };
  // every code unit alone and after ASCII (the first pass stops there), and every unit before a trail surrogate
  for (let unit = 0; unit <= 0xffff; unit++) {
    const c = String.fromCharCode(unit);
    check(c);
    check(`ab${c}`);
    check(`${c}${TRAIL}`);
  }
  const next = random(11);
  const units = ["a", "z", "\u007f", "\u0080", "é", "\u07ff", "\u0800", "€", "\uffff", LEAD, TRAIL, `${LEAD}${TRAIL}`];
  for (let round = 0; round < 3000; round++) {
    let text = "";
    const length = Math.floor(next() * 80);
    for (let i = 0; i < length; i++) text += units[Math.floor(next() * units.length)];
    check(text);
  }
  check("");
  // over maxBytes: nothing (the runtime's encoder takes it)
  assert.is(utf8EncodeShort("é".repeat(33), 64), undefined);
  assert.is(hex(utf8EncodeShort("é".repeat(32), 64)!), hex(encoder.encode("é".repeat(32))));
  assert.is(utf8EncodeShort("a".repeat(70), 64)!.byteLength, 70); // (the length is the caller's check)
});

test("TextEncoderStream: the same chunks with FP-ENCODE-SHORT off and on for every length (random strings)", async () => {
  // the limit the adapters leave (they are all loaded here): Node's on Node.js, 0 elsewhere
  const before = runtimeGlobals.Deno === undefined && runtimeGlobals.Bun === undefined ? 64 : 0;
  const next = random(13);
  const units = ["a", "é", "€", LEAD, TRAIL, `${LEAD}${TRAIL}`, "\u{10FFFF}", "", "\n"];
  try {
    for (let round = 0; round < 60; round++) {
      let text = "";
      const length = Math.floor(next() * 60);
      for (let i = 0; i < length; i++) text += units[Math.floor(next() * units.length)];
      const chunks = cut(text, text.length, randomCuts(next, text.length, Math.floor(next() * 5)));
      setShortEncoder(utf8EncodeShort, 0);
      const off = await through(new TextEncoderStream(), chunks);
      setShortEncoder(utf8EncodeShort, next() < 0.5 ? 1000 : 16);
      const on = await through(new TextEncoderStream(), chunks);
      assert.equal(on.out.map((c) => hex(c)), off.out.map((c) => hex(c)), JSON.stringify(chunks));
    }
  } finally {
    setShortEncoder(utf8EncodeShort, before);
  }
});

test("TextEncoderStream: other chunks are converted with ToString; a throwing toString() or a Symbol errors both sides", async () => {
  const odd = await through(new TextEncoderStream(), [
    undefined,
    null,
    3.14,
    {},
    ["hi"],
    { toString: () => "ok" },
  ] as unknown as string[]);
  const decoder = new TextDecoder();
  assert.equal(odd.out.map((c) => decoder.decode(c)), ["undefined", "null", "3.14", "[object Object]", "hi", "ok"]);

  const error1 = new Error("error1");
  const ts = new TextEncoderStream();
  const writer = ts.writable.getWriter();
  const reader = ts.readable.getReader();
  const write = writer.write({
    toString: () => {
      throw error1;
    },
  } as unknown as string);
  assert.is(await rejection(reader.read()), error1);
  assert.is(await rejection(write), error1);
  assert.is(await rejection(writer.closed), error1);
  assert.is(await rejection(reader.closed), error1);

  const symbol = await through(new TextEncoderStream(), ["a", Symbol("s") as unknown as string, "b"]);
  assert.equal(symbol.out.map((c) => decoder.decode(c)), ["a"]);
  assert.instance(symbol.error, TypeError);
});

test("TextEncoderStream: write() waits until a read relieves backpressure", async () => {
  const ts = new TextEncoderStream();
  const writer = ts.writable.getWriter();
  const reader = ts.readable.getReader();
  const events: string[] = [];
  await new Promise((r) => setTimeout(r, 0));
  const write = writer.write("A");
  void write.then(() => events.push("write"));
  await new Promise((r) => setTimeout(r, 0));
  events.push("paused");
  const { value } = await reader.read();
  events.push("read");
  await write;
  assert.equal(events, ["paused", "read", "write"]);
  assert.is(hex(value!), "41");
});

// ---- TextDecoderStream -----------------------------------------------------------------------------------------

test("TextDecoderStream: UTF-8 cut into two and three chunks at every byte, and into single bytes", async () => {
  const text = "aé€😀\u0000\u{10FFFF}z";
  const bytes = new TextEncoder().encode(text);
  for (let i = 0; i <= bytes.length; i++) {
    for (let j = i; j <= bytes.length; j++) {
      const chunks = cut(bytes, bytes.length, [i, j]);
      const { out, error } = await through(new TextDecoderStream(), chunks);
      assert.is(error, undefined);
      assert.equal(out, referenceUtf8(chunks, false, false).out, `cuts ${i} ${j}`);
      assert.is(out.join(""), text);
    }
  }
  const singles = Array.from(bytes, (b) => new Uint8Array([b]));
  const { out } = await through(new TextDecoderStream(), singles);
  assert.equal(out, Array.from(text));
});

test("TextDecoderStream: random bytes cut at random give the reference decoder's chunks (replacement and fatal)", async () => {
  const next = random(42);
  for (let round = 0; round < 1500; round++) {
    const bytes = randomBytes(next, Math.floor(next() * 24));
    const chunks = cut(bytes, bytes.length, randomCuts(next, bytes.length, Math.floor(next() * 12)));
    const fatal = next() < 0.3;
    const ignoreBOM = next() < 0.3;
    const expected = referenceUtf8(chunks, fatal, ignoreBOM);
    const got = await through(new TextDecoderStream("utf-8", { fatal, ignoreBOM }), chunks);
    const label = `${chunks.map((c) => `[${hex(c)}]`).join(" ")} fatal=${fatal} ignoreBOM=${ignoreBOM}`;
    assert.equal(got.out, expected.out, label);
    assert.is(got.error !== undefined, expected.error, label);
    if (expected.error) assert.instance(got.error, TypeError, label);
  }
});

test("TextDecoderStream: the same chunks as the runtime's own TextDecoderStream (UTF-8, random input)", async () => {
  const next = random(99);
  for (let round = 0; round < 200; round++) {
    const bytes = randomBytes(next, Math.floor(next() * 16));
    const chunks = cut(bytes, bytes.length, randomCuts(next, bytes.length, Math.floor(next() * 5)));
    const ours = await through(new TextDecoderStream(), chunks);
    const native = await through(new NativeTextDecoderStream(), chunks);
    assert.equal(ours.out, native.out, chunks.map((c) => `[${hex(c)}]`).join(" "));
  }
});

test("TextDecoderStream: a byte order mark is skipped once at the start (also split), kept with ignoreBOM", async () => {
  const bom = [0xef, 0xbb, 0xbf];
  const decode = async (chunks: number[][], ignoreBOM = false): Promise<string[]> =>
    (await through(new TextDecoderStream("utf-8", { ignoreBOM }), chunks.map((c) => new Uint8Array(c)))).out;
  assert.equal(await decode([[...bom, 0x41]]), ["A"]);
  assert.equal(await decode([[0xef], [0xbb], [0xbf, 0x41]]), ["A"]);
  assert.equal(await decode([[0xef, 0xbb], [0xbf], [0x41]]), ["A"]);
  assert.equal(await decode([bom, bom, [0x41]]), ["\uFEFF", "A"]); // only the first
  assert.equal(await decode([[0x41, ...bom]]), ["A\uFEFF"]);
  assert.equal(await decode([[], [], [...bom, 0x42]]), ["B"]);
  assert.equal(await decode([[...bom, 0x41]], true), ["\uFEFFA"]);
  assert.equal(await decode([[0xef], [0xbb, 0xbf]], true), ["\uFEFF"]);
  const utf16 = await through(new TextDecoderStream("utf-16le"), [
    new Uint8Array([0xff]),
    new Uint8Array([0xfe, 0x41, 0]),
  ]);
  assert.equal(utf16.out, ["A"]);
});

test("TextDecoderStream: an unfinished character at the end is U+FFFD, or a TypeError with fatal", async () => {
  const truncated = [new Uint8Array([0x41, 0xf0, 0x9f]), new Uint8Array([0x98])];
  assert.equal((await through(new TextDecoderStream(), truncated)).out, ["A", "\uFFFD"]);
  const tds = new TextDecoderStream("utf-8", { fatal: true });
  const writer = tds.writable.getWriter();
  const reader = tds.readable.getReader();
  void writer.write(truncated[0]!);
  assert.equal(await reader.read(), { done: false, value: "A" });
  // (the write waits for the next read: "A" was read, and the readable side's high-water mark is 0)
  const write = writer.write(truncated[1]!);
  const close = writer.close();
  assert.instance(await rejection(reader.read()), TypeError);
  await write;
  assert.instance(await rejection(close), TypeError);
});

test("TextDecoderStream: fatal: a malformed sequence errors both sides with a TypeError", async () => {
  for (const bad of [[0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xe0, 0x80], [0xf4, 0x90, 0x80, 0x80]]) {
    const tds = new TextDecoderStream("utf-8", { fatal: true });
    assert.is(tds.fatal, true);
    const writer = tds.writable.getWriter();
    const reader = tds.readable.getReader();
    const write = writer.write(new Uint8Array(bad));
    assert.instance(await rejection(reader.read()), TypeError, hex(bad));
    assert.instance(await rejection(write), TypeError, hex(bad));
    assert.instance(await rejection(writer.closed), TypeError);
    const replaced = await through(new TextDecoderStream(), [new Uint8Array(bad)]);
    assert.ok(/^\uFFFD+$/.test(replaced.out.join("")), hex(bad));
  }
});

test("TextDecoderStream: a chunk that is no AllowSharedBufferSource errors both sides with a TypeError", async () => {
  const bad: unknown[] = [undefined, null, 3.14, "A", {}, [65], { byteLength: 1, buffer: new ArrayBuffer(1) }];
  for (const chunk of bad) {
    const tds = new TextDecoderStream();
    const writer = tds.writable.getWriter();
    const reader = tds.readable.getReader();
    const write = writer.write(chunk as BufferSource);
    const read = reader.read();
    const error = await rejection(write);
    assert.instance(error, TypeError, String(chunk));
    assert.match((error as Error).message, /TextDecoderStream/);
    assert.is(await rejection(read), error);
  }
});

test("TextDecoderStream: ArrayBuffer, SharedArrayBuffer, DataView, other typed arrays and views into the middle", async () => {
  const buffer = new ArrayBuffer(6);
  new Uint8Array(buffer).set([0x41, 0x42, 0xc3, 0xa9, 0x43, 0x44]);
  const shared = new SharedArrayBuffer(2);
  new Uint8Array(shared).set([0x45, 0x46]);
  const detached = new ArrayBuffer(4);
  const viewOfDetached = new Uint8Array(detached, 1);
  structuredClone(detached, { transfer: [detached] });
  const chunks = [
    buffer,
    new DataView(buffer, 1, 2),
    new Uint8Array(buffer, 3, 2),
    new Uint16Array([0x4847]),
    shared,
    new Uint8Array(shared, 1),
    detached,
    viewOfDetached,
    // a DataView dressed as a Uint8Array, and a Uint8Array of another prototype (FP-DECODE-BRAND)
    Object.setPrototypeOf(new DataView(buffer, 4, 2), Uint8Array.prototype),
    Object.setPrototypeOf(new Uint8Array(buffer, 0, 1), DataView.prototype),
  ];
  const { out, error } = await through(new TextDecoderStream(), chunks as BufferSource[]);
  assert.is(error, undefined);
  assert.equal(out, ["ABéCD", "B", "éC", "GH", "EF", "F", "CD", "A"]);
});

test("TextDecoderStream: a chunk's bytes are taken when it is written (a later change to its buffer is not seen)", async () => {
  const tds = new TextDecoderStream();
  const writer = tds.writable.getWriter();
  const reader = tds.readable.getReader();
  const chunk = new Uint8Array([0x41, 0xe2, 0x82]);
  void writer.write(chunk);
  assert.equal(await reader.read(), { done: false, value: "A" });
  chunk.set([0x5a, 0x5a, 0x5a]);
  void writer.write(new Uint8Array([0xac]));
  assert.equal(await reader.read(), { done: false, value: "€" });
});

test("TextDecoderStream: labels and encodings as the runtime's TextDecoder; other encodings decode across chunks", async () => {
  const labels = [
    "utf-8",
    " UTF8\n",
    "unicode-1-1-utf-8",
    "utf-16",
    "utf-16be",
    "ascii",
    "latin1",
    "iso-8859-2",
    "iso-8859-14",
    "windows-1251",
    "koi8-r",
    "gbk",
    "gb18030",
    "big5",
    "euc-jp",
    "iso-2022-jp",
    "shift_jis",
    "euc-kr",
    "x-user-defined",
    "replacement",
    "iso-2022-kr",
    "hz-gb-2312",
    "utf-7",
    "",
    "bogus",
  ];
  for (const label of labels) {
    let expected: string | RangeError;
    try {
      expected = new TextDecoder(label).encoding;
    } catch (e) {
      assert.instance(e, RangeError, label);
      expected = e as RangeError;
    }
    if (typeof expected === "string") {
      assert.is(new TextDecoderStream(label).encoding, expected, label);
    } else {
      assert.throws(() => new TextDecoderStream(label), (e: unknown) => e instanceof RangeError, label);
    }
  }
  const samples: [string, number[], string][] = [
    ["utf-16le", [0x34, 0x6c, 0x3d, 0xd8, 0x00, 0xde], "水😀"],
    ["utf-16be", [0x6c, 0x34, 0xd8, 0x3d, 0xde, 0x00], "水😀"],
    ["shift_jis", [0x90, 0x85, 0x41], "水A"],
    ["iso-8859-14", [100, 240, 114], "dŵr"],
  ];
  for (const [label, bytes, text] of samples) {
    for (let at = 0; at <= bytes.length; at++) {
      const chunks = [new Uint8Array(bytes.slice(0, at)), new Uint8Array(bytes.slice(at))];
      const ours = await through(new TextDecoderStream(label), chunks);
      const native = await through(new NativeTextDecoderStream(label), chunks);
      assert.is(ours.out.join(""), text, `${label} cut at ${at}`);
      assert.equal(ours.out, native.out, `${label} cut at ${at}`);
    }
  }
});

test("TextDecoderStream: arguments converted in order (label, fatal, ignoreBOM) before the label is looked up", () => {
  const log: string[] = [];
  const options = {
    get fatal() {
      log.push("fatal");
      return 1;
    },
    get ignoreBOM() {
      log.push("ignoreBOM");
      return "";
    },
  };
  const label = {
    toString() {
      log.push("label");
      return "bogus";
    },
  };
  assert.throws(
    () => new TextDecoderStream(label as unknown as string, options as unknown as TextDecoderOptions),
    (e: unknown) => e instanceof RangeError,
  );
  assert.equal(log, ["label", "fatal", "ignoreBOM"]);
  log.length = 0;
  const tds = new TextDecoderStream("latin1", options as unknown as TextDecoderOptions);
  assert.equal([tds.encoding, tds.fatal, tds.ignoreBOM], ["windows-1252", true, false]);
  const values: [unknown, boolean][] = [
    [false, false],
    [0, false],
    ["", false],
    [undefined, false],
    [null, false],
    [
      true,
      true,
    ],
    [1, true],
    [{}, true],
    [[], true],
    ["yes", true],
  ];
  for (const [value, expected] of values) {
    const made = new TextDecoderStream("utf-8", { fatal: value, ignoreBOM: value } as TextDecoderOptions);
    assert.is(made.fatal, expected);
    assert.is(made.ignoreBOM, expected);
  }
  assert.equal(new TextDecoderStream(undefined, null as unknown as undefined).encoding, "utf-8");
  assert.throws(() => new TextDecoderStream("utf-8", 1 as unknown as TextDecoderOptions), TypeError);
  assert.throws(() => new TextDecoderStream({ toString: () => ({}) } as unknown as string), TypeError);
  assert.throws(() => new TextDecoderStream(Symbol() as unknown as string), TypeError);
  const boom = new Error("boom");
  assert.throws(() =>
    new TextDecoderStream("utf-8", {
      get fatal(): boolean {
        throw boom;
      },
    }), (e: unknown) => e === boom);
});

// ---- Both ------------------------------------------------------------------------------------------------------

test("the interfaces: getters with brand checks, names, lengths, prototypes, no TransformStream in the chain", () => {
  const te = new TextEncoderStream();
  const td = new TextDecoderStream();
  assert.is(TextEncoderStream.name, "TextEncoderStream");
  assert.is(TextDecoderStream.name, "TextDecoderStream");
  assert.is(TextEncoderStream.length, 0);
  assert.is(TextDecoderStream.length, 0);
  assert.is(Object.prototype.toString.call(te), "[object TextEncoderStream]");
  assert.is(Object.prototype.toString.call(td), "[object TextDecoderStream]");
  assert.is(Object.getPrototypeOf(TextEncoderStream.prototype), Object.prototype);
  assert.is(Object.getPrototypeOf(TextDecoderStream.prototype), Object.prototype);
  assert.not.ok(te instanceof TransformStream);
  assert.equal(Object.keys(TextEncoderStream.prototype).sort(), ["encoding", "readable", "writable"]);
  assert.equal(Object.keys(TextDecoderStream.prototype).sort(), [
    "encoding",
    "fatal",
    "ignoreBOM",
    "readable",
    "writable",
  ]);
  assert.is(te.encoding, "utf-8");
  assert.is(te.readable, te.readable);
  assert.ok(te.readable instanceof ReadableStream);
  assert.ok(te.writable instanceof WritableStream);
  assert.ok(td.readable instanceof ReadableStream);
  assert.is(typeof ReadableStream.prototype.getReader.call(td.readable), "object");
  assert.is(typeof WritableStream.prototype.getWriter.call(td.writable), "object");
  for (
    const [proto, names, other] of [
      [TextEncoderStream.prototype, ["encoding", "readable", "writable"], td],
      [TextDecoderStream.prototype, ["encoding", "fatal", "ignoreBOM", "readable", "writable"], te],
    ] as const
  ) {
    for (const name of names) {
      const get = Object.getOwnPropertyDescriptor(proto, name)!.get!;
      assert.is(get.name, `get ${name}`);
      for (const self of [{}, null, undefined, other, Object.create(proto)]) {
        assert.throws(() => get.call(self), TypeError, name);
      }
    }
  }
  assert.throws(() => (TextEncoderStream as unknown as () => void)(), TypeError);
  assert.throws(() => (TextDecoderStream as unknown as () => void)(), TypeError);
});

test("fused: a chain of our streams through both codecs takes no pipe's spec path", async () => {
  const html = Array.from({ length: 50 }, (_, i) => `<li class="item">entry ${i} — ünïcödé 😀</li>`);
  const upper = new TransformStream<string, string>({ transform: (c, ctl) => ctl.enqueue(c.toUpperCase()) });
  const chain = ReadableStream.from(html)
    .pipeThrough(upper)
    .pipeThrough(new TextEncoderStream())
    .pipeThrough(new TextDecoderStream());
  let text = "";
  await chain.pipeTo(new WritableStream<string>({ write: (c) => void (text += c) }));
  assert.is(text, html.join("").toUpperCase());
  const report = inspectPipeChain(chain);
  assert.is(report.links.length, 3);
  for (const link of report.links) {
    assert.is(link.mode, "fused");
    assert.is(link.specWrites, 0);
    assert.is(link.directWrites, 50);
  }
});

test("cancel mid-stream: the source is cancelled with the reason and the writable side errors", async () => {
  for (const make of [() => new TextEncoderStream(), () => new TextDecoderStream()]) {
    const codec = make() as Pair<unknown, unknown>;
    const isEncoder = codec instanceof TextEncoderStream;
    const chunk = isEncoder ? "abc" : new Uint8Array([0x61, 0xe2]);
    const source = tracked<unknown>([chunk, chunk, chunk], false);
    const out = source.stream.pipeThrough(codec);
    const reader = out.getReader();
    const first = await reader.read();
    assert.is(first.done, false);
    const reason = new Error("stop");
    await reader.cancel(reason);
    await new Promise((r) => setTimeout(r, 0));
    assert.equal(source.cancels, [reason]);
    assert.is(await rejection(codec.writable.getWriter().closed), reason);
  }
});

test("abort mid-stream: the readable side errors with the reason; a pipe's signal cancels the source", async () => {
  const ts = new TextEncoderStream();
  const writer = ts.writable.getWriter();
  const reader = ts.readable.getReader();
  void writer.write("one");
  assert.is(hex((await reader.read()).value!), "6f 6e 65");
  const reason = new Error("abort");
  await writer.abort(reason);
  assert.is(await rejection(reader.read()), reason);
  assert.is(await rejection(writer.closed), reason);

  const source = tracked<BufferSource>([new Uint8Array([0x62, 0xe2, 0x82])], false);
  const controller = new AbortController();
  const tds = new TextDecoderStream();
  const pipe = source.stream.pipeTo(tds.writable, { signal: controller.signal });
  const out = tds.readable.getReader();
  assert.equal(await out.read(), { done: false, value: "b" });
  const stop = new Error("signal");
  controller.abort(stop);
  assert.is(await rejection(pipe), stop);
  assert.equal(source.cancels, [stop]);
  // the decoder was aborted with the reason: the pending bytes of "€" are dropped, not flushed as U+FFFD
  assert.is(await rejection(out.read()), stop);
});

test("mixed: ours piped into the runtime's streams, and the runtime's streams read through ours", async () => {
  const text = "native ⇄ fusestreams 😀";
  const bytes = new TextEncoder().encode(text);
  // ours -> native TextDecoderStream -> native WritableStream
  const nativeDecoded: string[] = [];
  await ReadableStream.from([text.slice(0, 9), text.slice(9)])
    .pipeThrough(new TextEncoderStream())
    .pipeThrough(new NativeTextDecoderStream() as never)
    .pipeTo(new NativeWritableStream<string>({ write: (c) => void nativeDecoded.push(c) }) as never);
  assert.is(nativeDecoded.join(""), text);
  // ours -> our decoder -> native WritableStream
  const intoNative: string[] = [];
  await ReadableStream.from([bytes.slice(0, 10), bytes.slice(10)])
    .pipeThrough(new TextDecoderStream())
    .pipeTo(new NativeWritableStream<string>({ write: (c) => void intoNative.push(c) }) as never);
  assert.is(intoNative.join(""), text);
  // a native ReadableStream (split mid-character) read through our decoder and encoder
  const native = new NativeReadableStream<BufferSource>({
    start(c) {
      for (let i = 0; i < bytes.length; i += 5) c.enqueue(bytes.slice(i, i + 5));
      c.close();
    },
  });
  const roundTrip = await collect(
    ReadableStream.from<BufferSource>(native).pipeThrough(new TextDecoderStream()).pipeThrough(new TextEncoderStream()),
  );
  assert.is(new TextDecoder().decode(await new Blob(roundTrip).arrayBuffer()), text);
  // native source -> native TextEncoderStream, read through ours
  const nativeEncoded = new NativeReadableStream<string>({
    start(c) {
      c.enqueue(LEAD);
      c.enqueue(TRAIL);
      c.close();
    },
  }).pipeThrough(new NativeTextEncoderStream());
  const decoded = await collect(ReadableStream.from(nativeEncoded).pipeThrough(new TextDecoderStream()));
  assert.equal(decoded, [`${LEAD}${TRAIL}`]);
  // our decoder's readable side read by a native Response (through its async iterator)
  const response = await new Response(
    ReadableStream.from([bytes]).pipeThrough(new TextDecoderStream()).pipeThrough(new TextEncoderStream()) as never,
  ).text();
  assert.is(response, text);
});

// ---- With the runtime adapter's global patch ----------------------------------------------------------------

async function patchedDuring<T>(run: () => Promise<T>): Promise<T> {
  adapter.patchGlobalWebStreams();
  try {
    return await run();
  } finally {
    adapter.unpatchGlobalWebStreams();
  }
}

test("the patch installs both codecs with the stream classes; instanceof both ways; unpatch puts the natives back", async () => {
  const nativeEncoder = new NativeTextEncoderStream();
  const nativeDecoder = new NativeTextDecoderStream();
  await patchedDuring(async () => {
    assert.is(globalThis.TextEncoderStream, fuse.TextEncoderStream);
    assert.is(globalThis.TextDecoderStream, fuse.TextDecoderStream);
    const encoder = new globalThis.TextEncoderStream();
    assert.ok(encoder instanceof fuse.TextEncoderStream);
    assert.ok(encoder instanceof NativeTextEncoderStream, "ours instanceof the native class");
    assert.ok(nativeEncoder instanceof globalThis.TextEncoderStream, "native instanceof the patched global");
    assert.ok(nativeDecoder instanceof globalThis.TextDecoderStream);
    assert.not.ok({} instanceof globalThis.TextDecoderStream);
    assert.is(Object.prototype.toString.call(encoder), "[object TextEncoderStream]");
    // A chain written against the globals is fused through the codecs.
    const chain = new globalThis.ReadableStream<string>({
      start(c) {
        for (const s of ["a", "é", LEAD, TRAIL]) c.enqueue(s);
        c.close();
      },
    }).pipeThrough(new globalThis.TextEncoderStream()).pipeThrough(new globalThis.TextDecoderStream());
    assert.equal(await collect(chain), ["a", "é", `${LEAD}${TRAIL}`]);
    for (const link of inspectPipeChain(chain).links) assert.is(link.specWrites, 0);
  });
  assert.is(globalThis.TextEncoderStream, NativeTextEncoderStream);
  assert.is(globalThis.TextDecoderStream, NativeTextDecoderStream);
  assert.not.ok(new fuse.TextEncoderStream() instanceof NativeTextEncoderStream, "not after unpatch");
});

/** An SSE proxy written against the globals: a native body cut mid-character, decoded, parsed, encoded, read. */
async function sseProxy(): Promise<{ text: string; bytes: string }> {
  const events = Array.from({ length: 40 }, (_, i) => `data: ${JSON.stringify({ delta: `wörd ${i} 😀` })}\n\n`);
  const all = new TextEncoder().encode(events.join(""));
  const upstream = new NativeResponse(
    new NativeReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < all.length; i += 7) c.enqueue(all.slice(i, i + 7)); // cuts characters and events
        c.close();
      },
    }),
  );
  let buffer = "";
  const parse = new globalThis.TransformStream<string, string>({
    transform(chunk, controller) {
      buffer += chunk;
      let end;
      while ((end = buffer.indexOf("\n\n")) !== -1) {
        const event = JSON.parse(buffer.slice(6, end)) as { delta: string };
        buffer = buffer.slice(end + 2);
        controller.enqueue(`data: ${JSON.stringify({ text: event.delta.toUpperCase() })}\n\n`);
      }
    },
  });
  const body = upstream.body!
    .pipeThrough(new globalThis.TextDecoderStream())
    .pipeThrough(parse)
    .pipeThrough(new globalThis.TextEncoderStream());
  const response = new globalThis.Response(body);
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { text: new TextDecoder().decode(bytes), bytes: hex(bytes) };
}

test("an SSE proxy through TextDecoderStream and TextEncoderStream: byte-identical output with the patch on and off", async () => {
  const off = await sseProxy();
  const on = await patchedDuring(sseProxy);
  assert.ok(off.text.startsWith('data: {"text":"WÖRD 0 😀"}'));
  assert.is(on.bytes, off.bytes);
});

test("with the patch: a native stream piped through our codecs by its own pipeThrough, and ours through native ones", async () => {
  const nativeEncoder = new NativeTextEncoderStream();
  const text = await patchedDuring(async () => {
    const nativeSource = new NativeReadableStream<BufferSource>({
      start(c) {
        c.enqueue(new Uint8Array([0x68, 0xc3]));
        c.enqueue(new Uint8Array([0xa9, 0x21]));
        c.close();
      },
    });
    // the native pipeThrough, patched, into our decoder; then ours into a native encoder made before the patch
    const decoded = nativeSource.pipeThrough(new globalThis.TextDecoderStream());
    const encoded = decoded.pipeThrough(nativeEncoder as unknown as TransformStream<string, Uint8Array>);
    return new TextDecoder().decode(await new globalThis.Response(encoded).arrayBuffer());
  });
  assert.is(text, "hé!");
});

test("collectEncodedText (FP-ENCODE-INTO): only an encoder's readable side nothing has read, locked or queued", async () => {
  const dec = new TextDecoder();
  const feed = (encoder: fuse.TextEncoderStream, chunks: string[]) => {
    const writer = encoder.writable.getWriter();
    for (const chunk of chunks) void writer.write(chunk);
    void writer.close();
  };
  // taken: the bytes of every string, in one buffer of exactly their length
  const fresh = new fuse.TextEncoderStream();
  const taken = collectEncodedText(fresh.readable);
  assert.ok(taken !== undefined, "a fresh encoder is taken");
  assert.ok(fresh.readable.locked, "and locked at once");
  feed(fresh, ["a", "ü\ud83d", "\ude00", "\ud800"]);
  const bytes = await taken!;
  assert.is(dec.decode(bytes), "aü😀\ufffd");
  assert.is(bytes.buffer.byteLength, bytes.byteLength, "a buffer of exactly their length");
  // refused: not an encoder, locked, read, holding a chunk (nothing changes: the stream is read as before)
  assert.is(collectEncodedText(new fuse.ReadableStream()), undefined, "another stream");
  assert.is(collectEncodedText({}), undefined, "not a stream");
  const locked = new fuse.TextEncoderStream();
  const reader = locked.readable.getReader();
  assert.is(collectEncodedText(locked.readable), undefined, "locked");
  reader.releaseLock();
  // a write made before the take waits in the writable side (the readable side was never pulled): it is taken too
  const pending = new fuse.TextEncoderStream();
  const writer = pending.writable.getWriter();
  void writer.write("x");
  await Promise.resolve();
  const withPending = collectEncodedText(pending.readable);
  assert.ok(withPending !== undefined, "an encoder with a write waiting is taken");
  void writer.write("y");
  void writer.close();
  assert.is(dec.decode(await withPending!), "xy", "the waiting write first");
  const read = new fuse.TextEncoderStream();
  const early = read.readable.getReader();
  early.read().catch(() => undefined);
  early.releaseLock();
  assert.is(collectEncodedText(read.readable), undefined, "disturbed");
  // an error of the encoder's stream rejects with it
  const failing = new fuse.TextEncoderStream();
  const failed = collectEncodedText(failing.readable)!;
  const boom = new Error("boom");
  void failing.writable.abort(boom);
  assert.is(await failed.then(() => "fulfilled", (e) => e), boom);
});

test.run();
