/**
 * Microtasks that carry one argument: `queueJob(fn, arg)` queues a microtask that calls `fn(arg)`, with no
 * closure per receiver. Every queued microtask is the same function, which takes the oldest entry of a
 * FIFO of (fn, arg) pairs: microtasks run in the order they were queued, so the k-th run takes the pair
 * queued with the k-th microtask. A stream thus needs no closure of its own for its start and pull reactions.
 * @module
 */
import { queueMicrotask } from "./primordials.ts";

const MIN_SLOTS = 64; // two slots per job; a power of two
/** Above this many slots, an emptied FIFO goes back to MIN_SLOTS (a burst of jobs keeps no memory). */
const SHRINK_SLOTS = 4096;

let slots: unknown[] = new Array(MIN_SLOTS);
let mask = MIN_SLOTS - 1;
let head = 0;
let used = 0;

function runJob(): void {
  const i = head;
  const fn = slots[i] as (arg: unknown) => void;
  const arg = slots[i + 1];
  slots[i] = undefined;
  slots[i + 1] = undefined;
  head = (i + 2) & mask;
  if ((used -= 2) === 0 && slots.length > SHRINK_SLOTS) {
    slots = new Array(MIN_SLOTS);
    mask = MIN_SLOTS - 1;
    head = 0;
  }
  fn(arg);
}

function grow(): void {
  const old = slots;
  const n = old.length;
  const next: unknown[] = new Array(n * 2);
  for (let k = 0; k < n; k++) next[k] = old[(head + k) & mask];
  slots = next;
  mask = n * 2 - 1;
  head = 0;
}

/** Queues a microtask that calls `fn(arg)`, in the order of every other microtask. */
export function queueJob<T>(fn: (arg: T) => void, arg: T): void {
  if (used === slots.length) grow();
  const i = (head + used) & mask; // even: head and used are
  slots[i] = fn;
  slots[i + 1] = arg;
  used += 2;
  queueMicrotask(runJob);
}
