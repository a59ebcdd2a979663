/**
 * The consumers: bytes(), text(), arrayBuffer(), blob(), json(), on fusestreams and native streams, with the
 * errors `Response` gives.
 *
 *   node tests/unit/consumers.test.ts   deno run -A tests/unit/consumers.test.ts   bun tests/unit/consumers.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  arrayBuffer,
  blob,
  bytes,
  json,
  ReadableStream,
  type ReadableStreamDefaultController,
  text,
} from "../../mod.ts";
import { rejection } from "./stream-test-helpers.ts";

const NativeReadableStream = globalThis.ReadableStream;
const enc = new TextEncoder();

type Kind = "ours" | "ours-bytes" | "native";
const KINDS: Kind[] = ["ours", "ours-bytes", "native"];

/** A stream of `chunks` of the given kind; `close` false leaves it open, `pull` true delivers one per pull(). */
function streamOf(kind: Kind, chunks: Uint8Array[], options: { close?: boolean; pull?: boolean } = {}) {
  const close = options.close ?? true;
  const cancels: unknown[] = [];
  let i = 0;
  // byte streams transfer the buffer: enqueue a copy (bad chunks as they are)
  const fresh = (c: Uint8Array) => (c instanceof Uint8Array ? c.slice() : c);
  const source = {
    type: kind === "ours-bytes" ? "bytes" as const : undefined,
    start(c: { enqueue(x: Uint8Array): void; close(): void }) {
      if (options.pull) return;
      for (const chunk of chunks) c.enqueue(fresh(chunk));
      if (close) c.close();
    },
    pull(c: { enqueue(x: Uint8Array): void; close(): void }) {
      if (!options.pull) return;
      if (i < chunks.length) c.enqueue(fresh(chunks[i++]!));
      if (i === chunks.length && close) c.close();
    },
    cancel(reason: unknown) {
      cancels.push(reason);
    },
  };
  const stream = kind === "native"
    ? new NativeReadableStream<Uint8Array>(source as never)
    : new ReadableStream<Uint8Array>(source as never);
  return { stream: stream as ReadableStream<Uint8Array>, cancels };
}

