/**
 * Node.js adapter: patchGlobalWebStreams() / unpatchGlobalWebStreams(): the globals, exact restoration
 * (property descriptors and prototype links), instanceof both ways, Response interop (undici), body
 * shells, native <-> fusestreams pipes (TextDecoderStream & co.), node:stream fromWeb/toWeb while patched.
 *
 * Every test patches and unpatches in try/finally: the other test files run in the same process.
 * Node.js only (the patch targets Node.js's globals and undici); skipped with a message elsewhere.
 *
 *   node tests/unit/node-adapter-patch.test.ts
 */
import { Buffer } from "node:buffer";
import { spawnSync } from "node:child_process";
import process from "node:process";
import * as nodeStream from "node:stream";
import { Duplex, Readable, Writable } from "node:stream";
import { inspect } from "node:util";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as fuse from "../../adapters/node/mod.ts";
import { CLASS_NAMES } from "../../adapters/kit/global-patch.ts";
import { lockedBodyOutcomes } from "../shared/body-lock.ts";
import { diffSnapshot, type Snapshot, takeSnapshot } from "../shared/snapshot.ts";
import { isGlobalWebStreamsPatched, patchGlobalWebStreams, unpatchGlobalWebStreams } from "../../adapters/node/mod.ts";

const g = globalThis as unknown as Record<string, unknown>;
const { isDisturbed, isErrored, isReadable } = nodeStream as unknown as Record<
  "isDisturbed" | "isErrored" | "isReadable",
  (stream: unknown) => boolean | null
>;
const runtime = "Deno" in g ? "Deno" : "Bun" in g ? "Bun" : "Node.js";
const isNode = runtime === "Node.js";

// Captured at load, before any test patches.
const Native = {
  ReadableStream: globalThis.ReadableStream,
  WritableStream: globalThis.WritableStream,
  TransformStream: globalThis.TransformStream,
  ReadableStreamDefaultReader: globalThis.ReadableStreamDefaultReader,
};
const undiciLoadedBeforePatch = () =>
  ((process as { moduleLoadList?: string[] }).moduleLoadList ?? []).some((m) => m.includes("undici"));
let undiciWasLoaded: boolean | undefined;

/** Runs fn with the globals patched, always unpatching afterwards. */
async function patched(fn: () => Promise<void> | void): Promise<void> {
  undiciWasLoaded ??= undiciLoadedBeforePatch();
  patchGlobalWebStreams();
  try {
    await fn();
  } finally {
    unpatchGlobalWebStreams();
  }
}

const nodeTest = (name: string, fn: () => Promise<void> | void): void => {
  if (isNode) test(name, fn);
  else test.skip(name, fn);
};
if (!isNode) {
  console.log(`node-adapter-patch: skipped on ${runtime}: patchGlobalWebStreams targets Node.js's globals and undici`);
}

const enc = new TextEncoder();
const dec = new TextDecoder();
const isOurs = (x: unknown): boolean => Object.getPrototypeOf(x) === fuse.ReadableStream.prototype;

function oursOf(...parts: string[]): fuse.ReadableStream<Uint8Array> {
  return new fuse.ReadableStream<Uint8Array>({
    start(c) {
      for (const p of parts) c.enqueue(enc.encode(p));
      c.close();
    },
  });
}

// ---------------------------------------------------------------------------------------------------

/**
 * Everything the patch may touch (see tests/shared/snapshot.ts): the globals, their functions and
 * prototypes, our classes, and node:stream's Readable/Writable/Duplex with their statics.
 */
function snapshot(): Snapshot {
  return takeSnapshot({ fuse, nodeStream: { Readable, Writable, Duplex } });
}

nodeTest("patch: the globals become fusestreams' classes; patching twice is a no-op", async () => {
  assert.not.ok(isGlobalWebStreamsPatched());
  await patched(() => {
    assert.ok(isGlobalWebStreamsPatched());
    const fuseClasses = fuse as unknown as Record<string, unknown>;
    for (const name of CLASS_NAMES) assert.is(g[name], fuseClasses[name], name);
    patchGlobalWebStreams();
    assert.is(g["ReadableStream"], fuse.ReadableStream);
    const d = Object.getOwnPropertyDescriptor(globalThis, "ReadableStream")!;
    assert.equal(
      [d.writable, d.enumerable, d.configurable],
      [true, false, true],
      "same attributes as the native global",
    );
  });
  assert.not.ok(isGlobalWebStreamsPatched());
  assert.is(g["ReadableStream"], Native.ReadableStream);
  unpatchGlobalWebStreams(); // no-op when not patched
});

nodeTest("unpatch: every global, prototype property, static and prototype link is restored exactly", async () => {
  void new Response("load undici"); // whatever the load order, the descriptors must come back
  const before = snapshot();
  patchGlobalWebStreams();
  const during = snapshot();
  unpatchGlobalWebStreams();
  const after = snapshot();
  assert.ok(diffSnapshot(before, during).length > 20, "the patch changed things");
  assert.equal(diffSnapshot(before, after), [], "nothing differs after unpatch");
  // twice over
  patchGlobalWebStreams();
  unpatchGlobalWebStreams();
  assert.equal(diffSnapshot(before, snapshot()), []);
});

