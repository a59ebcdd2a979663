/**
 * Smoke tests: the public API exists and the three stream classes work end to end.
 * Runs against whatever mod.ts exports (the native classes during bootstrap, fusestreams' own later).
 *
 *   node tests/unit/smoke.test.ts        deno run -A tests/unit/smoke.test.ts        bun tests/unit/smoke.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as api from "../../mod.ts";
import {
  ByteLengthQueuingStrategy,
  CountQueuingStrategy,
  ReadableStream,
  TransformStream,
  WritableStream,
} from "../../mod.ts";

const EXPECTED_EXPORTS = [
  "ByteLengthQueuingStrategy",
  "CompressionStream",
  "CountQueuingStrategy",
  "DecompressionStream",
  "ReadableByteStreamController",
  "ReadableStream",
  "ReadableStreamBYOBReader",
  "ReadableStreamBYOBRequest",
  "ReadableStreamDefaultController",
  "ReadableStreamDefaultReader",
  "TransformStream",
  "TransformStreamDefaultController",
  "WritableStream",
  "WritableStreamDefaultController",
  "WritableStreamDefaultWriter",
];

test("mod.ts exports every Streams Standard class as a function", () => {
  const exported = api as unknown as Record<string, unknown>;
  for (const name of EXPECTED_EXPORTS) {
    assert.type(exported[name], "function", `${name} should be exported`);
  }
});

test("ReadableStream: a reader gets 3 enqueued chunks in order, then done", async () => {
  const stream = new ReadableStream<number>({
    start(controller) {
      controller.enqueue(1);
      controller.enqueue(2);
      controller.enqueue(3);
      controller.close();
    },
  });
  const reader = stream.getReader();
  assert.equal(await reader.read(), { value: 1, done: false });
  assert.equal(await reader.read(), { value: 2, done: false });
  assert.equal(await reader.read(), { value: 3, done: false });
  assert.equal(await reader.read(), { value: undefined, done: true });
  await reader.closed;
});

test("ReadableStream: pull-based source is read lazily", async () => {
  let pulls = 0;
  const stream = new ReadableStream<number>(
    {
      pull(controller) {
        pulls++;
        if (pulls <= 2) controller.enqueue(pulls * 10);
        else controller.close();
      },
    },
    new CountQueuingStrategy({ highWaterMark: 0 }),
  );
  await Promise.resolve();
  assert.is(pulls, 0, "no pull before the first read with highWaterMark 0");
  const reader = stream.getReader();
  assert.equal(await reader.read(), { value: 10, done: false });
  assert.equal(await reader.read(), { value: 20, done: false });
  assert.equal(await reader.read(), { value: undefined, done: true });
});

test("TransformStream: uppercases chunks piped through it", async () => {
  const source = new ReadableStream<string>({
    start(controller) {
      for (const word of ["fuse", "the", "streams"]) controller.enqueue(word);
      controller.close();
    },
  });
  const upper = new TransformStream<string, string>({
    transform(chunk, controller) {
      controller.enqueue(chunk.toUpperCase());
    },
  });
  const reader = source.pipeThrough(upper).getReader();
  const out: string[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    out.push(value);
  }
  assert.equal(out, ["FUSE", "THE", "STREAMS"]);
});

test("WritableStream: collects written chunks and closes", async () => {
  const written: string[] = [];
  let closed = false;
  const sink = new WritableStream<string>({
    write(chunk) {
      written.push(chunk);
    },
    close() {
      closed = true;
    },
  });
  const writer = sink.getWriter();
  await writer.write("a");
  await writer.write("b");
  await writer.write("c");
  await writer.close();
  assert.equal(written, ["a", "b", "c"]);
  assert.ok(closed, "sink.close() was called");
});

test("pipeTo: readable -> writable delivers every chunk and resolves", async () => {
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new Uint8Array([1, 2]));
      controller.enqueue(new Uint8Array([3]));
      controller.close();
    },
  });
  const sizes: number[] = [];
  const sink = new WritableStream<Uint8Array>(
    {
      write(chunk) {
        sizes.push(chunk.byteLength);
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: 16 }),
  );
  await source.pipeTo(sink);
  assert.equal(sizes, [2, 1]);
});

test("ReadableStream: cancel() reaches the source with the reason", async () => {
  let reason: unknown;
  const stream = new ReadableStream<number>({
    cancel(r) {
      reason = r;
    },
  });
  await stream.cancel("stop");
  assert.is(reason, "stop");
});

test.run();
