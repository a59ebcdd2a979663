/**
 * The methods with which a runtime reads or tees a body (`text()`, `clone()`...), and their replacement by a wrapper
 * that runs first, for the patch steps that must line a native body up with ours before the runtime looks at it.
 * @module
 */
import { ownerOf } from "./natives.ts";
import type { PatchTransaction } from "./patch-transaction.ts";

/** The methods of `Response`/`Request` with which the runtime's own code reads or tees a body. */
export const BODY_METHODS = ["arrayBuffer", "blob", "bytes", "formData", "json", "text", "clone"] as const;

/** A body method of the runtime's. */
export type BodyMethod = (this: unknown, ...args: unknown[]) => unknown;

/**
 * Replaces each of {@link BODY_METHODS} where `classProto` gets it from (once per function: `done` lists those already
 * replaced, workerd's being shared by both classes) with one that runs `around(fn, self, args)`, `fn` the runtime's.
 */
export function wrapBodyMethods(
  tx: PatchTransaction,
  classProto: object | undefined,
  done: unknown[],
  around: (fn: BodyMethod, self: unknown, args: unknown[]) => unknown,
): void {
  for (const method of BODY_METHODS) {
    const owner = ownerOf(classProto, method) as Record<string, unknown> | undefined;
    const fn = owner?.[method];
    if (owner === undefined || typeof fn !== "function" || done.includes(fn)) continue;
    done.push(fn);
    const wrapped = {
      [method](this: unknown, ...args: unknown[]): unknown {
        return around(fn as BodyMethod, this, args);
      },
    }[method]!;
    tx.defineValue(owner, method, wrapped);
  }
}
