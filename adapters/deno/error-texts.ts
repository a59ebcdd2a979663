/**
 * Step `deno error texts`: while patched, our errors for failures Deno's own classes also report carry Deno's
 * texts (the type was already the same), so code and tests written against Deno's messages keep working. Where
 * Deno's own class can be made to fail synchronously, its text is taken from it when the patch is applied; the
 * rest are Deno 2.9's texts, each with the test of Deno's own suite that reads it. Unpatched, our texts stay.
 * @module
 */
import { type RuntimeErrorText, thrownBy, useRuntimeErrorTexts } from "../kit/core-errors.ts";
import { Native } from "../kit/natives.ts";
import type { PatchTransaction } from "../kit/patch-transaction.ts";

type From = (value: unknown) => unknown;

/** What Deno's own `ReadableStream.from(value)` throws, if it throws. */
function nativeFromError(value: unknown): unknown {
  const from = (Native.ReadableStream as unknown as { from?: From }).from;
  return typeof from === "function" ? thrownBy(() => Reflect.apply(from, Native.ReadableStream, [value])) : undefined;
}

/** What a byte controller of Deno's own throws for `enqueue("x")`. */
function nativeByteEnqueueError(): unknown {
  let error: unknown;
  new Native.ReadableStream({
    type: "bytes",
    start(controller) {
      error = thrownBy(() => controller.enqueue("x" as unknown as Uint8Array<ArrayBuffer>));
    },
  });
  return error;
}

const RULES: readonly RuntimeErrorText[] = [
  // ReadableStream.from() of a string (the 2026 standard's TypeError; Deno's streams_test
  // readableStreamFromWithStringThrows), of null or undefined, of a value that is not iterable: Deno words all
  // of them alike.
  { ours: /^ReadableStream\.from\(\) takes no string/, runtime: () => nativeFromError("") },
  { ours: /^ReadableStream\.from\(\) (takes|requires)/, runtime: () => nativeFromError(null) },
  // A byte stream's controller.enqueue() of a non-view (Deno's serve_test httpServerIncorrectChunkedResponse).
  { ours: /^chunk must be an ArrayBuffer view$/, runtime: nativeByteEnqueueError },
  // A body chunk that is not a BufferSource: Deno.serve's own text, from its resource op, which no probe can
  // reach at patch time (Deno's serve_test httpServerNonUint8ArrayResponseStreamDoesNotHang), then ours, which
  // names the value found. Deno's Response methods word it differently ("Cannot convert value to Uint8Array while
  // consuming the stream"); the body bridge cannot tell which consumer reads it, and Deno tests only Deno.serve's.
  {
    ours: /: a body stream chunk must be an ArrayBuffer or ArrayBufferView/,
    runtime: () => deno("expected typed ArrayBufferView"),
    thenOurs: true,
  },
  // Decompression failures of the zlib codec (adapters/kit/zlib-codec.ts), as Deno words them when the stream is
  // closed: gzip cut short or failing its trailer's check (Deno's streams_test
  // decompressionStreamInvalidGzipStillReported), deflate data that is invalid or cut short. Deno rejects
  // asynchronously, so no probe can run at patch time. (A bad gzip header keeps ours: "Invalid gzip header",
  // Deno's "invalid gzip header".)
  {
    ours: /^(The gzip stream ended early|Invalid gzip data: the (CRC32|length))/,
    runtime: () => deno("corrupt gzip stream does not have a matching checksum"),
  },
  {
    ours: /^(Invalid deflate(-raw)? data:|The deflate(-raw)? stream ended early)/,
    runtime: () => deno("corrupt deflate stream"),
  },
];

/** A TypeError with Deno 2.9's text for a failure no probe can reach. */
function deno(text: string): TypeError {
  return new TypeError(text);
}

/** The step: Deno's texts on our errors while patched. */
export function patchDenoErrorTexts(tx: PatchTransaction): void {
  useRuntimeErrorTexts(tx, RULES);
}
