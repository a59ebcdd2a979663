/**
 * Floors (group 11, ids `floor-…`): the least work the Streams Standard requires of any implementation
 * written in JavaScript for the same data, with no stream objects at all. In a read loop every read is a
 * promise that is still pending when read() returns (the standard calls pull() in the reaction to the
 * previous pull, after the consumer's next read), so a chunk costs a pending promise, the pull's reaction
 * job and the consumer's await. Per byte chunk, `enqueue()` must also detach the caller's buffer
 * (TransferArrayBuffer: a new ArrayBuffer object) and a default read must hand out a new Uint8Array over it.
 * Run once, under the `native` row only: it is a reference line, not an implementation.
 * @module
 */
import { type Data, freshChunks } from "../lib/catalog.ts";
import { pushInBursts } from "../lib/bursts.ts";
import { Tally } from "../lib/tally.ts";

interface Floor {
  prepare: () => Uint8Array<ArrayBuffer>[];
  run: (fresh: Uint8Array<ArrayBuffer>[]) => Promise<void>;
  note: string;
}

type Transferable = ArrayBuffer & { transfer?: (this: ArrayBuffer) => ArrayBuffer };

/** TransferArrayBuffer with the fastest means the runtime has (structuredClone before ES2024). */
const transfer: (buffer: ArrayBuffer) => ArrayBuffer =
  typeof (ArrayBuffer.prototype as Transferable).transfer === "function"
    ? (buffer) => (buffer as Transferable).transfer!()
    : (buffer) => structuredClone(buffer, { transfer: [buffer] });

/**
 * The cheapest way this runtime has to queue a job: its queueMicrotask where that is built in (Bun), else a
 * reaction to an already-fulfilled promise (Node's and Deno's queueMicrotask are JavaScript wrappers, Node 22's
 * about twice as slow as the reaction). The same choice as core/shared/primordials.ts.
 */
const settledPromise = Promise.resolve();
const queueJob: (job: () => void) => void =
  /\{\s*\[native code\]\s*\}\s*$/.test(Function.prototype.toString.call(queueMicrotask))
    ? queueMicrotask
    : (job) => void settledPromise.then(job);

const ReflectApply = Reflect.apply;

/**
 * Whether the engine runs Reflect.apply faster with one argument list kept for every call (JavaScriptCore) than
 * with a literal at each call (V8, which removes the literal): the same choice as core/shared/promise.ts.
 */
const REUSE_ARGUMENT_LISTS = typeof Reflect.getOwnPropertyDescriptor(new Error("probe"), "line")?.value === "number";

/** The least controller a floor's source or producer calls: enqueue() and close(). */
interface PullController {
  enqueue(chunk: Uint8Array): void;
  close(): void;
}

