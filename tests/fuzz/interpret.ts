/**
 * Runs a fuzz program against one implementation (a set of stream classes) and records its outcome.
 *
 * Everything observable is recorded into named channels, each holding the chunks that passed a point (in
 * order) and the events seen there (in order):
 *   src      source callbacks: start, pull, cancel(reason), next/return of an iterator, enqueue failures
 *   tee<i>   the other branch of tee stage i: chunks read, how it ended, its cancel promise
 *   t<i>     transform stage i: chunks given to transform(), start, flush, cancel(reason)
 *   p<i>     the pipe into transform stage i, when run as pipeTo (prevent* flags): its promise, the follow-up
 *   out      the consumer: chunks read, read results that end it, reader.closed, cancel/close/abort promises
 *   sink     the consumer's WritableStream: chunks written, start, close, abort(reason)
 * plus the global order of all of them (`log`), unhandled rejections, and whether the case stalled.
 *
 * Only deterministic scheduling is used: microtask hops and setTimeout(0).
 * @module
 */
import {
  applyOp,
  byteAt,
  type ByteSource,
  type Consumer,
  type DefaultSource,
  type Delay,
  FLUSH_EXTRA_BYTE,
  flushExtra,
  type IterSource,
  type Program,
  type ReasonKind,
  type SinkSpec,
  type TransformStage,
} from "./program.ts";

/** The classes a program runs against. */
export interface Impl {
  name: string;
  ReadableStream: typeof globalThis.ReadableStream;
  WritableStream: typeof globalThis.WritableStream;
  TransformStream: typeof globalThis.TransformStream;
  CountQueuingStrategy: typeof globalThis.CountQueuingStrategy;
  ByteLengthQueuingStrategy: typeof globalThis.ByteLengthQueuingStrategy;
  /** how `for await` iterates a stream of this implementation (default: the stream's own async iterator) */
  values?: (stream: ReadableStream<unknown>, preventCancel: boolean) => AsyncIterableIterator<unknown>;
}

/** The classes of a module (or namespace) that exports the standard's stream classes, as an Impl. */
export function implOf(name: string, classes: object, values?: Impl["values"]): Impl {
  const c = classes as Omit<Impl, "name" | "values">;
  const impl: Impl = {
    name,
    ReadableStream: c.ReadableStream,
    WritableStream: c.WritableStream,
    TransformStream: c.TransformStream,
    CountQueuingStrategy: c.CountQueuingStrategy,
    ByteLengthQueuingStrategy: c.ByteLengthQueuingStrategy,
  };
  if (values) impl.values = values;
  return impl;
}

export interface Channel {
  /** serialized chunks, in arrival order */
  chunks: string[];
  /** the same chunks as units for the oracle: one number per number chunk, one per byte of a byte chunk */
  units: number[];
  /** events of the point's own flow (callbacks called, how reads ended), in order */
  events: string[];
  /** how the promises observed at this point settled, in settlement order (compared as a multiset) */
  settled: string[];
}

export interface Outcome {
  channels: Record<string, Channel>;
  log: string[];
  stalled: boolean;
  unhandled: string[];
  /** the same rejections as text (name, code and message), to recognise an implementation's internal failure */
  unhandledText: string[];
}

// ---------------------------------------------------------------------------------------------------
// Serialization

/** A stable text for a chunk, a reason or an error. Errors made here carry their tag in the message ("E:..."). */
export function ser(v: unknown): string {
  if (v === undefined) return "undefined";
  if (v === null) return "null";
  if (typeof v === "number") return String(v);
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "boolean") return String(v);
  if (v instanceof Uint8Array) return `u8[${Array.from(v).join(",")}]`;
  if (ArrayBuffer.isView(v)) return `${v.constructor.name}(${v.byteLength})`;
  if (Array.isArray(v)) return `[${v.map(ser).join(",")}]`;
  if (typeof v === "object") {
    const o = v as { message?: unknown; name?: unknown };
    if (typeof o.message === "string" && o.message.startsWith("E:")) return o.message;
    // Errors the implementation creates: compare by name only (TypeError, RangeError, AbortError, ...).
    if (typeof o.name === "string") return o.name;
    return "object";
  }
  return typeof v;
}

