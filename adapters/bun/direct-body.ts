/**
 * Bun's fastest way to take one of our streams as a body (BUN-DIRECT): a native `type: "direct"`
 * ReadableStream whose source feeds ours into the direct controller's `write()`. It is read only by Bun's
 * own code: a Response or Request made from ours answers ours as its `body` (body-owners.ts), as Bun's answers
 * the stream it was given, so JavaScript reads ours itself. How Bun reads it decides how the source works:
 *
 * - Bun's consumers (`text()` and the other body methods, `Bun.serve`, `fetch` uploads, `Bun.write`,
 *   `Bun.readableStreamTo*`) call `pull()` once and take its settling as the end: that pull pipes ours
 *   (fused) or reads it in batches into `write()`, with no native queue, native read or promise per chunk.
 *   `write()` takes a chunk as Bun's own bodies take a native stream's: a string is encoded as UTF-8, a
 *   BufferSource is bytes, anything else gets the consumer's own error (or, for a Blob, its text). A consumer
 *   that takes the whole body gets a TextEncoderStream's readable side as one chunk (FP-ENCODE-INTO).
 * - Bun's `tee()` of a body (`clone()`) reads it with one `read()` at a time, and calls `pull()` for each: once
 *   marked so ({@link readDirectBodyByReads}), each pull reads exactly one chunk of ours and writes it, so ours
 *   is read no further ahead than the branches ask, and an error reaches them after every chunk before it.
 *
 * Measured in `rt-response-text` and `rt-serve-*` (bench/README.md, Bun).
 * @module
 */
import type { ReadableStream, ReadableStreamDefaultReader } from "../../mod.ts";
import { type BridgePipe, pipeToBridge } from "../kit/bridge-pipe.ts";
import { Native, noop } from "../kit/natives.ts";
import { coalescedWriter } from "./coalesced-writes.ts";
import { takeEncodedText } from "../kit/encoded-text.ts";
import { currentTurn } from "./next-turn.ts";
import { ObjectSlot } from "../kit/object-slot.ts";

/** The controller Bun passes to a `type: "direct"` source's `pull()` (its sinks' controllers too). */
interface DirectController {
  /**
   * Takes a string or BufferSource; returns the bytes taken, or a promise when the writer should wait (a
   * Blob consumer's sink returns undefined for a chunk without a length).
   */
  write(chunk: unknown): number | Promise<number> | undefined;
  /** Ends the stream; with an error, errors it. */
  close(error?: unknown): void;
}

/** A chunk handed to Bun's `write()` as it is: Bun's sink checks and encodes it, as for its own streams. */
function asIs(chunk: unknown): unknown {
  return chunk;
}

/** Whether `chunk` is a string or a BufferSource, what every Bun sink takes. */
function isBodyChunk(chunk: unknown): boolean {
  return typeof chunk === "string" || ArrayBuffer.isView(chunk) || chunk instanceof ArrayBuffer ||
    (typeof SharedArrayBuffer === "function" && chunk instanceof SharedArrayBuffer);
}

/**
 * Whether `controller` is the one-shot byte sink of Bun's `arrayBuffer()` / `bytes()` (own `start`, no own
 * `error`): its `write()` refuses a bad chunk with the `ArrayBufferSink`'s error, where the same consumers
 * refuse it in a native stream with their own (see {@link BYTES_REFUSAL}).
 */
function isOneShotByteSink(controller: object): boolean {
  return Object.hasOwn(controller, "start") && !Object.hasOwn(controller, "error");
}

/**
 * Whether `chunk` is a view over a detached buffer, which Bun's byte sink would take as no bytes. Its `buffer` is
 * read only for a view with no bytes (a detached one has none; a DataView's `byteLength` throws): reading a
 * small typed array's `buffer` makes JavaScriptCore copy it out of the heap, per chunk.
 */
function isDetachedView(chunk: unknown): boolean {
  if (!ArrayBuffer.isView(chunk)) return false;
  try {
    if (chunk.byteLength !== 0) return false;
  } catch {
    return true;
  }
  return (chunk.buffer as { detached?: boolean }).detached === true;
}

/**
 * The error Bun's `arrayBuffer()` / `bytes()` give for a detached view in one of Bun's own streams (a `TypeError`
 * with `code: "ERR_INVALID_STATE"`), taken from Bun itself: a native stream of an empty chunk and `chunk` (Bun
 * takes a stream of one chunk by another path, which does not check it).
 */
