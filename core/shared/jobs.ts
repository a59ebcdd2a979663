/**
 * Microtasks that carry an argument without a closure per receiver. A JobQueue belongs to one kind of job
 * (one function it calls, say a controller's start reaction): `queue(arg)` puts `arg` at the end of its
 * FIFO and queues the microtask `run`, which takes the oldest argument and calls the job with it. Microtasks
 * run in the order they were queued, so the k-th run of a queue's microtask takes the argument queued with
 * the k-th; every job runs where its own microtask sits. The job is called directly (each queue's runner is
 * its own function), so it is a call the engine can inline, as a closure per receiver would be.
 * @module
 */
import { queueMicrotask } from "./primordials.ts";

const MIN_SIZE = 32; // a power of two
/** Above this size, an emptied FIFO goes back to MIN_SIZE (a burst of jobs keeps no memory). */
const SHRINK_SIZE = 2048;

/** The FIFO of one kind of job's arguments (see the module comment). */
export class JobQueue<T> {
  #items: (T | undefined)[] = new Array(MIN_SIZE);
  #mask = MIN_SIZE - 1;
  #head = 0;
  #size = 0;
  /** The microtask: runs the oldest job. Made by the owner, which calls its job with `shift()`. */
  readonly #run: () => void;

  constructor(run: () => void) {
    this.#run = run;
  }

  /** Queues a microtask that runs the job with `arg`. */
  queue(arg: T): void {
    if (this.#size === this.#items.length) this.#grow();
    this.#items[(this.#head + this.#size) & this.#mask] = arg;
    this.#size++;
    queueMicrotask(this.#run);
  }

  /** The argument of the job whose microtask runs now (the runner calls this first). */
  shift(): T {
    const items = this.#items;
    const head = this.#head;
    const arg = items[head] as T;
    items[head] = undefined;
    this.#head = (head + 1) & this.#mask;
    if (--this.#size === 0 && items.length > SHRINK_SIZE) {
      this.#items = new Array(MIN_SIZE);
      this.#mask = MIN_SIZE - 1;
      this.#head = 0;
    }
    return arg;
  }

  #grow(): void {
    const old = this.#items;
    const n = old.length;
    const next: (T | undefined)[] = new Array(n * 2);
    for (let k = 0; k < n; k++) next[k] = old[(this.#head + k) & this.#mask];
    this.#items = next;
    this.#mask = n * 2 - 1;
    this.#head = 0;
  }
}