function units(v: unknown): number[] {
  if (typeof v === "number") return [v];
  if (v instanceof Uint8Array) return Array.from(v);
  return [Number.NaN];
}

// ---------------------------------------------------------------------------------------------------
// Recorder

class Recorder {
  channels: Record<string, Channel> = {};
  log: string[] = [];
  unhandled: string[] = [];
  unhandledText: string[] = [];
  activity = 0;

  #ch(name: string): Channel {
    let c = this.channels[name];
    if (!c) {
      c = { chunks: [], units: [], events: [], settled: [] };
      this.channels[name] = c;
    }
    return c;
  }

  chunk(name: string, v: unknown): void {
    const c = this.#ch(name);
    const s = ser(v);
    c.chunks.push(s);
    c.units.push(...units(v));
    this.log.push(`${name}:chunk ${s}`);
    this.activity++;
  }

  event(name: string, text: string): void {
    this.#ch(name).events.push(text);
    this.log.push(`${name}:${text}`);
    this.activity++;
  }

  /** Records how a promise settles (and marks it handled). */
  track(p: Promise<unknown>, name: string, label: string): void {
    p.then(
      () => this.settle(name, `${label}:fulfilled`),
      (e: unknown) => this.settle(name, `${label}:rejected ${ser(e)}`),
    );
  }

  settle(name: string, text: string): void {
    this.#ch(name).settled.push(text);
    this.log.push(`${name}:${text}`);
    this.activity++;
  }
}

// ---------------------------------------------------------------------------------------------------
// Helpers

/**
 * One macrotask turn: setImmediate where the runtime has it (Node, Deno, Bun: a FIFO queue run once per event
 * loop turn, with no clamping), else setTimeout(0). Every delay a program makes and every turn the watchdog
 * counts goes through the same queue, so their order is deterministic.
 */
const nextTurn: (fn: () => void) => void = typeof (globalThis as { setImmediate?: unknown }).setImmediate === "function"
  ? (fn) => (globalThis as unknown as { setImmediate(fn: () => void): void }).setImmediate(fn)
  : (fn) => setTimeout(fn, 0);

function macro(): Promise<void> {
  return new Promise((resolve) => nextTurn(resolve));
}

/** Runs fn after the delay; "sync" runs it now and returns its result as is. */
function after<T>(d: Delay, fn: () => T): T | Promise<Awaited<T>> {
  switch (d) {
    case "sync":
      return fn();
    case "micro1":
      return Promise.resolve().then(fn) as Promise<Awaited<T>>;
    case "micro3":
      return Promise.resolve()
        .then(() => {})
        .then(() => {})
        .then(fn) as Promise<Awaited<T>>;
    case "macro":
      return macro().then(fn) as Promise<Awaited<T>>;
  }
}

function err(tag: string): Error {
  return new Error(`E:${tag}`);
}

function makeReason(kind: ReasonKind, tag: string): unknown {
  switch (kind) {
    case "error":
      return err(tag);
    case "string":
      return `R:${tag}`;
    case "undefined":
      return undefined;
  }
}

function byValueSize(chunk: unknown): number {
  if (typeof chunk === "number") return (Math.abs(chunk) % 3) + 1;
  if (chunk instanceof Uint8Array) return (chunk.byteLength % 3) + 1;
  return 1;
}

type AnyReadable = ReadableStream<unknown>;
interface ReadResult {
  done: boolean;
  value?: unknown;
}
type Ctl = ReadableStreamDefaultController<unknown>;

interface Ctx {
  impl: Impl;
  rec: Recorder;
  /** hooks run at the end of source step k (pull / next() number k) */
  stepHooks: Map<number, (() => void)[]>;
  /**
   * run once when an unfinished case has gone quiet: cancelling a tee branch nobody reads. Until that branch
   * is cancelled too, cancelling the other one (a consumer's cancel, a pipe's, a loop's break) cannot finish:
   * the tee's cancel promise waits for both branches, by the standard.
   */
  idleActions: (() => void)[];
}

function onStep(ctx: Ctx, k: number, fn: () => void): void {
  const list = ctx.stepHooks.get(k) ?? [];
  list.push(fn);
  ctx.stepHooks.set(k, list);
}

