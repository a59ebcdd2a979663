/**
 * Where Deno's own code makes a stream with the global `ReadableStream` and then works on it with its
 * internal stream operations, which fail on fusestreams streams ("Assertion failed"): Deno's body code
 * (ext/fetch/22_body.js) makes one of an iterable body (`ReadableStream.from(iterator)`, or a byte stream
 * for a Node.js `Readable`), of a body already consumed (`new ReadableStream()`, then disturbed and closed)
 * and of a null body's `textStream()`. While such code runs, the global is Deno's own class again, so Deno
 * gets the native stream it made natively.
 * @module
 */
import { isNativeReadable, isOurReadable, Native } from "../kit/natives.ts";
import type { PatchTransaction } from "../kit/patch-transaction.ts";

const g = globalThis as { ReadableStream: unknown };
const getOwn = Object.getOwnPropertyDescriptor;

/** Runs `call` with the global `ReadableStream` being Deno's own class, then puts back what was there. */
export function withNativeReadableStream<T>(call: () => T): T {
  const current = g.ReadableStream;
  g.ReadableStream = Native.ReadableStream;
  try {
    return call();
  } finally {
    g.ReadableStream = current;
  }
}

/**
 * Whether Deno's body code makes a stream of `body` itself: a sync or async iterable (a generator, an
 * array, a `Set`, a Node.js `Readable`) that is not a stream, a string or a buffer (Deno checks those
 * first). Blob, FormData and URLSearchParams bodies, iterable or not, never reach that code, so counting
 * them in only costs the swap.
 */
function madeIntoStreamByDeno(body: unknown): boolean {
  if (typeof body !== "object" || body === null || ArrayBuffer.isView(body)) return false;
  if (!(Symbol.asyncIterator in body) && !(Symbol.iterator in body)) return false;
  return !isOurReadable(body) && !isNativeReadable(body);
}

/**
 * The Deno adapter's `aroundBodyInit`: `new Response(body)`, `new Request(url, { body })` and
 * `fetch(url, { body })` with an iterable body run with Deno's own global class (see the module doc).
 */
export function aroundIterableBody<T>(body: unknown, call: () => T): T {
  return madeIntoStreamByDeno(body) ? withNativeReadableStream(call) : call();
}

/**
 * Step `deno-body-streams`: `Response.prototype.body` / `Request.prototype.body` of a used body (the
 * stream Deno makes for a consumed body when first asked) and `textStream()` (a null body's empty stream)
 * run with Deno's own global class. Runs after the shared `bodies` step, around the getter it defined.
 */
export function patchBodyStreams(tx: PatchTransaction): void {
  for (const name of ["Response", "Request"]) {
    const proto = (globalThis as unknown as Record<string, { prototype?: object } | undefined>)[name]?.prototype;
    if (proto === undefined) continue;
    const body = getOwn(proto, "body");
    const used = getOwn(proto, "bodyUsed")?.get;
    const get = body?.get;
    if (get !== undefined && used !== undefined) {
      tx.defineAccessor(
        proto,
        "body",
        function body(this: object): unknown {
          // A body not used yet is a native stream already, or one Deno makes with its internal constructor.
          if (!used.call(this)) return get.call(this);
          return withNativeReadableStream(() => get.call(this));
        } as (this: never) => unknown,
        body!.set as ((this: never, value: never) => void) | undefined,
      );
    }
    const textStream = (proto as { textStream?: unknown }).textStream;
    if (typeof textStream === "function" && getOwn(proto, "textStream") !== undefined) {
      tx.defineValue(
        proto,
        "textStream",
        {
          textStream(this: unknown): unknown {
            return withNativeReadableStream(() => (textStream as (this: unknown) => unknown).call(this));
          },
        }.textStream,
      );
    }
  }
}
