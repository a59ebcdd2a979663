// CompressionStream and DecompressionStream of ours (core/compression/), with every codec this runtime has:
// the core's default (the runtime's own streams driven in batches) and node:zlib's (adapters/kit/zlib-codec.ts,
// with each of its adapters' settings), checked against node:zlib's one-shot functions and the runtime's own
// classes in both directions.
import process from "node:process";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  CompressionStream,
  DecompressionStream,
  inspectPipeChain,
  ReadableStream,
  TextEncoderStream,
  TransformStream,
  WritableStream,
} from "../../mod.ts";
import {
  collectCodecBytes,
  type CompressionCodec,
  type CompressionCodecFactory,
  type CompressionFormat,
  createNativeCodec,
  isOwnBytes,
  setCodecOutputQueue,
  setCompressionCodecFactory,
} from "../../core/internal.ts";
import { zlibCodecFactory, type ZlibCodecOptions } from "../../adapters/kit/zlib-codec.ts";
import { concat, cut, same as sameBytes } from "../shared/compression-suite.ts";

type Format = CompressionFormat;
type Bytes = Uint8Array<ArrayBuffer>;
type Pair = { readable: globalThis.ReadableStream<Uint8Array>; writable: globalThis.WritableStream<BufferSource> };

const NativeCS = globalThis.CompressionStream as unknown as (new (format: string) => Pair) | undefined;
const NativeDS = globalThis.DecompressionStream as unknown as (new (format: string) => Pair) | undefined;

interface Zlib {
  gzipSync(b: Uint8Array): Uint8Array;
  gunzipSync(b: Uint8Array): Uint8Array;
  deflateSync(b: Uint8Array): Uint8Array;
  inflateSync(b: Uint8Array): Uint8Array;
  deflateRawSync(b: Uint8Array): Uint8Array;
  inflateRawSync(b: Uint8Array): Uint8Array;
  brotliCompressSync(b: Uint8Array, o?: object): Uint8Array;
  brotliDecompressSync(b: Uint8Array): Uint8Array;
  zstdCompressSync?(b: Uint8Array): Uint8Array;
  zstdDecompressSync?(b: Uint8Array): Uint8Array;
  crc32(b: Uint8Array, v?: number): number;
  constants: Record<string, number>;
}
const zlib = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule?.("node:zlib") as
  | Zlib
  | undefined;

/** node:zlib's one-shot functions per format (for our output, and as input for ours). */
function oneShot(format: Format): { compress(b: Uint8Array): Uint8Array; decompress(b: Uint8Array): Uint8Array } {
  const z = zlib!;
  switch (format) {
    case "gzip":
      return { compress: (b) => z.gzipSync(b), decompress: (b) => z.gunzipSync(b) };
    case "deflate":
      return { compress: (b) => z.deflateSync(b), decompress: (b) => z.inflateSync(b) };
    case "deflate-raw":
      return { compress: (b) => z.deflateRawSync(b), decompress: (b) => z.inflateRawSync(b) };
    case "brotli":
      return {
        compress: (b) => z.brotliCompressSync(b, { params: { [z.constants["BROTLI_PARAM_QUALITY"]!]: 4 } }),
        decompress: (b) => z.brotliDecompressSync(b),
      };
    case "zstd":
      return { compress: (b) => z.zstdCompressSync!(b), decompress: (b) => z.zstdDecompressSync!(b) };
  }
}

function accepts(format: string): boolean {
  if (NativeCS === undefined) return false;
  try {
    new NativeCS(format).writable.abort().catch(() => {});
    new NativeDS!(format).writable.abort().catch(() => {});
    return true;
  } catch {
    return false;
  }
}
const FORMATS = (["gzip", "deflate", "deflate-raw", "brotli", "zstd"] as const).filter(accepts);
const hasZlib = (f: Format) => zlib !== undefined && (f !== "zstd" || zlib.zstdCompressSync !== undefined);

/** Counts the codecs a factory made and released (whatever codec it hands out). */
class Spy {
  made = 0;
  released = 0;
  wrap(factory: CompressionCodecFactory | undefined): CompressionCodecFactory {
    return (format, mode, sink) => {
      const codec = factory?.(format, mode, sink);
      if (codec === undefined) return undefined;
      this.made++;
      let released = false;
      return {
        push: (b) => codec.push(b),
        finish: () => codec.finish(),
        release: () => {
          if (!released) this.released++;
          released = true;
          codec.release();
        },
      } satisfies CompressionCodec;
    };
  }
}

/** The codecs under test: the core's default, and node:zlib's with each adapter's settings. */
const CODECS: [string, CompressionCodecFactory | undefined][] = [["default codec", undefined]];
if (zlib !== undefined) {
  const z = () => process.getBuiltinModule("node:zlib");
  const settings: [string, ZlibCodecOptions][] = [
    ["zlib codec", {}],
    ["zlib codec, a call per chunk", { coalesce: false }],
    ["zlib codec, Deno's settings", { flushEachChunk: true, gzipOs: 255, compressFormats: ["gzip", "deflate"] }],
    ["zlib codec, Bun's settings", { coalesce: false, outputQueue: 4, reuseCompressors: true }],
  ];
  for (const [name, options] of settings) CODECS.push([name, zlibCodecFactory(z, options)]);
}

// Whether this copy of the codec hook is the one the classes use (not when the tests run against dist/).
const hookReaches = (() => {
  let calls = 0;
  const previous = setCompressionCodecFactory(() => {
    calls++;
    return undefined;
  });
  try {
    new CompressionStream("gzip").writable.abort().catch(() => {});
  } finally {
    setCompressionCodecFactory(previous);
  }
  return calls === 1;
})();
if (!hookReaches) {
  console.log("compression: the codec hook does not reach these classes (two copies of the core?): variants skipped");
}

/** Runs `fn` with `factory` installed (and the adapters' factory put back after). */
async function withCodec<T>(factory: CompressionCodecFactory | undefined, fn: () => Promise<T>): Promise<T> {
  const previous = setCompressionCodecFactory(factory);
  try {
    return await fn();
  } finally {
    setCompressionCodecFactory(previous);
  }
}

/**
 * A test run once per codec (`every`), or with the default and the zlib codec only (the other zlib settings
 * change nothing but how chunks reach zlib).
 */