function fireStep(ctx: Ctx, k: number): void {
  for (const fn of ctx.stepHooks.get(k) ?? []) fn();
}

function cancelBehavior(how: "ok" | "throw" | "reject" | "async"): unknown {
  switch (how) {
    case "ok":
      return undefined;
    case "throw":
      throw err("src-cancel-throw");
    case "reject":
      return Promise.reject(err("src-cancel-reject"));
    case "async":
      return macro();
  }
}

// ---------------------------------------------------------------------------------------------------
// Sources

function defaultSource(ctx: Ctx, s: DefaultSource): AnyReadable {
  const { rec, impl } = ctx;
  let next = 0;
  let pulls = 0;
  const enqueue = (c: Ctl, x: number): void => {
    try {
      c.enqueue(x);
    } catch (e) {
      rec.event("src", `enqueue threw ${ser(e)}`);
      throw e;
    }
  };
  const source: UnderlyingDefaultSource<unknown> = {
    start(c) {
      rec.event("src", "start");
      return after(s.startDelay, () => {
        if (s.delivery !== "start") return;
        for (let i = 0; i <= s.count; i++) {
          if (s.error && s.error.at === i) {
            const e = err(`src-start@${i}`);
            if (s.error.how === "throw") throw e;
            c.error(e);
            return;
          }
          if (i < s.count) enqueue(c, ++next);
        }
        c.close();
      });
    },
    cancel(reason) {
      rec.event("src", `cancel ${ser(reason)}`);
      return cancelBehavior(s.cancelHow) as Promise<void> | undefined;
    },
  };
  if (s.delivery === "pull") {
    source.pull = (c) => {
      const step = ++pulls;
      rec.event("src", "pull");
      return after(s.pullDelay, () => {
        if (s.error && s.error.at === step) {
          const e = err(`src-pull@${step}`);
          fireStep(ctx, step);
          if (s.error.how === "throw") throw e;
          c.error(e);
          return;
        }
        const had = next < s.count;
        for (let j = 0; j < s.perPull && next < s.count; j++) enqueue(c, ++next);
        if (!had || (s.closeIn === "same" && next >= s.count)) {
          try {
            c.close();
          } catch (e) {
            rec.event("src", `close threw ${ser(e)}`);
          }
        }
        fireStep(ctx, step);
      });
    };
  }
  let strategy: QueuingStrategy<unknown>;
  switch (s.size) {
    case "default":
      strategy = { highWaterMark: s.hwm };
      break;
    case "count":
      strategy = new impl.CountQueuingStrategy({ highWaterMark: s.hwm });
      break;
    case "byValue":
      strategy = {
        highWaterMark: s.hwm,
        size(chunk) {
          if (s.sizeThrowAt !== undefined && chunk === s.sizeThrowAt) throw err(`size@${chunk}`);
          return byValueSize(chunk);
        },
      };
      break;
  }
  return new impl.ReadableStream(source, strategy);
}

