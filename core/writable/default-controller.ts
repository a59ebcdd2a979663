/**
 * WritableStreamDefaultController (Streams §5.4) and SetUpWritableStreamDefaultControllerFromUnderlyingSink.
 * @module
 */
import { defineInterface } from "../shared/interface.ts";
import { ReflectApply } from "../shared/primordials.ts";
import { invokePromiseCallback, invokePromiseCallback2, REUSE_ARGUMENT_LISTS, type AlgorithmResult } from "../shared/promise.ts";
import { typeError } from "../shared/webidl.ts";
import type { SizeAlgorithm } from "../strategies/extract.ts";
import {
  SetUpWritableStreamDefaultController,
  WRITABLE,
  WritableControllerInternal,
  WritableStreamDefaultControllerError,
  type SinkAlgorithms,
  type WritableStreamInternal,
} from "./stream-internal.ts";

/**
 * The converted members of an UnderlyingSink dictionary, which are also the stream's sink algorithms: one
 * object instead of a dictionary record and an algorithms object. The public controller handed to the
 * callbacks is created on first use (FP-LAZY): no user code can see it before a callback is called.
 */
export class UnderlyingSinkAlgorithms implements SinkAlgorithms {
  readonly sink: unknown;
  readonly abortFn: Function | undefined;
  readonly closeFn: Function | undefined;
  readonly startFn: Function | undefined;
  readonly writeFn: Function | undefined;
  controller!: WritableControllerInternal;
  #writeArgs: unknown[] | undefined = undefined;
  constructor(sink: unknown, abortFn: Function | undefined, closeFn: Function | undefined, startFn: Function | undefined, writeFn: Function | undefined) {
    this.sink = sink;
    this.abortFn = abortFn;
    this.closeFn = closeFn;
    this.startFn = startFn;
    this.writeFn = writeFn;
  }
  write(chunk: unknown): AlgorithmResult {
    const fn = this.writeFn;
    if (fn === undefined) return undefined;
    const c = this.controller;
    const pub = c.pub ??= createWritableController(c);
    if (!REUSE_ARGUMENT_LISTS) return invokePromiseCallback2(fn, this.sink, chunk, pub);
    const args = this.#writeArgs ??= [undefined, pub];
    args[0] = chunk;
    const result = invokePromiseCallback(fn, this.sink, args);
    args[0] = undefined;
    return result;
  }
  close(): AlgorithmResult {
    const fn = this.closeFn;
    return fn === undefined ? undefined : invokePromiseCallback(fn, this.sink, []);
  }
  abort(reason: unknown): AlgorithmResult {
    const fn = this.abortFn;
    return fn === undefined ? undefined : invokePromiseCallback(fn, this.sink, [reason]);
  }
}

/** The sink without members (`new WritableStream()`): nothing refers to a controller. */
export const EMPTY_SINK: UnderlyingSinkAlgorithms = new UnderlyingSinkAlgorithms(undefined, undefined, undefined, undefined, undefined);

/** SetUpWritableStreamDefaultControllerFromUnderlyingSink(stream, underlyingSink, hwm, sizeAlgorithm). */
export function SetUpWritableStreamDefaultControllerFromUnderlyingSink(
  stream: WritableStreamInternal,
  algorithms: UnderlyingSinkAlgorithms,
  highWaterMark: number,
  sizeAlgorithm: SizeAlgorithm | undefined,
): void {
  const c = new WritableControllerInternal();
  if (algorithms !== EMPTY_SINK) algorithms.controller = c;
  const start = algorithms.startFn;
  SetUpWritableStreamDefaultController(
    stream,
    c,
    start === undefined ? undefined : makeStartAlgorithm(start, algorithms.sink, c),
    algorithms,
    highWaterMark,
    sizeAlgorithm,
  );
}

// Its own function: a closure in the caller would cost every stream a context, start() or not.
function makeStartAlgorithm(start: Function, sink: unknown, c: WritableControllerInternal): () => unknown {
  return () => ReflectApply(start, sink, [c.pub ??= createWritableController(c)]);
}

let createWritableController: (c: WritableControllerInternal) => object;
let getWritableController: (x: unknown) => WritableControllerInternal;
const kCreate = Symbol();

/** The controller handed to a WritableStream's underlying sink (§5.4). */
export class WritableStreamDefaultController {
  #c!: WritableControllerInternal;

  /** Not constructible: controllers are created by WritableStream. */
  constructor(token: unknown = undefined) {
    if (token !== kCreate) throw typeError("Illegal constructor");
  }

  static {
    createWritableController = (c) => {
      const o = new WritableStreamDefaultController(kCreate);
      o.#c = c;
      return o;
    };
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
    if (c.stream.state !== WRITABLE) return;
    WritableStreamDefaultControllerError(c, e);
  }
}
defineInterface(WritableStreamDefaultController, "WritableStreamDefaultController");
