/**
 * Fused pipe chains (FP-FUSE, FP-TS-PULL, FP-PULL-TURN in core/README.md) and inspectPipeChain(): which
 * links fuse, every fallback boundary (a promise-returning transformer or sink, a size() strategy, a native
 * stream in the middle, a native source, high-water marks above 1), and the spec's outcomes through a fused
 * chain: chunks exactly once and in order, error identity from every stage, cancel from the consumer, abort
 * from the signal, prevent* options, bounded memory under a slow sink, an unconsumed chain.
 *
 *   node tests/unit/pipe-fusion.test.ts   deno run -A tests/unit/pipe-fusion.test.ts   bun tests/unit/pipe-fusion.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  ByteLengthQueuingStrategy,
  inspectPipeChain,
  type PipeChainReport,
  ReadableStream,
  TransformStream,
  WritableStream,
} from "../../mod.ts";

const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** Resolves like the promise, but fails if it is still pending after 2 s (a stalled chain). */
function within<T>(promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("promise still pending after 2 s")), 2000);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Resolves with the rejection reason; fails if the promise fulfils or stays pending (within()'s timeout). */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  let fulfilled = false;
  const reason = await within(
    promise.then(
      () => {
        fulfilled = true;
      },
      (e: unknown) => e,
    ),
  );
  if (fulfilled) assert.unreachable("expected a rejection, the promise fulfilled");
  return reason;
}

/** A pull source of 0, 1, ..., count - 1 that records pulls and cancels. */
function counter(count: number) {
  const log = { pulls: 0, cancelled: [] as unknown[] };
  let i = 0;
  const stream = new ReadableStream<number>({
    pull(c) {
      log.pulls++;
      c.enqueue(i++);
      if (i === count) c.close();
    },
    cancel(reason) {
      log.cancelled.push(reason);
    },
  });
  return { stream, log };
}

function identityChain(source: ReadableStream<number>, stages: number): ReadableStream<number> {
  let s = source;
  for (let k = 0; k < stages; k++) s = s.pipeThrough(new TransformStream<number, number>());
  return s;
}