function byteSource(ctx: Ctx, s: ByteSource): AnyReadable {
  const { rec, impl } = ctx;
  const total = s.lengths.reduce((a, b) => a + b, 0);
  let pos = 0;
  let seg = 0;
  let segRem = s.lengths[0] ?? 0;
  let pulls = 0;
  const advance = (n: number): void => {
    pos += n;
    segRem -= n;
    while (segRem === 0 && seg < s.lengths.length) {
      seg++;
      segRem = s.lengths[seg] ?? 0;
    }
  };
  const nextChunk = (): Uint8Array<ArrayBuffer> => {
    const chunk = new Uint8Array(segRem);
    for (let i = 0; i < chunk.length; i++) chunk[i] = byteAt(pos + i);
    advance(chunk.length);
    return chunk;
  };
  const source: UnderlyingByteSource = {
    type: "bytes",
    start(c) {
      rec.event("src", "start");
      if (s.delivery !== "start") return;
      for (let i = 0; i <= s.lengths.length; i++) {
        if (s.error && s.error.at === i) {
          const e = err(`src-start@${i}`);
          if (s.error.how === "throw") throw e;
          c.error(e);
          return;
        }
        if (i < s.lengths.length) c.enqueue(nextChunk());
      }
      c.close();
    },
    cancel(reason) {
      rec.event("src", `cancel ${ser(reason)}`);
      return cancelBehavior(s.cancelHow) as Promise<void> | undefined;
    },
  };
  if (s.autoAllocate > 0) source.autoAllocateChunkSize = s.autoAllocate;
  if (s.delivery === "pull") {
    source.pull = (c) => {
      const step = ++pulls;
      rec.event("src", "pull");
      return after(s.pullDelay, () => {
        if (s.error && s.error.at === step) {
          const e = err(`src-pull@${step}`);
          fireStep(ctx, step);
          if (s.error.how === "throw") throw e;
          c.error(e);
          return;
        }
        try {
          if (pos < total) {
            const req = s.useByob === "no" ? null : c.byobRequest;
            const view = req?.view;
            if (req && view && view.byteLength > 0) {
              const n = Math.min(view.byteLength, segRem);
              const bytes = new Uint8Array(view.buffer as ArrayBuffer, view.byteOffset, n);
              for (let i = 0; i < n; i++) bytes[i] = byteAt(pos + i);
              advance(n);
              rec.event("src", `respond ${n}`);
              if (s.useByob === "newView") req.respondWithNewView(bytes);
              else req.respond(n);
            } else {
              c.enqueue(nextChunk());
            }
          }
          if (pos >= total) {
            c.close();
            // A pending read into a BYOB view only ends when the source answers it: respond(0) after close().
            c.byobRequest?.respond(0);
          }
        } catch (e) {
          rec.event("src", `pull body threw ${ser(e)}`);
          throw e;
        }
        fireStep(ctx, step);
      });
    };
  }
  return new impl.ReadableStream(source, { highWaterMark: s.hwm });
}

function iterSource(ctx: Ctx, s: IterSource): AnyReadable {
  const { rec, impl } = ctx;
  const items: number[] = [];
  for (let i = 1; i <= s.count; i++) items.push(i);
  const from = (iterable: unknown): AnyReadable =>
    (impl.ReadableStream as unknown as { from(iterable: unknown): AnyReadable }).from(iterable);
  if (s.iter === "array") return from(items);
  let calls = 0;
  const step = (): IteratorResult<number> => {
    const k = ++calls;
    rec.event("src", "next");
    if (s.throwAt === k) {
      fireStep(ctx, k);
      throw err(`iter@${k}`);
    }
    const r: IteratorResult<number> = k <= s.count ? { value: k, done: false } : { value: undefined, done: true };
    fireStep(ctx, k);
    return r;
  };
  if (s.iter === "sync") {
    const iterator: Iterator<number> = { next: step };
    if (s.hasReturn) {
      iterator.return = (v?: unknown) => {
        rec.event("src", `return ${ser(v)}`);
        return { value: undefined, done: true };
      };
    }
    return from({ [Symbol.iterator]: () => iterator });
  }
  const iterator: AsyncIterator<number> = {
    next: () =>
      new Promise<IteratorResult<number>>((resolve, reject) => {
        const run = (): void => {
          try {
            resolve(step());
          } catch (e) {
            reject(e);
          }
        };
        if (s.delay === "sync") run();
        else void after(s.delay, run);
      }),
  };
  if (s.hasReturn) {
    iterator.return = (v?: unknown) => {
      rec.event("src", `return ${ser(v)}`);
      return Promise.resolve({ value: undefined, done: true });
    };
  }
  return from({ [Symbol.asyncIterator]: () => iterator });
}

// ---------------------------------------------------------------------------------------------------
// Stages

