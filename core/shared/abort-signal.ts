/**
 * AbortSignal access for pipeTo: the brand check, "signal is aborted", "signal's abort reason", and "add an
 * algorithm to signal", all through methods and getters captured at load, so user code that patches
 * AbortSignal.prototype or EventTarget.prototype later sees nothing and changes nothing.
 * @module
 */
import { type Callable, ReflectApply } from "./primordials.ts";

// A host without AbortSignal (none of the supported runtimes) gets pipes that accept no signal.
const signalProto: object | undefined = (globalThis as { AbortSignal?: typeof AbortSignal }).AbortSignal?.prototype;
const noSignal = (): never => {
  throw new TypeError("AbortSignal is not available in this environment");
};
const abortedGetter: () => unknown = signalProto === undefined
  ? noSignal
  : Object.getOwnPropertyDescriptor(signalProto, "aborted")!.get!;
const reasonGetter: () => unknown = signalProto === undefined
  ? noSignal
  : Object.getOwnPropertyDescriptor(signalProto, "reason")!.get!;
const eventTargetProto = (globalThis as { EventTarget?: typeof EventTarget }).EventTarget?.prototype;
const addEventListener: Callable = eventTargetProto === undefined ? noSignal : eventTargetProto.addEventListener;
const removeEventListener: Callable = eventTargetProto === undefined ? noSignal : eventTargetProto.removeEventListener;

/** Brand check for AbortSignal without user-patchable lookups. */
export function isAbortSignal(x: unknown): x is AbortSignal {
  try {
    ReflectApply(abortedGetter, x, []);
    return true;
  } catch {
    return false;
  }
}

/** Whether `signal` is aborted (DOM "signal is aborted"). */
export function signalIsAborted(signal: AbortSignal): boolean {
  return ReflectApply(abortedGetter, signal, []) as boolean;
}

/** DOM "signal's abort reason". */
export function signalAbortReason(signal: AbortSignal): unknown {
  return ReflectApply(reasonGetter, signal, []);
}

/**
 * DOM "add an algorithm to signal", as far as a script can: `algorithm` runs from an "abort" listener, and only
 * when the signal really is aborted. An "abort" event that script dispatches on a signal that is not aborted
 * must not run abort algorithms (only "signal abort" runs them). Returns the function that removes it.
 *
 * Known limit (no script-level hook into a native signal's abort algorithms): the algorithm runs while the
 * abort event is dispatched, after "abort" listeners added before it, where the spec runs it before any
 * listener; such a listener calling `stopImmediatePropagation()` keeps it from running at all.
 */
export function addAbortAlgorithm(signal: AbortSignal, algorithm: () => void): () => void {
  const listener = (): void => {
    if (ReflectApply(abortedGetter, signal, [])) algorithm();
  };
  ReflectApply(addEventListener, signal, ["abort", listener]);
  return () => ReflectApply(removeEventListener, signal, ["abort", listener]);
}