function collector() {
  const chunks: number[] = [];
  const log = { aborted: [] as unknown[], closed: false };
  const stream = new WritableStream<number>({
    write(chunk) {
      chunks.push(chunk);
    },
    close() {
      log.closed = true;
    },
    abort(reason) {
      log.aborted.push(reason);
    },
  });
  return { stream, chunks, log };
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

function modes(report: PipeChainReport): string[] {
  return report.links.map((l) => l.mode);
}

for (const stages of [1, 3, 8]) {
  test(`${stages} identity transform(s) -> pipeTo: every link fused, every chunk once and in order`, async () => {
    const { stream } = counter(500);
    const sink = collector();
    await within(identityChain(stream, stages).pipeTo(sink.stream));
    assert.equal(sink.chunks, range(500));
    assert.ok(sink.log.closed);
    const report = inspectPipeChain(sink.stream);
    assert.is(report.mode, "fused");
    assert.is(report.head, "source");
    assert.is(report.links.length, stages + 1);
    for (const link of report.links) {
      assert.is(link.specWrites, 0);
      assert.is(link.reason, undefined);
      assert.ok(link.directWrites >= 490, `link wrote ${link.directWrites} chunks directly`);
      assert.is(link.active, false);
    }
    assert.equal(report.links.map((l) => l.destination), [...Array(stages).fill("transform"), "sink"]);
  });
}

/**
 * Runs source -> `stages` transforms -> sink and records, in order, the source's pulls, the jobs its pulls
 * queue, the sink's writes and their promises settling: the observable timeline of the chain.
 */
async function timeline(stages: number, transform: boolean, slowEvery: number): Promise<string[]> {
  const events: string[] = [];
  let i = 0;
  const source = new ReadableStream<number>({
    pull(c) {
      const n = i++;
      events.push(`pull ${n}`);
      queueMicrotask(() => events.push(`job ${n}`));
      c.enqueue(n);
      if (i === 40) c.close();
    },
  });
  let s = source;
  for (let k = 0; k < stages; k++) {
    s = s.pipeThrough(
      transform
        ? new TransformStream<number, number>({ transform: (chunk, c) => c.enqueue(chunk) })
        : new TransformStream<number, number>(),
    );
  }
  await within(s.pipeTo(
    new WritableStream<number>({
      write(chunk) {
        events.push(`write ${chunk}`);
        if (slowEvery !== 0 && chunk % slowEvery === 0) {
          return Promise.resolve().then(() => {
            events.push(`written ${chunk}`);
          });
        }
        return undefined;
      },
    }),
  ));
  return events;
}

for (const stages of [1, 3]) {
  for (const slowEvery of [0, 3]) {
    test(`${stages} transform(s) without transform() (FP-TS-IDENTITY) behave as ones with transform(c, ctl) { ctl.enqueue(c) }${slowEvery ? ", slow sink" : ""}`, async () => {
      const identity = await timeline(stages, false, slowEvery);
      const explicit = await timeline(stages, true, slowEvery);
      assert.equal(identity, explicit);
    });
  }
}

test("chain ending in a reader loop and in for-await: the pipeThrough links are fused", async () => {
  const a = identityChain(counter(300).stream, 3);
  const reader = a.getReader();
  const got: number[] = [];
  for (;;) {
    const { value, done } = await within(reader.read());
    if (done) break;
    got.push(value);
  }
  assert.equal(got, range(300));
  assert.equal(modes(inspectPipeChain(a)), ["fused", "fused", "fused"]);

  const b = identityChain(counter(300).stream, 3);
  const got2: number[] = [];
  for await (const chunk of b) got2.push(chunk);
  assert.equal(got2, range(300));
  assert.is(inspectPipeChain(b).mode, "fused");
});

test("transform() with a controller and synchronous filtering / splitting stays fused", async () => {
  const out: number[] = [];
  await within(
    counter(100).stream
      .pipeThrough(
        new TransformStream<number, number>({
          transform(c, ctl) {
            if (c % 2 === 0) ctl.enqueue(c);
          },
        }),
      )
      .pipeThrough(
        new TransformStream<number, number>({
          transform(c, ctl) {
            ctl.enqueue(c);
            ctl.enqueue(-c);
          },
        }),
      )
      .pipeTo(
        new WritableStream({
          write(c) {
            out.push(c);
          },
        }),
      ),
  );
  const expected = range(100).filter((c) => c % 2 === 0).flatMap((c) => [c, -c]);
  assert.equal(out, expected);
});

test("fallback: an async transform() drops only its own link to the spec path", async () => {
  const sink = collector();
  await within(
    counter(200).stream
      .pipeThrough(new TransformStream<number, number>())
      .pipeThrough(
        new TransformStream<number, number>({
          async transform(c, ctl) {
            await null;
            ctl.enqueue(c);
          },
        }),
      )
      .pipeThrough(new TransformStream<number, number>())
      .pipeTo(sink.stream),
  );
  assert.equal(sink.chunks, range(200));
  const report = inspectPipeChain(sink.stream);
  assert.is(report.mode, "partly-fused");
  assert.equal(modes(report), ["fused", "spec", "fused", "fused"]);
  assert.match(report.links[1]!.reason!, "returned a promise");
});

test("fallback: a sink whose write() returns a promise", async () => {
  const got: number[] = [];
  const sink = new WritableStream<number>({
    async write(c) {
      await null;
      got.push(c);
    },
  });
  await within(identityChain(counter(100).stream, 2).pipeTo(sink));
  assert.equal(got, range(100));
  assert.equal(modes(inspectPipeChain(sink)), ["fused", "fused", "spec"]);
});

test("a size() strategy on a transform's writable side: fused while idle, size() called once per chunk in order", async () => {
  const sizes: number[] = [];
  const ts = new TransformStream<number, number>({}, { highWaterMark: 3, size: (c) => (sizes.push(c), 1) });
  const sink = collector();
  await within(
    counter(50).stream.pipeThrough(new TransformStream()).pipeThrough(ts).pipeThrough(new TransformStream()).pipeTo(
      sink.stream,
    ),
  );
  assert.equal(sink.chunks, range(50));
  assert.equal(sizes, range(50), "size() sees every chunk once, in order");
  const link = inspectPipeChain(sink.stream).links[1]!;
  assert.ok(link.directWrites >= 45, `${link.directWrites} direct writes`);
});

test("a ByteLengthQueuingStrategy sink is written directly; a size() that throws errors the pipe with its error", async () => {
  const bytes = new Uint8Array(100);
  let i = 0;
  const source = new ReadableStream<Uint8Array>({
    pull(c) {
      c.enqueue(bytes.subarray(i, i + 10));
      i += 10;
      if (i === 100) c.close();
    },
  });
  let written = 0;
  const sink = new WritableStream<Uint8Array>({
    write(c) {
      written += c.byteLength;
    },
  }, new ByteLengthQueuingStrategy({ highWaterMark: 64 }));
  await within(source.pipeThrough(new TransformStream()).pipeTo(sink));
  assert.is(written, 100);
  assert.equal(modes(inspectPipeChain(sink)), ["fused", "fused"]);

  const boom = new Error("size failed");
  const { stream, log } = counter(1000);
  const seen: number[] = [];
  const failing = new WritableStream<number>({
    write(c) {
      seen.push(c);
    },
  }, {
    highWaterMark: 4,
    size(c) {
      if (c === 7) throw boom;
      return 1;
    },
  });
  assert.is(await rejection(identityChain(stream, 2).pipeTo(failing)), boom);
  assert.equal(seen, range(7));
  assert.equal(log.cancelled, [boom]);
});

test("fallback: a size() strategy on a transform with backpressure queues as the spec does", async () => {
  const sizes: number[] = [];
  const ts = new TransformStream<number, number>({}, { highWaterMark: 2, size: (c) => (sizes.push(c), 1) });
  const end = counter(30).stream.pipeThrough(ts);
  await tick();
  await tick();
  // Nobody reads: the transform's readable side has backpressure, so chunks wait in its writable queue.
  const report = inspectPipeChain(end);
  assert.is(report.links[0]!.mode === "fused", false, "queued writes are not fused");
  const got: number[] = [];
  for await (const c of end) got.push(c);
  assert.equal(got, range(30));
  assert.equal(sizes, range(30));
});

test("high-water marks above 1 on both sides of each transform: fused, in order", async () => {
  const sink = collector();
  let s: ReadableStream<number> = counter(400).stream;
  for (let k = 0; k < 3; k++) {
    s = s.pipeThrough(new TransformStream<number, number>({}, { highWaterMark: 4 }, { highWaterMark: 8 }));
  }
  await within(s.pipeTo(sink.stream, {}));
  assert.equal(sink.chunks, range(400));
  // A transform's writable side starts with backpressure, so a few chunks may queue while the chain starts;
  // after that every link hands chunks over directly.
  for (const link of inspectPipeChain(sink.stream).links) {
    assert.ok(link.directWrites >= 390 && link.specWrites <= 4, `${link.directWrites} direct, ${link.specWrites} spec`);
  }
});

const NativeCompressionStream =
  (globalThis as unknown as { CompressionStream?: new (format: string) => TransformStream<Uint8Array, Uint8Array> })
    .CompressionStream;
const NativeDecompressionStream =
  (globalThis as unknown as { DecompressionStream?: new (format: string) => TransformStream<Uint8Array, Uint8Array> })
    .DecompressionStream;

if (NativeCompressionStream !== undefined && NativeDecompressionStream !== undefined) {
  test("fallback: a native CompressionStream in the middle; the segments on either side stay fused", async () => {
    const text = "fusestreams ".repeat(2000);
    const bytes = new TextEncoder().encode(text);
    let i = 0;
    const source = new ReadableStream<Uint8Array>({
      pull(c) {
        c.enqueue(bytes.subarray(i, i + 1024));
        i += 1024;
        if (i >= bytes.length) c.close();
      },
    });
    const first = source.pipeThrough(new TransformStream<Uint8Array, Uint8Array>()).pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>(),
    );
    const compressed = first.pipeThrough(new NativeCompressionStream("gzip")).pipeThrough(
      new NativeDecompressionStream("gzip"),
    );
    const second = ReadableStream.from(compressed as unknown as AsyncIterable<Uint8Array>)
      .pipeThrough(new TransformStream<Uint8Array, Uint8Array>())
      .pipeThrough(new TransformStream<Uint8Array, Uint8Array>());
    const parts: Uint8Array[] = [];
    await within(second.pipeTo(
      new WritableStream({
        write(c) {
          parts.push(c);
        },
      }),
    ));
    let total = 0;
    for (const p of parts) total += p.byteLength;
    const joined = new Uint8Array(total);
    let at = 0;
    for (const p of parts) {
      joined.set(p, at);
      at += p.byteLength;
    }
    assert.is(new TextDecoder().decode(joined), text);
    assert.equal(modes(inspectPipeChain(first)), ["fused", "fused"]);
    const after = inspectPipeChain(second);
    assert.is(after.head, "source", "the native segment is an ordinary source to the chain after it");
    assert.equal(modes(after), ["fused", "fused"]);
    assert.throws(() => inspectPipeChain(compressed), (e: unknown) => e instanceof TypeError);
  });
} else {
  test.skip("native CompressionStream in the middle (this runtime has no CompressionStream)");
  console.log("pipe-fusion: CompressionStream test skipped: the runtime has no CompressionStream/DecompressionStream");
}

