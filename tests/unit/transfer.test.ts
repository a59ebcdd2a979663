/**
 * Transferring our streams with the global patch on (issue 27, case 8), on Node.js and Deno, whose own streams
 * are transferable: `structuredClone(ours, { transfer: [ours] })`, `MessagePort.postMessage` and a Worker's
 * `postMessage` carry our ReadableStream, WritableStream and TransformStream across with their data,
 * backpressure, cancel, abort and errors, as they carry the runtime's own. Each scenario runs on the runtime's
 * native classes (captured at load) and on ours with the patch on, and the outcomes must agree.
 *
 * Without the patch, a runtime transfers only its own streams: ours are refused with a DataCloneError (the
 * documented limitation), which a test checks too.
 *
 *   node tests/unit/transfer.test.ts      deno run -A tests/unit/transfer.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as denoAdapter from "../../adapters/deno/mod.ts";
import * as nodeAdapter from "../../adapters/node/mod.ts";
import { diffSnapshot, takeSnapshot } from "../shared/snapshot.ts";

const g = globalThis as unknown as Record<string, unknown>;
const runtime = "Deno" in g ? "Deno" : "Bun" in g ? "Bun" : "process" in g ? "Node.js" : "other";
const fuse = runtime === "Deno" ? denoAdapter : nodeAdapter;
const applies = runtime === "Node.js" || runtime === "Deno";

const transferTest = (name: string, fn: () => Promise<void> | void): void => {
  if (applies) test(name, fn);
  else test.skip(name, fn);
};
if (!applies) console.log(`transfer: skipped on ${runtime}: its own streams are not transferable`);

/** The stream classes a scenario builds with: the runtime's native ones, or ours under the patch. */
interface Classes {
  readonly ReadableStream: typeof ReadableStream;
  readonly WritableStream: typeof WritableStream;
  readonly TransformStream: typeof TransformStream;
}
// Captured at load, before any test patches.
const NATIVE: Classes = { ReadableStream, WritableStream, TransformStream };
const OURS: Classes = fuse as unknown as Classes;

/** Runs `scenario` on the native classes, then on ours with the patch on; returns both outcomes. */
async function bothWays<T>(
  scenario: (C: Classes, patched: boolean) => T | Promise<T>,
): Promise<{ native: T; ours: T }> {
  const native = await scenario(NATIVE, false);
  fuse.patchGlobalWebStreams();
  try {
    return { native, ours: await scenario(OURS, true) };
  } finally {
    fuse.unpatchGlobalWebStreams();
  }
}

/** Posts `message` through a new MessageChannel with `transfer`, and returns what the other port received. */
async function postThrough<T>(message: unknown, transfer: unknown[]): Promise<T> {
  const { port1, port2 } = new MessageChannel();
  try {
    const received = new Promise<T>((resolve) => {
      port2.onmessage = (event) => resolve(event.data as T);
    });
    port1.postMessage(message, transfer as Transferable[]);
    return await received;
  } finally {
    port1.close();
    port2.close();
  }
}