nodeTest("instanceof both ways while patched, subclasses keep their own checks, and not after", async () => {
  const nativeRS = new Native.ReadableStream();
  const nativeWS = new Native.WritableStream();
  const nativeTS = new Native.TransformStream();
  const nativeReader = new Native.ReadableStream().getReader();
  await patched(() => {
    const RS = g["ReadableStream"] as typeof fuse.ReadableStream;
    assert.ok(nativeRS instanceof RS, "native ReadableStream instanceof patched global");
    assert.ok(nativeWS instanceof (g["WritableStream"] as typeof fuse.WritableStream));
    assert.ok(nativeTS instanceof (g["TransformStream"] as typeof fuse.TransformStream));
    assert.ok(nativeReader instanceof (g["ReadableStreamDefaultReader"] as typeof fuse.ReadableStreamDefaultReader));
    assert.ok(new RS() instanceof Native.ReadableStream, "fusestreams stream instanceof native class");
    assert.ok(new fuse.WritableStream() instanceof Native.WritableStream);
    assert.ok(new fuse.TransformStream() instanceof Native.TransformStream);
    assert.ok(new fuse.ReadableStream().getReader() instanceof Native.ReadableStreamDefaultReader);
    class Sub extends RS<number> {}
    assert.ok(new Sub() instanceof Sub);
    assert.ok(new Sub() instanceof RS);
    assert.not.ok(new RS() instanceof Sub, "a plain stream is not an instance of a subclass");
    assert.not.ok(nativeRS instanceof Sub);
    assert.not.ok({} instanceof RS);
    assert.is(Object.prototype.toString.call(new RS()), "[object ReadableStream]");
  });
  assert.not.ok(nativeRS instanceof fuse.ReadableStream, "after unpatch: no more cross-instanceof");
  assert.not.ok(new fuse.ReadableStream() instanceof Native.ReadableStream);
});

nodeTest("Node.js state helpers and util.inspect work on fusestreams streams while patched", async () => {
  await patched(async () => {
    const stream = oursOf("x");
    assert.not.ok(isDisturbed(stream));
    assert.not.ok(isErrored(stream));
    assert.ok(isReadable(stream));
    assert.type(inspect(stream), "string");
    assert.type(inspect(stream.getReader()), "string");
    assert.type(inspect(new fuse.WritableStream()), "string");
    assert.type(inspect(new fuse.TransformStream()), "string");
    assert.type(inspect(new fuse.CountQueuingStrategy({ highWaterMark: 1 })), "string");
  });
});

nodeTest(
  "node:stream isDisturbed/isErrored/isReadable/isWritable are exact for fusestreams streams (patched)",
  async () => {
    await patched(async () => {
      const { isWritable } = nodeStream as unknown as { isWritable: (s: unknown) => boolean | null };
      const boom = new Error("boom");
      const errored = new fuse.ReadableStream({ start: (c) => c.error(boom) });
      assert.ok(isErrored(errored), "an errored stream is errored");
      assert.not.ok(isReadable(errored));
      const closed = new fuse.ReadableStream({ start: (c) => c.close() });
      assert.not.ok(isErrored(closed));
      assert.not.ok(isReadable(closed), "a closed stream is not readable");
      const fresh = oursOf("a", "b");
      const reader = fresh.getReader();
      assert.not.ok(isDisturbed(fresh), "locked but never read: not disturbed");
      await reader.read();
      assert.ok(isDisturbed(fresh), "read from: disturbed");
      const ws = new fuse.WritableStream({ write() {} });
      assert.ok(isWritable(ws));
      const failing = new fuse.WritableStream({ start: (c) => c.error(boom) });
      await new Promise((resolve) => setTimeout(resolve, 0));
      assert.ok(isErrored(failing));
      assert.not.ok(isWritable(failing));
    });
  },
);

nodeTest(
  "node:stream finished() on fusestreams streams consumed by pipeTo() and async iteration (patched)",
  async () => {
    await patched(async () => {
      const { finished } = nodeStream as unknown as { finished: (s: unknown, cb: (err?: unknown) => void) => void };
      const piped = oursOf("a", "b");
      const pipedEnd = new Promise<unknown>((resolve) => finished(piped, resolve));
      await piped.pipeThrough(new fuse.TransformStream()).pipeTo(new fuse.WritableStream());
      assert.is(await pipedEnd, undefined);

      const boom = new Error("boom");
      let i = 0;
      const iterated = new fuse.ReadableStream<number>({
        pull(c) {
          if (i === 3) throw boom;
          c.enqueue(i++);
        },
      });
      const iteratedEnd = new Promise<unknown>((resolve) => finished(iterated, resolve));
      let caught: unknown;
      try {
        for await (const _ of iterated);
      } catch (e) {
        caught = e;
      }
      assert.is(caught, boom);
      assert.is(await iteratedEnd, boom, "finished() reports the stream's own error");
    });
  },
);

