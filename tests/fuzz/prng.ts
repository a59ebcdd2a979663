/**
 * A small seeded PRNG (mulberry32) for the fuzz program generator. Same seed, same sequence, on every
 * runtime: only 32-bit integer arithmetic (`Math.imul`, `>>>`), no `Math.random`.
 * @module
 */

/** A seeded random source. */
export class Rng {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** Next 32-bit unsigned integer. */
  nextU32(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Integer in [min, max] (both inclusive). */
  int(min: number, max: number): number {
    return min + (this.nextU32() % (max - min + 1));
  }

  /** true with probability p. */
  chance(p: number): boolean {
    return this.nextU32() / 0x1_0000_0000 < p;
  }

  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    const item = items[this.nextU32() % items.length];
    if (item === undefined && items.length === 0) throw new Error("pick from an empty array");
    return item as T;
  }

  /** One element, chosen by weight: `[[weight, value], ...]`. */
  weighted<T>(items: readonly (readonly [number, T])[]): T {
    let total = 0;
    for (const [w] of items) total += w;
    let r = this.nextU32() % total;
    for (const [w, value] of items) {
      if (r < w) return value;
      r -= w;
    }
    return items[items.length - 1]![1];
  }
}
