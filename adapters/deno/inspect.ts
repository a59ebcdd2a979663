/**
 * How Deno shows fusestreams' streams (`console.log`, `Deno.inspect`) while patched: as it shows its own
 * (`ReadableStream { locked: false, state: "readable", supportsBYOB: true }`, `WritableStream { locked:
 * false }`, a writer's `closed`, `desiredSize` and `ready`...). Deno's own inspect hooks are on the native
 * prototypes ours inherit from, under a symbol the `classes` step shadows on ours (the ReadableStream one
 * reads Deno's internal slots); without this step Deno shows every stream of ours as `ReadableStream {}`.
 * @module
 */
import * as api from "../../mod.ts";
import { isReadableByteStream } from "../kit/stream-control.ts";
import type { PatchTransaction } from "../kit/patch-transaction.ts";

/** Deno's documented custom-inspect symbol: `[Symbol.for("Deno.customInspect")](inspect, options)`. */
const kCustomInspect = Symbol.for("Deno.customInspect");

type Inspect = (value: unknown, options: unknown) => string;

/** The fields Deno shows for each of its classes (its ReadableStreamBYOBRequest has no custom view). */
const FIELDS: Readonly<Record<string, readonly string[]>> = {
  ReadableStream: ["locked", "state", "supportsBYOB"],
  ReadableStreamDefaultReader: ["closed"],
  ReadableStreamBYOBReader: ["closed"],
  ReadableStreamDefaultController: ["desiredSize"],
  ReadableByteStreamController: ["desiredSize"],
  WritableStream: ["locked"],
  WritableStreamDefaultWriter: ["closed", "desiredSize", "ready"],
  WritableStreamDefaultController: ["signal"],
  TransformStream: ["readable", "writable"],
  TransformStreamDefaultController: ["desiredSize"],
  ByteLengthQueuingStrategy: ["highWaterMark", "size"],
  CountQueuingStrategy: ["highWaterMark", "size"],
};

/** The value of `field` of `self` as Deno shows it; a ReadableStream's `state` and `supportsBYOB` from the core. */
function fieldOf(self: object, field: string): unknown {
  if (field === "state") return api.readableStreamState(self)?.state;
  if (field === "supportsBYOB") return isReadableByteStream(self);
  return (self as Record<string, unknown>)[field];
}

/**
 * A plain object of a class named as `self`'s constructor holding `fields` of `self` (what Deno's inspect
 * prints as `Name { field: value, ... }`); a field whose getter throws (`self` is a prototype, not an
 * instance) is left out.
 */
function viewOf(self: object, fallbackName: string, fields: readonly string[]): object {
  const name = (self as { constructor?: { name?: unknown } }).constructor?.name;
  const View = class {};
  Object.defineProperty(View, "name", { value: typeof name === "string" ? name : fallbackName });
  const view = new View() as Record<string, unknown>;
  for (const field of fields) {
    try {
      view[field] = fieldOf(self, field);
    } catch {
      // not an instance: nothing to show for it
    }
  }
  return view;
}

/** Step `deno-inspect`: each of our classes' prototypes shows the fields Deno shows for its own class. */
export function patchInspect(tx: PatchTransaction): void {
  for (const [name, fields] of Object.entries(FIELDS)) {
    const proto = (api as unknown as Record<string, { prototype: object }>)[name]!.prototype;
    if (Object.getOwnPropertyDescriptor(proto, kCustomInspect) !== undefined) continue;
    tx.defineValue(
      proto,
      kCustomInspect,
      function customInspect(this: object, inspect: Inspect, options: unknown): string {
        return inspect(viewOf(this, name, fields), options);
      },
    );
  }
}
