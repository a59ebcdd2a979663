/**
 * A growable ring buffer: O(1) push/shift without `Array#shift` and without allocating per element.
 * Used for every queue in the core (chunk queues, read requests, write requests, pull-into descriptors).
 * @module
 */

const INITIAL_CAPACITY = 16; // power of two
const EMPTY: readonly unknown[] = [];

export class RingQueue<T> {
  #items: (T | undefined)[];
  #head = 0;
  #size = 0;
  #mask: number;

  constructor() {
    // The backing array is allocated on first push (FP-LAZY): most queues of short-lived streams stay empty.
    this.#items = EMPTY as (T | undefined)[];
    this.#mask = 0;
  }

  get size(): number {
    return this.#size;
  }

  push(value: T): void {
    if (this.#size === this.#items.length) this.#grow();
    this.#items[(this.#head + this.#size) & this.#mask] = value;
    this.#size++;
  }

  /** Removes and returns the first element. The queue must not be empty. */
  shift(): T {
    const items = this.#items;
    const head = this.#head;
    const value = items[head] as T;
    items[head] = undefined;
    this.#head = (head + 1) & this.#mask;
    this.#size--;
    return value;
  }

  /** The first element. The queue must not be empty. */
  peek(): T {
    return this.#items[this.#head] as T;
  }

  /** Replaces the first element. The queue must not be empty. */
  replaceFirst(value: T): void {
    this.#items[this.#head] = value;
  }

  /** Element at position i (0 = first). */
  at(i: number): T {
    return this.#items[(this.#head + i) & this.#mask] as T;
  }

  clear(): void {
    if (this.#size === 0) return;
    this.#items = EMPTY as (T | undefined)[];
    this.#mask = 0;
    this.#head = 0;
    this.#size = 0;
  }

  #grow(): void {
    const old = this.#items;
    const cap = old.length;
    if (cap === 0) {
      this.#items = new Array(INITIAL_CAPACITY);
      this.#mask = INITIAL_CAPACITY - 1;
      this.#head = 0;
      return;
    }
    const next: (T | undefined)[] = new Array(cap * 2);
    for (let i = 0; i < cap; i++) next[i] = old[(this.#head + i) & this.#mask];
    this.#items = next;
    this.#head = 0;
    this.#mask = cap * 2 - 1;
  }
}

/**
 * A FIFO for read requests: almost always empty or holding one request (a pipe's or an iterator's), which is
 * kept in a field of its own; only further requests go to a ring buffer.
 */
export class RequestQueue<T> {
  #first: T | undefined = undefined;
  #rest: RingQueue<T> | undefined = undefined;
  #size = 0;

  get size(): number {
    return this.#size;
  }

  push(value: T): void {
    if (this.#size++ === 0) this.#first = value;
    else (this.#rest ??= new RingQueue()).push(value);
  }

  /** Removes and returns the first element. The queue must not be empty. */
  shift(): T {
    const value = this.#first as T;
    this.#first = --this.#size === 0 ? undefined : this.#rest!.shift();
    return value;
  }

  /** Moves every element, in order, to a new queue, which is returned; this one is left empty. */
  takeAll(): RequestQueue<T> {
    const all = new RequestQueue<T>();
    all.#first = this.#first;
    all.#rest = this.#rest;
    all.#size = this.#size;
    this.#first = undefined;
    this.#rest = undefined;
    this.#size = 0;
    return all;
  }
}
