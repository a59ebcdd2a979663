/**
 * The errors the core raises, as a runtime's patch sees them: a patch step can have every TypeError and
 * RangeError the core creates handed to a function of its own before it is thrown or used to reject (Node.js:
 * its error codes, adapters/node/error-codes.ts).
 * @module
 */
import { errorHooks } from "../../core/internal.ts";
import type { PatchTransaction } from "./patch-transaction.ts";

/** What sees the core's errors: it may add properties to them; it must not throw. */
export type CoreErrorDecorator = (error: TypeError | RangeError) => void;

/** Hands every TypeError and RangeError the core creates to `decorate` while the transaction holds. */
export function decorateCoreErrors(tx: PatchTransaction, decorate: CoreErrorDecorator): void {
  tx.defineValue(errorHooks, "decorate", decorate);
}