function codecTest(
  name: string,
  fn: (factory: CompressionCodecFactory | undefined) => Promise<void>,
  codecs: "every" | "two" = "two",
): void {
  for (const [codec, factory] of codecs === "every" ? CODECS : CODECS.slice(0, 2)) {
    const full = `${codec}: ${name}`;
    if (!hookReaches && factory !== undefined) test.skip(full, () => undefined);
    else test(full, () => withCodec(factory, () => fn(factory)));
  }
}

// ---- data

/** Deterministic pseudo-random bytes (incompressible). */
function noise(n: number, seed = 1): Bytes {
  const out = new Uint8Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** Text-like bytes (compressible), with some noise mixed in. */
function textish(n: number): Bytes {
  const words = ["stream", "chunk", '<div class="row">', "</div>", "gzip", "flush", "é", "\n", "1234", "zlib"];
  const out = new Uint8Array(n);
  const enc = new TextEncoder();
  let i = 0;
  let k = 7;
  while (i < n) {
    k = (k * 1103515245 + 12345) >>> 0;
    const w = enc.encode(words[k % words.length]!);
    out.set(w.subarray(0, n - i), i);
    i += w.length;
    if (k % 97 === 0 && i < n) {
      const junk = noise(Math.min(31, n - i), k);
      out.set(junk, i);
      i += junk.length;
    }
  }
  return out;
}

/** Every chunk of `stream` (Array.fromAsync is not in Node.js 20). */
async function collect(stream: AsyncIterable<Uint8Array>): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const chunk of stream) out.push(chunk);
  return out;
}

/** Writes `chunks` into `pair` (awaiting each write) while reading it to the end; the output's chunks. */
async function through(pair: Pair | CompressionStream | DecompressionStream, chunks: unknown[]): Promise<Uint8Array[]> {
  const p = pair as unknown as Pair;
  const writer = p.writable.getWriter();
  const reader = p.readable.getReader();
  const out: Uint8Array[] = [];
  const reading = (async () => {
    for (;;) {
      const r = await reader.read();
      if (r.done) return;
      out.push(r.value);
    }
  })();
  try {
    for (const c of chunks) await writer.write(c as BufferSource);
    await writer.close();
  } finally {
    await reading.catch(() => {});
  }
  await reading;
  return out;
}

/** The error `pair` fails with when `chunks` are written and it is closed. */
async function failure(
  pair: Pair | DecompressionStream | CompressionStream,
  chunks: unknown[],
  what = "",
): Promise<unknown> {
  try {
    await through(pair, chunks);
  } catch (e) {
    return e;
  }
  assert.unreachable(`expected the stream to fail: ${what}`);
}

async function compressWith(format: Format, chunks: Uint8Array[]): Promise<Bytes> {
  return concat(await through(new CompressionStream(format), chunks));
}

async function decompressWith(format: Format, chunks: Uint8Array[]): Promise<Bytes> {
  return concat(await through(new DecompressionStream(format), chunks));
}

const BOUNDARIES = [1, 7, 333, 4096 + 5, 65_536 + 3, 2];

/** An input size for `format`: brotli at its default quality compresses at about 1 MB/s, so less. */
function sized(format: Format, n: number): number {
  return format === "brotli" ? n >> 3 : n;
}

// ---- the classes

test("formats: the standard's three everywhere; the runtime's extras exactly where its own classes take them", () => {
  for (const f of ["gzip", "deflate", "deflate-raw"]) {
    assert.ok(new CompressionStream(f as Format) instanceof CompressionStream);
    assert.ok(new DecompressionStream(f as Format) instanceof DecompressionStream);
  }
  for (const f of ["brotli", "zstd"]) {
    for (const [Ours, Native] of [[CompressionStream, NativeCS], [DecompressionStream, NativeDS]] as const) {
      let native = true;
      try {
        new Native!(f).writable.abort().catch(() => {});
      } catch {
        native = false;
      }
      let ours = true;
      try {
        new (Ours as unknown as new (f: string) => Pair)(f).writable.abort().catch(() => {});
      } catch (e) {
        assert.instance(e, TypeError);
        ours = false;
      }
      assert.is(ours, native, `${Ours.name}("${f}") accepted by ours iff by the runtime's own`);
    }
  }
});

test("formats: anything else is a TypeError (WebIDL enum: case-sensitive, ToString, no argument)", () => {
  const bad: unknown[] = [
    "GZIP",
    "br",
    "x-gzip",
    "",
    " gzip",
    "lz4",
    undefined,
    null,
    1,
    {},
    [],
    { toString: () => "zip" },
  ];
  for (const C of [CompressionStream, DecompressionStream]) {
    for (const f of bad) assert.throws(() => new C(f as Format), (e: unknown) => e instanceof TypeError, String(f));
    assert.throws(() => new C(Symbol("gzip") as unknown as Format), (e: unknown) => e instanceof TypeError);
    assert.throws(() => new (C as unknown as new () => unknown)(), (e: unknown) => e instanceof TypeError);
    // ToString is called once, and its result is what counts
    let calls = 0;
    const s = new C({ toString: () => (calls++, "deflate") } as unknown as Format);
    assert.is(calls, 1);
    s.writable.abort().catch(() => {});
  }
});

test("interfaces: brand-checked readable/writable getters, names, toStringTag, our stream classes", () => {
  for (const C of [CompressionStream, DecompressionStream]) {
    const s = new C("gzip");
    assert.ok(s.readable instanceof ReadableStream, `${C.name}.readable is one of our ReadableStreams`);
    assert.ok(s.writable instanceof WritableStream, `${C.name}.writable is one of our WritableStreams`);
    assert.is(s.readable, s.readable);
    assert.is(C.name, C === CompressionStream ? "CompressionStream" : "DecompressionStream");
    assert.is(C.length, 1);
    assert.is(Object.prototype.toString.call(s), `[object ${C.name}]`);
    for (const key of ["readable", "writable"]) {
      const getter = Object.getOwnPropertyDescriptor(C.prototype, key)!.get!;
      assert.ok(Object.getOwnPropertyDescriptor(C.prototype, key)!.enumerable);
      const Other = C === CompressionStream ? DecompressionStream : CompressionStream;
      for (const other of [{}, new TransformStream(), new Other("gzip")]) {
        assert.throws(() => getter.call(other), (e: unknown) => e instanceof TypeError, `${C.name}.${key}`);
      }
    }
    s.writable.abort().catch(() => {});
  }
});