/** The floor for scenario `id`, or undefined. */
export function buildFloor(id: string, data: Data): Floor | undefined {
  const { count, expect } = data;
  switch (id) {
    case "floor-read-loop":
      return {
        note: "per chunk: a pending read promise, the pull reaction job (which fulfills it), the await",
        prepare: () => data.chunks,
        async run(chunks) {
          const tally = new Tally();
          let i = 0;
          const settled = Promise.resolve();
          const pull = (resolve: (r: { value: Uint8Array; done: false }) => void): void => {
            void settled.then(() => resolve({ value: chunks[i++]!, done: false }));
          };
          while (i < count) {
            const result = await new Promise(pull);
            tally.add(result.value);
          }
          tally.check(expect, "floor: read loop");
        },
      };
    case "floor-flight":
      return {
        note: "per chunk: transfer + new Uint8Array at enqueue, then an await of an already-resolved read result",
        prepare: () => freshChunks(data),
        async run(fresh) {
          const queue = new Array<Uint8Array>(count);
          for (let i = 0; i < count; i++) {
            const view = fresh[i]!;
            const { byteOffset, byteLength } = view;
            queue[i] = new Uint8Array(transfer(view.buffer), byteOffset, byteLength);
          }
          const tally = new Tally();
          for (let i = 0; i < count; i++) {
            const result = await Promise.resolve({ value: queue[i]!, done: false });
            tally.add(result.value);
          }
          tally.check(expect, "floor: React Flight");
        },
      };
    case "floor-byte-read":
      return {
        note: "per chunk: a pending read promise, one job (the pull), transfer + new Uint8Array, resolve",
        prepare: () => freshChunks(data),
        async run(fresh) {
          const tally = new Tally();
          let i = 0;
          const pull = (resolve: (r: { value: Uint8Array; done: false }) => void): void => {
            queueJob(() => {
              const view = fresh[i++]!;
              const { byteOffset, byteLength } = view;
              resolve({ value: new Uint8Array(transfer(view.buffer), byteOffset, byteLength), done: false });
            });
          };
          while (i < count) {
            const result = await new Promise(pull);
            tally.add(result.value);
          }
          tally.check(expect, "floor: byte read loop");
        },
      };
    case "floor-batch-pull":
      return {
        note:
          "per chunk: the source's pull(controller) (its enqueue() one array push) and its reaction job; per 64 chunks: resolve + await",
        prepare: () => data.chunks,
        async run(chunks) {
          const tally = new Tally();
          let i = 0;
          let closed = false;
          let held: Uint8Array[] = [];
          let wake!: (batch: Uint8Array[]) => void;
          // the least a controller can be: enqueue() keeps the chunk for the waiting consumer
          const controller: PullController = {
            enqueue(chunk) {
              held.push(chunk);
            },
            close() {
              closed = true;
            },
          };
          // the batch-pull row's source (scenarios/batched.ts); its pull() is read once, as the standard reads it
          // when the stream is made, and called with Reflect.apply, the one call a JavaScript implementation can
          // make without looking anything up on the source or the function each time
          const source = {
            pull(c: PullController): void {
              c.enqueue(chunks[i++]!);
              if (i === count) c.close();
            },
          };
          const pull = source.pull;
          const pullArgs = [controller];
          const call = REUSE_ARGUMENT_LISTS
            ? (): unknown => ReflectApply(pull, source, pullArgs)
            : (): unknown => ReflectApply(pull, source, [controller]);
          // the pull reaction job: it calls pull() again (the read loop's pull chain), answering every 64 chunks
          const reaction = (): void => {
            call();
            if (held.length === 64 || closed) {
              const batch = held;
              held = [];
              wake(batch);
            }
            if (!closed) queueJob(reaction);
          };
          const wait = (resolve: (batch: Uint8Array[]) => void): void => {
            wake = resolve;
          };
          queueJob(reaction);
          while (!closed || held.length > 0) {
            const batch = await new Promise(wait);
            for (let k = 0; k < batch.length; k++) tally.add(batch[k]!);
          }
          tally.check(expect, "floor: batch pull");
        },
      };
    case "floor-batch-push":
      return {
        note:
          "per burst of 64: the producer's MessageChannel task (64 enqueue()s, each one array push), one resolve + await",
        prepare: () => data.chunks,
        async run(chunks) {
          const tally = new Tally();
          let held: Uint8Array[] = [];
          let wake: ((batch: Uint8Array[]) => void) | undefined;
          // the least a controller can be: enqueue() keeps the chunk for the consumer
          const controller: PullController = {
            enqueue(chunk) {
              held.push(chunk);
            },
            close() {},
          };
          // the batch-push row's producer (scenarios/batched.ts); at the end of each task, the consumer waiting
          // (if any) is woken with the burst
          pushInBursts(count, 64, (i) => controller.enqueue(chunks[i]!), () => controller.close(), () => {
            if (wake === undefined) return;
            const w = wake;
            wake = undefined;
            const batch = held;
            held = [];
            w(batch);
          });
          const wait = (resolve: (batch: Uint8Array[]) => void): void => {
            wake = resolve;
          };
          let got = 0;
          while (got < count) {
            let batch: Uint8Array[];
            if (held.length > 0) {
              batch = held;
              held = [];
            } else {
              batch = await new Promise(wait);
            }
            for (let k = 0; k < batch.length; k++) tally.add(batch[k]!);
            got += batch.length;
          }
          tally.check(expect, "floor: batch push");
        },
      };
    case "floor-consume-bytes":
    case "floor-consume-text":
      return {
        note:
          "floor-batch-pull's per-chunk work, then one buffer sized once and every chunk copied in (text: one UTF-8 decode)",
        prepare: () => data.chunks,
        async run(chunks) {
          let i = 0;
          let held: Uint8Array[] = [];
          const all: Uint8Array[] = [];
          let wake!: (batch: Uint8Array[]) => void;
          const reaction = (): void => {
            held.push(chunks[i++]!);
            if (held.length === 64 || i === count) {
              const batch = held;
              held = [];
              wake(batch);
            }
            if (i < count) queueJob(reaction);
          };
          const wait = (resolve: (batch: Uint8Array[]) => void): void => {
            wake = resolve;
          };
          queueJob(reaction);
          let total = 0;
          while (i < count || held.length > 0) {
            const batch = await new Promise(wait);
            for (let k = 0; k < batch.length; k++) {
              all.push(batch[k]!);
              total += batch[k]!.byteLength;
            }
          }
          const out = new Uint8Array(total);
          let at = 0;
          for (let k = 0; k < all.length; k++) {
            out.set(all[k]!, at);
            at += all[k]!.byteLength;
          }
          const tally = new Tally();
          if (id === "floor-consume-text") tally.addAscii(new TextDecoder().decode(out));
          else tally.add(out);
          tally.check(expect, id === "floor-consume-text" ? "floor: consume text" : "floor: consume bytes");
        },
      };
    case "floor-async-transform-6":
      return {
        note:
          "per chunk and stage: the async transform() and its promise, a promise resolved with that (2 jobs), the write's two reactions (PerformTransform's, then the write's completion), the readable side's pull reaction; per chunk: the reader's pending read and its await",
        prepare: () => data.chunks,
        async run(chunks) {
          const tally = new Tally();
          let out: Uint8Array | undefined;
          // the least a TransformStreamDefaultController can be: enqueue() hands the chunk on
          const controller = {
            enqueue(chunk: Uint8Array): void {
              out = chunk;
            },
          };
          const transformer = {
            async transform(chunk: Uint8Array, c: typeof controller): Promise<void> {
              c.enqueue(chunk);
            },
          };
          const transform = transformer.transform;
          // "a promise resolved with x" (WebIDL's conversion of a callback's result), the cheapest way JavaScript
          // has to make it (core/shared/promise.ts, FP-RESOLVED-WITH)
          const resolvedWith = async (x: unknown): Promise<unknown> => x;
          const nothing = (): undefined => undefined;
          const rethrow = (e: unknown): never => {
            throw e;
          };
          for (let i = 0; i < count; i++) {
            let chunk: Uint8Array = chunks[i]!;
            let fulfill!: (result: { value: Uint8Array; done: false }) => void;
            const read = new Promise<{ value: Uint8Array; done: false }>((resolve) => (fulfill = resolve));
            for (let k = 0; k < 6; k++) {
              const transformed = ReflectApply(transform, transformer, [chunk, controller]) as Promise<void>;
              chunk = out!;
              queueJob(nothing); // the readable side's pull reaction: its backpressure flips with the enqueue
              resolvedWith(transformed).then(nothing, rethrow).then(nothing, nothing);
            }
            fulfill({ value: chunk, done: false });
            tally.add((await read).value);
          }
          tally.check(expect, "floor: 6 async transforms");
        },
      };
    case "floor-reader-pull-6":
      return {
        note:
          "per chunk and stage: a pending read of the stage before and the pull()'s await of it, the async pull() and its promise, a promise resolved with that (2 jobs), the pull reaction; per chunk: the source's pull reaction, the reader's pending read and its await",
        prepare: () => data.chunks,
        async run(chunks) {
          const tally = new Tally();
          let i = 0;
          const resolvedWith = async (x: unknown): Promise<unknown> => x;
          const nothing = (): undefined => undefined;
          type Result = { value: Uint8Array; done: false };
          const fulfill: ((result: Result) => void)[] = [];
          // a read of stage k (1 to 6) with nothing queued there: a pending promise, and stage k's pull()
          const read = (k: number): Promise<Result> => {
            const pending = new Promise<Result>((resolve) => (fulfill[k] = resolve));
            resolvedWith(pull(k)).then(nothing, nothing);
            return pending;
          };
          // stage k's async pull(): awaits a read of the stage before (the source, stage 0, always has a chunk
          // queued: its read is fulfilled at once, and its own pull reaction refills it) and enqueues the value
          const pull = async (k: number): Promise<void> => {
            let result: Result;
            if (k === 1) {
              queueJob(nothing);
              result = await Promise.resolve({ value: chunks[i++]!, done: false as const });
            } else {
              result = await read(k - 1);
            }
            fulfill[k]!(result);
          };
          while (i < count) tally.add((await read(6)).value);
          tally.check(expect, "floor: 6 reader-pull stages");
        },
      };
  }
  return undefined;
}
