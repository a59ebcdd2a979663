/**
 * TextLineStream, concatReadableStreams(), mergeReadableStreams().
 *
 *   node tests/unit/stream-helpers.test.ts   deno run -A tests/unit/stream-helpers.test.ts   bun tests/unit/stream-helpers.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { concatReadableStreams, mergeReadableStreams, ReadableStream, TextLineStream } from "../../mod.ts";
import { rejection, tracked } from "./stream-test-helpers.ts";

const NativeReadableStream = globalThis.ReadableStream;

async function collect<T>(stream: ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const chunk of stream) out.push(chunk);
  return out;
}

function lines(chunks: string[], allowCR = false): Promise<string[]> {
  return collect(ReadableStream.from(chunks).pipeThrough(new TextLineStream({ allowCR })));
}

// ---- TextLineStream ---------------------------------------------------------------------------------------------

test("TextLineStream: \\n and \\r\\n end lines, also across chunks; empty lines kept; no empty trailing line", async () => {
  assert.equal(await lines(["a\nb", "c\r", "\nd\n\n", "e"]), ["a", "bc", "d", "", "e"]);
  assert.equal(await lines(["x\r\n\r\ny\n"]), ["x", "", "y"]);
  assert.equal(await lines(["one\n"]), ["one"]);
  assert.equal(await lines(["\n"]), [""]);
  assert.equal(await lines([""]), []);
  assert.equal(await lines([]), []);
});

test("TextLineStream: a lone \\r stays in the line unless allowCR", async () => {
  assert.equal(await lines(["a\rb\n", "c\r"]), ["a\rb", "c\r"]);
  assert.equal(await lines(["a\rb\n", "c\r"], true), ["a", "b", "c"]);
  // allowCR: a \r at a chunk's end may be the start of \r\n
  assert.equal(await lines(["a\r", "\nb\r", "c\r", "\r"], true), ["a", "b", "c", ""]);
  assert.equal(await lines(["p\rq\r\nr"], true), ["p", "q", "r"]);
});

test("TextLineStream: 80-character lines cut at every position come out whole", async () => {
  const line = "x".repeat(79);
  const textAll = `${line}\n`.repeat(20);
  for (const size of [1, 7, 80, 81, 1024]) {
    const chunks: string[] = [];
    for (let i = 0; i < textAll.length; i += size) chunks.push(textAll.slice(i, i + size));
    const got = await lines(chunks);
    assert.is(got.length, 20);
    assert.ok(got.every((l) => l === line));
  }
});

test("TextLineStream: a chunk that is not a string errors the stream with a TypeError", async () => {
  const ts = new TextLineStream();
  const read = ts.readable.getReader().read(); // the transform runs once the readable side is read
  const e = await rejection(ts.writable.getWriter().write(42 as never));
  assert.instance(e, TypeError);
  assert.match((e as Error).message, /a number/);
  assert.is(await rejection(read), e);
});

// ---- concatReadableStreams ----------------------------------------------------------------------------------------

test("concat: the chunks of each stream in turn, ours and native; no inputs is an empty stream", async () => {
  const native = new NativeReadableStream<number>({
    start(c) {
      c.enqueue(3);
      c.close();
    },
  });
  const out = concatReadableStreams<number>(ReadableStream.from([1, 2]), native, ReadableStream.from([4]));
  assert.equal(await collect(out), [1, 2, 3, 4]);
  assert.equal(await collect(concatReadableStreams()), []);
});

test("concat: inputs are locked at once; a locked input is a TypeError and locks nothing", () => {
  const a = tracked([1]);
  const b = tracked([2]);
  const reader = b.stream.getReader();
  assert.throws(() => concatReadableStreams(a.stream, b.stream), TypeError);
  assert.is(a.stream.locked, false);
  reader.releaseLock();
  concatReadableStreams(a.stream, b.stream);
  assert.is(a.stream.locked, true);
  assert.is(b.stream.locked, true);
});

test("concat: the next input is not read before the current one ends", async () => {
  let pulled = false;
  const second = new ReadableStream<number>({
    pull(c) {
      pulled = true;
      c.enqueue(9);
      c.close();
    },
  }, { highWaterMark: 0 });
  const first = tracked<number>([1], false);
  const reader = concatReadableStreams(first.stream, second).getReader();
  assert.equal(await reader.read(), { done: false, value: 1 });
  const next = reader.read();
  await new Promise((r) => setTimeout(r, 0));
  assert.is(pulled, false);
  first.controller().close();
  assert.equal(await next, { done: false, value: 9 });
});

test("concat: cancel cancels the current input and the ones not read yet, with the same reason", async () => {
  const a = tracked([1]);
  const b = tracked([2], false);
  const c = tracked([3]);
  const reader = concatReadableStreams(a.stream, b.stream, c.stream).getReader();
  assert.equal(await reader.read(), { done: false, value: 1 });
  assert.equal(await reader.read(), { done: false, value: 2 });
  await reader.cancel("enough");
  assert.equal(a.cancels, []);
  assert.equal(b.cancels, ["enough"]);
  assert.equal(c.cancels, ["enough"]);
});

test("concat: an input's error errors the output (same object) and cancels the rest with it", async () => {
  const boom = new Error("boom");
  const a = tracked([1], false);
  const b = tracked([2]);
  const out = concatReadableStreams(a.stream, b.stream);
  const reader = out.getReader();
  assert.equal(await reader.read(), { done: false, value: 1 });
  a.error(boom);
  assert.is(await rejection(reader.read()), boom);
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(b.cancels, [boom]);
});

// ---- mergeReadableStreams -----------------------------------------------------------------------------------------

test("merge: every chunk of every input, each input's in its own order; closes when all have", async () => {
  const native = new NativeReadableStream<string>({
    start(c) {
      c.enqueue("n1");
      c.enqueue("n2");
      c.close();
    },
  });
  const got = await collect(
    mergeReadableStreams<string>(ReadableStream.from(["a1", "a2", "a3"]), native, ReadableStream.from(["b1"])),
  );
  assert.equal(got.filter((x) => x[0] === "a"), ["a1", "a2", "a3"]);
  assert.equal(got.filter((x) => x[0] === "n"), ["n1", "n2"]);
  assert.equal(got.filter((x) => x[0] === "b"), ["b1"]);
  assert.equal(await collect(mergeReadableStreams()), []);
});

test("merge: chunks come as they arrive (interleaved)", async () => {
  const a = tracked<string>([], false);
  const b = tracked<string>([], false);
  const reader = mergeReadableStreams(a.stream, b.stream).getReader();
  const first = reader.read();
  b.controller().enqueue("b");
  assert.equal(await first, { done: false, value: "b" });
  const second = reader.read();
  a.controller().enqueue("a");
  assert.equal(await second, { done: false, value: "a" });
  a.controller().close();
  b.controller().close();
  assert.equal(await reader.read(), { done: true, value: undefined });
});

test("merge: backpressure: with nobody reading, an input is read by one batch at most (64 chunks)", async () => {
  let pulls = 0;
  const endless = new ReadableStream<number>({
    pull(c) {
      pulls++;
      c.enqueue(pulls);
    },
  }, { highWaterMark: 0 });
  const out = mergeReadableStreams(endless);
  await new Promise((r) => setTimeout(r, 10));
  assert.ok(pulls <= 66, `pulled ${pulls} times with nobody reading`);
  const before = pulls;
  await new Promise((r) => setTimeout(r, 10));
  assert.is(pulls, before, "and then it stops");
  await out.cancel();
});

test("merge: cancel cancels every input that has not ended; an error errors the output and cancels the others", async () => {
  const a = tracked([1], false);
  const b = tracked([2], false);
  const out = mergeReadableStreams(a.stream, b.stream);
  const reader = out.getReader();
  await reader.read();
  await reader.cancel("stop");
  assert.equal(a.cancels, ["stop"]);
  assert.equal(b.cancels, ["stop"]);

  const boom = new Error("boom");
  const c = tracked<number>([], false);
  const d = tracked<number>([], false);
  const r2 = mergeReadableStreams(c.stream, d.stream).getReader();
  const pending = r2.read();
  c.error(boom);
  assert.is(await rejection(pending), boom);
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(d.cancels, [boom]);
  assert.equal(c.cancels, []);
});

test.run();
