/**
 * BODY-OWN: a `Response` or `Request` made from one of our streams answers that very stream as its `body`, as a
 * runtime whose own classes keep the stream they were given does (Deno: `new Response(s).body === s`). Without it
 * JavaScript reading the body went through two bridges, ours into the runtime's native body and that body back
 * through a shell of ours (`rt-response-read` on Deno: 0.59x native); now it reads ours itself, fused and batched
 * as any of ours.
 *
 * The runtime's own code still reads the native body made for ours (the body bridge), so the two are kept in
 * line while nothing has pulled or claimed the bridge:
 * - `body` answers ours while the native body is still the one made for it (a `clone()` gives the instance a branch
 *   of a tee, answered as the runtime answers it);
 * - `bodyUsed` is also true once ours was read or cancelled (disturbed), as the runtime's is for its own stream;
 * - the methods that read or tee a body (`text()`, `clone()`...) find the native body locked while ours is locked,
 *   and for good once ours was disturbed, so they refuse it with the runtime's own error; a whole-body consumer's
 *   claim of the bridge (body-consumers.ts) is refused then too (batched-body-bridge.ts).
 * @module
 */
import { type ReadableStream, readableStreamState } from "../../core/internal.ts";
import { isUnclaimedBridge } from "./batched-body-bridge.ts";
import { wrapBodyMethods } from "./body-methods.ts";
import { ownerOf } from "./natives.ts";
import { ObjectSlot } from "./object-slot.ts";
import type { PatchTransaction } from "./patch-transaction.ts";

/** Our stream and the native body made for it, of a Response/Request made from ours. */
interface MadeBody {
  readonly ours: ReadableStream<unknown>;
  readonly native: globalThis.ReadableStream<Uint8Array>;
}

const made = new ObjectSlot<MadeBody>("fusestreams body owned");

/** The kit's `onBodyMade` hook: `owner` was made from `ours`, and the runtime was given `native` for it. */
export function rememberMadeBody(
  owner: object,
  ours: ReadableStream<unknown>,
  native: globalThis.ReadableStream<Uint8Array>,
): void {
  made.set(owner, { ours, native });
}

type Getter = (this: unknown) => unknown;

/** Whether JavaScript has read or cancelled `ours`. */
function disturbed(ours: ReadableStream<unknown>): boolean {
  return readableStreamState(ours)?.disturbed === true;
}

/**
 * The made body of `owner` whose native body (read with `get`, only for an owner made from ours: Deno makes a stream
 * for a static body when first asked) is still the one made for it and untouched by the runtime: the one whose state
 * ours decides.
 */
function untouched(owner: unknown, get: Getter): MadeBody | undefined {
  const body = typeof owner === "object" && owner !== null ? made.get(owner) : undefined;
  return body !== undefined && isUnclaimedBridge(body.native) && get.call(owner) === body.native ? body : undefined;
}

/**
 * Step `made-bodies` (before the shared `bodies` step, whose getter then answers ours as it is): see the module's
 * documentation.
 */
export function patchMadeBodies(tx: PatchTransaction): void {
  const done: unknown[] = [];
  for (const name of ["Response", "Request"]) {
    const classProto = (globalThis as unknown as Record<string, { prototype?: object } | undefined>)[name]?.prototype;
    const proto = ownerOf(classProto, "body");
    const bodyDescriptor = proto === undefined ? undefined : Object.getOwnPropertyDescriptor(proto, "body");
    const usedOwner = ownerOf(classProto, "bodyUsed");
    const usedDescriptor = usedOwner === undefined ? undefined : Object.getOwnPropertyDescriptor(usedOwner, "bodyUsed");
    const get = bodyDescriptor?.get as Getter | undefined;
    const getUsed = usedDescriptor?.get as Getter | undefined;
    if (get === undefined || getUsed === undefined || done.includes(get)) continue;
    done.push(get);
    tx.defineAccessor(
      proto!,
      "body",
      function body(this: unknown): unknown {
        const native = get.call(this);
        const body = typeof this === "object" && this !== null ? made.get(this) : undefined;
        return body !== undefined && body.native === native ? body.ours : native;
      } as (this: never) => unknown,
      bodyDescriptor!.set as ((this: never, value: never) => void) | undefined,
    );
    tx.defineAccessor(
      usedOwner!,
      "bodyUsed",
      function bodyUsed(this: unknown): unknown {
        if (getUsed.call(this) === true) return true;
        const body = untouched(this, get);
        return body !== undefined && disturbed(body.ours);
      } as (this: never) => unknown,
      usedDescriptor!.set as ((this: never, value: never) => void) | undefined,
    );
    wrapBodyMethods(tx, classProto, done, (fn, self, args) => {
      const body = untouched(self, get);
      if (body === undefined || !(body.ours.locked || disturbed(body.ours))) return fn.apply(self, args);
      // The runtime refuses a locked native body as it refuses one used: the lock stays once ours was used.
      const reader = body.native.locked ? undefined : body.native.getReader();
      try {
        return fn.apply(self, args);
      } finally {
        if (!disturbed(body.ours)) reader?.releaseLock();
      }
    });
  }
}
