/**
 * ByteLengthQueuingStrategy (Streams §7.2).
 * @module
 */
import { defineInterface } from "../shared/interface.ts";
import { ObjectDefineProperty } from "../shared/primordials.ts";
import { convertDictionary, convertUnrestrictedDouble, typeError } from "../shared/webidl.ts";
import type { QueuingStrategyInit } from "../types.ts";

/** The byte length queuing strategy size function: one function object shared by every instance. */
const size = (chunk: ArrayBufferView): number => chunk.byteLength;
ObjectDefineProperty(size, "name", { value: "size", writable: false, enumerable: false, configurable: true });

/** Converts a QueuingStrategyInit dictionary (its highWaterMark member is required). */
export function convertQueuingStrategyInit(init: unknown, name: string): number {
  const dict = convertDictionary(init, "init");
  const hwm = dict === undefined ? undefined : dict.highWaterMark;
  if (hwm === undefined) throw typeError(`${name} requires init.highWaterMark`);
  return convertUnrestrictedDouble(hwm);
}

/** A queuing strategy that counts the bytes of each ArrayBufferView chunk. */
export class ByteLengthQueuingStrategy {
  #hwm: number;

  /** `init.highWaterMark` is the number of bytes to queue before applying backpressure. */
  constructor(init: QueuingStrategyInit) {
    this.#hwm = convertQueuingStrategyInit(init, "ByteLengthQueuingStrategy");
  }

  /** The high-water mark, in bytes. */
  get highWaterMark(): number {
    if (typeof this !== "object" || this === null || !(#hwm in this)) {
      throw typeError("Illegal invocation: not a ByteLengthQueuingStrategy");
    }
    return this.#hwm;
  }

  /** Returns the chunk's byteLength. */
  get size(): (chunk: ArrayBufferView) => number {
    if (typeof this !== "object" || this === null || !(#hwm in this)) {
      throw typeError("Illegal invocation: not a ByteLengthQueuingStrategy");
    }
    return size;
  }
}
defineInterface(ByteLengthQueuingStrategy, "ByteLengthQueuingStrategy");