function detachedRefusal(chunk: unknown): unknown {
  const bun = (globalThis as unknown as { Bun: { readableStreamToBytes(s: unknown): Promise<unknown> } }).Bun;
  const probe = new Native.ReadableStream({
    start(controller) {
      controller.enqueue(new Uint8Array(0));
      controller.enqueue(chunk);
      controller.close();
    },
  });
  try {
    bun.readableStreamToBytes(probe).then(undefined, noop);
  } catch (error) {
    return error;
  }
  return new TypeError("Cannot read a chunk whose buffer is detached");
}

/**
 * Whether `error`, thrown by `write(chunk)`, is the Blob consumers' array sink failing on a `null` or
 * `undefined` chunk after taking it (it reads the chunk's length; JavaScriptCore: "null is not an object"),
 * where the same consumers skip such a chunk of a native stream: the chunk is skipped here too.
 */
function skipsNullish(chunk: unknown, error: unknown): boolean {
  return chunk == null && error instanceof TypeError && error.message.includes(" is not an object");
}

/** Whether `chunk` holds no bytes: an empty string or BufferSource. */
function isEmpty(chunk: unknown): boolean {
  if (chunk === "") return true;
  const length = (chunk as { byteLength?: unknown } | null | undefined)?.byteLength;
  return length === 0 && isBodyChunk(chunk);
}

/** The tag of a direct controller (`Object.prototype.toString`), which says which of Bun's sinks it writes. */
function sinkTag(controller: object): string {
  return Object.prototype.toString.call(controller);
}

/**
 * Whether the controller tagged `tag` is one of Bun's native sinks (the HTTP response of `Bun.serve`, a `fetch`
 * upload, a file of `Bun.write`): one that fails drops what it has not sent yet.
 */
function isNativeSink(tag: string): boolean {
  return tag !== "[object Object]";
}

/** Whether the controller tagged `tag` writes a `Bun.serve` response (HTTP or HTTPS; BUN-RESPONSE-AS-IS). */
function isResponseSink(tag: string): boolean {
  return tag === "[object ReadableHTTPResponseSinkController]" ||
    tag === "[object ReadableHTTPSResponseSinkController]";
}

/** The message of the `TypeError` Bun's byte consumers give for a chunk that is not text or bytes. */
const BYTES_REFUSAL = "Expected an ArrayBuffer, ArrayBufferView, or string chunk";

/**
 * The chunks of a body read as text by one of Bun's text consumers (`text()`, `json()`,
 * `Bun.readableStreamToText` / `…ToJSON`), made to give what Bun's text consumers give for a native stream:
 * those drop one leading U+FEFF of each string chunk, and decode the whole with a leading byte order mark
 * dropped, where Bun's direct-stream text sink keeps a BOM that is not at the start of a text of strings
 * only. So each string chunk loses one leading U+FEFF, and the first chunk with content one more leading BOM
 * (as text or as the bytes EF BB BF). (A BOM split across the first two byte chunks stays, as does the third of
 * three leading BOMs in one string chunk.)
 */
function textChunks(): (chunk: unknown) => unknown {
  let first = true;
  return (chunk) => {
    if (typeof chunk === "string") {
      let text = chunk.charCodeAt(0) === 0xfeff ? chunk.slice(1) : chunk;
      if (first && text !== "") {
        first = false;
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      }
      return text;
    }
    if (first && ArrayBuffer.isView(chunk) && chunk.byteLength > 0) {
      first = false;
      const bytes = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return bytes.subarray(3);
    } else if (first && chunk instanceof ArrayBuffer && chunk.byteLength > 0) {
      first = false;
      const bytes = new Uint8Array(chunk);
      if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return bytes.subarray(3);
    }
    return chunk;
  };
}

/** What body-owners.ts may do with a native stream {@link directBody} made. */
interface DirectBodyState {
  /** Whether Bun has pulled it (its stream of ours is then being read for it). */
  pulled(): boolean;
  /** From now on, one chunk of ours per pull. */
  byReads(): void;
  /** From now on, a pull finds it empty and closes it. */
  empty(): void;
  /** Its first pull is from one of Bun's text consumers (see {@link textChunks}). */
  asText(): void;
}

/** The native streams {@link directBody} made. */
const bodies = new ObjectSlot<DirectBodyState>("fusestreams direct body");