nodeTest("node:stream finished() on a fusestreams stream read through getReader() (patched)", async () => {
  await patched(async () => {
    const { finished } = nodeStream as unknown as { finished: (s: unknown, cb: (err?: unknown) => void) => void };
    const done = oursOf("a", "b");
    const ended = new Promise<unknown>((resolve) => finished(done, resolve));
    const reader = done.getReader();
    while (!(await reader.read()).done);
    assert.is(await ended, undefined);

    const boom = new Error("boom");
    let controller!: fuse.ReadableStreamDefaultController<Uint8Array>;
    const failing = new fuse.ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
    const failed = new Promise<unknown>((resolve) => finished(failing, resolve));
    const r2 = failing.getReader();
    r2.releaseLock(); // a released reader does not count as the end
    const r3 = failing.getReader();
    controller.error(boom);
    await r3.closed.catch(() => {});
    assert.is(await failed, boom);
  });
});

nodeTest("new Response(fusestreams stream): text(), arrayBuffer(), json(), bodyUsed, body identity", async () => {
  await patched(async () => {
    const a = oursOf("hel", "lo");
    const r1 = new Response(a as unknown as BodyInit);
    assert.is(r1.body as unknown, a, "the body is the stream itself");
    assert.not.ok(r1.bodyUsed);
    assert.is(await r1.text(), "hello");
    assert.ok(r1.bodyUsed);
    const r2 = new Response(oursOf("\x01\x02", "\x03") as unknown as BodyInit);
    assert.equal([...new Uint8Array(await r2.arrayBuffer())], [1, 2, 3]);
    const r3 = new Response(oursOf('{"a":', "[1,2]}") as unknown as BodyInit);
    assert.equal(await r3.json(), { a: [1, 2] });
    const locked = oursOf("x");
    locked.getReader();
    assert.throws(() => new Response(locked as unknown as BodyInit), TypeError);
  });
});

nodeTest("new Response(fusestreams stream) also works without the patch (as an async iterable)", async () => {
  const r = new Response(oursOf("no ", "patch") as unknown as BodyInit);
  assert.is(await r.text(), "no patch");
  // undici's async-iterable path turns a string chunk into text (the README says so), where a native stream
  // body fails; toNativeReadableStream() gives undici a native stream, which fails as native.
  const withString = () => new fuse.ReadableStream<unknown>({ start: (c) => (c.enqueue("a string"), c.close()) });
  assert.is(await new Response(withString() as unknown as BodyInit).text(), "a string");
  const native = await new Response(fuse.toNativeReadableStream(withString()) as unknown as BodyInit).text().then(
    () => "fulfilled",
    (e: Error) => e.name,
  );
  assert.is(native, "TypeError");
});

nodeTest(
  "patched: a chunk of ours that is not a Uint8Array ends the body with undici's TypeError, as a native stream's",
  async () => {
    for (const bad of ["a string", 42, { an: "object" }, enc.encode("bytes").buffer]) {
      const make = (RS: typeof Native.ReadableStream) =>
        new RS<unknown>({
          start(c) {
            c.enqueue(enc.encode("ok"));
            c.enqueue(bad);
            c.close();
          },
        });
      const outcome = (body: unknown) =>
        new Response(body as BodyInit).text().then((v) => `ok ${v}`, (e: Error) => `${e.name}: ${e.message}`);
      const expected = await outcome(make(Native.ReadableStream));
      assert.match(expected, /^TypeError/);
      await patched(async () => {
        assert.is(
          await outcome(make(fuse.ReadableStream as unknown as typeof Native.ReadableStream)),
          expected,
          typeof bad,
        );
      });
    }
  },
);

nodeTest("Response bodies are fusestreams streams: string, bytes, Blob (shell), native stream (shell)", async () => {
  await patched(async () => {
    const r1 = new Response("text body");
    assert.ok(isOurs(r1.body), "a string body is created by undici with the patched global");
    assert.is(r1.body, r1.body, "same object on every access");
    assert.is(await new Response(r1.body as unknown as BodyInit).text(), "text body");

    const r2 = new Response(new Blob(["blob ", "body"]));
    const body2 = r2.body!;
    assert.ok(isOurs(body2), "a Blob body (native stream) comes back as a shell");
    assert.is(r2.body, body2, "the shell is cached");
    assert.not.ok(r2.bodyUsed, "creating the shell does not use the body");
    const chunks: string[] = [];
    for await (const chunk of body2 as unknown as AsyncIterable<Uint8Array>) {
      chunks.push(dec.decode(chunk, { stream: true }));
    }
    assert.is(chunks.join(""), "blob body");
    assert.ok(r2.bodyUsed);

    // The shell is of the native stream's kind: BYOB readers for a native byte stream, as natively.
    const nativeDefault = new Native.ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(enc.encode("default"));
        c.close();
      },
    });
    const r4 = new Response(nativeDefault as unknown as BodyInit);
    assert.ok(isOurs(r4.body));
    assert.throws(() => (r4.body as unknown as fuse.ReadableStream<Uint8Array>).getReader({ mode: "byob" }), TypeError);
    assert.is(await r4.text(), "default");
    const native = new Native.ReadableStream({
      type: "bytes",
      start(c) {
        c.enqueue(enc.encode("byob "));
        c.enqueue(enc.encode("reader"));
        c.close();
      },
    });
    const r3 = new Response(native as unknown as BodyInit);
    const reader = (r3.body as unknown as fuse.ReadableStream<Uint8Array>).getReader({ mode: "byob" });
    let text = "";
    for (;;) {
      const { value, done } = await reader.read(new Uint8Array(4));
      if (done) break;
      text += dec.decode(value, { stream: true });
    }
    assert.is(text, "byob reader");
  });
});