const NativeReadableStream = (globalThis as unknown as { ReadableStream?: typeof ReadableStream }).ReadableStream;
if (NativeReadableStream !== undefined && NativeReadableStream !== ReadableStream) {
  test("a native source (ReadableStream.from(native)) feeding a fused chain", async () => {
    let i = 0;
    const native = new NativeReadableStream<number>({
      pull(c) {
        c.enqueue(i++);
        if (i === 100) c.close();
      },
    });
    const sink = collector();
    await within(identityChain(ReadableStream.from(native as unknown as AsyncIterable<number>), 3).pipeTo(sink.stream));
    assert.equal(sink.chunks, range(100));
    const report = inspectPipeChain(sink.stream);
    assert.is(report.head, "source");
    assert.is(report.mode, "fused");
  });
}

for (const stage of [0, 1, 2]) {
  test(`an error thrown by transform() in stage ${stage} of 3: same error everywhere, source cancelled, sink aborted`, async () => {
    const boom = new Error(`boom in stage ${stage}`);
    const { stream, log } = counter(1000);
    let s: ReadableStream<number> = stream;
    for (let k = 0; k < 3; k++) {
      s = s.pipeThrough(
        new TransformStream<number, number>({
          transform(c, ctl) {
            if (k === stage && c === 40) throw boom;
            ctl.enqueue(c);
          },
        }),
      );
    }
    const sink = collector();
    const err = await rejection(s.pipeTo(sink.stream));
    assert.is(err, boom);
    assert.equal(sink.chunks, range(40), "every chunk before the failing one arrived, none after");
    assert.equal(sink.log.aborted, [boom]);
    assert.equal(log.cancelled, [boom]);
    assert.ok(log.pulls < 1000, "the source stopped being pulled");
  });
}

