/**
 * CompressionStream and DecompressionStream of ours with the codec this runtime's entry point installs, as
 * a user gets them: registered by tests/edge/worker.ts in workerd and edge-runtime (web-standard globals
 * only; the runtime's own streams are the codec there). Node.js, Deno and Bun run the fuller
 * tests/unit/compression.test.ts.
 * @module
 */
import * as assert from "uvu/assert";
import { CompressionStream, DecompressionStream, ReadableStream, TransformStream } from "../../mod.ts";
import type { Registrar } from "./contract-suite.ts";

type Bytes = Uint8Array<ArrayBuffer>;
interface Pair {
  readable: globalThis.ReadableStream<Uint8Array>;
  writable: globalThis.WritableStream<BufferSource>;
}
type PairClass = new (format: string) => Pair;

// Captured when the module loads, before any test patches the globals.
const NativeCS = globalThis.CompressionStream as unknown as PairClass | undefined;
const NativeDS = globalThis.DecompressionStream as unknown as PairClass | undefined;
const OursCS = CompressionStream as unknown as PairClass;
const OursDS = DecompressionStream as unknown as PairClass;

function accepted(format: string): boolean {
  try {
    new NativeCS!(format).writable.abort().catch(() => {});
    return true;
  } catch {
    return false;
  }
}

function text(n: number): Bytes {
  const words = ["<li>", "stream ", "édge ", "worker ", "gzip ", "</li>\n", "0123456789"];
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; length < n; i++) {
    const w = words[(i * 7 + (i >> 3)) % words.length]!;
    parts.push(w);
    length += w.length;
  }
  return new TextEncoder().encode(parts.join("")).slice(0, n);
}

/** `data` cut at `sizes` (cycled). */
export function cut(data: Uint8Array, sizes: number[]): Bytes[] {
  const out: Bytes[] = [];
  for (let i = 0, k = 0; i < data.length; k++) {
    const n = sizes[k % sizes.length]!;
    out.push(data.slice(i, i + n));
    i += n;
  }
  return out;
}

/** The chunks' bytes, one after the other, in a new buffer. */
export function concat(chunks: Uint8Array[]): Bytes {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.byteLength;
  }
  return out;
}

/** Asserts that `actual` holds exactly the bytes of `expected`. */
export function same(actual: Uint8Array, expected: Uint8Array, what: string): void {
  assert.is(actual.byteLength, expected.byteLength, `${what}: length`);
  for (let i = 0; i < expected.length; i++) {
    if (actual[i] !== expected[i]) assert.unreachable(`${what}: byte ${i} is ${actual[i]}, expected ${expected[i]}`);
  }
}

