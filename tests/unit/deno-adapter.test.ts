/**
 * Deno adapter (fusestreams/deno) on real Deno: the shared runtime-adapter cases with `Deno.serve` on
 * 127.0.0.1 (tests/shared/contract-suite.ts), plus Deno's own resource-backed streams:
 * `FsFile.readable` / `.writable` meeting ours, and native streams handed back untouched when they pass
 * through a fusestreams shell unread (so `Deno.serve` keeps sending them from the resource).
 *
 * On other runtimes only the "wrong runtime" case runs; the rest is skipped with a message.
 *
 *   deno run -A tests/unit/deno-adapter.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as deno from "../../adapters/deno/mod.ts";
import { isNativeByteStream } from "../../adapters/deno/byte-kind.ts";
import {
  bounded,
  collectText,
  counter,
  currentRuntime,
  type LoopbackServer,
  renderRows,
  runtimeAdapterSuite,
  type Serve,
  streamInit,
} from "../shared/contract-suite.ts";
import { uvuRegistrar } from "./uvu-registrar.ts";

/** The parts of the `Deno` namespace these tests use (Deno's types are not part of this project's tsconfig). */
interface DenoFile {
  readonly readable: ReadableStream<Uint8Array>;
  readonly writable: WritableStream<Uint8Array>;
  close(): void;
}
interface DenoNamespace {
  serve(
    options: { hostname: string; port: number; onListen?: (addr: { port: number }) => void },
    handler: (request: Request) => Response | Promise<Response>,
  ): { addr: { port: number }; finished: Promise<void>; shutdown(): Promise<void> };
  makeTempDir(): Promise<string>;
  writeFile(path: string, data: Uint8Array): Promise<void>;
  readFile(path: string): Promise<Uint8Array>;
  open(
    path: string,
    options?: { read?: boolean; write?: boolean; create?: boolean; truncate?: boolean },
  ): Promise<DenoFile>;
  remove(path: string, options?: { recursive?: boolean }): Promise<void>;
}

const Deno = (globalThis as unknown as { Deno?: DenoNamespace }).Deno;
const onDeno = currentRuntime === "Deno" && Deno !== undefined;

const serve: Serve | undefined = onDeno
  ? async (handler) => {
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler);
    const stopped: LoopbackServer = {
      url: `http://127.0.0.1:${server.addr.port}`,
      async stop() {
        await server.shutdown();
      },
    };
    return stopped;
  }
  : undefined;

runtimeAdapterSuite({ runtime: "Deno", adapter: deno.adapter, here: onDeno, serve, register: uvuRegistrar });

// ---- Deno's resource-backed streams

const NativeResponseBody = Object.getOwnPropertyDescriptor(Response.prototype, "body")!.get!;
const NativeRequestBody = Object.getOwnPropertyDescriptor(Request.prototype, "body")!.get!;
/** The body a Response or Request holds, as Deno's own getter returns it (whatever a patch does to `body`). */
const nativeBodyOf = (r: Response | Request): unknown =>
  (r instanceof Request ? NativeRequestBody : NativeResponseBody).call(r);

const denoTest = (name: string, fn: (d: DenoNamespace, dir: string) => Promise<void>): void => {
  if (!onDeno) {
    test.skip(`deno: ${name}`, () => undefined);
    return;
  }
  test(`deno: ${name}`, async () => {
    const dir = await Deno.makeTempDir();
    try {
      await bounded(fn(Deno, dir), name);
    } finally {
      deno.unpatchGlobalWebStreams();
      await Deno.remove(dir, { recursive: true });
    }
  });
};

async function tempFile(d: DenoNamespace, dir: string, text: string): Promise<string> {
  const path = `${dir}/page.html`;
  await d.writeFile(path, new TextEncoder().encode(text));
  return path;
}

denoTest("FsFile.readable pipes through ours; ours pipes into FsFile.writable (patch on)", async (d, dir) => {
  const text = renderRows(2000).join("");
  const path = await tempFile(d, dir, text);
  deno.patchGlobalWebStreams();
  const file = await d.open(path);
  const count = counter();
  assert.is(await collectText(file.readable.pipeThrough(count.stream)), text);
  assert.ok(count.chunks >= 1);

  const out = `${path}.copy`;
  const target = await d.open(out, { write: true, create: true, truncate: true });
  const source = await d.open(path);
  await source.readable.pipeThrough(counter().stream).pipeTo(target.writable);
  assert.is(new TextDecoder().decode(await d.readFile(out)), text, "file -> ours -> file");
});

