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

/** Converted members of an UnderlyingSink dictionary. */
export interface UnderlyingSinkRecord {
  abort: Function | undefined;
  close: Function | undefined;
  start: Function | undefined;
  write: Function | undefined;
}

class UnderlyingSinkAlgorithms implements SinkAlgorithms {
  readonly #sink: unknown;
  readonly #write: Function | undefined;
  readonly #close: Function | undefined;
  readonly #abort: Function | undefined;
  readonly #controller: object;
  #writeArgs: unknown[] | undefined = undefined;
  constructor(sink: unknown, dict: UnderlyingSinkRecord, controller: object) {
    this.#sink = sink;
    this.#write = dict.write;
    this.#close = dict.close;
    this.#abort = dict.abort;
    this.#controller = controller;
  }
  write(chunk: unknown): AlgorithmResult {
    const fn = this.#write;
    if (fn === undefined) return undefined;
    if (!REUSE_ARGUMENT_LISTS) return invokePromiseCallback2(fn, this.#sink, chunk, this.#controller);
    const args = this.#writeArgs ??= [undefined, this.#controller];
    args[0] = chunk;
    const result = invokePromiseCallback(fn, this.#sink, args);
    args[0] = undefined;
    return result;
  }
  close(): AlgorithmResult {
    const fn = this.#close;
    return fn === undefined ? undefined : invokePromiseCallback(fn, this.#sink, []);
  }
  abort(reason: unknown): AlgorithmResult {
    const fn = this.#abort;
    return fn === undefined ? undefined : invokePromiseCallback(fn, this.#sink, [reason]);
  }
}

/** SetUpWritableStreamDefaultControllerFromUnderlyingSink(stream, underlyingSink, dict, hwm, sizeAlgorithm). */
export function SetUpWritableStreamDefaultControllerFromUnderlyingSink(
  stream: WritableStreamInternal,
  underlyingSink: unknown,
  dict: UnderlyingSinkRecord,
  highWaterMark: number,
  sizeAlgorithm: SizeAlgorithm | undefined,
): void {
  const c = new WritableControllerInternal();
  const pub = createWritableController(c);
  c.pub = pub;
  const start = dict.start;
  SetUpWritableStreamDefaultController(
    stream,
    c,
    start === undefined ? undefined : () => ReflectApply(start, underlyingSink, [pub]),
    new UnderlyingSinkAlgorithms(underlyingSink, dict, pub),
    highWaterMark,
    sizeAlgorithm,
  );
}

let createWritableController: (c: WritableControllerInternal) => WritableStreamDefaultController;
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
