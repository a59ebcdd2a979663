/**
 * A step of the Node.js patch (`node-consumers`, NODE-CONSUME): `text()`, `json()`, `arrayBuffer()` and
 * `bytes()` of a `Response` or `Request` whose body is one of our streams read it themselves. undici reads a
 * body with one awaited `read()` per chunk; here a transform's readable side is piped (the chain before it runs
 * by direct calls into a byte collector) and any other stream is read in batches (every queued chunk in one
 * step). Measured with ÷ without in one process (`bench/real/node-consume.ts`; core/README.md, NODE-CONSUME).
 *
 * What the caller sees is undici's: the same result (text decoded as undici decodes it: a leading BOM
 * dropped, then `TextDecoder`), the stream's own error by identity, a `TypeError` for a chunk that is not a
 * `Uint8Array` (the stream is then left locked and not cancelled, as undici leaves it), and afterwards a
 * body that is disturbed and stays locked. Anything else goes to undici's method: a body that is native (seen
 * through a shell), locked, already read or absent, a response from `fetch()` (undici rejects those with an
 * `AbortError` once the fetch was aborted), an object that is no Response or Request.
 * @module
 */
import { types } from "node:util";
import { ReadableStream, readableStreamState, WritableStream } from "../../mod.ts";
import { acquireBatchReader, BATCH_DONE, isBatchPromise, isTransformReadable } from "../kit/batch-reader.ts";
import { collectEncodedText } from "../kit/encoded-text.ts";
import type { ReadableStreamLike } from "../kit/batch-reader.ts";
import { isBodyShell } from "../kit/body-shells.ts";
import { joinBytes } from "../kit/join-bytes.ts";
import { isOurReadable, noop, ownerOf } from "../kit/natives.ts";
import type { PatchTransaction } from "../kit/patch-transaction.ts";

const decoder = new TextDecoder();

/** UTF-8 decode as undici's `text()` does it: a leading BOM is dropped before the decoder (which drops another). */
function decodeText(bytes: Uint8Array): string {
  if (bytes.byteLength === 0) return "";
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return decoder.decode(start === 0 ? bytes : bytes.subarray(start));
}

/** What each method makes of the body's bytes (a new buffer of exactly their length). */
const CONVERSIONS: Record<string, (bytes: Uint8Array<ArrayBuffer>) => unknown> = {
  text: decodeText,
  json: (bytes) => JSON.parse(decodeText(bytes)) as unknown,
  arrayBuffer: (bytes) => bytes.buffer,
  bytes: (bytes) => bytes,
};

/** Whether `value` is a Uint8Array (a Buffer too, from any realm), as undici checks body chunks. */
const isUint8Array = types.isUint8Array as (value: unknown) => value is Uint8Array;

/** Rejects with what undici rejects a body with when `chunk` (not a Uint8Array) is among its chunks. */
type ChunkError = (chunk: unknown) => Promise<never>;

/**
 * A {@link ChunkError} that asks undici itself: its `arrayBuffer()` (`readBody`, the method before this step)
 * reads a stream of that one chunk, so the error is exactly the runtime's, message and all.
 */
function undiciChunkError(NativeResponse: new (body: unknown) => object, readBody: Method): ChunkError {
  return async (chunk) => {
    const one = new ReadableStream<unknown>({
      start(controller) {
        controller.enqueue(chunk);
        controller.close();
      },
    });
    await readBody.call(new NativeResponse(one));
    // undici took the chunk (no Node.js version does): still not one this step reads
    throw new TypeError(`a body chunk must be a Uint8Array, got ${typeof chunk}`);
  };
}

/** The chunks of a body stream, in order, and their total length. */
interface Collected {
  parts: Uint8Array[];
  size: number;
}

/**
 * Reads `stream` (a transform's readable side) with a fused pipe into a collector. On a chunk that is not a
 * Uint8Array the sink's write never settles, so the pipe holds the stream locked and uncancelled for good.
 */
