/**
 * The workerd benchmark worker (bench/edge/run.ts bundles it with the edge entry and runs it in miniflare).
 * One script, three roles, chosen by the route:
 *
 *   /prepare [scenario, iters, n]      (bench) makes fresh source chunks for the next /run, untimed
 *   /run [scenario, impl, iters, n]    (bench) runs `iters` iterations of a scenario; the harness times the
 *                                      whole request. impl "ours": the edge adapter's global patch is put on
 *                                      for the request and taken off after it; "native": no patch
 *   /source [n]                        (source) a body of n 1 KiB chunks from a native stream, for fetch()
 *   /app [n, t]                        (app) a route: a stream of n chunks through t transforms (default 3)
 *                                      returned as the response body, with the global classes; in the app worker
 *                                      whose IMPL binding is "ours" the patch is on (from its first request)
 *
 * Scenarios (1 KiB chunks, `n` per iteration; every iteration checks its byte count and checksum):
 *   response-forward  new Response(native byte stream).body → 1 transform → WritableStream
 *   fetch-3           fetch() (to the source worker) → 3 transforms → WritableStream
 *   response-text     new Response(new ReadableStream(…)).text()
 *   route-3           the app worker's route streams 3 transforms; read here with arrayBuffer()
 *   route-0           the same route returning the source itself (no transforms)
 *   html-text         4,000 HTML strings (ReadableStream.from) → 3 transforms → TextEncoderStream →
 *                     new Response(s).arrayBuffer() (bench/real's pipe-html)
 *   html-gzip         issue 25's pipeline with the global classes: 4,000 HTML strings (ReadableStream.from) → 3
 *                     transforms → TextEncoderStream → CompressionStream("gzip") → new Response(s).arrayBuffer()
 *   gunzip-1k         gzip of 1 MiB of text in 1 KiB chunks (ReadableStream.from) → DecompressionStream("gzip")
 *                     → new Response(s).arrayBuffer()
 *   html-gzip-ncs,    the same, but `ours` keeps workerd's own CompressionStream / DecompressionStream while
 *   gunzip-1k-ncs     patched (what the patch would give if it left them alone); `native` is as above
 *   gunzip-blob       the same gzip as a native Blob stream → DecompressionStream("gzip") → Response.arrayBuffer()
 *   gunzip-blob-read  the same, read with a reader of the global class (for await)
 *   gunzip-body       new Response(gzip).body → DecompressionStream("gzip") → Response.arrayBuffer()
 *   gzip-blob         1 MiB of text as a native Blob stream → CompressionStream("gzip") → Response.arrayBuffer()
 * @module
 */
import * as edge from "../../adapters/edge/mod.ts";
import * as edgeAlt from "./alt.ts";
import { type Data, freshChunks, makeData } from "../lib/catalog.ts";
import { Tally } from "../lib/tally.ts";
import { checkHtmlText, checksum, chunksOf, htmlGzip, htmlText, textBytes } from "../scenarios/compression.ts";

type Bytes = Uint8Array<ArrayBuffer>;

/** What a worker's env holds (bindings set by bench/edge/run.ts). */
interface Env {
  IMPL?: string;
  APP_OURS?: { fetch(url: string): Promise<Response> };
  APP_NATIVE?: { fetch(url: string): Promise<Response> };
  APP_ALT?: { fetch(url: string): Promise<Response> };
}

/** The edge entry implementation `impl` patches with (`alt`: the --alt checkout's). */
function entryOf(impl: string | undefined): typeof edge {
  return impl === "alt" ? edgeAlt : edge;
}

const NativeRS = globalThis.ReadableStream;
const NativeCS = globalThis.CompressionStream;
const NativeDS = globalThis.DecompressionStream;

/** The compression scenarios' data: 1 MiB of text, its gzip (made once, by workerd's own stream). */
let gunzipData: { chunks: Bytes[]; expect: string } | undefined;
async function gunzipInput(): Promise<{ chunks: Bytes[]; expect: string }> {
  if (gunzipData !== undefined) return gunzipData;
  const text = textBytes(1024 * 1024);
  const gz = new Uint8Array(
    await new Response(new Blob([text]).stream().pipeThrough(new NativeCS("gzip"))).arrayBuffer(),
  );
  return gunzipData = { chunks: chunksOf(gz, 1024), expect: checksum([text]) };
}