/** `promise`, or "still pending" after `ms` (a broken case must fail, not hang the run). */
function within<T>(promise: Promise<T>, ms = 2000): Promise<T | string> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<string>((resolve) => (timer = setTimeout(() => resolve("still pending"), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** The name of the error `fn` throws ("no error" when it returns). */
function errorName(fn: () => unknown): string {
  try {
    fn();
    return "no error";
  } catch (e) {
    return (e as Error).name;
  }
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const describe = (e: unknown) => `${(e as Error)?.name}: ${(e as Error)?.message ?? String(e)}`;

// ---------------------------------------------------------------------------------------------------

transferTest(
  "without the patch, our streams are refused by structuredClone and postMessage (the documented limitation)",
  () => {
    // The runtime's error for an object it cannot transfer (a DataCloneError; Node.js 20: a TypeError).
    const notTransferable = errorName(() => structuredClone({}, { transfer: [{} as Transferable] }));
    assert.ok(notTransferable === "DataCloneError" || notTransferable === "TypeError", notTransferable);
    for (const stream of [new OURS.ReadableStream(), new OURS.WritableStream(), new OURS.TransformStream()]) {
      const transfer = [stream as unknown as Transferable];
      assert.is(errorName(() => structuredClone(stream, { transfer })), notTransferable);
      const { port1, port2 } = new MessageChannel();
      assert.is(errorName(() => port1.postMessage(stream, transfer)), notTransferable);
      port1.close();
      port2.close();
    }
  },
);

transferTest(
  "structuredClone transfers a ReadableStream, WritableStream and TransformStream with their data (case 8)",
  async () => {
    const outcome = await bothWays(async (C) => {
      const rs = new C.ReadableStream<string>({
        start(c) {
          c.enqueue("a");
          c.enqueue("b");
          c.close();
        },
      });
      const written: string[] = [];
      const ws = new C.WritableStream<string>({ write: (chunk) => void written.push(chunk) });
      const ts = new C.TransformStream<string, string>({ transform: (chunk, c) => c.enqueue(chunk.toUpperCase()) });
      const clone = structuredClone({ rs, nested: { list: [ws] }, ts }, { transfer: [rs, ws, ts] as never });
      const locked = [rs.locked, ws.locked, ts.readable.locked, ts.writable.locked];
      const read: string[] = [];
      for await (const chunk of clone.rs as unknown as AsyncIterable<string>) read.push(chunk);
      const writer = clone.nested.list[0]!.getWriter();
      await writer.write("w1");
      await writer.write("w2");
      await writer.close();
      const tw = clone.ts.writable.getWriter();
      void tw.write("x");
      void tw.close();
      const transformed: string[] = [];
      for await (const chunk of clone.ts.readable as unknown as AsyncIterable<string>) transformed.push(chunk);
      await wait(20);
      // Once done, each is unlocked again, as the pipes of a transfer release their locks at the end.
      const unlocked = [rs.locked, ws.locked, ts.readable.locked, ts.writable.locked];
      return {
        locked,
        unlocked,
        read,
        written,
        transformed,
        kinds: [clone.rs instanceof ReadableStream, clone.ts instanceof TransformStream],
      };
    });
    assert.equal(outcome.native, {
      locked: [true, true, true, true],
      unlocked: [false, false, false, false],
      read: ["a", "b"],
      written: ["w1", "w2"],
      transformed: ["X"],
      kinds: [true, true],
    });
    assert.equal(outcome.ours, outcome.native);
  },
);

transferTest(
  "postMessage: a stream nested in objects, arrays, a Map and a Set, twice in the message, arrives as one stream",
  async () => {
    const outcome = await bothWays(async (C) => {
      const rs = new C.ReadableStream<number>({
        start(c) {
          c.enqueue(1);
          c.close();
        },
      });
      const shared = { rs };
      const map = new Map<unknown, unknown>([["k", rs], [rs, "v"]]);
      const set = new Set<unknown>([rs, 2]);
      const cycle: Record<string, unknown> = { rs };
      cycle["self"] = cycle;
      const message = { a: shared, b: shared, list: [1, rs], map, set, cycle };
      type Got = {
        a: { rs: ReadableStream };
        b: { rs: ReadableStream };
        list: unknown[];
        map: Map<unknown, unknown>;
        set: Set<unknown>;
        cycle: Record<string, unknown>;
      };
      const got = await postThrough<Got>(message, [rs]);
      const one = got.a.rs;
      const same = [
        got.b.rs === one,
        got.list[1] === one,
        got.map.get("k") === one,
        [...got.map.keys()][1] === one,
        [...got.set][0] === one,
        got.cycle["rs"] === one,
        got.cycle["self"] === got.cycle,
      ];
      // The caller's message is left as it was.
      const untouched = [message.list[1] === rs, map.get("k") === rs, [...map.keys()][1] === rs, set.has(rs)];
      const chunks: number[] = [];
      for await (const chunk of one as unknown as AsyncIterable<number>) chunks.push(chunk);
      return { same, untouched, chunks, order: [...got.map.keys()].length };
    });
    assert.equal(outcome.native, {
      same: [true, true, true, true, true, true, true],
      untouched: [true, true, true, true],
      chunks: [1],
      order: 2,
    });
    assert.equal(outcome.ours, outcome.native);
  },
);

transferTest(
  "a stream in the message but not in the transfer list is a DataCloneError, as for a native stream",
  async () => {
    const outcome = await bothWays((C) => {
      const results: string[] = [];
      for (const make of [() => new C.ReadableStream(), () => new C.WritableStream(), () => new C.TransformStream()]) {
        const stream = make();
        for (const message of [stream, { deep: [new Map([["k", stream]])] }]) {
          try {
            structuredClone(message);
            results.push("cloned");
          } catch (e) {
            results.push((e as Error).name);
          }
          const { port1, port2 } = new MessageChannel();
          try {
            port1.postMessage(message, []);
            results.push("posted");
          } catch (e) {
            results.push((e as Error).name);
          }
          port1.close();
          port2.close();
        }
        results.push(`locked ${"locked" in stream ? stream.locked : stream.readable.locked}`);
      }
      return results;
    });
    // A DataCloneError (Node.js 20: a TypeError), whatever the runtime throws for its own stream.
    const name = errorName(() => structuredClone(new NATIVE.ReadableStream()));
    const refused = [name, name, name, name, "locked false"];
    assert.equal(outcome.native, [...refused, ...refused, ...refused]);
    assert.equal(outcome.ours, outcome.native);
  },
);

transferTest(
  "a refused transfer (a locked stream in the list) leaves ours as the runtime leaves its own",
  async () => {
    const outcome = await bothWays((C) => {
      const results: string[] = [];
      const locked = new C.ReadableStream();
      locked.getReader();
      const other = new C.WritableStream();
      const before = new C.ReadableStream();
      const lockedWritable = new C.WritableStream();
      lockedWritable.getWriter();
      const cases: [unknown, unknown[]][] = [[locked, [locked]], [{ locked, other }, [locked, other]]];
      // Both runtimes transfer the streams listed before the one they refuse, and leave them locked; on Deno their
      // ports would then keep the process alive, so that case runs on Node.js only.
      if (runtime === "Node.js") cases.push([{ before, lockedWritable }, [before, lockedWritable]]);
      for (const [message, list] of cases) {
        results.push(errorName(() => structuredClone(message, { transfer: list as never })));
      }
      results.push(`locked ${other.locked} ${before.locked}`);
      const again = structuredClone(other, { transfer: [other] as never });
      results.push(`again ${again instanceof WritableStream}`);
      void again.abort();
      return results;
    });
    assert.is(outcome.native[0], "DataCloneError");
    assert.equal(outcome.ours, outcome.native);
  },
);

transferTest("a transferred ReadableStream: cancel and errors go back and forth, as for a native one", async () => {
  const outcome = await bothWays(async (C) => {
    const cancelled: unknown[] = [];
    const cancelling = new C.ReadableStream({ pull() {}, cancel: (r) => void cancelled.push(r) });
    const remote = await postThrough<ReadableStream>(cancelling, [cancelling]);
    await remote.cancel("stop it");
    await wait(20);

    let controller!: ReadableStreamDefaultController<string>;
    const failing = new C.ReadableStream<string>({ start: (c) => void (controller = c) });
    const remote2 = await postThrough<ReadableStream<string>>(failing, [failing]);
    const reader = remote2.getReader();
    controller.enqueue("before");
    const first = await reader.read();
    controller.error(new RangeError("source failed"));
    const second = await within(reader.read().then(() => "read", describe));
    return { cancelled, first: first.value, second };
  });
  assert.equal(outcome.native, {
    cancelled: ["stop it"],
    first: "before",
    second: "RangeError: source failed",
  });
  assert.equal(outcome.ours, outcome.native);
});

transferTest(
  "a transferred ReadableStream pulls its source no further ahead of a stalled reader than a native one",
  async () => {
    const outcome = await bothWays(async (C) => {
      let pulls = 0;
      const source = new C.ReadableStream<number>({
        pull(c) {
          c.enqueue(++pulls);
        },
      }, { highWaterMark: 1 });
      const remote = await postThrough<ReadableStream<number>>(source, [source]);
      const reader = remote.getReader();
      const first = await reader.read();
      await wait(50);
      const afterOne = pulls;
      for (let i = 0; i < 5; i++) await reader.read();
      await wait(50);
      const afterSix = pulls;
      await reader.cancel();
      return { first: first.value, afterOne, afterSix };
    });
    assert.is(outcome.ours.first, 1);
    assert.ok(
      outcome.ours.afterOne <= outcome.native.afterOne,
      `ours pulled ${outcome.ours.afterOne} after one read, native ${outcome.native.afterOne}`,
    );
    assert.ok(
      outcome.ours.afterSix <= outcome.native.afterSix,
      `ours pulled ${outcome.ours.afterSix} after six reads, native ${outcome.native.afterSix}`,
    );
  },
);

transferTest(
  "a transferred WritableStream: every chunk in order, close, abort and the sink's error, as for a native one",
  async () => {
    const outcome = await bothWays(async (C) => {
      const log: string[] = [];
      const sink = new C.WritableStream<string>({
        write: (chunk) => void log.push(`write ${chunk}`),
        close: () => void log.push("close"),
      });
      const remote = await postThrough<WritableStream<string>>(sink, [sink]);
      const writer = remote.getWriter();
      for (const chunk of ["a", "b", "c"]) void writer.write(chunk);
      await writer.close();

      const aborts: unknown[] = [];
      const aborted = new C.WritableStream({ abort: (r) => void aborts.push(r) });
      const remote2 = await postThrough<WritableStream>(aborted, [aborted]);
      await remote2.abort("abort reason");
      await wait(20);

      let called!: () => void;
      const sinkCalled = new Promise<void>((resolve) => (called = resolve));
      const failing = new C.WritableStream<string>({
        write() {
          called();
          throw new TypeError("sink failed");
        },
      });
      const remote3 = await postThrough<WritableStream<string>>(failing, [failing]);
      const w3 = remote3.getWriter();
      await w3.write("x").catch(() => {});
      await sinkCalled;
      // The sink's error travels back and errors the far side (a close() now would race it).
      const closed = await within(w3.closed.then(() => "closed", describe));
      return { log, aborts, closed };
    });
    assert.equal(outcome.native, {
      log: ["write a", "write b", "write c", "close"],
      aborts: ["abort reason"],
      closed: "TypeError: sink failed",
    });
    assert.equal(outcome.ours, outcome.native);
  },
);

transferTest("a transferred TransformStream: data both ways, cancel of its readable side, and its errors", async () => {
  const outcome = await bothWays(async (C) => {
    const ts = new C.TransformStream<string, string>({
      transform(chunk, c) {
        c.enqueue(chunk.toUpperCase());
        c.enqueue(chunk + chunk);
      },
      flush: (c) => c.enqueue("end"),
    });
    const remote = await postThrough<TransformStream<string, string>>(ts, [ts]);
    const writer = remote.writable.getWriter();
    void writer.write("a");
    void writer.write("b");
    void writer.close();
    const out: string[] = [];
    for await (const chunk of remote.readable as unknown as AsyncIterable<string>) out.push(chunk);

    const reasons: unknown[] = [];
    const cancelled = new C.TransformStream({ cancel: (r: unknown) => void reasons.push(r) } as Transformer);
    const remote2 = await postThrough<TransformStream>(cancelled, [cancelled]);
    await remote2.readable.cancel("no more");
    await wait(20);

    const failing = new C.TransformStream<string, string>({
      transform() {
        throw new RangeError("transform failed");
      },
    });
    const remote3 = await postThrough<TransformStream<string, string>>(failing, [failing]);
    const w3 = remote3.writable.getWriter();
    void w3.write("x").catch(() => {});
    const read = await within(remote3.readable.getReader().read().then(() => "read", describe));
    return { out, reasons, read };
  });
  assert.equal(outcome.native, {
    out: ["A", "aa", "B", "bb", "end"],
    reasons: ["no more"],
    read: "RangeError: transform failed",
  });
  assert.equal(outcome.ours, outcome.native);
});

transferTest(
  "documented limit: a stream of ours behind a getter or in a frozen object is refused, and stays unlocked",
  async () => {
    fuse.patchGlobalWebStreams();
    try {
      const behindGetter = new ReadableStream();
      const inFrozen = new ReadableStream();
      const messages: [unknown, ReadableStream][] = [
        [{
          get stream() {
            return behindGetter;
          },
        }, behindGetter],
        [Object.freeze({ stream: inFrozen }), inFrozen],
      ];
      for (const [message, stream] of messages) {
        assert.throws(
          () => structuredClone(message, { transfer: [stream as unknown as Transferable] }),
          (e: Error) => e.name === "DataCloneError",
        );
        assert.not.ok(stream.locked, "unlocked again");
      }
      // The same streams, held plainly, transfer.
      const copy = structuredClone({ s: inFrozen }, { transfer: [inFrozen as unknown as Transferable] });
      assert.ok(copy.s instanceof ReadableStream);
      await copy.s.cancel(); // closes the transfer's ports (Deno would stay alive for them)
    } finally {
      fuse.unpatchGlobalWebStreams();
    }
  },
);

/** The adapter this file tests, as a URL a worker can import (the source, or the package in the dist run). */
function adapterUrl(): string {
  const name = runtime === "Deno" ? "deno" : "node";
  return import.meta.url.endsWith(".ts")
    ? new URL(`../../adapters/${name}/mod.ts`, import.meta.url).href
    : import.meta.resolve(`fusestreams/${name}`);
}

/**
 * The worker's side: gets `{ rs, ws, ts }`, reads `rs`, writes into `ws`, sends "t" through `ts`, then patches its
 * own globals and answers with what it read plus a stream of ours it made, transferred with its own postMessage.
 */
const WORKER_BODY = `
  async function onStreams({ rs, ws, ts }, post) {
    let text = "";
    for await (const chunk of rs) text += chunk;
    const w = ws.getWriter();
    await w.write("from the worker");
    await w.close();
    const tw = ts.writable.getWriter();
    void tw.write("t");
    void tw.close();
    let transformed = "";
    for await (const chunk of ts.readable) transformed += chunk;
    const fuse = await import(ADAPTER);
    fuse.patchGlobalWebStreams();
    const back = new ReadableStream({ start(c) { c.enqueue("made "); c.enqueue("there"); c.close(); } });
    const ours = Object.getPrototypeOf(back) === fuse.ReadableStream.prototype;
    post({ text, transformed, ours, back }, [back]);
  }
`;

/** Starts a worker running WORKER_BODY: Node's worker_threads Worker, or Deno's web Worker. */
async function startWorker(): Promise<
  { post: (message: unknown, transfer: unknown[]) => void; reply: Promise<unknown>; stop: () => void }
> {
  const body = WORKER_BODY.replace("ADAPTER", JSON.stringify(adapterUrl()));
  if (runtime === "Deno") {
    const code = `${body}\nself.onmessage = (e) => onStreams(e.data, (m, t) => self.postMessage(m, t));`;
    const url = URL.createObjectURL(new Blob([code], { type: "application/javascript" }));
    const worker = new (g["Worker"] as typeof Worker)(url, { type: "module" });
    const reply = new Promise<unknown>((resolve, reject) => {
      worker.onmessage = (e) => resolve(e.data);
      worker.onerror = (e) => reject(new Error(e.message));
    });
    return { post: (m, t) => worker.postMessage(m, t as Transferable[]), reply, stop: () => worker.terminate() };
  }
  const { Worker: NodeWorker } = await import("node:worker_threads");
  const code = `const { parentPort } = require("node:worker_threads");\n${body}\n` +
    // Listening keeps the worker alive (and its end of the stream it sends back) until it is terminated.
    `parentPort.on("message", (m) => onStreams(m, (r, t) => parentPort.postMessage(r, t)));`;
  const worker = new NodeWorker(code, { eval: true });
  const reply = new Promise<unknown>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  return { post: (m, t) => worker.postMessage(m, t as never), reply, stop: () => void worker.terminate() };
}

transferTest(
  "Worker.postMessage carries our streams to a worker and back (worker_threads on Node.js, Worker on Deno)",
  async () => {
    const worker = await startWorker();
    const written: string[] = [];
    fuse.patchGlobalWebStreams();
    try {
      const rs = new ReadableStream<string>({
        start(c) {
          c.enqueue("to ");
          c.enqueue("the worker");
          c.close();
        },
      });
      const ws = new WritableStream<string>({ write: (chunk) => void written.push(chunk) });
      const ts = new TransformStream<string, string>({ transform: (chunk, c) => c.enqueue(chunk.toUpperCase()) });
      assert.is(Object.getPrototypeOf(rs), fuse.ReadableStream.prototype, "ours, made from the patched globals");
      worker.post({ rs, ws, ts }, [rs, ws, ts]);
      const reply = await within(worker.reply, 10_000) as {
        text: string;
        transformed: string;
        ours: boolean;
        back: ReadableStream<string>;
      };
      assert.type(reply, "object", String(reply));
      assert.is(reply.text, "to the worker");
      assert.is(reply.transformed, "T");
      assert.ok(reply.ours, "the worker's stream was its own fusestreams stream");
      let back = "";
      for await (const chunk of reply.back as unknown as AsyncIterable<string>) back += chunk;
      assert.is(back, "made there");
      assert.equal(written, ["from the worker"]);
    } finally {
      fuse.unpatchGlobalWebStreams();
      worker.stop();
    }
  },
);

transferTest("unpatch puts structuredClone and every postMessage back exactly", () => {
  // Node.js 20 defines MessagePort as a global accessor (the snapshots call no getter): its class is a root.
  const messaging = { MessagePort: g["MessagePort"] as object, BroadcastChannel: g["BroadcastChannel"] as object };
  const snapshot = () => takeSnapshot({ fuse, messaging });
  const before = snapshot();
  fuse.patchGlobalWebStreams();
  const during = snapshot();
  fuse.unpatchGlobalWebStreams();
  const changed = diffSnapshot(before, during).join("\n");
  assert.ok(changed.includes("structuredClone"), "structuredClone was patched");
  assert.ok(/\.postMessage: /.test(changed), `MessagePort's postMessage was patched:\n${changed}`);
  assert.equal(diffSnapshot(before, snapshot()), []);
});

test.run();