test("an error from the source's pull() travels down the fused chain with its identity", async () => {
  const boom = new Error("source failed");
  let i = 0;
  const source = new ReadableStream<number>({
    pull(c) {
      if (i === 25) throw boom;
      c.enqueue(i++);
    },
  });
  const sink = collector();
  assert.is(await rejection(identityChain(source, 3).pipeTo(sink.stream)), boom);
  assert.equal(sink.chunks, range(25));
  assert.equal(sink.log.aborted, [boom]);
});

test("a sink that errors: the error travels up the fused chain and cancels the source", async () => {
  const boom = new Error("sink failed");
  const { stream, log } = counter(1000);
  const seen: number[] = [];
  const sink = new WritableStream<number>({
    write(c) {
      if (c === 30) throw boom;
      seen.push(c);
    },
  });
  assert.is(await rejection(identityChain(stream, 3).pipeTo(sink)), boom);
  assert.equal(seen, range(30));
  assert.equal(log.cancelled, [boom]);
});

test("cancel from the consumer: reader.cancel(reason) reaches the source and every transformer's cancel()", async () => {
  const { stream, log } = counter(100_000);
  const cancels: unknown[] = [];
  let s: ReadableStream<number> = stream;
  for (let k = 0; k < 3; k++) {
    s = s.pipeThrough(
      new TransformStream<number, number>({
        cancel(reason) {
          cancels.push(reason);
        },
      }),
    );
  }
  const reader = s.getReader();
  for (let n = 0; n < 10; n++) assert.is((await within(reader.read())).value, n);
  const reason = new Error("enough");
  await within(reader.cancel(reason));
  await tick();
  assert.equal(cancels, [reason, reason, reason]);
  assert.equal(log.cancelled, [reason]);
});