function transformStage(ctx: Ctx, t: TransformStage, i: number, input: AnyReadable, bytes: boolean): AnyReadable {
  const { rec, impl } = ctx;
  const ch = `t${i}`;
  let calls = 0;
  const enqueue = (c: TransformStreamDefaultController<unknown>, v: unknown): void => {
    try {
      c.enqueue(v);
    } catch (e) {
      rec.event(ch, `enqueue threw ${ser(e)}`);
      throw e;
    }
  };
  // (Transformer.cancel is newer than some lib typings)
  const transformer: Transformer<unknown, unknown> & { cancel?: (reason: unknown) => void } = {
    start() {
      rec.event(ch, "start");
      return after(t.startDelay, () => {});
    },
    flush(c) {
      rec.event(ch, "flush");
      return after(t.flushDelay, () => {
        if (t.flush === "throw") throw err(`flush-t${i}`);
        if (t.flush === "extra") enqueue(c, bytes ? new Uint8Array([FLUSH_EXTRA_BYTE, i & 0xff]) : flushExtra(i));
      });
    },
  };
  if (t.hasCancel) {
    transformer.cancel = (reason) => {
      rec.event(ch, `cancel ${ser(reason)}`);
    };
  }
  if (t.op !== "none") {
    transformer.transform = (chunk, c) => {
      const k = ++calls;
      rec.chunk(ch, chunk);
      return after(t.delay, () => {
        if (t.fault && t.fault.at === k && t.fault.how !== "terminate") {
          const e = err(`t${i}-${t.fault.how}@${k}`);
          if (t.fault.how === "throw") throw e;
          c.error(e);
          return;
        }
        for (const out of mapChunk(t.op, chunk)) enqueue(c, out);
        if (t.fault && t.fault.at === k) c.terminate();
      });
    };
  }
  const ts = new impl.TransformStream(transformer, { highWaterMark: t.wHwm }, { highWaterMark: t.rHwm });
  let signal: AbortSignal | undefined;
  if (t.abortAtStep !== undefined) {
    const ac = new AbortController();
    signal = ac.signal;
    const reason = makeReason(t.abortReason, `abort-p${i}`);
    onStep(ctx, t.abortAtStep, () => ac.abort(reason));
  }
  const options: StreamPipeOptions = { signal };
  if (!t.preventAbort && !t.preventCancel && !t.preventClose) return input.pipeThrough(ts, options);
  // pipeThrough with a prevent* flag would leave the readable side open forever; pipeTo + readable is the same
  // pipe, and the follow-up below ends the writable side the way the flag left it open.
  options.preventAbort = t.preventAbort;
  options.preventCancel = t.preventCancel;
  options.preventClose = t.preventClose;
  const pch = `p${i}`;
  input.pipeTo(ts.writable, options).then(
    () => {
      rec.event(pch, "pipe:fulfilled");
      if (t.preventClose) rec.track(ts.writable.close(), pch, "close");
    },
    (e: unknown) => {
      rec.event(pch, `pipe:rejected ${ser(e)}`);
      if (t.preventAbort) rec.track(ts.writable.abort(err(`manual-abort-p${i}`)), pch, "abort");
      if (t.preventCancel) rec.track(input.cancel(err(`manual-cancel-p${i}`)), pch, "cancel");
    },
  );
  return ts.readable;
}

function mapChunk(op: TransformStage["op"], chunk: unknown): unknown[] {
  if (typeof chunk === "number") return applyOp(op, chunk);
  if (chunk instanceof Uint8Array) {
    switch (op) {
      case "none":
      case "identity":
      case "filter":
        return [chunk];
      case "map":
        return [chunk.map((b) => (b + 1) & 0xff)];
      case "split": {
        if (chunk.length < 2) return [chunk];
        const h = chunk.length >> 1;
        return [chunk.slice(0, h), chunk.slice(h)];
      }
    }
  }
  return [chunk];
}

/** Reads a tee branch to the end (or cancels it after `cancelAt` chunks). */
async function readBranch(
  ctx: Ctx,
  stream: AnyReadable,
  ch: string,
  cancelAt: number | undefined,
  reason: unknown,
): Promise<void> {
  const { rec } = ctx;
  const reader = stream.getReader();
  let n = 0;
  try {
    for (;;) {
      if (cancelAt !== undefined && n >= cancelAt) {
        rec.track(reader.cancel(reason), ch, "cancel");
        rec.event(ch, "end:cancelled");
        return;
      }
      const r = await reader.read();
      if (r.done) {
        rec.event(ch, "end:done");
        return;
      }
      rec.chunk(ch, r.value);
      n++;
    }
  } catch (e) {
    rec.event(ch, `end:error ${ser(e)}`);
  }
}

// ---------------------------------------------------------------------------------------------------
// Consumers