nodeTest(
  "Response.clone() and Request.clone() of fusestreams bodies, undici-made bodies and fetch() responses",
  async () => {
    // In the full suite undici has loaded long before this test (Node.js >= 26 then tees with its own
    // ReadableStreamTee, which rejects our streams): clone() must work all the same.
    assert.ok(undiciWasLoaded !== undefined);
    const server = createServer((req, res) => {
      res.setHeader("x-test", "clone");
      res.end(`served ${req.url}`);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      await patched(async () => {
        const r = new Response(oursOf("tw", "ice") as unknown as BodyInit);
        const c = r.clone();
        assert.ok(isOurs(r.body) && isOurs(c.body));
        assert.is(await c.text(), "twice");
        assert.is(await r.text(), "twice");
        assert.throws(() => r.clone(), TypeError, "a used body cannot be cloned");

        // A default stream's chunks: the clone gets copies, not the same Uint8Array objects.
        const shared = enc.encode("same");
        const d = new Response(
          new fuse.ReadableStream<Uint8Array>({
            start(ctl) {
              ctl.enqueue(shared);
              ctl.close();
            },
          }) as unknown as BodyInit,
        );
        const dc = d.clone();
        const [a, b] = await Promise.all([d.body!.getReader().read(), dc.body!.getReader().read()]);
        assert.is(dec.decode(a.value), "same");
        assert.is(dec.decode(b.value), "same");
        assert.ok(a.value !== b.value, "branch chunks are distinct objects");

        const s = new Response("string body", { status: 201, statusText: "Made", headers: { "x-a": "1" } });
        const sc = s.clone();
        assert.is(sc.status, 201);
        assert.is(sc.statusText, "Made");
        assert.is(sc.headers.get("x-a"), "1");
        assert.is(await sc.text(), "string body");
        assert.is(await s.text(), "string body");

        const fetched = await fetch(`http://127.0.0.1:${port}/a?b`);
        const fc = fetched.clone();
        assert.is(fc.url, fetched.url);
        assert.is(fc.type, fetched.type);
        assert.is(fc.redirected, false);
        assert.is(fc.headers.get("x-test"), "clone");
        assert.is(await fc.text(), "served /a?b");
        assert.is(await fetched.text(), "served /a?b");

        const req = new Request(`http://127.0.0.1:${port}/post`, {
          method: "POST",
          body: oursOf("request ", "body") as unknown as BodyInit,
          headers: { "x-r": "2" },
          duplex: "half",
        } as RequestInit);
        const rc = req.clone();
        assert.is(rc.method, "POST");
        assert.is(rc.url, req.url);
        assert.is(rc.headers.get("x-r"), "2");
        assert.is(await rc.text(), "request body");
        assert.is(await req.text(), "request body");
      });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  },
);

nodeTest(
  "Response.clone() and Request.clone() of native bodies (a native stream, made before or while patched): both sides read whole",
  async () => {
    const nativeBody = () =>
      new Native.ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(enc.encode("native "));
          c.enqueue(enc.encode("body"));
          c.close();
        },
      });
    const before = new Response(nativeBody());
    await patched(async () => {
      for (
        const [what, r] of [["made before the patch", before], [
          "made while patched",
          new Response(nativeBody()),
        ]] as const
      ) {
        const c = r.clone();
        assert.equal([await r.text(), await c.text()], ["native body", "native body"], `${what}: original first`);
      }
      const r = new Response(nativeBody());
      const c = r.clone();
      assert.equal([await c.text(), await r.text()], ["native body", "native body"], "the clone first");
      const req = new Request(
        "http://127.0.0.1/",
        { method: "POST", body: nativeBody(), duplex: "half" } as RequestInit,
      );
      const rc = req.clone();
      assert.equal([await req.text(), await rc.text()], ["native body", "native body"], "a Request");
    });
  },
);

