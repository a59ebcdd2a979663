/**
 * Deno's node compatibility layer and our streams: its node:stream utilities read the same registered symbols
 * as Node.js's (the kit's `node:stream symbols` step answers them), and its `addAbortSignal()` errors, through
 * `Symbol.for("nodejs.webstream.controllerErrorFunction")`, what Deno's own streams let it error: a readable
 * byte stream too (Node.js leaves those alone), and a TransformStream (both sides).
 * @module
 */
import { ReadableStream, TransformStream } from "../../mod.ts";
import type { PatchTransaction } from "../kit/patch-transaction.ts";
import { errorReadableStream, errorTransformStream } from "../kit/stream-control.ts";

const kControllerErrorFunction = Symbol.for("nodejs.webstream.controllerErrorFunction");

/**
 * Step `deno node:stream errors`: our ReadableStream (default and byte streams) and TransformStream
 * prototypes answer `kControllerErrorFunction` as Deno's streams do. Runs before the kit's `node:stream
 * symbols` step, which then keeps these.
 */
export function patchDenoControllerErrors(tx: PatchTransaction): void {
  tx.defineValue(
    ReadableStream.prototype,
    kControllerErrorFunction,
    function (this: unknown, error: unknown): void {
      errorReadableStream(this, error);
    },
    false,
  );
  tx.defineValue(
    TransformStream.prototype,
    kControllerErrorFunction,
    function (this: unknown, error: unknown): void {
      errorTransformStream(this, error);
    },
    false,
  );
}