function makeSink(ctx: Ctx, s: SinkSpec): WritableStream<unknown> {
  const { rec, impl } = ctx;
  let writes = 0;
  const sink: UnderlyingSink<unknown> = {
    start() {
      rec.event("sink", "start");
      return after(s.startDelay, () => {});
    },
    write(chunk, c) {
      const k = ++writes;
      rec.chunk("sink", chunk);
      return after(s.writeDelay, () => {
        if (s.fault && s.fault.at === k) {
          const e = err(`sink-${s.fault.how}@${k}`);
          if (s.fault.how === "throw") throw e;
          if (s.fault.how === "reject") return Promise.reject(e);
          c.error(e);
        }
        return undefined;
      });
    },
    close() {
      rec.event("sink", "close");
      if (s.closeHow === "throw") throw err("sink-close");
    },
    abort(reason) {
      rec.event("sink", `abort ${ser(reason)}`);
      if (s.abortHow === "throw") throw err("sink-abort");
    },
  };
  const strategy: QueuingStrategy<unknown> = s.size === "byValue"
    ? { highWaterMark: s.hwm, size: byValueSize }
    : { highWaterMark: s.hwm };
  return new impl.WritableStream(sink, strategy);
}

async function consume(ctx: Ctx, c: Consumer, stream: AnyReadable): Promise<void> {
  const { rec } = ctx;
  switch (c.kind) {
    case "reader": {
      let reader = stream.getReader();
      rec.track(reader.closed, "out", "closed");
      let n = 0;
      let released = false;
      for (;;) {
        if (c.cancelAt !== undefined && n >= c.cancelAt) {
          rec.track(reader.cancel(makeReason(c.reason, "cancel-out")), "out", "cancel");
          rec.event("out", "end:cancelled");
          return;
        }
        if (!released && c.releaseAt !== undefined && n >= c.releaseAt) {
          released = true;
          reader.releaseLock();
          reader = stream.getReader();
          rec.event("out", "reacquired");
          rec.track(reader.closed, "out", "closed2");
        }
        const reads: Promise<ReadResult>[] = [];
        for (let j = 0; j < c.batch; j++) reads.push(reader.read());
        const results = await Promise.allSettled(reads);
        let ended = false;
        for (const r of results) {
          if (r.status === "rejected") {
            rec.event("out", `end:error ${ser(r.reason)}`);
            ended = true;
          } else if (r.value.done) {
            rec.event("out", `end:done ${ser(r.value.value)}`);
            ended = true;
          } else {
            rec.chunk("out", r.value.value);
            n++;
          }
        }
        if (ended) return;
      }
    }
    case "byob": {
      const reader = stream.getReader({ mode: "byob" });
      rec.track(reader.closed, "out", "closed");
      let buffer: ArrayBuffer | undefined;
      let n = 0;
      for (let i = 0;; i++) {
        if (c.cancelAt !== undefined && n >= c.cancelAt) {
          rec.track(reader.cancel(makeReason(c.reason, "cancel-out")), "out", "cancel");
          rec.event("out", "end:cancelled");
          return;
        }
        const size = c.sizes[i % c.sizes.length]!;
        const view = c.reuse && buffer && buffer.byteLength >= size
          ? new Uint8Array(buffer, 0, size)
          : new Uint8Array(size);
        let r: ReadableStreamReadResult<Uint8Array>;
        try {
          r = await reader.read(view);
        } catch (e) {
          rec.event("out", `end:error ${ser(e)}`);
          return;
        }
        if (r.done) {
          rec.event(
            "out",
            `end:done ${
              r.value === undefined ? "undefined" : `view(${r.value.byteLength}/${r.value.buffer.byteLength})`
            }`,
          );
          return;
        }
        rec.chunk("out", r.value);
        buffer = r.value.buffer as ArrayBuffer;
        n++;
      }
    }
    case "iterate": {
      const values = ctx.impl.values;
      const iterable: AsyncIterable<unknown> = values
        ? values(stream, c.preventCancel)
        : c.preventCancel
        ? stream.values({ preventCancel: true })
        : stream;
      let n = 0;
      try {
        for await (const chunk of iterable) {
          if (c.breakAt !== undefined && n >= c.breakAt) {
            if (c.how === "throw") throw err("iter-throw");
            rec.event("out", "end:break");
            break;
          }
          rec.chunk("out", chunk);
          n++;
        }
        rec.event("out", "end:loop-exit");
      } catch (e) {
        rec.event("out", `end:error ${ser(e)}`);
      }
      rec.event("out", `locked=${stream.locked}`);
      return;
    }
    case "pipeTo": {
      const ws = makeSink(ctx, c.sink);
      let signal: AbortSignal | undefined;
      if (c.abortAtStep !== undefined) {
        const ac = new AbortController();
        signal = ac.signal;
        const reason = makeReason(c.abortReason, "abort-out");
        onStep(ctx, c.abortAtStep, () => ac.abort(reason));
      }
      try {
        await stream.pipeTo(ws, {
          preventAbort: c.preventAbort,
          preventCancel: c.preventCancel,
          preventClose: c.preventClose,
          signal,
        });
        rec.event("out", "pipe:fulfilled");
      } catch (e) {
        rec.event("out", `pipe:rejected ${ser(e)}`);
      }
      rec.event("out", `locked=${stream.locked},${ws.locked}`);
      return;
    }
    case "writer": {
      const ws = makeSink(ctx, c.sink);
      const writer = ws.getWriter();
      rec.track(writer.closed, "out", "writer.closed");
      const reader = stream.getReader();
      let n = 0;
      for (;;) {
        if (c.abortAt !== undefined && n >= c.abortAt) {
          const reason = makeReason(c.reason, "writer-abort");
          rec.track(writer.abort(reason), "out", "abort");
          rec.track(reader.cancel(reason), "out", "cancel");
          rec.event("out", "end:aborted");
          return;
        }
        if (c.awaitReady) {
          try {
            await writer.ready;
          } catch (e) {
            rec.event("out", `ready:rejected ${ser(e)}`);
            rec.track(reader.cancel(e), "out", "cancel");
            rec.event("out", "end:sink-error");
            return;
          }
        }
        let r: ReadResult;
        try {
          r = await reader.read();
        } catch (e) {
          rec.event("out", `read:rejected ${ser(e)}`);
          rec.track(writer.abort(e), "out", "abort");
          rec.event("out", "end:error");
          return;
        }
        if (r.done) {
          rec.track(writer.close(), "out", "close");
          rec.event("out", "end:done");
          return;
        }
        rec.chunk("out", r.value);
        rec.track(writer.write(r.value), "out", `write#${n}`);
        n++;
      }
    }
  }
}