nodeTest(
  "a body locked by a reader of response.body: text(), arrayBuffer(), blob(), clone() and a pipe as unpatched",
  async () => {
    const bytes = () => enc.encode("some body");
    const nativeBody = () =>
      new Native.ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(bytes());
          c.close();
        },
      });
    const kinds: [string, () => unknown, () => unknown][] = [
      ["a string body", () => "some body", () => "some body"],
      ["a native stream body", nativeBody, nativeBody],
      ["a body of ours", nativeBody, () => oursOf("some body")],
    ];
    for (const [kind, unpatchedBody, patchedBody] of kinds) {
      const expected = await lockedBodyOutcomes(Response, unpatchedBody);
      assert.match(expected["locked text()"]!, /Error/, `${kind}: a locked body cannot be read`);
      let actual: Record<string, string> = {};
      await patched(async () => {
        actual = await lockedBodyOutcomes(Response, patchedBody);
      });
      assert.equal(actual, expected, kind);
    }
  },
);

/**
 * Runs Response.clone() of a fusestreams body with the patch on, in a process of its own, so that whether
 * undici was loaded before the first patch is decided by the test and not by the test files before it:
 * "patch-first" patches in a fresh process, "undici-first" uses a Response (loading undici) before patching.
 */
function cloneInOwnProcess(
  order: "patch-first" | "undici-first",
): { clone?: string; original?: string; ours?: boolean; strings?: string[]; threw?: string } {
  // The adapter this file imports: the TypeScript source, or (npm test's dist run, bundled .mjs) the package.
  const adapter = import.meta.url.endsWith(".ts")
    ? new URL("../../adapters/node/mod.ts", import.meta.url).href
    : import.meta.resolve("fusestreams/node");
  const child = `
    const fuse = await import(${JSON.stringify(adapter)});
    if (${JSON.stringify(order)} === "undici-first") await new Response("warm").text();
    fuse.patchGlobalWebStreams();
    const out = {};
    try {
      const enc = new TextEncoder();
      const body = new fuse.ReadableStream({ start(c) { c.enqueue(enc.encode("tw")); c.enqueue(enc.encode("ice")); c.close(); } });
      const r = new Response(body);
      const c = r.clone();
      out.ours = Object.getPrototypeOf(c.body) === fuse.ReadableStream.prototype;
      out.clone = await c.text();
      out.original = await r.text();
      const s = new Response("string body");
      out.strings = [await s.clone().text(), await s.text()];
    } catch (e) {
      out.threw = String(e && e.stack || e).split("\\n").slice(0, 3).join(" | ");
    } finally {
      fuse.unpatchGlobalWebStreams();
    }
    console.log(JSON.stringify(out));
  `;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", child], { encoding: "utf8", timeout: 30_000 });
  const line = r.stdout.trim().split("\n").at(-1) ?? "";
  try {
    return JSON.parse(line) as ReturnType<typeof cloneInOwnProcess>;
  } catch {
    return { threw: `the child process printed no result (exit ${r.status}): ${r.stderr.slice(0, 500)}` };
  }
}

nodeTest(
  "patch then unpatch in a fresh process leaves every global's descriptor as it was (Node.js 20: lazy accessors), but what loading undici does",
  () => {
    const adapter = import.meta.url.endsWith(".ts")
      ? new URL("../../adapters/node/mod.ts", import.meta.url).href
      : import.meta.resolve("fusestreams/node");
    const child = `
    const fuse = await import(${JSON.stringify(adapter)});
    const snap = () => new Map(Reflect.ownKeys(globalThis).map((k) => {
      const d = Object.getOwnPropertyDescriptor(globalThis, k);
      return [k, [d.value, d.get, d.set, d.writable, d.enumerable, d.configurable]];
    }));
    const before = snap();
    fuse.patchGlobalWebStreams();
    fuse.unpatchGlobalWebStreams();
    const after = snap();
    const changed = [];
    for (const k of new Set([...before.keys(), ...after.keys()])) {
      const a = before.get(k), b = after.get(k);
      if (!a || !b || a.some((v, i) => !Object.is(v, b[i]))) changed.push(String(k));
    }
    console.log(JSON.stringify(changed));
  `;
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", child], { encoding: "utf8", timeout: 30_000 });
    const changed = JSON.parse(r.stdout.trim().split("\n").at(-1) || "null") as string[] | null;
    assert.ok(changed !== null, `the child printed no result: ${r.stderr.slice(0, 500)}`);
    // Loading undici (the patch does it first, as the first fetch() would) adds its dispatcher symbol and, on
    // Node.js 20, turns the lazy globals it reads into plain values (README, the Node adapter's patch).
    const undiciLoad = /^(Symbol\(undici\.globalDispatcher\.\d+\)|TextEncoder|TextDecoder|File)$/;
    assert.equal(changed!.filter((k) => !undiciLoad.test(k)), [], `on Node.js ${process.version}`);
  },
);

