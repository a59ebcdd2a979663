/**
 * Node.js's error codes on the errors our streams raise while the global patch is on: Node's own web streams
 * throw errors with a `code` (`ERR_INVALID_STATE`, `ERR_INVALID_ARG_TYPE`, `ERR_INVALID_THIS`, ...), and code
 * written for Node.js tests it (undici ignores a failed cancel only when its code is `ERR_INVALID_STATE`). The
 * core hands every TypeError and RangeError it creates to the kit's `decorateCoreErrors` hook, which the patch
 * sets to {@link addNodeErrorCode}; the code is chosen from what the error says, by the rules below, each the code Node's
 * own streams use for the same failure. The message, the class and the stack stay ours (Node's messages differ,
 * and its stacks print the code in brackets).
 * @module
 */
import { decorateCoreErrors } from "../kit/core-errors.ts";
import type { PatchTransaction } from "../kit/patch-transaction.ts";

/** The rules, first match wins: a RangeError or TypeError whose message matches, and Node's code for it. */
const RULES: readonly (readonly ["RangeError" | "TypeError" | "any", RegExp, string])[] = [
  ["any", /^Illegal invocation/, "ERR_INVALID_THIS"],
  ["any", /^Illegal constructor/, "ERR_ILLEGAL_CONSTRUCTOR"],
  // ReadableStream.from(): a string is refused by the 2026 standard (Node.js takes it) as an argument of the wrong
  // type; whatever else it refuses, Node's own calls not iterable.
  ["TypeError", /^ReadableStream\.from\(\) takes no string/, "ERR_INVALID_ARG_TYPE"],
  ["TypeError", /^ReadableStream\.from\(\) (requires|takes)/, "ERR_ARG_NOT_ITERABLE"],
  ["TypeError", /requires init\.highWaterMark/, "ERR_MISSING_OPTION"],
  ["RangeError", /./, "ERR_INVALID_ARG_VALUE"],
  // CompressionStream and DecompressionStream: a format the runtime lacks; a null chunk (Node's zlib streams).
  ["TypeError", /is not a compression format|is not a CompressionFormat/, "ERR_INVALID_ARG_VALUE"],
  ["TypeError", /a chunk must be an ArrayBuffer or an ArrayBuffer view, not null$/, "ERR_STREAM_NULL_VALUES"],
  // Values of the right type that the operation refuses.
  [
    "TypeError",
    /is not a valid ReadableStream(Type|ReaderMode)|^bytesWritten must|^options\.min must|^autoAllocateChunkSize must|can only be acquired for a readable byte stream|must not be backed by a SharedArrayBuffer/,
    "ERR_INVALID_ARG_VALUE",
  ],
  // What a stream's state does not allow (locked, released, closed, errored, zero-length or detached buffers,
  // iterators that break their protocol).
  [
    "TypeError",
    /locked|released|closed|closing|draining|errored|terminated|invalidated|state|detached|non-zero byteLength|^The view's length must|Insufficient bytes|cannot be transferred|iterator/,
    "ERR_INVALID_STATE",
  ],
  // Arguments of the wrong type.
  ["TypeError", /must be|must not be|is not a function|expected|takes a/, "ERR_INVALID_ARG_TYPE"],
];

/** Node's code for one of the core's errors (see the module's description), or undefined when no rule fits. */
export function nodeErrorCodeOf(error: TypeError | RangeError): string | undefined {
  const kind = error instanceof RangeError ? "RangeError" : "TypeError";
  const message = error.message;
  for (const [k, pattern, code] of RULES) {
    if ((k === "any" || k === kind) && pattern.test(message)) return code;
  }
  return undefined;
}

/** Gives `error` the `code` Node's own streams would give it (an own property, as on Node's errors). */
export function addNodeErrorCode(error: TypeError | RangeError): void {
  const code = nodeErrorCodeOf(error);
  if (code === undefined) return;
  Object.defineProperty(error, "code", { value: code, writable: true, enumerable: true, configurable: true });
}

/** Patch step `error codes`: the core's errors get Node's codes while patched. */
export function patchErrorCodes(tx: PatchTransaction): void {
  decorateCoreErrors(tx, addNodeErrorCode);
}