test("abort from the signal: the sink is aborted and the source cancelled with the signal's reason", async () => {
  const { stream, log } = counter(100_000);
  const controller = new AbortController();
  const got: number[] = [];
  const sink = new WritableStream<number>({
    write(c) {
      got.push(c);
      if (c === 99) controller.abort(reason);
    },
    abort(r) {
      aborted.push(r);
    },
  });
  const reason = new Error("stop");
  const aborted: unknown[] = [];
  assert.is(await rejection(identityChain(stream, 3).pipeTo(sink, { signal: controller.signal })), reason);
  assert.equal(got, range(100), "nothing after the abort");
  assert.equal(aborted, [reason]);
  assert.equal(log.cancelled, [reason]);
});

test("preventClose / preventAbort / preventCancel on the last link of a fused chain", async () => {
  const a = collector();
  await within(identityChain(counter(20).stream, 2).pipeTo(a.stream, { preventClose: true }));
  assert.equal(a.chunks, range(20));
  assert.not.ok(a.log.closed);
  assert.not.ok(a.stream.locked);

  const boom = new Error("boom");
  let i = 0;
  const failing = new ReadableStream<number>({
    pull(c) {
      if (i === 5) throw boom;
      c.enqueue(i++);
    },
  });
  const b = collector();
  assert.is(await rejection(identityChain(failing, 2).pipeTo(b.stream, { preventAbort: true })), boom);
  assert.equal(b.log.aborted, []);
  assert.equal(b.chunks, range(5));

  const { stream, log } = counter(1000);
  const c = new WritableStream<number>({
    write(x) {
      if (x === 3) throw boom;
    },
  });
  const chain = identityChain(stream, 2);
  assert.is(await rejection(chain.pipeTo(c, { preventCancel: true })), boom);
  assert.equal(log.cancelled, [], "the source was not cancelled");
  assert.not.ok(chain.locked, "the chain's end is released for another consumer");
});

test("backpressure: a slow sink keeps every stage at its high-water mark (memory stays bounded)", async () => {
  const { stream, log } = counter(100_000);
  let release: (() => void) | undefined;
  let written = 0;
  const sink = new WritableStream<number>({
    write() {
      written++;
      return new Promise<void>((resolve) => (release = resolve));
    },
  });
  const done = identityChain(stream, 8).pipeTo(sink);
  for (let n = 0; n < 20; n++) await tick();
  // Every stage can hold a few chunks (queues at their high-water marks, a chunk in flight, a read ahead),
  // but nothing near the 100,000 the source could produce.
  const pulledWhileBlocked = log.pulls;
  assert.ok(pulledWhileBlocked < 60, `the source was pulled ${pulledWhileBlocked} times while the sink was blocked`);
  assert.is(written, 1);
  for (let n = 0; n < 10; n++) await tick();
  assert.is(log.pulls, pulledWhileBlocked, "no more pulls while the sink stays blocked");
  // Unblock for a while, then cancel through the signal-less route: error the sink.
  for (let n = 0; n < 50; n++) {
    release!();
    await tick();
  }
  assert.ok(written > 40);
  assert.ok(log.pulls - written < 60, "the source stays a bounded distance ahead of the sink");
  void done.catch(() => {});
});

