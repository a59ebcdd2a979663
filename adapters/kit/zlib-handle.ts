/**
 * ZLIB-HANDLE: the zlib handle of a gzip, deflate or deflate-raw stream (either way) made by itself, without the
 * node:zlib stream object around it. ZLIB-SYNC uses only the handle, and the object (a node:stream Transform, its
 * states, its 16 KiB output buffer) cost more than compressing a small body: making and closing one took 21-29
 * µs on Deno 2.9 against 3.7 µs for the handle alone, 13.8 against 1.3 µs on Node.js 26, 19.4 against 2.8 µs on
 * Bun 1.4 (2026-11-29); our gzip of a native 14 KB body on Deno was 0.77x Deno's own (core/README.md, ZLIB-HANDLE).
 *
 * The handle's class is the one of a handle node:zlib made, and it is set up as node:zlib sets it up: `init()`
 * with the defaults of `create*()` (window bits 15, the default level and strategy, memory level 8, no
 * dictionary). Node.js and Bun take the write state (the two counts `writeSync()` reports) at `init()`; Deno takes
 * it at each `writeSync()`, as an eighth argument its stream object adds (told apart by the `writeSync` Deno's
 * object puts on its handle). Neither is documented, so each kind of handle is used only once it proved itself: the first time one is asked for, the same input goes through a handle
 * made so and one of node:zlib's own (with and without a flush per chunk, then finished), and only the same
 * output byte for byte and the same counts let it be used; otherwise, or when anything throws, node:zlib's own
 * stream object is made as before. Unobservable: the same zlib state with the same parameters.
 * @module
 */
import { noop } from "./natives.ts";

/** zlib's native handle (the `_handle` of a zlib stream object), as Node.js, Deno and Bun implement it. */
export interface ZlibHandle {
  writeSync(
    flush: number,
    input: Uint8Array,
    inOffset: number,
    inLength: number,
    output: Uint8Array,
    outOffset: number,
    outLength: number,
  ): void;
  onerror: ((message: string, errno: number, code?: string) => void) | null;
  /** Starts a new stream with the same parameters (zlib's `deflateReset` / `inflateReset`). */
  reset(): void;
}

/** A zlib stream object of `node:zlib`: only its handle and its write state are used, and `close()`. */
export interface ZlibObject {
  readonly _handle: ZlibHandle | null;
  readonly _writeState: Uint32Array;
  close(): void;
}

/** One of node:zlib's `create*()` functions (a stream object whose handle is used, see ZlibObject). */
export type CreateZlib = () => object;

/** What a handle's class and prototype offer, as far as {@link bareObject} uses them. */
interface HandleClass {
  new (mode: number): HandleInstance;
}
interface HandleInstance {
  init(...args: unknown[]): unknown;
  writeSync(...args: unknown[]): unknown;
  close(): void;
  reset(): void;
  onerror: ZlibHandle["onerror"];
}

// zlib's defaults, as `create*()` passes them (Z_DEFAULT_WINDOWBITS, Z_DEFAULT_COMPRESSION, Z_DEFAULT_MEMLEVEL,
// Z_DEFAULT_STRATEGY).
const WINDOW_BITS = 15;
const LEVEL = -1;
const MEM_LEVEL = 8;
const STRATEGY = 0;

/** How a bare handle takes its write state: at `init()` (Node.js, Bun) or with each `writeSync()` (Deno). */
type StateAt = "init" | "write";

/** A stream object standing for node:zlib's: a bare handle of `Class` in `mode`, its write state given `stateAt`. */
function bareObject(Class: HandleClass, mode: number, stateAt: StateAt): ZlibObject {
  const handle = new Class(mode);
  const state = new Uint32Array(2);
  if (stateAt === "init") {
    handle.init(WINDOW_BITS, LEVEL, MEM_LEVEL, STRATEGY, state, noop, undefined);
  } else {
    handle.init(WINDOW_BITS, LEVEL, MEM_LEVEL, STRATEGY, noop, undefined);
    const write = Object.getPrototypeOf(handle).writeSync as (...args: unknown[]) => void;
    handle.writeSync = function writeSync(flush, input, inOffset, inLength, output, outOffset, outLength): void {
      write.call(handle, flush, input, inOffset, inLength, output, outOffset, outLength, state);
    };
  }
  return { _handle: handle as unknown as ZlibHandle, _writeState: state, close: () => handle.close() };
}

/** The most output a probe run keeps: more than the probe's text makes either way. */
const PROBE_OUT = 4096;

/** What a probe run made: the output bytes (`length` of them), and the counts each call left (the write state). */
interface Made {
  readonly bytes: Uint8Array;
  length: number;
  readonly counts: number[];
}

