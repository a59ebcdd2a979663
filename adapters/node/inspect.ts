/**
 * How Node.js shows our streams (`console.log`, `util.inspect`) while patched: as it shows its own,
 * `ReadableStream { locked: false, state: 'readable', supportsBYOB: false }`,
 * `TextEncoderStream { encoding: 'utf-8', readable: ..., writable: ... }` and so on. Node's hooks are on the native
 * prototypes ours inherit from, under `Symbol.for("nodejs.util.inspect.custom")`, which the `classes` step shadows
 * on ours (they read Node's internal slots); without this step Node shows every stream of ours as
 * `ReadableStream {}`.
 *
 * What Node shows from its internal slots that no public member of ours gives (a reader's stream and pending
 * reads, a writer's stream, a TransformStream's backpressure, a controller's stream) is left out.
 * @module
 */
import * as api from "../../mod.ts";
import { isReadableByteStream } from "../kit/stream-control.ts";
import type { PatchTransaction } from "../kit/patch-transaction.ts";

/** Node's registered custom-inspect symbol: `[Symbol.for("nodejs.util.inspect.custom")](depth, options, inspect)`. */
const kInspect = Symbol.for("nodejs.util.inspect.custom");

type Inspect = (value: unknown, options: unknown) => string;

/**
 * The fields Node shows for each of its classes, as `[shown as, read from]`: a public getter of the class, or
 * `state` / `supportsBYOB` answered by the core.
 */
const FIELDS: Readonly<Record<string, readonly (readonly [string, string])[]>> = {
  ReadableStream: [["locked", "locked"], ["state", "state"], ["supportsBYOB", "supportsBYOB"]],
  ReadableStreamDefaultReader: [["close", "closed"]],
  ReadableStreamBYOBReader: [["close", "closed"]],
  ReadableStreamBYOBRequest: [["view", "view"]],
  ReadableStreamDefaultController: [],
  ReadableByteStreamController: [],
  WritableStream: [["locked", "locked"], ["state", "state"]],
  WritableStreamDefaultWriter: [["close", "closed"], ["ready", "ready"], ["desiredSize", "desiredSize"]],
  WritableStreamDefaultController: [],
  TransformStream: [["readable", "readable"], ["writable", "writable"]],
  TransformStreamDefaultController: [],
  ByteLengthQueuingStrategy: [["highWaterMark", "highWaterMark"]],
  CountQueuingStrategy: [["highWaterMark", "highWaterMark"]],
  CompressionStream: [["readable", "readable"], ["writable", "writable"]],
  DecompressionStream: [["readable", "readable"], ["writable", "writable"]],
  TextEncoderStream: [["encoding", "encoding"], ["readable", "readable"], ["writable", "writable"]],
  TextDecoderStream: [
    ["encoding", "encoding"],
    ["fatal", "fatal"],
    ["ignoreBOM", "ignoreBOM"],
    ["readable", "readable"],
    ["writable", "writable"],
  ],
};

/**
 * What Node shows of `self` (an instance of our class `name`): the fields read through the class's own getters,
 * so anything but an instance throws the class's brand-check TypeError (with Node's `ERR_INVALID_THIS` while
 * patched), as Node's hooks do.
 */
function dataOf(self: unknown, proto: object, fields: readonly (readonly [string, string])[]): object {
  const data: Record<string, unknown> = {};
  for (const [shown, from] of fields) {
    if (from === "state") {
      data[shown] = api.readableStreamState(self)?.state ?? api.writableStreamState(self)?.state;
    } else if (from === "supportsBYOB") {
      data[shown] = isReadableByteStream(self) ?? false;
    } else {
      data[shown] = Reflect.get(proto, from, self);
    }
  }
  return data;
}

/** Step `node inspect`: each of our classes' prototypes shows what Node shows for its own class. */
export function patchInspect(tx: PatchTransaction): void {
  const classes = api as unknown as Record<string, { prototype: object } | undefined>;
  for (const [name, fields] of Object.entries(FIELDS)) {
    const proto = classes[name]?.prototype;
    if (proto === undefined) continue;
    tx.defineValue(
      proto,
      kInspect,
      function inspect(
        this: unknown,
        depth: number,
        options: { depth?: number | null },
        inspect: Inspect,
      ): unknown {
        const data = dataOf(this, proto, fields);
        if (depth < 0) return this;
        return `${name} ${inspect(data, { ...options, depth: options.depth == null ? null : options.depth - 1 })}`;
      },
      false,
    );
  }
}
