/**
 * How a Next.js 16 route handler's web `Response` reaches the client on Node.js, reproduced (not copied) for the
 * `end-next` row. Next's `sendResponse()` (packages/next/src/server/send-response.ts) copies the status and
 * headers onto the `ServerResponse`, then `pipeToNodeResponse()` (packages/next/src/server/pipe-readable.ts,
 * vercel/next.js at 053bd27) pipes `response.body` with `pipeTo()` into a global `WritableStream` over the
 * `ServerResponse`, with an AbortSignal that fires when the response closes early. That writer flushes the
 * headers at the first chunk, `res.write()`s each chunk, waits for `'drain'` when `write()` returns false, and
 * ends the response on close, resolving when it has finished.
 * @module
 */
import type { ServerResponse } from "node:http";

function resolvers(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** A global WritableStream that writes to `res` with backpressure (Next's writer over a ServerResponse). */
function writerFor(res: ServerResponse): WritableStream<Uint8Array> {
  let headersSent = false;
  let drained = resolvers();
  const onDrain = () => drained.resolve();
  res.on("drain", onDrain);
  res.once("close", () => {
    res.off("drain", onDrain);
    drained.resolve();
  });
  const finished = resolvers();
  res.once("finish", () => finished.resolve());
  return new WritableStream<Uint8Array>({
    async write(chunk) {
      if (!headersSent) {
        headersSent = true;
        res.flushHeaders();
      }
      if (!res.write(chunk)) {
        await drained.promise;
        drained = resolvers();
      }
    },
    abort(reason) {
      if (!res.writableFinished) res.destroy(reason instanceof Error ? reason : new Error(String(reason)));
    },
    close() {
      if (res.writableFinished) return;
      res.end();
      return finished.promise;
    },
  });
}

/** Sends a route handler's `response` on `res` as Next.js 16 does on Node.js. */
export async function sendLikeNext(response: Response, res: ServerResponse): Promise<void> {
  res.statusCode = response.status;
  res.statusMessage = response.statusText;
  response.headers.forEach((value, name) => {
    if (name === "set-cookie" || name === "vary") res.appendHeader(name, value);
    else if (res.getHeader(name) === undefined) res.setHeader(name, value);
  });
  if (!response.body) {
    res.end();
    return;
  }
  const controller = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) controller.abort(new Error("the response closed early"));
  });
  try {
    await response.body.pipeTo(writerFor(res), { signal: controller.signal });
  } catch (error) {
    if (controller.signal.aborted) return;
    throw new Error("failed to pipe response", { cause: error });
  }
}