test("a transformer member on Object.prototype is not taken for one of the stream's", async () => {
  const proto = Object.prototype as Record<string, unknown>;
  let called = false;
  proto["start"] = () => {
    called = true;
  };
  proto["readableType"] = "bytes";
  // A codec that hands its input on: the runtime's own streams (the default codec) may read Object.prototype.
  const previous = setCompressionCodecFactory((_format, _mode, sink) => ({
    push: (bytes) => void sink.enqueue(bytes.slice()),
    finish: () => undefined,
    release: () => undefined,
  }));
  try {
    const out = await compressWith("gzip", [new Uint8Array([1, 2, 3])]);
    sameBytes(out, new Uint8Array([1, 2, 3]), "what the codec made");
    assert.not.ok(called);
  } finally {
    setCompressionCodecFactory(previous);
    delete proto["start"];
    delete proto["readableType"];
  }
});

// ---- round trips and interop

codecTest("round trip of every format: odd chunk boundaries, a large input, byte for byte", async () => {
  for (const format of FORMATS) {
    const size = sized(format, 400_000);
    for (const input of [textish(size), noise(size >> 2, 5)]) {
      const compressed = await compressWith(format, cut(input, BOUNDARIES));
      const back = await decompressWith(format, cut(compressed, [...BOUNDARIES].reverse()));
      sameBytes(back, input, `${format}, ${input.length} bytes`);
    }
  }
}, "every");

codecTest("ours compresses what node:zlib decompresses, and decompresses what node:zlib compresses", async () => {
  for (const format of FORMATS.filter(hasZlib)) {
    const input = textish(sized(format, 300_000));
    const z = oneShot(format);
    sameBytes(z.decompress(await compressWith(format, cut(input, [1000, 3]))), input, `${format}: zlib reads ours`);
    const theirs = z.compress(input);
    sameBytes(await decompressWith(format, cut(theirs, [5, 4096])), input, `${format}: ours reads zlib's`);
  }
}, "every");

codecTest("ours and the runtime's own classes read each other's output", async () => {
  for (const format of FORMATS) {
    const input = textish(sized(format, 120_000));
    const ours = await compressWith(format, cut(input, [777]));
    sameBytes(concat(await through(new NativeDS!(format), [ours])), input, `${format}: native reads ours`);
    const native = concat(await through(new NativeCS!(format), cut(input, [777])));
    sameBytes(await decompressWith(format, cut(native, [13])), input, `${format}: ours reads native`);
  }
}, "every");

codecTest("mixed chains: ours -> native -> ours -> native, piped both ways", async () => {
  for (const format of FORMATS) {
    const input = textish(sized(format, 80_000));
    const chunks = cut(input, [999]);
    const pass = () => new TransformStream<Uint8Array, Uint8Array>({ transform: (c, ctl) => ctl.enqueue(c) });
    // our source through ours and a native decompressor (our pipeThrough takes native pairs), read back into
    // ours (ReadableStream.from: the runtime's own pipeThrough takes only its own streams), through a native
    // compressor and ours again
    const toNative = ReadableStream.from(chunks)
      .pipeThrough(pass())
      .pipeThrough(new CompressionStream(format) as never)
      .pipeThrough(new NativeDS!(format) as never) as unknown as globalThis.ReadableStream<Uint8Array>;
    const backInOurs = ReadableStream.from(toNative as AsyncIterable<Uint8Array>)
      .pipeThrough(pass())
      .pipeThrough(new NativeCS!(format) as never) as unknown as globalThis.ReadableStream<Uint8Array>;
    // (the DOM types do not take a BufferSource writable for a Uint8Array<ArrayBufferLike> readable: `as never`)
    const s1 = ReadableStream.from(backInOurs as AsyncIterable<Uint8Array>).pipeThrough<Uint8Array>(
      new DecompressionStream(format) as never,
    );
    const out: Uint8Array[] = [];
    await s1.pipeTo(new WritableStream({ write: (c) => void out.push(c) }));
    sameBytes(concat(out), input, `${format}: chain 1`);
    // a native source read into ours, handed to the runtime's Response
    const native = new globalThis.ReadableStream<Uint8Array>({
      start(c) {
        for (const chunk of chunks) c.enqueue(chunk);
        c.close();
      },
    });
    const s2 = ReadableStream.from(native as AsyncIterable<Uint8Array>)
      .pipeThrough(new CompressionStream(format) as never)
      .pipeThrough(new DecompressionStream(format) as never);
    sameBytes(new Uint8Array(await new Response(s2 as never).arrayBuffer()), input, `${format}: chain 2`);
  }
});

test("ZLIB-REUSE: a finished compressor's handle serves the next stream, reset; a cancelled one's is closed", async () => {
  if (zlib === undefined || !hookReaches) return;
  const z = process.getBuiltinModule("node:zlib") as Record<string, unknown>;
  for (const format of ["gzip", "deflate", "deflate-raw"] as const) {
    const name = format === "gzip" ? "createGzip" : format === "deflate" ? "createDeflate" : "createDeflateRaw";
    let created = 0;
    // Without the binding's modes (no `constants`), every handle comes from node:zlib's object (no ZLIB-HANDLE),
    // so counting them counts the handles.
    const counting = () => ({
      ...z,
      constants: undefined,
      [name]: (...args: unknown[]) => {
        created++;
        return (z[name] as (...a: unknown[]) => unknown)(...args);
      },
    });
    const fresh = zlibCodecFactory(() => z as never, { coalesce: false });
    const reusing = zlibCodecFactory(counting as never, { coalesce: false, reuseCompressors: true });
    const inputs = [textish(50_000), textish(3_000), noise(20_000, 7)];
    const want: Bytes[] = [];
    await withCodec(fresh, async () => {
      for (const input of inputs) want.push(await compressWith(format, cut(input, [777, 5])));
    });
    await withCodec(reusing, async () => {
      // the first stream loads node:zlib (the factory's probe makes a deflate-raw handle of its own)
      sameBytes(await compressWith(format, cut(inputs[0]!, [777, 5])), want[0]!, `${format}: stream 0`);
      const before = created;
      for (let i = 1; i < inputs.length; i++) {
        sameBytes(await compressWith(format, cut(inputs[i]!, [777, 5])), want[i]!, `${format}: stream ${i}`);
      }
      assert.is(created - before, 0, `${format}: the first stream's handle served the next two`);
      // a stream aborted in the middle: its handle is closed, not kept with its half-written state
      const aborted = new CompressionStream(format);
      const writer = aborted.writable.getWriter();
      aborted.readable.pipeTo(new WritableStream()).catch(() => {});
      await writer.write(textish(10_000));
      await writer.abort(new Error("stop"));
      sameBytes(await compressWith(format, cut(inputs[1]!, [777, 5])), want[1]!, `${format}: after an abort`);
      assert.is(created - before, 1, `${format}: the aborted stream's handle was not taken back`);
    });
    for (const bytes of want) assert.ok(bytes.byteLength > 0);
    sameBytes(oneShot(format).decompress(want[0]!), inputs[0]!, `${format}: zlib reads it`);
  }
});