/** Whether `value` is a native stream {@link directBody} made for one of ours. */
export function isDirectBody(value: unknown): boolean {
  return typeof value === "object" && value !== null && bodies.has(value);
}

/** Whether Bun has pulled the direct body `body` (false for any other object). */
export function isDirectBodyPulled(body: object): boolean {
  return bodies.get(body)?.pulled() ?? false;
}

/**
 * Marks the direct body `body` as read by Bun with one `read()` at a time (its `tee()`): each pull then reads
 * one chunk of ours.
 */
export function readDirectBodyByReads(body: object): void {
  bodies.get(body)?.byReads();
}

/**
 * Makes the direct body `body` empty: its pull closes it at once, reading nothing of ours (for a body whose
 * stream of ours was read by JavaScript: Bun then finds it disturbed, as it finds a native body so read).
 */
export function emptyDirectBody(body: object): void {
  bodies.get(body)?.empty();
}

/** Tells the direct body `body` that one of Bun's text consumers reads it (see {@link textChunks}). */
export function readDirectBodyAsText(body: object): void {
  bodies.get(body)?.asText();
}

/** {@link directBody} for one of Bun's text consumers (see {@link textChunks}). */
export function directTextBody(
  stream: ReadableStream<unknown>,
  context: string,
): globalThis.ReadableStream<Uint8Array> {
  const body = directBody(stream, context);
  readDirectBodyAsText(body);
  return body;
}

/**
 * A native Bun stream with the chunks of `stream` (see `BodyBridge`): nothing is read before the body's
 * consumer pulls; backpressure is Bun's (a `write()` that returns a promise keeps the pipe waiting for it);
 * a chunk Bun's `write()` refuses errors the body with Bun's error and cancels `stream` with it; an error of
 * `stream` errors the body with the same object; cancelling the body cancels `stream` with the same reason.
 */
