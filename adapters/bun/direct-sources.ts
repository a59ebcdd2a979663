/**
 * BUN-DIRECT-SOURCE: a `type: "direct"` stream made while patched (Bun's own class makes it, extensions.ts), read
 * by one of ours before anything else read it (piped into one of our transforms, `pipeTo` one of our writables),
 * has its source's `pull(controller)` called with a controller of ours instead of Bun's: `write()` keeps the
 * chunk in JavaScript, and what a task's synchronous run wrote is encoded and handed on as one chunk, where
 * Bun's controller makes a native call per `write()`. React's Bun build renders into such a stream with a
 * `write()` per string (hundreds per page): react-gzip (bench/README.md).
 *
 * What the source and the pipe see is what they see when Bun's own pipe reads a direct stream (checked against
 * it in tests/unit/bun-direct-sources.test.ts): `pull()` is called with the source as `this` when a read finds
 * nothing written (again when an async pull settles and a read still waits); what is written goes to a waiting
 * read as one Uint8Array chunk at the next microtask or at `flush()`, and stays until the next read when none
 * waits; strings are UTF-8, each write encoded on its own (a surrogate pair split across two writes is two
 * U+FFFD, as Bun has it); bytes are copied when written; `end()` or `close()` delivers what was written and ends
 * the stream; `close(error)`, `error(error)` and a `pull()` that throws or rejects error it (the same object),
 * dropping what was not delivered; a write after the end takes nothing (0); a chunk that is not a string or
 * BufferSource throws Bun's `TypeError` (with its `code`). `write()` returns the number of bytes (of UTF-16 code
 * units for a string, which Bun counts as UTF-8 bytes: the same for ASCII) and never a promise, where Bun's
 * returns one past the high-water mark: a producer that waits on it goes on at once (the chunk is taken
 * either way).
 *
 * Bun's stream is made with a source of ours in front of the given one (inheriting from it, so Bun reads the
 * same fields): it says whether Bun pulled it, and once ours took it over, a pull by Bun (after our reader let
 * it go) finds it ended. Any other direct stream, and one Bun already pulled, is read by Bun's reader.
 * @module
 */
import { ReadableStream } from "../../mod.ts";
import { Native } from "../kit/natives.ts";
import type { ShellHold } from "../kit/native-shells.ts";
import { joinBytes } from "../kit/join-bytes.ts";
import { ObjectSlot } from "../kit/object-slot.ts";

/** The controller Bun passes to a direct source's `pull()`, as far as sources use it. */
interface DirectController {
  write(chunk: unknown): unknown;
  flush?(): unknown;
  end?(): unknown;
  close(error?: unknown): unknown;
}

/** A direct stream made while patched: its source, and whether Bun or ours has read it. */
interface DirectStreamState {
  readonly source: Record<PropertyKey, unknown>;
  /** Bun called our front source's `pull()`. */
  pulledByBun: boolean;
  /** The reader of ours that took it over, once one did. */
  takenBy: DirectSourceRun | undefined;
}

const directStreams = new ObjectSlot<DirectStreamState>("fusestreams direct source");

/**
 * The `type: "direct"` maker of the patch: Bun's own direct stream of `source`, with a front source of ours
 * (see the module's documentation).
 */
export function makeDirectStream(source: object, strategy: unknown): globalThis.ReadableStream<Uint8Array> {
  const state: DirectStreamState = {
    source: source as Record<PropertyKey, unknown>,
    pulledByBun: false,
    takenBy: undefined,
  };
  const front = Object.create(source, {
    pull: {
      value(controller: DirectController): unknown {
        state.pulledByBun = true;
        const taken = state.takenBy;
        if (taken !== undefined) return taken.answerBunPull(controller);
        const pull = state.source.pull;
        return typeof pull === "function" ? pull.call(state.source, controller) : undefined;
      },
      writable: true,
      configurable: true,
    },
    cancel: {
      value(reason: unknown): unknown {
        if (state.takenBy !== undefined) return undefined;
        const cancel = state.source.cancel;
        return typeof cancel === "function" ? cancel.call(state.source, reason) : undefined;
      },
      writable: true,
      configurable: true,
    },
  }) as UnderlyingDefaultSource<Uint8Array>;
  const stream = new Native.ReadableStream<Uint8Array>(front, strategy as QueuingStrategy<Uint8Array>);
  directStreams.set(stream, state);
  return stream;
}