/** The classes of a compression scenario: the globals, with workerd's own codec classes for the -ncs rows. */
function compressionClasses(scenario: string): import("../scenarios/compression.ts").CompressionClasses {
  const ncs = scenario.endsWith("-ncs");
  return {
    ReadableStream: ReadableStream as unknown as import("../../mod.ts").ReadableStreamConstructor,
    TransformStream,
    CompressionStream: ncs ? NativeCS : CompressionStream,
    DecompressionStream: ncs ? NativeDS : DecompressionStream,
    TextEncoderStream,
  };
}
const SIZE = 1024;

function data(n: number): Data {
  return makeData(n * SIZE, SIZE);
}

/** Chunks prepared by /prepare for the next /run, one array per iteration. */
let prepared: Bytes[][] = [];

function identity(): TransformStream<Bytes, Bytes> {
  return new TransformStream<Bytes, Bytes>({
    transform(chunk, controller) {
      controller.enqueue(chunk);
    },
  });
}

function sink(tally: Tally): WritableStream<Bytes> {
  return new WritableStream<Bytes>({
    write(chunk) {
      tally.add(chunk);
    },
  });
}

/** A pull source over `chunks` with the global class (ours while patched). */
function globalSource(chunks: readonly Bytes[]): ReadableStream<Bytes> {
  let i = 0;
  return new ReadableStream<Bytes>({
    pull(c) {
      if (i === chunks.length) c.close();
      else c.enqueue(chunks[i++]!);
    },
  });
}

async function iteration(
  scenario: string,
  impl: string,
  n: number,
  fresh: Bytes[] | undefined,
  env: Env,
  origin: string,
): Promise<void> {
  const d = data(n);
  const tally = new Tally();
  if (scenario === "response-forward") {
    let i = 0;
    const chunks = fresh!;
    const native = new NativeRS({
      type: "bytes",
      pull(c) {
        if (i === chunks.length) {
          c.close();
          c.byobRequest?.respond(0);
        } else c.enqueue(chunks[i++]!);
      },
    });
    const body = new Response(native).body as ReadableStream<Bytes>;
    await body.pipeThrough(identity()).pipeTo(sink(tally));
  } else if (scenario === "fetch-3") {
    const res = await fetch(`${origin}/source?n=${n}`);
    await (res.body as ReadableStream<Bytes>).pipeThrough(identity()).pipeThrough(identity()).pipeThrough(identity())
      .pipeTo(sink(tally));
  } else if (scenario === "response-text") {
    tally.addAscii(await new Response(globalSource(d.chunks) as ReadableStream<Uint8Array>).text());
  } else if (scenario === "html-text") {
    checkHtmlText(await htmlText(compressionClasses(scenario)));
    return;
  } else if (scenario.startsWith("html-gzip")) {
    const gz = await htmlGzip(compressionClasses(scenario));
    const back = await new Response(new Blob([gz]).stream().pipeThrough(new NativeDS("gzip"))).arrayBuffer();
    if (back.byteLength < 300_000) throw new Error(`${scenario} (${impl}): ${back.byteLength} bytes back`);
    return;
  } else if (scenario.startsWith("gunzip-blob") || scenario === "gunzip-body" || scenario === "gzip-blob") {
    // Native sources through the global codec classes (NATIVE-CODEC-THROUGH while patched).
    const input = await gunzipInput();
    const c = compressionClasses(scenario);
    const source = scenario === "gunzip-body"
      ? new Response(new Blob(input.chunks)).body!
      : new Blob(scenario === "gzip-blob" ? data(n).chunks : input.chunks).stream();
    const out = source.pipeThrough(
      scenario === "gzip-blob"
        ? new c.CompressionStream("gzip") as unknown as ReadableWritablePair<Uint8Array, Uint8Array>
        : new c.DecompressionStream("gzip") as unknown as ReadableWritablePair<Uint8Array, Uint8Array>,
    );
    if (scenario === "gzip-blob") {
      const gz = new Uint8Array(await new Response(out as unknown as BodyInit).arrayBuffer());
      const back = new Uint8Array(
        await new Response(new Blob([gz]).stream().pipeThrough(new NativeDS("gzip"))).arrayBuffer(),
      );
      tally.add(back);
    } else if (scenario === "gunzip-blob-read") {
      const got: Bytes[] = [];
      for await (const chunk of out as unknown as AsyncIterable<Bytes>) got.push(chunk);
      if (checksum(got) !== input.expect) throw new Error(`${scenario} (${impl}): wrong bytes`);
      return;
    } else {
      const got = checksum([new Uint8Array(await new Response(out as unknown as BodyInit).arrayBuffer())]);
      if (got !== input.expect) throw new Error(`${scenario} (${impl}): ${got}, expected ${input.expect}`);
      return;
    }
  } else if (scenario.startsWith("gunzip-1k")) {
    const input = await gunzipInput();
    const c = compressionClasses(scenario);
    const out = c.ReadableStream.from(input.chunks).pipeThrough(
      new c.DecompressionStream("gzip") as unknown as ReadableWritablePair<Uint8Array, Uint8Array>,
    );
    const got = checksum([new Uint8Array(await new Response(out as unknown as BodyInit).arrayBuffer())]);
    if (got !== input.expect) throw new Error(`${scenario} (${impl}): ${got}, expected ${input.expect}`);
    return;
  } else if (scenario === "route-3" || scenario === "route-0") {
    const app = impl === "ours" ? env.APP_OURS : impl === "alt" ? env.APP_ALT : env.APP_NATIVE;
    const res = await app!.fetch(`${origin}/app?n=${n}&t=${scenario === "route-0" ? 0 : 3}`);
    tally.add(new Uint8Array(await res.arrayBuffer()));
  } else {
    throw new Error(`unknown scenario ${scenario}`);
  }
  tally.check(d.expect, `${scenario} (${impl})`);
}