/** Runs `input` through `object`'s handle with `flush`, appending what it made to `into`. */
function feed(object: ZlibObject, input: Uint8Array, flush: number, into: Made): void {
  const handle = object._handle!;
  let offset = 0;
  let length = input.byteLength;
  let error: string | undefined;
  handle.onerror = (message) => {
    error = message;
  };
  // Output room of at most 256 bytes a call, so that calls that fill it are probed too.
  for (let room = Math.min(256, PROBE_OUT - into.length); room > 0; room = Math.min(256, PROBE_OUT - into.length)) {
    handle.writeSync(flush, input, offset, length, into.bytes, into.length, room);
    if (error !== undefined) throw new Error(error);
    const outLeft = object._writeState[0]!;
    const inLeft = object._writeState[1]!;
    into.length += room - outLeft;
    into.counts.push(outLeft, inLeft);
    offset += length - inLeft;
    length = inLeft;
    if (outLeft !== 0) return;
  }
  throw new Error("the probe's output did not fit");
}

/** The probe's input: text cut into pieces (zlib's output depends on the cuts with a flush per piece). */
function probeText(): Uint8Array[] {
  const text = new TextEncoder().encode(
    Array.from({ length: 40 }, (_, i) => `<li class="row">${i * 37} ${"abc".repeat(i % 7)}</li>`).join(""),
  );
  return [text.subarray(0, 700), text.subarray(700, 701), text.subarray(701)];
}

/** What `object` makes of `pieces`: each with `flush`, then the end (Z_FINISH). */
function run(object: ZlibObject, pieces: readonly Uint8Array[], flush: number): Made {
  const out: Made = { bytes: new Uint8Array(PROBE_OUT), length: 0, counts: [] };
  try {
    for (const piece of pieces) feed(object, piece, flush, out);
    feed(object, new Uint8Array(0), 4, out);
  } finally {
    object.close();
  }
  return out;
}

function sameMade(a: Made, b: Made): boolean {
  if (a.length === 0 || a.length !== b.length || a.counts.length !== b.counts.length) return false;
  for (let i = 0; i < a.length; i++) if (a.bytes[i] !== b.bytes[i]) return false;
  for (let i = 0; i < a.counts.length; i++) if (a.counts[i] !== b.counts[i]) return false;
  return true;
}

/** The proven maker of each `create`, or null where the handle is not made by itself. */
const makers = new Map<CreateZlib, (() => ZlibObject) | null>();

/**
 * A maker of stream objects for `create` (of zlib `mode`), each a bare handle, once one proved itself (see the
 * module's documentation), else null. `compressed`: for a decompressor, what its compressing counterpart makes (the
 * probe's input), made by node:zlib's own objects.
 */
function provenMaker(
  create: CreateZlib,
  mode: number,
  compressed: (() => ZlibObject) | undefined,
): (() => ZlibObject) | null {
  try {
    const own = () => create() as ZlibObject;
    const sample = own();
    const Class = sample._handle?.constructor as HandleClass | undefined;
    // Deno's stream object gives its handle a `writeSync` of its own, which adds the write state; Node.js' and
    // Bun's take it at `init()`. Only that one way is tried: Node.js aborts the process on an `init()` with
    // other arguments, where a JavaScript error could be caught.
    const stateAt: StateAt = sample._handle !== null && Object.hasOwn(sample._handle, "writeSync") ? "write" : "init";
    sample.close();
    if (typeof Class !== "function") return null;
    let inputs: Uint8Array[][] = [probeText()];
    if (compressed !== undefined) {
      const made = run(compressed(), probeText(), 0);
      inputs = [[made.bytes.subarray(0, 7), made.bytes.subarray(7, made.length)]];
    }
    const make = () => bareObject(Class, mode, stateAt);
    for (const pieces of inputs) {
      for (const flush of [0, 2]) {
        if (!sameMade(run(make(), pieces, flush), run(own(), pieces, flush))) return null;
      }
    }
    return make;
  } catch {
    // not made by itself here
  }
  return null;
}

/**
 * A new stream object for `create`: a bare handle where {@link provenMaker} proved one for it (`mode`: its zlib
 * mode, undefined for a format left to node:zlib's objects; `counterpart`: a decompressor's compressing `create`),
 * else node:zlib's own.
 */
export function newZlibObject(create: CreateZlib, mode?: number, counterpart?: CreateZlib): ZlibObject {
  if (mode === undefined) return create() as ZlibObject;
  let make = makers.get(create);
  if (make === undefined) {
    make = provenMaker(create, mode, counterpart && (() => counterpart() as ZlibObject));
    makers.set(create, make);
  }
  return make === null ? create() as ZlibObject : make();
}