/**
 * The shells' `openShell` hook: for a direct stream made while patched that nothing has read (unlocked, never
 * pulled by Bun), a stream of ours that runs its source, and its hold on Bun's stream (locked when the pipe
 * takes ours, as a pipe locks the stream it reads); undefined for any other stream.
 */
export function openDirectSourceShell(
  native: globalThis.ReadableStream<unknown>,
): { stream: ReadableStream<Uint8Array>; hold: ShellHold } | undefined {
  const state = directStreams.get(native);
  if (state === undefined || state.pulledByBun || state.takenBy !== undefined || native.locked) return undefined;
  const run = new DirectSourceRun(state, native);
  const stream = new ReadableStream<Uint8Array>(run as UnderlyingDefaultSource<Uint8Array>, { highWaterMark: 0 });
  return { stream, hold: run };
}

const encoder = new TextEncoder();

/** Bun's `TypeError` for a direct write of something that is not text or bytes (its code, as Bun's). */
function badChunk(chunk: unknown): TypeError {
  const error = new TypeError("write() expects a string, ArrayBufferView, or ArrayBuffer");
  (error as TypeError & { code?: string }).code = chunk == null ? "ERR_STREAM_NULL_VALUES" : "ERR_INVALID_ARG_TYPE";
  return error;
}

/** Whether the last UTF-16 code unit of `text` is a high surrogate (a pair may be split at this write). */
function endsInHighSurrogate(text: string): boolean {
  const last = text.charCodeAt(text.length - 1);
  return last >= 0xd800 && last <= 0xdbff;
}

/**
 * A direct source run for our stream (its underlying source) and the stream's hold on Bun's stream (see the
 * module's documentation).
 */
class DirectSourceRun implements ShellHold {
  readonly #state: DirectStreamState;
  readonly #native: globalThis.ReadableStream<unknown>;
  #nativeReader: ReadableStreamDefaultReader<unknown> | undefined;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  readonly #direct: Required<DirectController> & { error(error: unknown): undefined };
  /** The strings written since the last delivery and since the last part (joined as they come). */
  #text = "";
  /**
   * Earlier parts since the last delivery, in order: each a string to encode on its own (it may end in half a
   * surrogate pair) or copied bytes. Usually empty: text alone is encoded at once.
   */
  #parts: (string | Uint8Array)[] = [];
  #deliveryQueued = false;
  /** A read of ours waits (our pull was called and nothing was delivered since). */
  #readPending = false;
  /** The source's `pull()` is running, or returned a promise that has not settled. */
  #pulling = false;
  /** Ended, errored or cancelled: writes take nothing. */
  #done = false;
  /** Pulled or cancelled: the source ran, and Bun's stream is no longer to give back. */
  #used = false;

  constructor(state: DirectStreamState, native: globalThis.ReadableStream<unknown>) {
    this.#state = state;
    this.#native = native;
    // The methods of Bun's controller, in its order.
    this.#direct = {
      write: (chunk) => this.#write(chunk),
      end: () => this.#end(),
      close: (error?: unknown) => error === undefined ? this.#end() : this.#fail(error),
      flush: () => {
        if (this.#readPending) this.#deliver();
        return undefined;
      },
      error: (error: unknown) => this.#fail(error),
    };
  }