/** Writes `chunks` into `pair` while reading it to the end (bounded in time). */
async function through(pair: Pair, chunks: unknown[]): Promise<Bytes> {
  const writer = pair.writable.getWriter();
  const reader = pair.readable.getReader();
  const out: Uint8Array[] = [];
  const reading = (async () => {
    for (;;) {
      const r = await reader.read();
      if (r.done) return;
      out.push(r.value);
    }
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("stuck: no end within 10 s")), 10_000);
  });
  try {
    await Promise.race([
      (async () => {
        try {
          for (const c of chunks) await writer.write(c as BufferSource);
          await writer.close();
        } finally {
          await reading.catch(() => {});
        }
        await reading;
      })(),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
  return concat(out);
}

async function outcome(pair: Pair, chunks: unknown[]): Promise<{ bytes?: Bytes; error?: unknown }> {
  try {
    return { bytes: await through(pair, chunks) };
  } catch (error) {
    return { error };
  }
}

/** Registers the cases. */
export function compressionSuite(register: Registrar, runtime: string): void {
  if (NativeCS === undefined || NativeDS === undefined) {
    const why = `${runtime} has no CompressionStream of its own: ours have no codec there`;
    register.skip("compression: round trips, interop, bad input, backpressure, cancel", why);
    register.test("compression: without the runtime's own, constructing ours is a TypeError", () => {
      assert.throws(() => new OursCS("gzip"), (e: unknown) => e instanceof TypeError);
      assert.throws(() => new OursDS("gzip"), (e: unknown) => e instanceof TypeError);
    });
    return;
  }
  const formats = ["gzip", "deflate", "deflate-raw", "brotli", "zstd"].filter(accepted);

  register.test("compression: round trip of every format the runtime has, odd chunk boundaries", async () => {
    for (const format of formats) {
      const input = text(format === "brotli" ? 40_000 : 300_000);
      const gz = await through(new OursCS(format), cut(input, [1, 333, 4101, 7, 65_539]));
      same(await through(new OursDS(format), cut(gz, [5, 1000, 1])), input, format);
    }
  });

  register.test("compression: the runtime's own classes and ours read each other's output", async () => {
    for (const format of formats) {
      const input = text(50_000);
      same(await through(new NativeDS(format), [await through(new OursCS(format), cut(input, [999]))]), input, format);
      same(await through(new OursDS(format), cut(await through(new NativeCS(format), [input]), [77])), input, format);
    }
  });

  register.test("compression: a chain of ours through them, and a native stream read into it", async () => {
    const input = text(20_000);
    const pass = () => new TransformStream<Bytes, Bytes>({ transform: (c, ctl) => ctl.enqueue(c) });
    const s = ReadableStream.from(cut(input, [100]))
      .pipeThrough(pass())
      .pipeThrough(new CompressionStream("gzip") as never)
      .pipeThrough(new DecompressionStream("gzip") as never)
      .pipeThrough(pass());
    const out: Uint8Array[] = [];
    for await (const c of s as AsyncIterable<Uint8Array>) out.push(c);
    same(concat(out), input, "our chain");
    const native = new Blob([input]).stream();
    const back = ReadableStream.from(native as AsyncIterable<Uint8Array>)
      .pipeThrough(new CompressionStream("deflate") as never)
      .pipeThrough(new DecompressionStream("deflate") as never);
    const out2: Uint8Array[] = [];
    for await (const c of back as AsyncIterable<Uint8Array>) out2.push(c);
    same(concat(out2), input, "a native stream read into ours");
  });

  register.test("compression: corrupt, truncated, trailing input: a TypeError where the runtime's own fails", async () => {
    for (const format of formats) {
      const input = text(10_000);
      const good = await through(new NativeCS(format), [input]);
      const flipped = good.slice();
      flipped[flipped.length - 3]! ^= 0x5a;
      const cases: [string, Bytes[]][] = [
        ["empty", []],
        ["truncated", [good.slice(0, good.length - 1)]],
        ["half", [good.slice(0, good.length >> 1)]],
        ["a byte after the end", [concat([good, new Uint8Array([0])])]],
        ["a chunk after the end", [good, new Uint8Array([1, 2])]],
        ["the checksum changed", [flipped]],
        ["garbage", [text(64)]],
      ];
      for (const [what, chunks] of cases) {
        const native = await outcome(new NativeDS(format), chunks);
        const ours = await outcome(new OursDS(format), chunks);
        if (native.error !== undefined) {
          assert.instance(ours.error, TypeError, `${format}, ${what}: fails natively, so ours is a TypeError`);
        } else {
          assert.ok(ours.bytes !== undefined, `${format}, ${what}: the runtime's own takes it, so ours does`);
          same(ours.bytes!, native.bytes!, `${format}, ${what}: as the runtime's own`);
        }
      }
    }
  });

  register.test("compression: a chunk that is not a BufferSource is a TypeError", async () => {
    for (const C of [OursCS, OursDS]) {
      for (const chunk of ["abc", 42, null, {}, [1]]) {
        const { error } = await outcome(new C("gzip"), [chunk]);
        assert.instance(error, TypeError, String(chunk));
      }
    }
  });

  register.test("compression: a consumer that does not read stops the producer", async () => {
    const cs = new OursCS("deflate-raw");
    const writer = cs.writable.getWriter();
    let settled = 0;
    let x = 1;
    for (let i = 0; i < 48; i++) {
      const chunk = new Uint8Array(16_384);
      for (let j = 0; j < chunk.length; j++) {
        x = (x * 1103515245 + 12345) >>> 0;
        chunk[j] = x >>> 24;
      }
      writer.write(chunk).then(() => settled++, () => {});
    }
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 2));
    assert.ok(settled < 24, `${settled} of 48 writes of incompressible data settled with nobody reading`);
    assert.ok(writer.desiredSize! <= 0, `desiredSize ${writer.desiredSize}`);
    // (an abort would wait for the write held by backpressure: cancelling the readable side ends it)
    await cs.readable.cancel("done");
  });

  register.test("compression: cancel and abort mid-stream end both sides with the reason", async () => {
    const cs = new OursCS("gzip");
    const writer = cs.writable.getWriter();
    const reader = cs.readable.getReader();
    const read = reader.read();
    await writer.write(text(5000));
    const reason = new Error("cancelled");
    await reader.cancel(reason);
    await read;
    assert.is(await writer.closed.catch((e: unknown) => e), reason);

    const ds = new OursDS("gzip");
    const w2 = ds.writable.getWriter();
    const r2 = ds.readable.getReader();
    const pending = r2.read();
    await w2.write((await through(new NativeCS("gzip"), [text(5000)])).slice(0, 100));
    const why = new Error("aborted");
    await w2.abort(why);
    assert.is(await pending.catch((e: unknown) => e), why);
  });
}
