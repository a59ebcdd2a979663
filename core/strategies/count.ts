/**
 * CountQueuingStrategy (Streams §7.3).
 * @module
 */
import { defineInterface } from "../shared/interface.ts";
import { ObjectDefineProperty } from "../shared/primordials.ts";
import { typeError } from "../shared/webidl.ts";
import type { QueuingStrategyInit } from "../types.ts";
import { convertQueuingStrategyInit } from "./byte-length.ts";

/** The count queuing strategy size function: one function object shared by every instance. */
const size = (): number => 1;
ObjectDefineProperty(size, "name", { value: "size", writable: false, enumerable: false, configurable: true });

/** A queuing strategy that counts chunks. */
export class CountQueuingStrategy {
  #hwm: number;

  /** `init.highWaterMark` is the number of chunks to queue before applying backpressure. */
  constructor(init: QueuingStrategyInit) {
    this.#hwm = convertQueuingStrategyInit(init, "CountQueuingStrategy");
  }

  /** The high-water mark, in chunks. */
  get highWaterMark(): number {
    if (typeof this !== "object" || this === null || !(#hwm in this)) {
      throw typeError("Illegal invocation: not a CountQueuingStrategy");
    }
    return this.#hwm;
  }

  /** Returns 1 for every chunk. */
  get size(): () => number {
    if (typeof this !== "object" || this === null || !(#hwm in this)) {
      throw typeError("Illegal invocation: not a CountQueuingStrategy");
    }
    return size;
  }
}
defineInterface(CountQueuingStrategy, "CountQueuingStrategy");