test("ZLIB-REUSE: 40 streams of mixed text and noise in turn make the bytes of fresh handles", async () => {
  if (zlib === undefined || !hookReaches) return;
  const z = () => process.getBuiltinModule("node:zlib");
  const fresh = zlibCodecFactory(z, { coalesce: false });
  const reusing = zlibCodecFactory(z, { coalesce: false, reuseCompressors: true });
  for (const format of ["gzip", "deflate-raw"] as const) {
    for (let i = 0; i < 20; i++) {
      // text, then noise, then both: what the last stream left in the handle's window differs each time
      const size = 1 + (i * 7_919) % 40_000;
      const input = i % 3 === 0
        ? noise(size, i + 1)
        : i % 3 === 1
        ? textish(size)
        : concat([textish(size), noise(99, i)]);
      const chunks = cut(input, [1 + (i * 131) % 3_000, 17]);
      const want = await withCodec(fresh, () => compressWith(format, chunks));
      sameBytes(await withCodec(reusing, () => compressWith(format, chunks)), want, `${format}: stream ${i}`);
    }
  }
});

/** `z` with each of node:zlib's zlib-format `create*()` functions counting the objects it makes into `count`. */
function countingZlib(z: Record<string, unknown>, count: Record<string, number>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...z };
  for (const name of ["createGzip", "createDeflate", "createDeflateRaw", "createInflate", "createInflateRaw"]) {
    count[name] = 0;
    out[name] = (...args: unknown[]) => {
      count[name]!++;
      return (z[name] as (...a: unknown[]) => unknown)(...args);
    };
  }
  return out;
}

test("ZLIB-HANDLE: handles made without node:zlib's object give its bytes, both ways, and none is made", async () => {
  if (zlib === undefined || !hookReaches) return;
  const z = process.getBuiltinModule("node:zlib") as Record<string, unknown>;
  const count: Record<string, number> = {};
  const bare = zlibCodecFactory(() => countingZlib(z, count) as never, { coalesce: false });
  const objects = zlibCodecFactory(() => ({ ...z, constants: undefined }) as never, { coalesce: false });
  const inputs = [textish(30_000), noise(5_000, 3), textish(1)];
  for (const format of ["gzip", "deflate", "deflate-raw"] as const) {
    // the first stream each way proves the handle (node:zlib's own objects are made for the probe)
    await withCodec(bare, async () => {
      await decompressWith(format, [await compressWith(format, [textish(10)])]);
    });
    const made = { ...count };
    for (const input of inputs) {
      const chunks = cut(input, [997, 3]);
      const want = await withCodec(objects, () => compressWith(format, chunks));
      const got = await withCodec(bare, () => compressWith(format, chunks));
      sameBytes(got, want, `${format}: the bytes of node:zlib's object`);
      sameBytes(oneShot(format).decompress(got), input, `${format}: zlib reads it`);
      sameBytes(await withCodec(bare, () => decompressWith(format, cut(want, [101, 7]))), input, `${format}: back`);
      // a corrupt stream is the TypeError, as through node:zlib's object
      const corrupt = want.slice();
      corrupt[Math.min(12, corrupt.byteLength - 1)]! ^= 0xff;
      corrupt[corrupt.byteLength >> 1]! ^= 0x55;
      let refused: unknown;
      try {
        await withCodec(bare, () => decompressWith(format, [corrupt]));
      } catch (error) {
        refused = error;
      }
      let refusedBefore: unknown;
      try {
        await withCodec(objects, () => decompressWith(format, [corrupt]));
      } catch (error) {
        refusedBefore = error;
      }
      assert.is(refused instanceof TypeError, refusedBefore instanceof TypeError, `${format}: corrupt input`);
    }
    assert.equal(count, made, `${format}: no node:zlib object made after the probe`);
  }
});

test("ZLIB-HANDLE: a handle that fails the probe is not used: node:zlib's objects, the same bytes", async () => {
  if (zlib === undefined || !hookReaches) return;
  const z = process.getBuiltinModule("node:zlib") as Record<string, unknown>;
  const constants = z.constants as Record<string, number>;
  const count: Record<string, number> = {};
  // the wrong modes: a bare handle would make deflate for gzip and inflate zlib-wrapped data for raw
  const wrong = {
    ...countingZlib(z, count),
    constants: { ...constants, GZIP: constants.DEFLATE, INFLATERAW: constants.INFLATE },
  };
  const factory = zlibCodecFactory(() => wrong as never, { coalesce: false });
  const objects = zlibCodecFactory(() => ({ ...z, constants: undefined }) as never, { coalesce: false });
  const input = textish(20_000);
  const want = await withCodec(objects, () => compressWith("gzip", cut(input, [4_001])));
  for (let i = 0; i < 3; i++) {
    const before = { ...count };
    const gz = await withCodec(factory, () => compressWith("gzip", cut(input, [4_001])));
    sameBytes(gz, want, "gzip: node:zlib's bytes");
    sameBytes(await withCodec(factory, () => decompressWith("gzip", [gz])), input, "gunzip");
    assert.ok(count.createGzip! > before.createGzip!, `stream ${i}: node:zlib's gzip object`);
    assert.ok(count.createInflateRaw! > before.createInflateRaw!, `stream ${i}: node:zlib's inflate object`);
  }
});

test("a chain of our transforms through CompressionStream and DecompressionStream is fused", async () => {
  const pass = () => new TransformStream<Bytes, Bytes>();
  const out = ReadableStream.from(cut(textish(10_000), [100]))
    .pipeThrough(pass())
    .pipeThrough(new CompressionStream("gzip"))
    .pipeThrough(new DecompressionStream("gzip"))
    .pipeThrough(pass());
  const report = inspectPipeChain(out);
  assert.is(report.links.length, 4);
  for (const link of report.links) assert.is.not(link.mode, "foreign", JSON.stringify(report));
  sameBytes(concat(await collect(out as AsyncIterable<Uint8Array>)), textish(10_000), "through the chain");
});

