// Interop between fusestreams and the runtime's own (native) stream classes.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ReadableStream, WritableStream } from "../../mod.ts";

const NativeWritableStream = globalThis.WritableStream;
const NativeCompressionStream = globalThis.CompressionStream;
const NativeDecompressionStream = globalThis.DecompressionStream;

function bytes(n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i * 31) & 0xff;
  return out;
}

test("ours.pipeThrough(native CompressionStream) and back through DecompressionStream round-trips the bytes", async () => {
  const input = bytes(50_000);
  const source = new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < input.length; i += 4096) c.enqueue(input.slice(i, i + 4096));
      c.close();
    },
  });
  // The native pair is accepted by our pipeThrough at run time; TypeScript only knows our own classes.
  const compressed = source.pipeThrough(
    new NativeCompressionStream("gzip") as never,
  ) as unknown as globalThis.ReadableStream<Uint8Array>;
  const decompressed = compressed.pipeThrough(
    new NativeDecompressionStream("gzip") as never,
  ) as globalThis.ReadableStream<Uint8Array>;
  const parts: Uint8Array[] = [];
  await ReadableStream.from(decompressed).pipeTo(
    new WritableStream<Uint8Array>({
      write(c) {
        parts.push(c);
      },
    }),
  );
  const total = parts.reduce((n, p) => n + p.byteLength, 0);
  assert.is(total, input.length);
  const joined = new Uint8Array(total);
  let off = 0;
  for (const p of parts) {
    joined.set(p, off);
    off += p.byteLength;
  }
  assert.equal(Array.from(joined.subarray(0, 64)), Array.from(input.subarray(0, 64)));
  assert.ok(joined.every((b, i) => b === input[i]), "every byte matches");
});

test("ours.pipeTo(native WritableStream) delivers every chunk in order and closes it", async () => {
  const got: number[] = [];
  let closed = false;
  const dest = new NativeWritableStream<number>({
    write(c) {
      got.push(c);
    },
    close() {
      closed = true;
    },
  });
  await new ReadableStream<number>({
    start(c) {
      for (let i = 0; i < 100; i++) c.enqueue(i);
      c.close();
    },
  }).pipeTo(dest as unknown as WritableStream<number>);
  assert.equal(got, Array.from({ length: 100 }, (_, i) => i));
  assert.ok(closed);
  assert.is(dest.locked, false);
});

test("a native sink's error cancels our source with the same error and rejects pipeTo with it", async () => {
  const boom = new Error("sink failed");
  let cancelReason: unknown;
  const dest = new NativeWritableStream<number>({
    write(c) {
      if (c === 3) throw boom;
    },
  });
  let counter = 0;
  const source = new ReadableStream<number>({
    pull(c) {
      c.enqueue(counter++);
    },
    cancel(r) {
      cancelReason = r;
    },
  });
  let rejection: unknown;
  await source.pipeTo(dest as unknown as WritableStream<number>).catch((e) => {
    rejection = e;
  });
  assert.is(rejection, boom);
  assert.is(cancelReason, boom);
});

test("our source's error aborts the native destination with the same error", async () => {
  const boom = new Error("source failed");
  let abortReason: unknown;
  const dest = new NativeWritableStream<number>({
    abort(r) {
      abortReason = r;
    },
  });
  let rejection: unknown;
  await new ReadableStream<number>({
    start(c) {
      c.enqueue(1);
      c.error(boom);
    },
  })
    .pipeTo(dest as unknown as WritableStream<number>)
    .catch((e) => {
      rejection = e;
    });
  assert.is(rejection, boom);
  assert.is(abortReason, boom);
});

test("pipeTo rejects a locked native destination with TypeError and leaves the source unlocked", async () => {
  const dest = new NativeWritableStream();
  dest.getWriter();
  const source = new ReadableStream();
  let rejection: unknown;
  await source.pipeTo(dest as unknown as WritableStream).catch((e) => {
    rejection = e;
  });
  assert.instance(rejection, TypeError);
  assert.is(source.locked, false);
});

test("ours.pipeTo(native): an abort takes signal's reason from its slot, not a patched AbortSignal.prototype.reason", async () => {
  const proto = AbortSignal.prototype;
  const saved = Object.getOwnPropertyDescriptor(proto, "reason")!;
  let getterCalls = 0;
  const rs = new ReadableStream();
  const ws = new NativeWritableStream();
  const ac = new AbortController();
  const reason = new Error("stop");
  const pipe = rs.pipeTo(ws as never, { signal: ac.signal }).then(() => "fulfilled", (e: unknown) => e);
  await new Promise((resolve) => setTimeout(resolve, 0));
  let outcome: unknown;
  try {
    Object.defineProperty(proto, "reason", {
      ...saved,
      get(this: AbortSignal) {
        getterCalls++;
        return saved.get!.call(this);
      },
    });
    ac.abort(reason);
    outcome = await pipe;
  } finally {
    Object.defineProperty(proto, "reason", saved);
  }
  assert.is(getterCalls, 0);
  assert.is(outcome, reason);
});

test("ours.pipeTo(native): a dispatched 'abort' event on a signal that is not aborted does not stop the pipe", async () => {
  let cancelled = 0;
  const rs = new ReadableStream({
    cancel() {
      cancelled++;
    },
  });
  const ws = new NativeWritableStream();
  const ac = new AbortController();
  let settled: unknown = "pending";
  const pipe = rs.pipeTo(ws as never, { signal: ac.signal }).then(() => "fulfilled", (e: unknown) => e);
  void pipe.then((v) => {
    settled = v;
  });
  await new Promise((resolve) => setTimeout(resolve, 0));
  ac.signal.dispatchEvent(new Event("abort"));
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.is(settled, "pending");
  assert.is(cancelled, 0);
  const reason = new Error("now for real");
  ac.abort(reason);
  assert.is(await pipe, reason);
  assert.is(cancelled, 1);
});

test.run();