async function build(ctx: Ctx, p: Program): Promise<void> {
  const { rec } = ctx;
  let stream: AnyReadable;
  try {
    switch (p.source.kind) {
      case "default":
        stream = defaultSource(ctx, p.source);
        break;
      case "bytes":
        stream = byteSource(ctx, p.source);
        break;
      case "from":
        stream = iterSource(ctx, p.source);
        break;
    }
  } catch (e) {
    // start() threw (or an enqueue in it did): the constructor rethrows, and there is nothing to consume.
    rec.event("src", `constructor threw ${ser(e)}`);
    return;
  }
  const tasks: Promise<void>[] = [];
  for (const [i, st] of p.stages.entries()) {
    if (st.kind === "transform") {
      stream = transformStage(ctx, st, i, stream, p.source.kind === "bytes");
      continue;
    }
    const branches = stream.tee();
    const other = branches[1 - st.follow]!;
    stream = branches[st.follow]!;
    const ch = `tee${i}`;
    const reason = makeReason(st.reason, `cancel-tee${i}`);
    switch (st.other) {
      case "ignore":
        ctx.idleActions.push(() => rec.track(other.cancel(err(`late-cancel-tee${i}`)), ch, "late-cancel"));
        break;
      case "read":
        tasks.push(readBranch(ctx, other, ch, undefined, undefined));
        break;
      case "cancel":
        rec.track(other.cancel(reason), ch, "cancel");
        break;
      case "cancelAt":
        tasks.push(readBranch(ctx, other, ch, st.cancelAt, reason));
        break;
    }
  }
  await consume(ctx, p.consumer, stream);
}

// ---------------------------------------------------------------------------------------------------
// Unhandled rejections: counted per case (the case running when the runtime reports one).

let currentRecorder: Recorder | undefined;
let hooksInstalled = 0;
let removeHooks: (() => void) | undefined;