test("an unconsumed chain pulls its source only to fill the stages' queues, then waits", async () => {
  const { stream, log } = counter(1000);
  const end = identityChain(stream, 3);
  for (let n = 0; n < 10; n++) await tick();
  const pulls = log.pulls;
  assert.ok(pulls > 0 && pulls < 12, `pulled ${pulls} times`);
  for (let n = 0; n < 10; n++) await tick();
  assert.is(log.pulls, pulls, "no further pulls without a consumer");
  assert.is(inspectPipeChain(end).links.length, 3);
  // Consuming it later delivers everything, once and in order.
  const got: number[] = [];
  for await (const c of end) got.push(c);
  assert.equal(got, range(1000));
});

/** Pipes a source whose synchronous pull() enqueues and then queues a microtask into a plain sink; the timeline. */
async function pullTurnTimeline(count: number): Promise<string[]> {
  const log: string[] = [];
  let i = 0;
  const source = new ReadableStream<number>({
    pull(c) {
      const n = i++;
      log.push(`pull ${n}`);
      c.enqueue(n);
      queueMicrotask(() => log.push(`microtask ${n}`));
      if (i === count) c.close();
    },
  });
  await within(source.pipeTo(new WritableStream<number>({ write: (chunk) => void log.push(`write ${chunk}`) })));
  return log;
}

const PULL_TURN_TIMELINE = [
  "pull 0",
  "microtask 0",
  "write 0",
  "pull 1",
  "microtask 1",
  "write 1",
  "pull 2",
  "microtask 2",
  "write 2",
];

test("FP-PULL-TURN: a plain sink's write of a chunk enqueued in a synchronous pull() runs in that pull's reaction", async () => {
  // After the microtask pull() queued, not before it; pull turns are tracked while a pipe is live.
  assert.equal(await pullTurnTimeline(3), PULL_TURN_TIMELINE);
  // The pipe that just finished no longer counts, the next one does: the same timeline again.
  assert.equal(await pullTurnTimeline(3), PULL_TURN_TIMELINE);
  // Two pipes at once, and a read loop between pipes: no pipe is left counted or uncounted.
  const [a, b] = await Promise.all([pullTurnTimeline(3), pullTurnTimeline(3)]);
  assert.equal(a, PULL_TURN_TIMELINE);
  assert.equal(b, PULL_TURN_TIMELINE);
  let k = 0;
  const reader = new ReadableStream<number>({ pull: (c) => (k < 3 ? c.enqueue(k++) : c.close()) }).getReader();
  while (!(await reader.read()).done);
  assert.equal(await pullTurnTimeline(3), PULL_TURN_TIMELINE);
});

test("FP-PULL-TURN: a pipe started inside a pull() while no pipe is live pipes every chunk in order", async () => {
  const log: string[] = [];
  let inner: Promise<void> | undefined;
  let i = 0;
  const outer = new ReadableStream<number>({
    pull(c) {
      if (inner === undefined) {
        let k = 0;
        const source = new ReadableStream<number>({
          pull(c2) {
            log.push(`pull ${k}`);
            c2.enqueue(k++);
            if (k === 3) c2.close();
          },
        });
        inner = source.pipeTo(new WritableStream<number>({ write: (chunk) => void log.push(`write ${chunk}`) }));
      }
      c.enqueue(i++);
      if (i === 2) c.close();
    },
  });
  const reader = outer.getReader();
  while (!(await reader.read()).done);
  await within(inner!);
  assert.equal(log, ["pull 0", "write 0", "pull 1", "write 1", "pull 2", "write 2"]);
});

test("inspectPipeChain(): brand check, a stream no pipe feeds, a transform written by a writer", () => {
  assert.throws(
    () => inspectPipeChain({}),
    (e: unknown) => e instanceof TypeError && /ReadableStream or WritableStream/.test(String(e)),
  );
  assert.equal(inspectPipeChain(new ReadableStream()), { mode: "none", links: [], head: "none" });
  assert.equal(inspectPipeChain(new WritableStream()), { mode: "none", links: [], head: "none" });
  const ts = new TransformStream();
  assert.equal(inspectPipeChain(ts.readable), { mode: "none", links: [], head: "unpiped" });
  const end = ts.readable.pipeThrough(new TransformStream());
  const report = inspectPipeChain(end);
  assert.is(report.head, "unpiped");
  assert.equal(modes(report), ["idle"]);
});

test.run();