codecTest(
  "every BufferSource is taken, by its bytes: views at an offset, DataView, other typed arrays, ArrayBuffer",
  async () => {
    const bytes = textish(3000);
    const buffer = bytes.slice().buffer;
    const chunks: unknown[] = [
      new Uint8Array(buffer, 0, 1000),
      new DataView(buffer, 1000, 500),
      new Uint16Array(buffer, 1500, 250),
      buffer.slice(2000, 2999),
      new Uint8Array(0),
      new Uint8ClampedArray(buffer, 2999, 1),
    ];
    const compressed = concat(await through(new CompressionStream("deflate"), chunks));
    sameBytes(await decompressWith("deflate", [compressed]), bytes, "the bytes of every view");
  },
);

codecTest("a chunk that is not a BufferSource errors both sides with a TypeError", async () => {
  const sab = typeof SharedArrayBuffer === "function" ? new Uint8Array(new SharedArrayBuffer(8)) : undefined;
  const bad: unknown[] = ["abc", 1, null, undefined, {}, [1, 2], true, Symbol("x"), ...(sab ? [sab] : [])];
  for (const C of [CompressionStream, DecompressionStream]) {
    for (const chunk of bad) {
      const s = new C("gzip");
      const e = await failure(s, [chunk]);
      assert.instance(e, TypeError, `${C.name}: ${String(chunk)}`);
    }
  }
});

/** Writes `chunks` into `pair` (each write awaited, then close) and returns what `taken` gives; or the error. */
async function takenThrough(
  pair: CompressionStream | DecompressionStream,
  taken: Promise<Uint8Array<ArrayBuffer>>,
  chunks: unknown[],
): Promise<Uint8Array<ArrayBuffer>> {
  const writer = (pair as unknown as Pair).writable.getWriter();
  const writing = (async () => {
    for (const c of chunks) await writer.write(c as BufferSource);
    await writer.close();
  })();
  writing.catch(() => {});
  return await taken;
}

codecTest("FP-CODEC-INTO: output taken whole is the bytes a reader gets, in one exact buffer", async () => {
  const data = textish(200_000);
  for (const format of FORMATS) {
    const chunks = cut(data.subarray(0, sized(format, data.length)), BOUNDARIES);
    const read = await compressWith(format, chunks);
    const cs = new CompressionStream(format);
    const taken = collectCodecBytes(cs.readable);
    assert.ok(taken !== undefined, `${format}: a fresh CompressionStream is taken`);
    assert.ok(cs.readable.locked, `${format}: and locked at once`);
    const bytes = await takenThrough(cs, taken!, chunks);
    sameBytes(bytes, read, `${format}: compressed, taken = read`);
    assert.is(bytes.buffer.byteLength, bytes.byteLength, `${format}: a buffer of exactly their length`);
    const ds = new DecompressionStream(format);
    const back = await takenThrough(ds, collectCodecBytes(ds.readable)!, cut(bytes, [1, 700, 3]));
    sameBytes(back, concat(chunks), `${format}: decompressed, taken`);
  }
}, "every");

async function refusedWithChunkQueued(): Promise<void> {
  const queued = await withOutputQueue(4, () => new DecompressionStream("deflate"));
  const writer = queued.writable.getWriter();
  await writer.write(zlib!.deflateSync(textish(5000)) as Bytes);
  assert.is(collectCodecBytes(queued.readable), undefined, "holding a chunk");
  void writer.close();
  sameBytes(concat(await collect(queued.readable as AsyncIterable<Uint8Array>)), textish(5000), "read as before");
}

codecTest(
  "FP-CODEC-INTO: only a codec's readable side nothing has read, locked or queued; errors reject",
  async (factory) => {
    assert.is(collectCodecBytes(new ReadableStream()), undefined, "another stream");
    assert.is(collectCodecBytes(new TransformStream().readable), undefined, "another transform's");
    assert.is(collectCodecBytes({}), undefined, "not a stream");
    const locked = new CompressionStream("gzip");
    const reader = locked.readable.getReader();
    assert.is(collectCodecBytes(locked.readable), undefined, "locked");
    reader.releaseLock();
    const read = new CompressionStream("gzip");
    const early = read.readable.getReader();
    early.read().catch(() => undefined);
    early.releaseLock();
    assert.is(collectCodecBytes(read.readable), undefined, "disturbed");
    // output already queued (a stream allowed to work ahead): a decompressor given a whole stream, not read. With a
    // zlib codec its output is queued when the write settles (the default codec's comes later, from the runtime's).
    if (factory !== undefined) await refusedWithChunkQueued();

    // a write made before the take, still waiting for a reader (no work ahead allowed), is taken
    const waiting = await withOutputQueue(0, () => new CompressionStream("deflate"));
    const waitingWriter = waiting.writable.getWriter();
    void waitingWriter.write(textish(1000));
    await new Promise((r) => setTimeout(r, 0));
    const withWaiting = collectCodecBytes(waiting.readable);
    assert.ok(withWaiting !== undefined, "a stream with a write waiting is taken");
    void waitingWriter.write(textish(2000).subarray(1000));
    void waitingWriter.close();
    sameBytes(zlib!.inflateSync(await withWaiting!), textish(2000), "the waiting write first");
    // corrupt, truncated and trailing input: the stream's TypeError
    const good = zlib!.gzipSync(textish(3000));
    const bad: [string, Uint8Array][] = [
      ["corrupt", Uint8Array.from(good, (b, i) => (i === 20 ? b ^ 0xff : b))],
      ["truncated", good.subarray(0, good.length - 5)],
      ["trailing", concat([good, new Uint8Array([1, 2, 3])])],
    ];
    for (const [what, input] of bad) {
      const ds = new DecompressionStream("gzip");
      const e = await takenThrough(ds, collectCodecBytes(ds.readable)!, [input]).then(() => "fulfilled", (x) => x);
      assert.instance(e, TypeError, what);
    }
    // an abort of the writable side rejects with its reason
    const cs = new CompressionStream("gzip");
    const failed = collectCodecBytes(cs.readable)!;
    const boom = new Error("boom");
    void (cs as unknown as Pair).writable.abort(boom);
    assert.is(await failed.then(() => "fulfilled", (x) => x), boom);
  },
  "every",
);