function assertClonesFusestreamsBody(order: "patch-first" | "undici-first"): void {
  const out = cloneInOwnProcess(order);
  assert.is(out.threw, undefined, `Response.clone() of a fusestreams body threw (${order})`);
  assert.is(out.clone, "twice", "the clone reads the whole body");
  assert.is(out.original, "twice", "so does the original");
  assert.ok(out.ours, "the clone's body is a fusestreams stream (a tee branch of ours)");
  assert.equal(out.strings, ["string body", "string body"], "a string body clones too");
}

// The test above runs in whatever state the test files before it left undici in (loaded, in the full suite);
// these two decide it, each in a fresh process.
nodeTest("Response.clone() of a fusestreams body, patched before undici loads (own process)", () => {
  assertClonesFusestreamsBody("patch-first");
});

nodeTest("Response.clone() of a fusestreams body, undici loaded before the patch (own process)", () => {
  assertClonesFusestreamsBody("undici-first");
});

nodeTest("native streams pipe into fusestreams streams and back (TextDecoderStream & co. stay native)", async () => {
  await patched(async () => {
    const text = "fusestreams ".repeat(500);
    assert.is(g["CompressionStream"], fuse.CompressionStream, "CompressionStream is ours while patched");
    let out = "";
    const source = new (g["ReadableStream"] as typeof fuse.ReadableStream<Uint8Array>)({
      start(c) {
        c.enqueue(enc.encode(text.slice(0, 1000)));
        c.enqueue(enc.encode(text.slice(1000)));
        c.close();
      },
    });
    const tail = source
      .pipeThrough(new CompressionStream("gzip") as unknown as fuse.TransformStream<Uint8Array, Uint8Array>)
      .pipeThrough(new DecompressionStream("gzip") as unknown as fuse.TransformStream<Uint8Array, Uint8Array>)
      .pipeThrough(new TextDecoderStream() as unknown as fuse.TransformStream<Uint8Array, string>);
    assert.ok(isOurs(tail), "the chain stays fusestreams");
    await tail.pipeTo(
      new fuse.WritableStream<string>({
        write(chunk) {
          out += chunk;
        },
      }),
    );
    assert.is(out, text);

    // native source (TextEncoderStream's readable) -> fusestreams transform -> native writable
    const encoder = new TextEncoderStream();
    const w = encoder.writable.getWriter();
    void w.write("abc");
    void w.close();
    const got: number[] = [];
    await encoder.readable
      .pipeThrough(
        new fuse.TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, c) {
            c.enqueue(chunk.map((b) => b + 1));
          },
        }) as unknown as TransformStream<Uint8Array, Uint8Array>,
      )
      .pipeTo(
        new Native.WritableStream<Uint8Array>({
          write(chunk) {
            got.push(...chunk);
          },
        }) as unknown as WritableStream<Uint8Array>,
      );
    assert.equal(got, [98, 99, 100]);
  });
});

nodeTest("a native stream piped into fusestreams is read at most one chunk ahead of a stalled consumer", async () => {
  await patched(async () => {
    let produced = 0;
    // highWaterMark 0: the native stream reads its source only when asked, so `produced` counts native reads.
    const native = new Native.ReadableStream<number>(
      {
        pull(c) {
          c.enqueue(produced++);
          if (produced === 100) c.close();
        },
      },
      { highWaterMark: 0 },
    );
    const got: number[] = [];
    let release!: () => void;
    const stalled = new Promise<void>((resolve) => (release = resolve));
    const done = (native as unknown as fuse.ReadableStream<number>).pipeTo(
      new fuse.WritableStream<number>(
        {
          async write(chunk) {
            got.push(chunk);
            if (chunk === 4) await stalled;
          },
        },
        { highWaterMark: 1 },
      ),
    );
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(got, [0, 1, 2, 3, 4]);
    // At most: chunk 4 in the sink, one in its queue, one held by the pipe, one in the shell's queue.
    assert.ok(produced <= 8, `${produced} chunks read from the native stream while the sink was stalled`);
    release();
    await done;
    assert.equal(got, Array.from({ length: 100 }, (_, i) => i));
    assert.is(produced, 100);
  });
});

