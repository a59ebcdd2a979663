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
  }
  return undefined;
}