let appPatched = false;

async function handle(request: Request, env: Env): Promise<Response> {
  const url = new URL(request.url);
  const q = (name: string, fallback: string): string => url.searchParams.get(name) ?? fallback;
  const n = Number(q("n", "1024"));
  switch (url.pathname) {
    case "/prepare": {
      const iters = Number(q("iters", "1"));
      prepared = q("scenario", "") === "response-forward"
        ? Array.from({ length: iters }, () => freshChunks(data(n)))
        : [];
      return new Response("ok");
    }
    case "/run": {
      const scenario = q("scenario", "");
      const impl = q("impl", "native");
      const iters = Number(q("iters", "1"));
      // route-* measure the app worker's patch; the client side here stays native for both.
      const patch = impl !== "native" && !scenario.startsWith("route-");
      if (patch) entryOf(impl).patchGlobalWebStreams();
      try {
        for (let k = 0; k < iters; k++) await iteration(scenario, impl, n, prepared[k], env, url.origin);
      } finally {
        if (patch) entryOf(impl).unpatchGlobalWebStreams();
      }
      prepared = [];
      return new Response(JSON.stringify({ iters, bytes: iters * data(n).bytes }));
    }
    case "/patch-cost": {
      const times = Number(q("times", "100"));
      for (let k = 0; k < times; k++) {
        edge.patchGlobalWebStreams();
        edge.unpatchGlobalWebStreams();
      }
      return new Response("ok");
    }
    case "/source": {
      const chunks = data(n).chunks;
      let i = 0;
      return new Response(
        new NativeRS<Bytes>({
          pull(c) {
            if (i === chunks.length) c.close();
            else c.enqueue(chunks[i++]!.slice());
          },
        }),
      );
    }
    case "/app": {
      if (env.IMPL !== "native" && !appPatched) {
        entryOf(env.IMPL).patchGlobalWebStreams();
        appPatched = true;
      }
      let body = globalSource(data(n).chunks);
      for (let k = Number(q("t", "3")); k > 0; k--) body = body.pipeThrough(identity());
      return new Response(body as ReadableStream<Uint8Array>);
    }
    default:
      return new Response(`no route ${url.pathname}`, { status: 404 });
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    try {
      return await handle(request, env);
    } catch (e) {
      return new Response(e instanceof Error ? (e.stack ?? e.message) : String(e), { status: 500 });
    }
  },
};
