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
import { RingQueue } from "./queue.ts";

/** Queued jobs past which an emptied FIFO is replaced by a new one (a burst of jobs keeps no memory). */
const SHRINK_AFTER = 1024;

/** The FIFO of one kind of job's arguments (see the module comment). */
export class JobQueue<T> {
  #args: RingQueue<T> = new RingQueue();
  /** Jobs queued since the FIFO was last replaced. */
  #queued = 0;
  /** The microtask: runs the oldest job. Made by the owner, which calls its job with `shift()`. */
  readonly #run: () => void;

  constructor(run: () => void) {
    this.#run = run;
  }

  /** Queues a microtask that runs the job with `arg`. */
  queue(arg: T): void {
    this.#args.push(arg);
    this.#queued++;
    queueMicrotask(this.#run);
  }

  /** The argument of the job whose microtask runs now (the runner calls this first). */
  shift(): T {
    const args = this.#args;
    const arg = args.shift();
    if (args.size === 0 && this.#queued > SHRINK_AFTER) {
      this.#args = new RingQueue();
      this.#queued = 0;
    }
    return arg;
  }
}