denoTest(
  "a resource-backed stream passed through unread is handed back native (Response, toNativeReadableStream)",
  async (d, dir) => {
    const text = renderRows(500).join("");
    const path = await tempFile(d, dir, text);
    deno.patchGlobalWebStreams();
    const native = (await d.open(path)).readable;
    const first = new Response(native);
    assert.is(nativeBodyOf(first), native, "new Response(native) keeps the native stream");
    const shell = first.body!;
    assert.ok(shell instanceof deno.ReadableStream, "the body is seen through one of ours");
    const second = new Response(shell);
    assert.is(nativeBodyOf(second), native, "new Response(unread shell) holds the native stream itself");
    assert.ok(shell.locked, "the shell is used up");
    assert.is(await second.text(), text);

    const native2 = (await d.open(path)).readable;
    const shell2 = new Response(native2).body!;
    assert.is(
      deno.toNativeReadableStream(shell2),
      native2,
      "toNativeReadableStream(unread shell) is the native stream",
    );

    // read once: no longer handed back
    const shell3 = new Response((await d.open(path)).readable).body!;
    const reader = shell3.getReader();
    await reader.read();
    reader.releaseLock();
    assert.throws(() => new Response(shell3), (e: unknown) => e instanceof TypeError, "a disturbed shell is rejected");
  },
);

denoTest(
  "Deno.serve sends a file, echoes a request body and proxies a fetch body: exact bytes, native streams handed back",
  async (d, dir) => {
    const text = renderRows(1500).join("");
    const path = await tempFile(d, dir, text);
    deno.patchGlobalWebStreams();
    const handedBack: boolean[] = [];
    const server = await serve!(async (req) => {
      const url = new URL(req.url);
      if (url.pathname === "/file") return new Response((await d.open(path)).readable);
      if (url.pathname === "/echo") {
        const r = new Response(req.body);
        handedBack.push(nativeBodyOf(r) === nativeBodyOf(req));
        return r;
      }
      const upstream = await fetch(`${url.origin}/file`);
      const r = new Response(upstream.body);
      handedBack.push(nativeBodyOf(r) === nativeBodyOf(upstream));
      return r;
    });
    try {
      assert.is(await (await fetch(`${server.url}/file`)).text(), text, "file");
      const echoed = await fetch(`${server.url}/echo`, streamInit("POST", new Blob([text]).stream()));
      assert.is(await echoed.text(), text, "echo");
      assert.is(await (await fetch(`${server.url}/proxy`)).text(), text, "proxy");
      assert.equal(handedBack, [true, true], "the echoed and proxied bodies are the native streams themselves");
    } finally {
      await server.stop();
    }
  },
);

denoTest(
  "Deno.serve: a request body through one of our transforms, echoed and uploaded by fetch (BODY-NATIVE-FED): exact bytes",
  async () => {
    const text = renderRows(2500).join("");
    deno.patchGlobalWebStreams();
    const copy = () => new TransformStream<Uint8Array, Uint8Array>({ transform: (c, ctl) => ctl.enqueue(c.slice()) });
    const server = await serve!(async (req) => {
      const url = new URL(req.url);
      if (url.pathname === "/echo") return new Response(req.body!.pipeThrough(copy()));
      // a proxy: the request body through ours, uploaded to the echo route, its answer through ours again
      const upstream = await fetch(`${url.origin}/echo`, streamInit("POST", req.body!.pipeThrough(copy())));
      return new Response(upstream.body!.pipeThrough(copy()));
    });
    try {
      for (const path of ["/echo", "/relay"]) {
        const res = await fetch(`${server.url}${path}`, streamInit("POST", new Blob([text]).stream()));
        assert.is(await res.text(), text, path);
      }
    } finally {
      await server.stop();
    }
  },
);

denoTest(
  "resource-backed bodies read through our shells: several reads in flight, BYOB reads of the shell, exact bytes",
  async (d, dir) => {
    const text = renderRows(3000).join("");
    const path = await tempFile(d, dir, text);
    deno.patchGlobalWebStreams();
    const server = await serve!(async () => new Response((await d.open(path)).readable));
    try {
      // a default reader with 4 reads pending at once, again and again
      const reader = (await fetch(server.url)).body!.getReader();
      const parts: Uint8Array[] = [];
      for (;;) {
        const results = await Promise.all([reader.read(), reader.read(), reader.read(), reader.read()]);
        for (const r of results) if (!r.done) parts.push(r.value);
        if (results.some((r) => r.done)) break;
      }
      assert.is(new TextDecoder().decode(await new Blob(parts as BlobPart[]).arrayBuffer()), text, "concurrent reads");

      // a BYOB reader of the shell, small views
      const byob = (await fetch(server.url)).body!.getReader({ mode: "byob" });
      let got = "";
      const dec = new TextDecoder();
      let view = new Uint8Array(1000);
      for (;;) {
        const { done, value } = await byob.read(view);
        if (done) break;
        got += dec.decode(value, { stream: true });
        view = new Uint8Array(value.buffer);
      }
      assert.is(got + dec.decode(), text, "BYOB reads of the shell");

      // a file read through ours, chunks kept until the end (a reused buffer must never leak into them)
      const kept: Uint8Array[] = [];
      await (await d.open(path)).readable.pipeTo(
        new deno.WritableStream({ write: (c: Uint8Array) => void kept.push(c) }) as unknown as WritableStream<
          Uint8Array
        >,
      );
      assert.is(new TextDecoder().decode(await new Blob(kept as BlobPart[]).arrayBuffer()), text, "file chunks kept");
    } finally {
      await server.stop();
    }
  },
);