interface ProcessLike {
  on(event: string, fn: (reason: unknown) => void): unknown;
  off(event: string, fn: (reason: unknown) => void): unknown;
}

function onUnhandled(reason: unknown): void {
  if (!currentRecorder) return;
  currentRecorder.unhandled.push(ser(reason));
  const code = (reason as { code?: unknown } | null)?.code;
  currentRecorder.unhandledText.push(
    `${reason instanceof Error ? reason.name : typeof reason}${typeof code === "string" ? ` [${code}]` : ""}: ${
      (reason instanceof Error ? reason.message : String(reason)).split("\n")[0]
    }`,
  );
}

/** An exception thrown in a job by the implementation itself (nothing in a program throws outside a callback). */
function onUncaught(error: unknown): void {
  if (currentRecorder) {
    currentRecorder.event("crash", `uncaught ${ser(error)}: ${error instanceof Error ? error.message : String(error)}`);
  } else throw error;
}

function installHooks(): void {
  if (hooksInstalled++ > 0) return;
  const proc = (globalThis as { process?: ProcessLike }).process;
  const isDeno = typeof (globalThis as { Deno?: unknown }).Deno === "object";
  if (!isDeno && proc && typeof proc.on === "function") {
    proc.on("unhandledRejection", onUnhandled);
    proc.on("uncaughtException", onUncaught);
    removeHooks = () => {
      proc.off("unhandledRejection", onUnhandled);
      proc.off("uncaughtException", onUncaught);
    };
  } else if (typeof globalThis.addEventListener === "function") {
    const listener = (e: Event): void => {
      e.preventDefault();
      onUnhandled((e as PromiseRejectionEvent).reason);
    };
    const errorListener = (e: Event): void => {
      e.preventDefault();
      onUncaught((e as ErrorEvent).error);
    };
    globalThis.addEventListener("unhandledrejection", listener);
    globalThis.addEventListener("error", errorListener);
    removeHooks = () => {
      globalThis.removeEventListener("unhandledrejection", listener);
      globalThis.removeEventListener("error", errorListener);
    };
  }
}

function uninstallHooks(): void {
  if (--hooksInstalled > 0) return;
  removeHooks?.();
  removeHooks = undefined;
}

export interface RunOptions {
  /** idle macrotask turns (no recorded activity) after which an unfinished case counts as stalled */
  stallTurns?: number;
  /** idle macrotask turns to wait after the consumer finished, for late events */
  settleTurns?: number;
  /** hard cap in milliseconds */
  timeoutMs?: number;
}

/** Runs one program against one implementation. */
export async function runProgram(p: Program, impl: Impl, options: RunOptions = {}): Promise<Outcome> {
  const stallTurns = options.stallTurns ?? 40;
  const settleTurns = options.settleTurns ?? 4;
  const timeoutMs = options.timeoutMs ?? 2000;
  const rec = new Recorder();
  const ctx: Ctx = { impl, rec, stepHooks: new Map(), idleActions: [] };
  installHooks();
  currentRecorder = rec;
  let finished = false;
  let stalled = false;
  try {
    build(ctx, p).then(
      () => {
        finished = true;
      },
      (e: unknown) => {
        rec.event("crash", `${ser(e)}: ${e instanceof Error ? e.message : String(e)}`);
        finished = true;
      },
    );
    const started = Date.now();
    let idle = 0;
    let seen = rec.activity;
    for (;;) {
      await macro();
      if (rec.activity !== seen) {
        seen = rec.activity;
        idle = 0;
      } else {
        idle++;
      }
      if (finished && idle >= settleTurns) break;
      if (!finished && idle >= stallTurns && ctx.idleActions.length > 0) {
        for (const action of ctx.idleActions.splice(0)) action();
        idle = 0;
      } else if (!finished && idle >= stallTurns) {
        stalled = true;
        break;
      }
      if (Date.now() - started > timeoutMs || rec.log.length > 20_000) {
        stalled = !finished;
        rec.event("watchdog", finished ? "still busy after the consumer finished" : "timeout");
        break;
      }
    }
  } finally {
    currentRecorder = undefined;
    uninstallHooks();
  }
  return { channels: rec.channels, log: rec.log, stalled, unhandled: rec.unhandled, unhandledText: rec.unhandledText };
}