test("OWN-BYTES: a TextEncoderStream's small chunk is known without its buffer; no other chunk is", async () => {
  const encoder = new TextEncoderStream();
  const writer = encoder.writable.getWriter();
  const reader = encoder.readable.getReader();
  void writer.write("héllo");
  const small = (await reader.read()).value!;
  assert.ok(isOwnBytes(small), "the chunk the encoder made last");
  assert.not.ok(isOwnBytes(small), "once: the slot is emptied");
  void writer.write("x".repeat(5000));
  assert.not.ok(isOwnBytes((await reader.read()).value!), "a chunk over 1 KiB is not held");
  void writer.write("a");
  const a = (await reader.read()).value!;
  assert.not.ok(isOwnBytes(new Uint8Array(a)), "a copy is another chunk");
  assert.not.ok(isOwnBytes(undefined));
  assert.ok(isOwnBytes(a));
});

test("OWN-BYTES: encoded text through CompressionStream; a shared view right after is still a TypeError", async () => {
  const text = "<li>café ☕</li>".repeat(200);
  const piped = new ReadableStream<string>({
    start(c) {
      for (let i = 0; i < text.length; i += 97) c.enqueue(text.slice(i, i + 97));
      c.close();
    },
  }).pipeThrough(new TextEncoderStream()).pipeThrough(new CompressionStream("gzip"));
  const out = concat(await collect(piped as AsyncIterable<Uint8Array>));
  sameBytes(new Uint8Array(zlib!.gunzipSync(out)), new TextEncoder().encode(text), "the text, gzipped");
  if (typeof SharedArrayBuffer !== "function") return;
  const encoder = new TextEncoderStream();
  const writer = encoder.writable.getWriter();
  void writer.write("abc");
  await encoder.readable.getReader().read();
  const e = await failure(new CompressionStream("gzip"), [new Uint8Array(new SharedArrayBuffer(4))]);
  assert.instance(e, TypeError, "a view of a SharedArrayBuffer");
});

codecTest("a chunk whose buffer is detached once its write settled changes nothing already taken", async () => {
  const input = textish(50_000);
  const cs = new CompressionStream("gzip");
  const writer = cs.writable.getWriter();
  const reading = collect(cs.readable as AsyncIterable<Uint8Array>);
  for (const chunk of cut(input, [4096])) {
    await writer.write(chunk);
    structuredClone(chunk.buffer, { transfer: [chunk.buffer] }); // detaches it
  }
  await writer.close();
  sameBytes(await decompressWith("gzip", await reading), input, "detached after write");
});

// ---- errors

/**
 * Decompressing `chunks` fails with a TypeError. With the default codec, whose checks are the runtime's own
 * stream's: as the runtime's own (a TypeError where it fails; where it does not, as Deno's with a truncated
 * deflate stream, the same bytes as it).
 */
async function failsAsItShould(
  factory: CompressionCodecFactory | undefined,
  format: Format,
  chunks: Uint8Array[],
  what: string,
): Promise<void> {
  if (factory === undefined) {
    let native: Uint8Array | undefined;
    try {
      native = concat(await through(new NativeDS!(format), chunks));
    } catch {
      // fails natively: ours must too, below
    }
    if (native !== undefined) {
      sameBytes(concat(await through(new DecompressionStream(format), chunks)), native, `${what}, as native`);
      return;
    }
  }
  const e = await failure(new DecompressionStream(format), chunks, what);
  assert.instance(e, TypeError, `${what}: ${String(e)}`);
}

codecTest("corrupt, truncated and empty input, and data after the end, are TypeErrors", async (factory) => {
  for (const format of FORMATS) {
    const input = textish(20_000);
    const good = await compressWith(format, [input]);
    const cases: [string, Uint8Array[]][] = [
      ["empty", []],
      ["only an empty chunk", [new Uint8Array(0)]],
      ["truncated by one byte", [good.subarray(0, good.length - 1)]],
      ["truncated in half", [good.subarray(0, good.length >> 1)]],
      ["a byte after the end", [concat([good, new Uint8Array([0])])]],
      ["a chunk after the end", [good, new Uint8Array([1, 2])]],
      ["garbage", [noise(100, 9)]],
    ];
    // zstd frames may follow each other (Bun's own decoder reads them all); a second stream is data after the end
    // in every other format
    if (format !== "zstd") {
      cases.push(["two streams back to back", [concat([good, good])]], ["two streams, in two chunks", [good, good]]);
    }
    if (format === "gzip" || format === "deflate") { // checksummed: any change is found
      const flipped = good.slice();
      flipped[flipped.length >> 1] ^= 0x55;
      cases.push(["a flipped byte in the middle", [flipped]]);
    }
    for (const [what, chunks] of cases) await failsAsItShould(factory, format, chunks, `${format}: ${what}`);
    // an empty chunk after the end is no data
    sameBytes(await decompressWith(format, [good, new Uint8Array(0)]), input, `${format}: empty chunk after the end`);
  }
});

codecTest("gzip: header fields, and its CRCs and length checked", async () => {
  if (!FORMATS.includes("gzip") || zlib === undefined) return;
  const input = textish(5000);
  const member = zlib.gzipSync(input);
  const body = member.subarray(10);
  const header = [0x1f, 0x8b, 8, 2 | 4 | 8 | 16 | 1, 1, 2, 3, 4, 0, 3, 4, 0, 9, 9, 9, 9];
  header.push(...new TextEncoder().encode("name.txt\0a comment\0"));
  const hcrc = zlib.crc32(new Uint8Array(header)) & 0xffff;
  const fancy = concat([new Uint8Array([...header, hcrc & 0xff, hcrc >> 8]), body]);
  sameBytes(await decompressWith("gzip", [fancy]), input, "all header fields");
  sameBytes(await decompressWith("gzip", cut(fancy, [1])), input, "all header fields, a byte at a time");
  const broken: [string, Uint8Array][] = [];
  const badHcrc = fancy.slice();
  badHcrc[header.length] ^= 1;
  broken.push(["FHCRC", badHcrc]);
  const badCrc = member.slice();
  badCrc[badCrc.length - 8] ^= 1;
  broken.push(["CRC32", badCrc]);
  const badSize = member.slice();
  badSize[badSize.length - 1] ^= 1;
  broken.push(["ISIZE", badSize]);
  const badMagic = member.slice();
  badMagic[1] = 0x8c;
  broken.push(["ID2", badMagic]);
  const badMethod = member.slice();
  badMethod[2] = 7;
  broken.push(["CM", badMethod]);
  const reserved = member.slice();
  reserved[3] = 0x20;
  broken.push(["reserved FLG bit", reserved]);
  for (const [what, data] of broken) {
    assert.instance(await failure(new DecompressionStream("gzip"), [data]), TypeError, what);
    assert.instance(await failure(new DecompressionStream("gzip"), cut(data, [3])), TypeError, `${what}, in pieces`);
  }
});