function collectByPipe(stream: ReadableStream<unknown>, chunkError: ChunkError): Promise<Collected> {
  const parts: Uint8Array[] = [];
  let size = 0;
  return new Promise<Collected>((resolve, reject) => {
    stream.pipeTo(
      new WritableStream<unknown>({
        write(chunk): Promise<void> | undefined {
          if (!isUint8Array(chunk)) {
            chunkError(chunk).then(undefined, reject);
            return new Promise<void>(noop);
          }
          parts.push(chunk);
          size += chunk.byteLength;
          return undefined;
        },
      }),
      { preventCancel: true },
    ).then(() => {
      // undici never releases its reader: the body stays locked once read
      stream.getReader();
      resolve({ parts, size });
    }, (error: unknown) => {
      stream.getReader();
      reject(error);
    });
  });
}

/** Reads `stream` (any other stream of ours) in batches; the lock is kept at the end, as undici keeps it. */
async function collectByBatches(
  stream: ReadableStream<unknown>,
  context: string,
  chunkError: ChunkError,
): Promise<Collected> {
  const reader = acquireBatchReader(stream as unknown as ReadableStreamLike<unknown>, context);
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let next = reader.read();
    if (isBatchPromise(next)) next = await next;
    if (next === BATCH_DONE) return { parts, size };
    for (let i = 0; i < next.length; i++) {
      const chunk = next[i];
      if (!isUint8Array(chunk)) return await chunkError(chunk);
      parts.push(chunk);
      size += chunk.byteLength;
    }
  }
}

type Method = (this: unknown, ...args: unknown[]) => Promise<unknown>;

/**
 * The body stream of `owner` when our reading may stand in for undici's: one of our streams (not a shell of a
 * native body), unlocked and never read, of a Request or of a Response made by its constructor.
 */
function claimableBody(
  owner: unknown,
  bodyOf: (this: unknown) => unknown,
  isResponse: boolean,
): ReadableStream<unknown> | undefined {
  let stream: unknown;
  try {
    // A fetch() response first: its body getter would make a shell for a native body.
    if (isResponse && (owner as Response).type !== "default") return undefined;
    stream = bodyOf.call(owner);
  } catch {
    return undefined; // not a Response or Request: undici's method throws its own error
  }
  if (!isOurReadable(stream) || isBodyShell(stream) || stream.locked) return undefined;
  return readableStreamState(stream)?.disturbed === false ? stream : undefined;
}

/**
 * Step `node-consumers`: replaces `text()`, `json()`, `arrayBuffer()` and `bytes()` (those undici has) on
 * `Response.prototype` and `Request.prototype`; each reads the body through the `body` getter as the shared
 * `bodies` step left it (a native body is seen as its shell, and left to undici).
 */
export function patchNodeBodyConsumers(tx: PatchTransaction): void {
  const g = globalThis as unknown as Record<string, { prototype?: object } | undefined>;
  const NativeResponse = g["Response"] as unknown as (new (body: unknown) => object) | undefined;
  const nativeArrayBuffer = (NativeResponse?.prototype as { arrayBuffer?: Method } | undefined)?.arrayBuffer;
  if (NativeResponse === undefined || typeof nativeArrayBuffer !== "function") return;
  const chunkError = undiciChunkError(NativeResponse, nativeArrayBuffer);
  for (const name of ["Response", "Request"]) {
    const proto = g[name]?.prototype;
    const bodyOwner = ownerOf(proto, "body");
    const bodyOf = bodyOwner === undefined ? undefined : Object.getOwnPropertyDescriptor(bodyOwner, "body")?.get;
    if (bodyOf === undefined) continue;
    for (const [method, convert] of Object.entries(CONVERSIONS)) {
      const owner = ownerOf(proto, method) as Record<string, unknown> | undefined;
      const original = owner?.[method] as Method | undefined;
      if (owner === undefined || typeof original !== "function") continue;
      const context = `${name}.${method}()`;
      const replacement = {
        [method](this: unknown, ...args: unknown[]): Promise<unknown> {
          const stream = claimableBody(this, bodyOf, name === "Response");
          if (stream === undefined) return original.apply(this, args);
          // FP-ENCODE-INTO: a TextEncoderStream's readable side gives its bytes with no chunk per string.
          const text = collectEncodedText(stream);
          if (text !== undefined) return text.then(convert);
          const collected = isTransformReadable(stream)
            ? collectByPipe(stream, chunkError)
            : collectByBatches(stream, context, chunkError);
          return collected.then(({ parts, size }) => convert(joinBytes(parts, size)));
        },
      }[method]!;
      tx.defineValue(owner, method, replacement);
    }
  }
}
