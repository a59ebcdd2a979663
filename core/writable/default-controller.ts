/**
 * WritableStreamDefaultController (Streams §5.4) and SetUpWritableStreamDefaultControllerFromUnderlyingSink.
 * @module
 */
import { defineInterface } from "../shared/interface.ts";
import { type Callable, ReflectApply } from "../shared/primordials.ts";
import { convertCallback, rangeError, typeError } from "../shared/webidl.ts";
import type { SizeAlgorithm } from "../strategies/extract.ts";
import {
  registerWritableControllerFactory,
  SetUpWritableStreamDefaultController,
  WRITABLE,
  WritableControllerPublic,
  WritableStreamDefaultControllerError,
  WritableStreamInternal,
} from "./stream-internal.ts";

/** The `start` member of the sink convertUnderlyingSink() converted last (read at once by its caller). */
let convertedStart: Callable | undefined = undefined;

/**
 * Converts an UnderlyingSink dictionary (members read in lexicographic order) straight into the stream that
 * SetUpWritableStreamDefaultControllerFromUnderlyingSink will set up: the stream holds the sink's members and
 * is its own sink algorithms object; `start` is left in `convertedStart`. The public controller handed to the
 * callbacks is created on first use (FP-LAZY): no user code can see it before a callback is called.
 */
export function convertUnderlyingSink(sink: unknown): WritableStreamInternal {
  const c = new WritableStreamInternal();
  convertedStart = undefined;
  if (sink === undefined) return c;
  const s = sink as Record<string, unknown>;
  const abort = s.abort;
  const abortFn = abort === undefined ? undefined : convertCallback(abort, "underlyingSink.abort");
  const close = s.close;
  const closeFn = close === undefined ? undefined : convertCallback(close, "underlyingSink.close");
  const start = s.start;
  const startFn = start === undefined ? undefined : convertCallback(start, "underlyingSink.start");
  const type = s.type;
  const write = s.write;
  const writeFn = write === undefined ? undefined : convertCallback(write, "underlyingSink.write");
  // The whole dictionary is converted before the constructor checks `type` (§5.2.3 step 3).
  if (type !== undefined) throw rangeError("Invalid type is specified: a WritableStream has no type");
  c.sink = sink;
  c.abortFn = abortFn;
  c.closeFn = closeFn;
  c.writeFn = writeFn;
  convertedStart = startFn;
  return c;
}

/**
 * SetUpWritableStreamDefaultControllerFromUnderlyingSink(stream, underlyingSink, hwm, sizeAlgorithm), for a
 * controller made by convertUnderlyingSink (it is its own sink algorithms object).
 */
export function SetUpWritableStreamDefaultControllerFromUnderlyingSink(
  c: WritableStreamInternal,
  highWaterMark: number,
  sizeAlgorithm: SizeAlgorithm | undefined,
): void {
  const start = convertedStart;
  convertedStart = undefined;
  SetUpWritableStreamDefaultController(
    c,
    start === undefined ? undefined : makeStartAlgorithm(start, c.sink, c),
    c,
    highWaterMark,
    sizeAlgorithm,
  );
}

// Its own function: a closure in the caller would cost every stream a context, start() or not.
function makeStartAlgorithm(start: Callable, sink: unknown, c: WritableStreamInternal): () => unknown {
  return () => ReflectApply(start, sink, [WritableControllerPublic(c)]);
}

let getWritableController: (x: unknown) => WritableStreamInternal;
const kCreate = Symbol();

/** The controller handed to a WritableStream's underlying sink (§5.4). */
export class WritableStreamDefaultController {
  #c!: WritableStreamInternal;

  /** Not constructible: controllers are created by WritableStream. */
  constructor(token: unknown = undefined) {
    if (token !== kCreate) throw typeError("Illegal constructor");
  }

  static {
    registerWritableControllerFactory((c) => {
      const o = new WritableStreamDefaultController(kCreate);
      o.#c = c;
      return o;
    });
    getWritableController = (x) => {
      if (typeof x !== "object" || x === null || !(#c in x)) {
        throw typeError("Illegal invocation: not a WritableStreamDefaultController");
      }
      return (x as WritableStreamDefaultController).#c;
    };
  }

  /** An AbortSignal that is aborted when the stream is aborted. */
  get signal(): AbortSignal {
    return getWritableController(this).signal;
  }

  /** Errors the stream (if it is still writable). */
  error(e: unknown = undefined): void {
    const c = getWritableController(this);
    if (c.state !== WRITABLE) return;
    WritableStreamDefaultControllerError(c, e);
  }
}
defineInterface(WritableStreamDefaultController, "WritableStreamDefaultController");