codecTest("every prefix of a small stream is a TypeError, the whole stream is not", async (factory) => {
  for (const format of FORMATS) {
    const input = new TextEncoder().encode("hello hello hello world");
    const good = await compressWith(format, [input]);
    for (let n = 0; n < good.length; n++) {
      await failsAsItShould(factory, format, [good.subarray(0, n)], `${format}: the first ${n} bytes`);
    }
    sameBytes(await decompressWith(format, cut(good, [1])), input, `${format}: a byte at a time`);
  }
});

// ---- flush, backpressure, cancel, abort

codecTest("nothing is lost at the end: an empty stream, one byte, and output bigger than any buffer", async () => {
  for (const format of FORMATS) {
    for (const input of [new Uint8Array(0), new Uint8Array([42]), new Uint8Array(3_000_000).fill(7)]) {
      if (format === "brotli" && input.length > 1000) continue;
      const compressed = await compressWith(format, input.length === 0 ? [] : [input]);
      assert.ok(compressed.length > 0, `${format}: an empty input still makes a stream`);
      sameBytes(await decompressWith(format, [compressed]), input, `${format}: ${input.length} bytes`);
    }
  }
}, "every");

codecTest("a burst of writes, none awaited, keeps every byte in order", async () => {
  for (const format of FORMATS) {
    const input = textish(sized(format, 200_000));
    const cs = new CompressionStream(format);
    const writer = cs.writable.getWriter();
    const reading = collect(cs.readable as AsyncIterable<Uint8Array>);
    const writes = cut(input, [101, 7, 1500]).map((c) => writer.write(c));
    writes.push(writer.close());
    await Promise.all(writes);
    sameBytes(await decompressWith(format, await reading), input, format);
  }
}, "every");

/** `input` compressed (by node:zlib's one-shot functions where the runtime has them: brotli's are faster). */
function oneShotOrOurs(format: Format, input: Uint8Array): Bytes | Promise<Bytes> {
  return hasZlib(format) ? oneShot(format).compress(input) as Bytes : compressWith(format, [input]);
}

/** Writes `chunks` without reading; how many writes settle while nobody reads. */
async function writesWithoutReading(pair: Pair, chunks: Bytes[]): Promise<number> {
  const writer = pair.writable.getWriter();
  let settled = 0;
  for (const c of chunks) writer.write(c).then(() => settled++, () => {});
  for (let i = 0; i < 10; i++) await new Promise((r) => setTimeout(r, 1));
  const result = settled;
  writer.abort("done").catch(() => {});
  return result;
}

/** Runs `fn` with the codec streams' output queue set to `chunks` (output-queue.ts), then puts the previous back. */
async function withOutputQueue<T>(chunks: number, fn: () => T | Promise<T>): Promise<T> {
  const previous = setCodecOutputQueue(chunks);
  try {
    return await fn();
  } finally {
    setCodecOutputQueue(previous);
  }
}

// The standard's shape (readable high-water mark 0); the Node.js and Bun adapters' queue is tested below.
codecTest("backpressure: a consumer that does not read stops the producer", () =>
  withOutputQueue(0, async () => {
    for (const format of FORMATS) {
      // Incompressible input: output comes after a few chunks, then the readable side is full.
      const chunks = cut(noise(48 * 16_384, 3), [16_384]);
      const settled = await writesWithoutReading(new CompressionStream(format) as unknown as Pair, chunks);
      assert.ok(settled < 20, `${format} compression: ${settled} of ${chunks.length} writes settled with no reader`);
      // Decompression: the first chunk already makes output.
      const compressed = await oneShotOrOurs(format, noise(400_000, 4));
      const pieces = cut(compressed, [16_384]);
      const settledD = await writesWithoutReading(new DecompressionStream(format) as unknown as Pair, pieces);
      assert.ok(settledD < 8, `${format} decompression: ${settledD} of ${pieces.length} writes settled with no reader`);
    }
  }));

codecTest(
  "backpressure: desiredSize goes to 0 and below while the output is unread, and back up when read",
  () =>
    withOutputQueue(0, async () => {
      const cs = new CompressionStream("deflate-raw");
      const writer = cs.writable.getWriter();
      assert.is(writer.desiredSize, 1);
      const chunks = cut(noise(40 * 16_384, 8), [16_384]);
      for (const c of chunks) writer.write(c).catch(() => {});
      await new Promise((r) => setTimeout(r, 20));
      assert.ok(writer.desiredSize! <= 0, `desiredSize ${writer.desiredSize} with the output unread`);
      const reading = collect(cs.readable as AsyncIterable<Uint8Array>);
      await writer.ready;
      await writer.close();
      sameBytes(await decompressWith("deflate-raw", await reading), concat(chunks), "after the pause");
    }),
);

test("output queue: a write waits for a reader at 0 (the standard), settles first with a queue, and still stops", async () => {
  const previous = setCodecOutputQueue(0);
  try {
    const input = new TextEncoder().encode("hello").buffer;
    const spec = new CompressionStream("gzip");
    let settled = false;
    spec.writable.getWriter().write(input).then(() => settled = true);
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 1));
    assert.is(settled, false, "queue 0: the write settled with nobody reading");

    setCodecOutputQueue(4);
    const ahead = new CompressionStream("gzip");
    const writer = ahead.writable.getWriter();
    await writer.write(input); // as Node.js' and Bun's own: settles before any read
    writer.close();
    const out = await collect(ahead.readable as AsyncIterable<Uint8Array>);
    assert.is(new TextDecoder().decode(await decompressWith("gzip", out)), "hello");

    const chunks = cut(noise(48 * 16_384, 5), [16_384]);
    const count = await writesWithoutReading(new CompressionStream("deflate") as unknown as Pair, chunks);
    assert.ok(count < 24, `queue 4: ${count} of ${chunks.length} compression writes settled with no reader`);
    const pieces = cut(await compressWith("deflate", [noise(400_000, 6)]), [16_384]);
    const countD = await writesWithoutReading(new DecompressionStream("deflate") as unknown as Pair, pieces);
    assert.ok(countD < 12, `queue 4: ${countD} of ${pieces.length} decompression writes settled with no reader`);
    assert.throws(() => setCodecOutputQueue(-1), RangeError);
    assert.throws(() => setCodecOutputQueue(1.5), RangeError);
  } finally {
    setCodecOutputQueue(previous);
  }
});

