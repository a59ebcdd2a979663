/**
 * The errors the core raises, as a runtime's patch sees them: a patch step can have every TypeError and
 * RangeError the core creates (and the kit's, made with the core's `typeError`) handed to a function of its own
 * before it is thrown or used to reject (Node.js: its error codes, adapters/node/error-codes.ts; Deno and Bun:
 * their own texts, {@link useRuntimeErrorTexts}).
 * @module
 */
import { errorHooks } from "../../core/internal.ts";
import type { PatchTransaction } from "./patch-transaction.ts";

/** What sees the core's errors: it may add properties to them or reword them; it must not throw. */
export type CoreErrorDecorator = (error: TypeError | RangeError) => void;

/** Hands every TypeError and RangeError the core creates to `decorate` while the transaction holds. */
export function decorateCoreErrors(tx: PatchTransaction, decorate: CoreErrorDecorator): void {
  tx.defineValue(errorHooks, "decorate", decorate);
}

/** One failure worded as the runtime words it (see {@link useRuntimeErrorTexts}). */
export interface RuntimeErrorText {
  /** Our errors of that failure: their messages match. */
  readonly ours: RegExp;
  /**
   * The runtime's own error for the same failure: preferably a probe that makes the runtime's own class fail so,
   * synchronously, and returns the error (undefined when it did not fail); where no probe can run at patch time,
   * an error made with the runtime's text.
   */
  readonly runtime: () => unknown;
  /**
   * Keep our message after the runtime's, in parentheses: where the runtime's text does not say what was wrong
   * (the value found), ours does, and the error must still say it (the project's rule for bad input).
   */
  readonly thenOurs?: boolean;
}

/**
 * Gives the core's errors the runtime's own texts while the transaction holds: each rule's `runtime()` is called
 * once, now; an error of ours whose message matches a rule, and whose class is that of the runtime's error, takes
 * its message (and its `code`, own or inherited, as an own property). A rule whose probe gives no Error is left out: ours stays.
 */
export function useRuntimeErrorTexts(tx: PatchTransaction, rules: readonly RuntimeErrorText[]): void {
  const found: { ours: RegExp; runtime: Error; code: unknown; thenOurs: boolean }[] = [];
  for (const rule of rules) {
    let runtime: unknown;
    try {
      runtime = rule.runtime();
    } catch {
      continue;
    }
    if (runtime instanceof Error) {
      found.push({
        ours: rule.ours,
        runtime,
        code: (runtime as { code?: unknown }).code,
        thenOurs: rule.thenOurs === true,
      });
    }
  }
  if (found.length === 0) return;
  decorateCoreErrors(tx, (error) => {
    for (const { ours, runtime, code, thenOurs } of found) {
      if (!sameClass(runtime, error) || !ours.test(error.message)) continue;
      // Before anything read `stack`: V8 formats its first line from the message when it is first read.
      error.message = thenOurs ? `${runtime.message} (${error.message})` : runtime.message;
      if (typeof code === "string") {
        Object.defineProperty(error, "code", { value: code, writable: true, enumerable: true, configurable: true });
      }
      return;
    }
  });
}

/** Whether the runtime's error is a TypeError as `error` is, or a RangeError as it is (Bun's have a prototype between). */
function sameClass(runtime: Error, error: TypeError | RangeError): boolean {
  return runtime instanceof RangeError
    ? error instanceof RangeError
    : runtime instanceof TypeError && !(error instanceof RangeError);
}

/** The error `fn` throws, or undefined when it returns (a probe of a runtime's own class). */
export function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}