denoTest("DENO-BYTE-KIND answers as a BYOB reader would, for Deno's own streams of every kind", async (d, dir) => {
  const path = await tempFile(d, dir, "some text");
  const NativeReadable = globalThis.ReadableStream;
  const probe = (s: ReadableStream): boolean => {
    try {
      s.getReader({ mode: "byob" }).releaseLock();
      return true;
    } catch {
      return false;
    }
  };
  const server = await serve!(() => new Response("served"));
  try {
    const streams: [string, ReadableStream][] = [
      ["a default stream", new NativeReadable()],
      ["a byte stream", new NativeReadable({ type: "bytes" })],
      ["a string body", new Response("x").body!],
      ["a Blob's stream", new Blob(["x"]).stream()],
      ["a file", (await d.open(path)).readable],
      ["a fetch body", (await fetch(server.url)).body!],
      ["a TransformStream's readable side", new TransformStream().readable],
    ];
    let bytes = 0;
    for (const [what, s] of streams) {
      const known = isNativeByteStream(s);
      assert.is(known, probe(s), what);
      if (known) bytes++;
      await s.cancel();
    }
    assert.ok(bytes >= 3 && bytes < streams.length, `both kinds seen (${bytes} byte streams)`);
  } finally {
    await server.stop();
  }
});

denoTest(
  "DENO-BYOB-POOL: chunks of a body read to its end stay intact while the next bodies reuse its buffers",
  async (d, dir) => {
    const texts = ["a", "b", "c"].map((letter, i) => renderRows(400 + 100 * i).join("").replaceAll("<", letter));
    const paths: string[] = [];
    for (const [i, text] of texts.entries()) {
      paths.push(`${dir}/body-${i}.html`);
      await d.writeFile(paths[i]!, new TextEncoder().encode(text));
    }
    deno.patchGlobalWebStreams();
    const kept: Uint8Array[][] = [];
    for (const path of paths) {
      const chunks: Uint8Array[] = [];
      // a request body (resource-backed) read to its end through its body shell
      const server = await serve!(async (req) => {
        const reader = req.body!.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          chunks.push(value);
        }
        return new Response("ok");
      });
      try {
        const file = await d.open(path);
        assert.is(await (await fetch(server.url, streamInit("POST", file.readable))).text(), "ok");
      } finally {
        await server.stop();
      }
      kept.push(chunks);
    }
    for (const [i, chunks] of kept.entries()) {
      assert.ok(chunks.length >= 1);
      const text = new TextDecoder().decode(await new Blob(chunks as BlobPart[]).arrayBuffer());
      assert.ok(text === texts[i], `body ${i} unchanged after the later bodies were read`);
    }
  },
);

denoTest(
  "Deno.serve and a body written one chunk per wake (Hono's stream() shape): exact bytes; a client gone mid-body cancels ours",
  async () => {
    deno.patchGlobalWebStreams();
    const enc = new TextEncoder();
    const rows = renderRows(400);
    /** Why the endless body's writes stopped (its write failed, or its readable side was cancelled). */
    let stopped: ((why: string) => void) | undefined;
    const ended = new Promise<string>((resolve) => (stopped = resolve));
    /**
     * A writer-fed TransformStream read by an async pull, as Hono's StreamingApi does: one chunk per wake;
     * `report` hears why its writes stopped.
     */
    const writerBody = (
      write: (w: WritableStreamDefaultWriter<Uint8Array>) => Promise<void>,
      report?: (why: string) => void,
    ) => {
      const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
      const reader = readable.getReader();
      const writer = writable.getWriter();
      void write(writer).then(() => writer.close(), (e: unknown) => report?.(`write failed: ${String(e)}`));
      return new ReadableStream<Uint8Array>({
        async pull(c) {
          const { done, value } = await reader.read();
          if (done) c.close();
          else c.enqueue(value);
        },
        cancel(reason) {
          report?.(`cancelled: ${String(reason)}`);
          return reader.cancel(reason);
        },
      });
    };
    const server = await serve!((req) => {
      if (new URL(req.url).pathname === "/rows") {
        return new Response(writerBody(async (w) => {
          for (const row of rows) await w.write(enc.encode(row));
        }));
      }
      return new Response(writerBody(async (w) => {
        for (let i = 0;; i++) {
          await w.write(enc.encode(`${i} `.repeat(100)));
          if (i % 64 === 63) await new Promise((r) => setTimeout(r, 1));
        }
      }, stopped));
    });
    try {
      assert.is(await (await fetch(`${server.url}/rows`)).text(), rows.join(""), "every row, in order, once");
      const endless = await fetch(`${server.url}/endless`);
      const reader = endless.body!.getReader();
      let bytes = 0;
      while (bytes < 256 * 1024) bytes += (await reader.read()).value!.byteLength;
      await reader.cancel("client gone");
      const why = await bounded(ended, "the endless body stops", 5_000);
      assert.ok(/^(cancelled|write failed)/.test(why), `ours stopped: ${why}`);
      assert.is(await (await fetch(`${server.url}/rows`)).text(), rows.join(""), "the server still answers whole");
    } finally {
      await server.stop();
    }
  },
);

test.run();