/** Installs a spy around `factory` (the default codec when undefined) for `fn`. */
async function spied(factory: CompressionCodecFactory | undefined, fn: (spy: Spy) => Promise<void>): Promise<void> {
  const spy = new Spy();
  const previous = setCompressionCodecFactory(spy.wrap(factory ?? createNativeCodec));
  try {
    await fn(spy);
  } finally {
    setCompressionCodecFactory(previous);
  }
}

codecTest("cancel mid-stream: the writable side errors with the reason and the codec is released", async (factory) => {
  if (!hookReaches) return;
  for (const C of [CompressionStream, DecompressionStream]) {
    const input = C === CompressionStream ? noise(100_000, 2) : await compressWith("gzip", [noise(100_000, 2)]);
    await spied(factory, async (spy) => {
      const s = new C("gzip");
      const writer = s.writable.getWriter();
      writer.write(input.subarray(0, 40_000)).catch(() => {});
      const reader = s.readable.getReader();
      await reader.read();
      const reason = new Error("stop");
      await reader.cancel(reason);
      assert.is(await writer.write(input.subarray(40_000)).catch((e) => e), reason, `${C.name}: the write after`);
      assert.is(await writer.closed.catch((e) => e), reason);
      assert.is(spy.made, 1);
      assert.is(spy.released, 1, `${C.name}: released`);
    });
  }
});

codecTest("abort mid-stream: the readable side errors with the reason and the codec is released", async (factory) => {
  if (!hookReaches) return;
  for (const C of [CompressionStream, DecompressionStream]) {
    const input = C === CompressionStream ? textish(100_000) : await compressWith("deflate", [textish(100_000)]);
    await spied(factory, async (spy) => {
      const s = new C("deflate");
      const writer = s.writable.getWriter();
      const reader = s.readable.getReader();
      const read = reader.read(); // a pending read lets the write through (the readable side's high-water mark is 0)
      await writer.write(input.subarray(0, 1000));
      const reason = new Error("abort");
      await writer.abort(reason);
      await read.catch(() => {});
      assert.is(await reader.closed.catch((e) => e), reason, `${C.name}: readable errored with the reason`);
      assert.is(spy.released, 1, `${C.name}: released`);
    });
  }
});

codecTest("an error releases the codec, and so does the end", async (factory) => {
  if (!hookReaches) return;
  await spied(factory, async (spy) => {
    assert.instance(await failure(new DecompressionStream("gzip"), [noise(50, 1)]), TypeError);
    assert.is(spy.released, 1, "after a corrupt input");
    assert.instance(await failure(new CompressionStream("gzip"), ["not bytes"]), TypeError);
    await compressWith("gzip", [textish(1000)]);
    assert.is(spy.made, 3);
    assert.is(spy.released, 3);
  });
});

codecTest(
  "ZLIB-REUSE: a compressor made after others finished, were aborted or ran alongside writes the same bytes",
  async () => {
    const a = cut(textish(50_000), [1, 7, 333, 4096 + 5, 20_000]);
    const b = cut(noise(30_000, 5), [1000, 29_000]);
    for (const format of FORMATS.filter((f) => f === "gzip" || f === "deflate" || f === "deflate-raw")) {
      const first = await compressWith(format, a);
      const other = await compressWith(format, b);
      // one aborted mid-way (its compressor is not kept), then two at once
      const aborted = new CompressionStream(format);
      const w = aborted.writable.getWriter();
      void w.write(b[0]!).catch(() => {});
      await w.abort(new Error("stop"));
      const [again, otherAgain] = await Promise.all([compressWith(format, a), compressWith(format, b)]);
      sameBytes(again, first, `${format}: the same input, later`);
      sameBytes(otherAgain, other, `${format}: the other input, alongside`);
      sameBytes(await compressWith(format, a), first, `${format}: a third time`);
      sameBytes(await decompressWith(format, [first]), concat(a), `${format}: the content`);
    }
  },
  "every",
);

// ---- the adapters' settings against the runtime's own output

const runtime = typeof (globalThis as { Deno?: unknown }).Deno !== "undefined"
  ? "deno"
  : typeof (globalThis as { Bun?: unknown }).Bun !== "undefined"
  ? "bun"
  : "node";

async function adapterFactory(): Promise<CompressionCodecFactory | undefined> {
  await import(`../../adapters/${runtime}/mod.ts`);
  const installed = setCompressionCodecFactory(undefined);
  setCompressionCodecFactory(installed);
  return installed;
}

const sameAsNative: Record<string, Format[]> = {
  // Node.js' zlib makes the same bytes however its input is cut; Deno's adapter flushes each chunk as Deno does.
  node: ["gzip", "deflate", "deflate-raw", "brotli"],
  deno: ["gzip", "deflate", "deflate-raw", "brotli"],
  // Bun's zlib output depends on how its input is cut: its adapter makes a call per chunk, as Bun's own stream.
  bun: ["gzip", "deflate", "deflate-raw", "brotli"],
};

(hookReaches ? test : test.skip)(
  `${runtime} adapter's codec: the same bytes as the runtime's own CompressionStream`,
  async () => {
    const factory = await adapterFactory();
    assert.ok(factory !== undefined, "the adapter installs a codec");
    const strings: string[] = [];
    for (let i = 0; i < 500; i++) strings.push(`<li class="row r${i % 7}"><a href="/item/${i}">Item ${i}</a></li>\n`);
    const enc = new TextEncoder();
    for (const format of FORMATS) {
      if (format === "brotli" && runtime !== "deno") continue; // slow at its default quality; covered on Deno
      const chunks = strings.map((s) => enc.encode(s));
      const native = concat(await through(new NativeCS!(format), chunks));
      const ours = await withCodec(factory, () => compressWith(format, chunks));
      if (sameAsNative[runtime]!.includes(format)) sameBytes(ours, native, `${runtime}, ${format}`);
      else sameBytes(await decompressWith(format, [ours]), concat(chunks), `${runtime}, ${format}: same content`);
    }
  },
);

test.run();