nodeTest("pipes across the boundary propagate errors with identity", async () => {
  await patched(async () => {
    const boom = new Error("sink failed");
    const nativeSink = new Native.WritableStream({
      write() {
        throw boom;
      },
    });
    let cancelled: unknown;
    const source = new fuse.ReadableStream<number>({
      pull(c) {
        c.enqueue(1);
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    await source.pipeTo(nativeSink as unknown as fuse.WritableStream<number>).then(
      () => assert.unreachable(),
      (e: unknown) => assert.is(e, boom),
    );
    assert.is(cancelled, boom, "the source was cancelled with the sink's error");

    const oops = new Error("source failed");
    let aborted: unknown;
    const nativeSource = new Native.ReadableStream({
      start(c) {
        c.error(oops);
      },
    });
    await nativeSource
      .pipeTo(
        new fuse.WritableStream({
          abort(reason) {
            aborted = reason;
          },
        }) as unknown as WritableStream,
      )
      .then(
        () => assert.unreachable(),
        (e: unknown) => assert.is(e, oops),
      );
    assert.is(aborted, oops);
  });
});

/** A Response over a native byte stream with the given parts; `hooks` sees the native cancel / error. */
function nativeBodyResponse(parts: string[], hooks: { cancelled?: (r: unknown) => void; error?: unknown } = {}) {
  let i = 0;
  const native = new Native.ReadableStream({
    type: "bytes",
    pull(c: ReadableByteStreamController) {
      if (i < parts.length) c.enqueue(enc.encode(parts[i++]!));
      else if (hooks.error !== undefined) c.error(hooks.error);
      else c.close();
    },
    cancel(reason: unknown) {
      hooks.cancelled?.(reason);
    },
  });
  return new Response(native as unknown as BodyInit);
}

nodeTest("a native body piped while untouched: same bytes, locked during the pipe, closed and used after", async () => {
  await patched(async () => {
    const response = nativeBodyResponse(["na", "tive ", "body"]);
    const body = response.body as unknown as fuse.ReadableStream<Uint8Array>;
    let text = "";
    let lockedInside = false;
    const piped = body
      .pipeThrough(
        new fuse.TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, c) {
            lockedInside ||= body.locked;
            c.enqueue(chunk);
          },
        }),
      )
      .pipeTo(new fuse.WritableStream({ write: (chunk) => void (text += dec.decode(chunk, { stream: true })) }));
    assert.ok(body.locked, "the body is locked by the pipe");
    await piped;
    assert.is(text, "native body");
    assert.ok(lockedInside);
    assert.not.ok(body.locked, "unlocked once the pipe is done");
    const reader = body.getReader();
    assert.is(await reader.closed, undefined, "the body is closed");
    assert.ok((await reader.read()).done);
    assert.ok(response.bodyUsed);
    // A body read once by a reader is no longer handed over: the pipe reads the byte shell itself.
    const second = nativeBodyResponse(["a", "b", "c"]);
    const body2 = second.body as unknown as fuse.ReadableStream<Uint8Array>;
    const r2 = body2.getReader({ mode: "byob" });
    const first = await r2.read(new Uint8Array(8));
    assert.is(dec.decode(first.value), "a");
    r2.releaseLock();
    let rest = "";
    await body2.pipeTo(new fuse.WritableStream({ write: (chunk) => void (rest += dec.decode(chunk)) }));
    assert.is(rest, "bc");
  });
});

nodeTest("a native body piped while untouched: errors and cancels keep their identity both ways", async () => {
  await patched(async () => {
    const boom = new Error("upstream failed");
    const failing = nativeBodyResponse(["x"], { error: boom });
    const body = failing.body as unknown as fuse.ReadableStream<Uint8Array>;
    const err = await body.pipeTo(new fuse.WritableStream()).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.is(err, boom, "the pipe rejects with the native body's error");
    assert.is(
      await body.getReader().closed.then(() => undefined, (e: unknown) => e),
      boom,
      "the body is errored with it",
    );

    let cancelled: unknown;
    const sinkError = new Error("sink failed");
    const cancelledBody = nativeBodyResponse(["a", "b", "c", "d"], { cancelled: (r) => (cancelled = r) });
    const body2 = cancelledBody.body as unknown as fuse.ReadableStream<Uint8Array>;
    const err2 = await body2
      .pipeTo(
        new fuse.WritableStream({
          write() {
            throw sinkError;
          },
        }),
      )
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    assert.is(err2, sinkError);
    assert.is(cancelled, sinkError, "the native body was cancelled with the sink's error");
    assert.ok((await body2.getReader().read()).done, "the body is closed after the cancel");

    // preventCancel: the body is read by the pipe itself and stays readable after it.
    const kept = nativeBodyResponse(["1", "2", "3"]);
    const body3 = kept.body as unknown as fuse.ReadableStream<Uint8Array>;
    const controller = new AbortController();
    let seen = "";
    await body3
      .pipeTo(
        new fuse.WritableStream({
          write(chunk) {
            seen += dec.decode(chunk);
            controller.abort();
          },
        }),
        { preventCancel: true, signal: controller.signal },
      )
      .catch(() => {});
    const reader = body3.getReader();
    let rest = "";
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += dec.decode(r.value);
    assert.is(seen + rest, "123", "nothing lost, nothing read twice");
  });
});