export function directBody(stream: ReadableStream<unknown>, context: string): globalThis.ReadableStream<Uint8Array> {
  let byReads = false;
  let empty = false;
  let asText = false;
  /** Set by a first pull from one of Bun's consumers: the whole stream goes through it. */
  let pipe: BridgePipe | undefined;
  let piped: Promise<void> | undefined;
  /** Set by a first pull of a body read with `read()`s: one chunk per pull, through this reader of ours. */
  let reader: ReadableStreamDefaultReader<unknown> | undefined;
  /** A bad chunk's error, once `stream` was cancelled with it. */
  let failure: { error: unknown } | undefined;

  const write = (controller: DirectController, chunk: unknown): Promise<number> | number | undefined => {
    try {
      return controller.write(chunk);
    } catch (error) {
      failure = { error };
      reader!.cancel(error).then(undefined, noop);
      throw error;
    }
  };
  /**
   * One chunk of ours for one read of the body. An empty chunk is passed over (Bun would deliver nothing for
   * it, and not pull again for the read still waiting).
   */
  const readOne = (controller: DirectController): Promise<void> =>
    reader!.read().then((result): Promise<void> | undefined => {
      if (result.done) controller.close();
      else if (isEmpty(result.value)) return readOne(controller);
      else void write(controller, result.value);
      return undefined;
    });
  /** All of ours for one of Bun's consumers. */
  const pumpAll = (controller: DirectController): Promise<void> => {
    const byteSink = isOneShotByteSink(controller);
    const textChunk = asText ? textChunks() : undefined;
    const tag = sinkTag(controller);
    const nativeSink = isNativeSink(tag);
    const fail = (error: unknown): never => {
      try {
        controller.close(error);
      } catch {
        // already cancelled by its consumer
      }
      throw error;
    };
    // FP-ENCODE-INTO: a consumer that takes the whole body (`text()`, `arrayBuffer()`, `Bun.readableStreamTo*`...)
    // gets a TextEncoderStream's bytes as one chunk, every string encoded into one buffer. Bun's consumers
    // join the chunks they are given, and the encoder never cuts a character across chunks, so one chunk
    // reads as its chunks did; the text consumers' leading byte order mark is that of the first chunk either way.
    const text = nativeSink ? undefined : takeEncodedText(stream);
    if (text !== undefined) {
      let cancelled = false;
      // Let go of ours at the end, as the pipe does (body-owners.ts locks it again for a Response's methods).
      piped = text.bytes.then((bytes) => {
        text.release();
        if (cancelled) return;
        const chunk = textChunk === undefined ? bytes : textChunk(bytes);
        if ((chunk as Uint8Array).byteLength !== 0) controller.write(chunk);
        controller.close();
      }, (error: unknown) => {
        text.release();
        if (!cancelled) fail(error);
      });
      pipe = {
        done: piped,
        cancel(reason) {
          cancelled = true;
          return text.cancel(reason);
        },
      };
      return piped;
    }
    /** The turn of this pull: once the event loop has turned since, what Bun's own pump wrote by then, it has sent. */
    const pulledIn = nativeSink ? currentTurn() : 0;
    // BUN-COALESCE: a `fetch` upload or `Bun.write` takes a task's byte chunks in few write()s; BUN-COALESCE-WHOLE:
    // the one-shot byte sink of `arrayBuffer()` / `bytes()` takes 64 KiB pieces, written when full or at the end.
    // BUN-RESPONSE-AS-IS: a `Bun.serve` response takes each chunk as it comes, as from Bun's own pump (its sink
    // gathers small writes itself).
    const coalesced = (nativeSink && !isResponseSink(tag)) || byteSink
      ? coalescedWriter((chunk) => controller.write(chunk), nativeSink)
      : undefined;
    pipe = pipeToBridge(stream, context, {
      write(chunk): Promise<void> | undefined {
        if (byteSink && !isBodyChunk(chunk)) throw new TypeError(BYTES_REFUSAL);
        if (byteSink && isDetachedView(chunk)) throw detachedRefusal(chunk);
        if (coalesced !== undefined && chunk != null) return coalesced.write(chunk);
        if (textChunk !== undefined) chunk = textChunk(chunk);
        let written: unknown;
        if (chunk != null) written = controller.write(chunk);
        else {
          try {
            written = controller.write(chunk);
          } catch (error) {
            if (!skipsNullish(chunk, error)) throw error;
          }
        }
        // Unobservable: the pipe is the only writer, and waiting on Bun's promise is its backpressure.
        return written instanceof Promise ? written.then(noop) : undefined;
      },
      close() {
        coalesced?.flush();
        controller.close();
      },
      keepsLock: nativeSink,
    }, asIs);
    // A native sink's reader never lets go of the body it read (served, uploaded, written, failed or cancelled): ours
    // stays locked as Bun's own stream does. Bun's other consumers let go (`Bun.readableStreamTo*`; body-owners.ts
    // locks ours again for a Response's methods, as they leave Bun's).
    const keepLocked = nativeSink
      ? (): void => {
        if (!stream.locked) stream.getReader();
      }
      : undefined;
    return (piped = pipe.done.then(keepLocked, (error: unknown) => {
      keepLocked?.();
      // A native sink drops what it has not sent when it fails. Bun's own pump of a native stream has sent
      // the chunks it read in earlier tasks before an error that comes in a later one: what was written is
      // flushed then, and the error given a task later. An error in the first task fails it at once, as Bun's
      // own pump fails before it sent anything.
      if (!nativeSink || currentTurn() === pulledIn) return fail(error);
      try {
        coalesced?.flush();
        (controller as { flush?: () => unknown }).flush?.();
      } catch {
        // closed meanwhile
      }
      return new Promise<never>((_, reject) => setTimeout(() => reject(error), 0)).catch(fail);
    }));
  };

  const source = {
    type: "direct",
    pull(controller: DirectController): Promise<void> | undefined {
      if (empty) {
        controller.close();
        return undefined;
      }
      if (failure !== undefined) throw failure.error;
      if (piped !== undefined) return piped;
      if (byReads) {
        reader ??= stream.getReader();
        return readOne(controller);
      }
      return pumpAll(controller);
    },
    cancel(reason: unknown): Promise<void> | undefined {
      if (failure !== undefined || empty) return undefined;
      if (pipe !== undefined) return pipe.cancel(reason);
      return reader === undefined ? stream.cancel(reason) : reader.cancel(reason);
    },
  };
  const body = new Native.ReadableStream(source as unknown as UnderlyingDefaultSource<Uint8Array>);
  bodies.set(body, {
    pulled: () => pipe !== undefined || reader !== undefined || empty || failure !== undefined,
    byReads() {
      byReads = true;
    },
    empty() {
      empty = true;
    },
    asText() {
      asText = true;
    },
  });
  return body;
}
