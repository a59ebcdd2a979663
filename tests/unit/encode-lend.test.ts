// FP-ENCODE-LEND (core/codecs/encode-lend.ts): a TextEncoderStream piped into our CompressionStream lends each
// chunk's UTF-8 from a shared pool. Checked with it on (as the Deno adapter turns it on) on every runtime: the
// bytes that come out, a slow reader, two chains feeding each other from inside a transform, and the chunks
// anyone else sees, which must be new Uint8Arrays over ArrayBuffers of their own.
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  CompressionStream,
  DecompressionStream,
  ReadableStream,
  TextEncoderStream,
  TransformStream,
} from "../../mod.ts";
import { setCompressionCodecFactory, setEncodeLending } from "../../core/internal.ts";
import { concat } from "../shared/compression-suite.ts";

const dec = new TextDecoder();

/** Strings of every kind: ASCII, two- and three-byte UTF-8, a surrogate pair cut across chunks, a long one. */
function strings(count: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    if (i % 97 === 5) out.push("pair \ud83d", "\ude00 joined");
    else if (i % 101 === 7) out.push("x".repeat(30_000));
    else out.push(`<li data-i="${i}">é ü ${"€".repeat(i % 5)} item ${i}</li>`);
  }
  return out;
}

function source(parts: readonly string[]): ReadableStream<string> {
  let i = 0;
  return new ReadableStream<string>({
    pull(c) {
      if (i < parts.length) c.enqueue(parts[i++]!);
      else c.close();
    },
  });
}

async function collect(stream: ReadableStream<Uint8Array>, slow = false): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    if (slow && parts.length % 3 === 0) await new Promise((r) => setTimeout(r, 0));
  }
  return concat(parts);
}

async function gunzip(bytes: Uint8Array): Promise<string> {
  const ds = new DecompressionStream("gzip");
  const out = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(bytes);
      c.close();
    },
  }).pipeThrough(ds as unknown as TransformStream<Uint8Array, Uint8Array>);
  return dec.decode(await collect(out));
}

const withLending = (name: string, fn: () => Promise<void>) =>
  test(name, async () => {
    setEncodeLending(true);
    try {
      await fn();
    } finally {
      setEncodeLending(false);
    }
  });

withLending(
  "strings -> TextEncoderStream -> CompressionStream: the text comes back whole, read fast and slowly",
  async () => {
    const parts = strings(3000);
    const text = parts.join("");
    for (const slow of [false, true]) {
      const gz = await collect(
        source(parts).pipeThrough(new TextEncoderStream()).pipeThrough(new CompressionStream("gzip")),
        slow,
      );
      assert.is(await gunzip(gz), text, slow ? "slow reader" : "fast reader");
    }
  },
);

withLending("two lending chains, one fed from inside the other's transform: both texts whole", async () => {
  const inner = new TextEncoderStream();
  const innerOut = collect(inner.readable.pipeThrough(new CompressionStream("gzip")));
  const writer = inner.writable.getWriter();
  const innerText: string[] = [];
  const parts = strings(1500);
  const relay = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, c) {
      // Inside the outer chain's output: the inner encoder lends while the outer one's chunk may be out.
      const s = `[${chunk.byteLength}]`;
      innerText.push(s);
      void writer.write(s);
      c.enqueue(chunk);
    },
  });
  const outer = await collect(
    source(parts).pipeThrough(new TextEncoderStream()).pipeThrough(new CompressionStream("gzip")).pipeThrough(relay),
  );
  await writer.close();
  assert.is(await gunzip(outer), parts.join(""), "the outer text");
  assert.is(await gunzip(await innerOut), innerText.join(""), "the inner text");
});

withLending("chunks seen by anyone but the codec are new Uint8Arrays over ArrayBuffers of their own", async () => {
  const parts = strings(300);
  const check = (seen: Uint8Array[], what: string) => {
    for (const c of seen) {
      assert.is(c.byteOffset, 0, `${what}: byteOffset`);
      assert.is(c.buffer.byteLength, c.byteLength, `${what}: the buffer holds the chunk alone`);
    }
    assert.is(dec.decode(concat(seen)), parts.join(""), `${what}: the text`);
  };
  // read by a reader
  const read: Uint8Array[] = [];
  const reader = source(parts).pipeThrough(new TextEncoderStream()).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    read.push(value);
  }
  check(read, "a reader");
  // piped into a transform of the user's, in front of the codec
  const seen: Uint8Array[] = [];
  const gz = await collect(
    source(parts)
      .pipeThrough(new TextEncoderStream())
      .pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, c) {
            seen.push(chunk);
            c.enqueue(chunk);
          },
        }),
      )
      .pipeThrough(new CompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>),
  );
  check(seen, "a user transform");
  assert.is(await gunzip(gz), parts.join(""));
  // a transformer that answers every property, symbols included (a Proxy): still a user's transform
  const proxied: Uint8Array[] = [];
  const answersAll = new Proxy({} as Record<PropertyKey, unknown>, {
    get(_target, key) {
      if (key === "transform") {
        return (chunk: Uint8Array, c: TransformStreamDefaultController<Uint8Array>) => {
          proxied.push(chunk);
          c.enqueue(chunk);
        };
      }
      return typeof key === "symbol" ? true : undefined;
    },
  });
  const gz2 = await collect(
    source(parts)
      .pipeThrough(new TextEncoderStream())
      .pipeThrough(new TransformStream<Uint8Array, Uint8Array>(answersAll as Transformer<Uint8Array, Uint8Array>))
      .pipeThrough(new CompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>),
  );
  check(proxied, "a Proxy transformer");
  assert.is(await gunzip(gz2), parts.join(""));
});

withLending(
  "a codec that makes writes wait: every chunk's bytes as encoded, most of them lent",
  async () => {
    // A codec that copies each chunk (as the codec contract says it must before push() returns) and outputs the
    // copies as they are, making every third push wait a task (the pipe then waits, and lends again after).
    const copies: Uint8Array[] = [];
    let pushes = 0;
    let lent = 0;
    const previous = setCompressionCodecFactory((_format, _mode, sink) => ({
      push(bytes) {
        // A lent chunk is a view of the shared 64 KiB pool.
        if (bytes.buffer.byteLength === 64 * 1024 && bytes.byteLength < 64 * 1024) lent++;
        const copy = bytes.slice();
        copies.push(copy);
        sink.enqueue(copy);
        return ++pushes % 3 === 0 ? new Promise<void>((resolve) => setTimeout(resolve, 0)) : undefined;
      },
      finish: () => undefined,
      release() {},
    }));
    try {
      const parts = strings(600);
      const out = await collect(
        source(parts).pipeThrough(new TextEncoderStream()).pipeThrough(new CompressionStream("gzip")),
      );
      assert.is(dec.decode(out), parts.join(""), "every chunk's bytes as they were encoded");
      assert.ok(pushes > 600, `${pushes} pushes`);
      assert.ok(lent > pushes / 2, `most chunks were lent (${lent} of ${pushes})`);
    } finally {
      setCompressionCodecFactory(previous);
    }
  },
);

test.run();