nodeTest(
  "a native body piped while untouched: an abort signal cancels the native body and aborts the sink with its reason",
  async () => {
    await patched(async () => {
      // Aborted mid-stream, after the first chunk reached the sink.
      let cancelled: unknown;
      let aborted: unknown;
      const response = nativeBodyResponse(["a", "b", "c", "d"], { cancelled: (r) => (cancelled = r) });
      const body = response.body as unknown as fuse.ReadableStream<Uint8Array>;
      const controller = new AbortController();
      const reason = new Error("stop");
      let seen = "";
      const err = await body
        .pipeThrough(new fuse.TransformStream<Uint8Array, Uint8Array>(), { signal: controller.signal })
        .pipeTo(
          new fuse.WritableStream<Uint8Array>({
            write(chunk) {
              seen += dec.decode(chunk);
              controller.abort(reason);
            },
            abort(r) {
              aborted = r;
            },
          }),
        )
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      assert.is(err, reason, "the pipe chain rejects with the abort reason");
      assert.is(cancelled, reason, "the native body was cancelled with the abort reason");
      assert.is(aborted, reason, "the sink was aborted with it (through the transform)");
      assert.ok(seen.length >= 1 && "abcd".startsWith(seen), `read a prefix only: ${seen}`);
      assert.not.ok(body.locked, "the body is unlocked after the pipe");
      assert.ok((await body.getReader().read()).done, "the body is closed after the cancel");
      assert.ok(response.bodyUsed);

      // A signal aborted before the pipe starts: nothing is read, the native body is cancelled.
      let cancelled2: unknown;
      let pulled = false;
      const early = new AbortController();
      early.abort(reason);
      const native = new Native.ReadableStream({
        type: "bytes",
        pull(c: ReadableByteStreamController) {
          pulled = true;
          c.enqueue(enc.encode("x"));
        },
        cancel(r: unknown) {
          cancelled2 = r;
        },
      });
      const response2 = new Response(native as unknown as BodyInit);
      const body2 = response2.body as unknown as fuse.ReadableStream<Uint8Array>;
      const err2 = await body2.pipeTo(new fuse.WritableStream(), { signal: early.signal }).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.is(err2, reason);
      assert.is(cancelled2, reason);
      assert.not.ok(pulled, "nothing was read from the native body");
      assert.not.ok(body2.locked);
      assert.ok(response2.bodyUsed);

      // An invalid signal: the pipe rejects and the body stays untouched (still readable, not used).
      const response3 = nativeBodyResponse(["ok"]);
      const body3 = response3.body as unknown as fuse.ReadableStream<Uint8Array>;
      const err3 = await body3.pipeTo(new fuse.WritableStream(), { signal: {} as AbortSignal }).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.instance(err3, TypeError);
      assert.not.ok(body3.locked);
      assert.not.ok(response3.bodyUsed);
      assert.is(await response3.text(), "ok");
    });
  },
);

nodeTest(
  "a native body piped while untouched: an error after several chunks reaches the sink's abort and the body",
  async () => {
    await patched(async () => {
      const boom = new Error("failed mid-stream");
      const response = nativeBodyResponse(["1", "2", "3"], { error: boom });
      const body = response.body as unknown as fuse.ReadableStream<Uint8Array>;
      let seen = "";
      let aborted: unknown;
      const err = await body
        .pipeThrough(
          new fuse.TransformStream<Uint8Array, Uint8Array>({
            transform(chunk, c) {
              c.enqueue(chunk);
            },
          }),
        )
        .pipeTo(
          new fuse.WritableStream<Uint8Array>({
            write(chunk) {
              seen += dec.decode(chunk);
            },
            abort(r) {
              aborted = r;
            },
          }),
        )
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      assert.is(err, boom);
      assert.is(aborted, boom);
      assert.ok("123".startsWith(seen), `chunks in order: ${seen}`);
      assert.not.ok(body.locked);
      assert.is(
        await body.getReader().closed.then(() => undefined, (e: unknown) => e),
        boom,
        "the body is errored with it",
      );
      assert.ok(response.bodyUsed);
    });
  },
);

nodeTest("node:stream Readable/Writable/Duplex fromWeb accept fusestreams streams; toWeb returns them", async () => {
  await patched(async () => {
    const readable = Readable.fromWeb(oursOf("from", "Web") as unknown as import("node:stream/web").ReadableStream);
    const chunks: Buffer[] = [];
    for await (const chunk of readable) chunks.push(chunk as Buffer);
    assert.is(Buffer.concat(chunks).toString(), "fromWeb");

    const web = Readable.toWeb(Readable.from([Buffer.from("to"), Buffer.from("Web")]));
    assert.ok(isOurs(web));
    assert.is(await new Response(web as unknown as BodyInit).text(), "toWeb");

    let written = "";
    const writable = Writable.fromWeb(
      new fuse.WritableStream<Uint8Array>({
        write(chunk) {
          written += dec.decode(chunk);
        },
      }) as unknown as import("node:stream/web").WritableStream,
    );
    await new Promise<void>((resolve) => writable.end("written", () => resolve()));
    assert.is(written, "written");

    const pair = new fuse.TransformStream<Uint8Array, Uint8Array>();
    const duplex = Duplex.fromWeb(pair as unknown as Parameters<typeof Duplex.fromWeb>[0]);
    duplex.end("duplex");
    const out: Buffer[] = [];
    for await (const chunk of duplex) out.push(chunk as Buffer);
    assert.is(Buffer.concat(out).toString(), "duplex");
  });
});

test.run();