for (const kind of KINDS) {
  for (const pull of [false, true]) {
    const how = `${kind}, ${pull ? "one chunk per pull()" : "all queued"}`;

    test(`bytes/arrayBuffer/blob: every byte in order (${how})`, async () => {
      const chunks = [enc.encode("hello "), enc.encode("streams"), new Uint8Array([0, 255])];
      const expected = [...chunks.flatMap((c) => [...c])];
      const got = await bytes(streamOf(kind, chunks, { pull }).stream);
      assert.instance(got, Uint8Array);
      assert.equal([...got], expected);
      assert.equal([...new Uint8Array(await arrayBuffer(streamOf(kind, chunks, { pull }).stream))], expected);
      const b = await blob(streamOf(kind, chunks, { pull }).stream, { type: "Text/Plain" });
      assert.is(b.type, "text/plain");
      assert.equal([...new Uint8Array(await b.arrayBuffer())], expected);
    });

    test(`text: UTF-8 split inside characters decodes whole; BOM dropped; invalid bytes become U+FFFD (${how})`, async () => {
      const all = enc.encode("\uFEFFa€😀z");
      // cut after every byte: every multi-byte sequence is split
      const oneByte = [...all].map((b) => new Uint8Array([b]));
      assert.is(await text(streamOf(kind, oneByte, { pull }).stream), "a€😀z");
      const invalid = [new Uint8Array([0x61, 0xe2, 0x82]), new Uint8Array([0x62, 0xff])];
      assert.is(await text(streamOf(kind, invalid, { pull }).stream), "a\uFFFDb\uFFFD");
      // the reference: what TextDecoder makes of the same bytes
      assert.is(
        await text(streamOf(kind, invalid, { pull }).stream),
        new TextDecoder().decode(new Uint8Array([0x61, 0xe2, 0x82, 0x62, 0xff])),
      );
    });

    test(`json: parses across chunks; invalid JSON is a SyntaxError (${how})`, async () => {
      const parts = ['{"a": [1, ', '2], "€": true}'].map((s) => enc.encode(s));
      assert.equal(await json(streamOf(kind, parts, { pull }).stream), { a: [1, 2], "€": true });
      assert.instance(await rejection(json(streamOf(kind, [enc.encode("{nope")], { pull }).stream)), SyntaxError);
    });

    test(`empty streams: no bytes, "" (${how})`, async () => {
      assert.is((await bytes(streamOf(kind, [], { pull }).stream)).byteLength, 0);
      assert.is(await text(streamOf(kind, [], { pull }).stream), "");
      assert.is((await arrayBuffer(streamOf(kind, [], { pull }).stream)).byteLength, 0);
      assert.is((await blob(streamOf(kind, [], { pull }).stream)).size, 0);
      assert.instance(await rejection(json(streamOf(kind, [], { pull }).stream)), SyntaxError);
    });
  }

  test(`errors: an errored stream rejects with its stored error (same object), before and during reading (${kind})`, async () => {
    const boom = new Error("boom");
    const make = (when: "start" | "later") => {
      let controller!: ReadableStreamDefaultController<Uint8Array>;
      const source = {
        type: kind === "ours-bytes" ? "bytes" as const : undefined,
        start(c: ReadableStreamDefaultController<Uint8Array>) {
          controller = c;
          c.enqueue(new Uint8Array([1]));
          if (when === "start") c.error(boom);
        },
      };
      const stream = kind === "native"
        ? new NativeReadableStream(source as never)
        : new ReadableStream(source as never);
      return { stream: stream as ReadableStream<Uint8Array>, error: () => controller.error(boom) };
    };
    for (const consume of [bytes, text, arrayBuffer, json, (s: ReadableStream<Uint8Array>) => blob(s)]) {
      assert.is(await rejection(consume(make("start").stream)), boom);
      const later = make("later");
      const p = consume(later.stream);
      await new Promise((r) => setTimeout(r, 0));
      later.error();
      assert.is(await rejection(p), boom);
      assert.is(later.stream.locked, false, "released");
    }
  });

  test(`errors: a locked stream is a TypeError (${kind})`, async () => {
    const { stream } = streamOf(kind, [enc.encode("x")]);
    const reader = stream.getReader();
    for (const consume of [bytes, text, arrayBuffer, json, (s: ReadableStream<Uint8Array>) => blob(s)]) {
      assert.instance(await rejection(consume(stream)), TypeError);
    }
    reader.releaseLock();
    assert.is(await text(stream), "x", "the stream was left alone");
  });

  if (kind !== "ours-bytes") {
    test(`errors: a chunk that is not a Uint8Array is a TypeError naming it, and cancels the stream with it (${kind})`, async () => {
      for (
        const [bad, what] of [["text", /a string/], [new Uint16Array(2), /Uint16Array/], [
          new ArrayBuffer(2),
          /ArrayBuffer/,
        ], [null, /null/]] as const
      ) {
        const { stream, cancels } = streamOf(
          kind,
          [enc.encode("ok"), bad as unknown as Uint8Array, enc.encode("more")],
          { close: false },
        );
        const e = await rejection(bytes(stream));
        assert.instance(e, TypeError);
        assert.match((e as Error).message, what);
        await new Promise((r) => setTimeout(r, 0));
        assert.equal(cancels, [e], "cancelled with the same TypeError");
      }
    });
  }
}

test("not a stream: TypeError", async () => {
  for (const x of [undefined, null, "abc", {}, new Uint8Array(1)]) {
    assert.instance(await rejection(bytes(x as never)), TypeError);
  }
});

test("Buffers (Uint8Array subclasses) are bytes", async () => {
  class Sub extends Uint8Array {}
  const stream = ReadableStream.from([new Sub([104, 105])]);
  assert.is(await text(stream), "hi");
});

test("a partly read stream gives the rest", async () => {
  const stream = ReadableStream.from([enc.encode("a"), enc.encode("b"), enc.encode("c")]);
  const reader = stream.getReader();
  await reader.read();
  reader.releaseLock();
  assert.is(await text(stream), "bc");
});

test("blob: options are checked; the type is normalized as the Blob constructor does", async () => {
  assert.instance(await rejection(blob(ReadableStream.from([]), 5 as never)), TypeError);
  assert.is((await blob(ReadableStream.from([enc.encode("x")]))).type, "");
});

test("bytes: the result is a new buffer (no chunk's buffer is handed out)", async () => {
  const chunk = enc.encode("abc");
  const got = await bytes(ReadableStream.from([chunk]));
  assert.is.not(got.buffer, chunk.buffer);
  chunk[0] = 0;
  assert.is(got[0], 97);
});

test.run();