  /** Locks Bun's stream: ours stands for it from now on. */
  hold(): void {
    if (this.#nativeReader !== undefined) return;
    this.#nativeReader = this.#native.getReader();
    this.#state.takenBy = this;
  }

  /** Unlocks Bun's stream when ours only held it (nothing pulled or cancelled): it is Bun's own again. */
  letGo(): void {
    if (this.#used || this.#nativeReader === undefined) return;
    this.#nativeReader.releaseLock();
    this.#nativeReader = undefined;
    this.#state.takenBy = undefined;
  }

  start(controller: ReadableStreamDefaultController<Uint8Array>): void {
    this.#controller = controller;
  }

  /**
   * A read of ours found nothing delivered: what was written goes to it now, else the source's `pull()` runs
   * (with `this` the source, as Bun calls it), unless it is still running.
   */
  pull(): void {
    this.#used = true;
    this.hold();
    this.#readPending = true;
    if (this.#text !== "" || this.#parts.length !== 0) this.#deliver();
    else if (!this.#pulling && !this.#done) this.#pullSource();
  }

  #pullSource(): void {
    const source = this.#state.source;
    const pull = source.pull;
    if (typeof pull !== "function") return;
    this.#pulling = true;
    let result: unknown;
    try {
      result = pull.call(source, this.#direct);
    } catch (error) {
      this.#pulling = false;
      this.#fail(error);
      return;
    }
    if (typeof (result as PromiseLike<unknown> | null | undefined)?.then !== "function") {
      this.#pulling = false;
      return;
    }
    // Bun pulls again when an async pull settles and a read still waits with nothing written.
    (result as PromiseLike<unknown>).then(() => {
      this.#pulling = false;
      if (this.#readPending && !this.#done && this.#text === "" && this.#parts.length === 0) this.#pullSource();
    }, (error: unknown) => {
      this.#pulling = false;
      this.#fail(error);
    });
  }

  cancel(reason: unknown): void | PromiseLike<void> {
    this.#used = true;
    this.hold();
    this.#done = true;
    this.#text = "";
    this.#parts = [];
    const source = this.#state.source;
    const cancel = source.cancel;
    return typeof cancel === "function" ? cancel.call(source, reason) as void | PromiseLike<void> : undefined;
  }

  /** Bun pulled its stream after ours took it over: it ends as ours ended. */
  answerBunPull(controller: DirectController): void {
    controller.close();
  }

  #write(chunk: unknown): number {
    if (this.#done) return 0;
    let taken: number;
    if (typeof chunk === "string") {
      taken = chunk.length;
      if (taken === 0) return 0;
      this.#text += chunk;
      // A pair split across two writes stays split, as Bun encodes each write on its own.
      if (endsInHighSurrogate(chunk)) this.#cutText();
    } else if (ArrayBuffer.isView(chunk)) {
      taken = chunk.byteLength;
      if (taken === 0) return 0;
      this.#cutText();
      this.#parts.push(new Uint8Array(chunk.buffer, chunk.byteOffset, taken).slice());
    } else if (chunk instanceof ArrayBuffer) {
      taken = chunk.byteLength;
      if (taken === 0) return 0;
      this.#cutText();
      this.#parts.push(new Uint8Array(chunk.slice(0)));
    } else {
      throw badChunk(chunk);
    }
    if (!this.#deliveryQueued) {
      this.#deliveryQueued = true;
      queueMicrotask(() => {
        this.#deliveryQueued = false;
        if (this.#readPending && !this.#done) this.#deliver();
      });
    }
    return taken;
  }

  /** Ends the text being joined: it becomes a part of its own. */
  #cutText(): void {
    if (this.#text === "") return;
    this.#parts.push(this.#text);
    this.#text = "";
  }

  /** Hands what was written on as one chunk. */
  #deliver(): void {
    let chunk: Uint8Array;
    if (this.#parts.length === 0) {
      if (this.#text === "") return;
      chunk = encoder.encode(this.#text);
    } else {
      this.#cutText();
      chunk = encodeEach(this.#parts);
      this.#parts = [];
    }
    this.#text = "";
    this.#readPending = false;
    this.#controller.enqueue(chunk);
  }

  #end(): undefined {
    if (this.#done) return undefined;
    this.#deliver();
    this.#done = true;
    this.#controller.close();
    return undefined;
  }

  #fail(error: unknown): undefined {
    if (this.#done) return undefined;
    this.#done = true;
    this.#text = "";
    this.#parts = [];
    this.#controller.error(error);
    return undefined;
  }
}

/** The parts as one Uint8Array, each string encoded on its own. */
function encodeEach(parts: (string | Uint8Array)[]): Uint8Array {
  let size = 0;
  const bytes = parts.map((part) => {
    const b = typeof part === "string" ? encoder.encode(part) : part;
    size += b.byteLength;
    return b;
  });
  return bytes.length === 1 ? bytes[0]! : joinBytes(bytes, size);
}
