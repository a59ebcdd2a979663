/**
 * ArrayBuffer helpers for byte streams: the spec's TransferArrayBuffer, IsDetachedBuffer,
 * CanTransferArrayBuffer, CopyDataBlockBytes and the ArrayBufferView checks of WebIDL.
 * @module
 */
import {
  JAVASCRIPTCORE,
  NativeArrayBuffer,
  NativeUint8Array,
  ObjectGetPrototypeOf,
  ReflectApply,
  uncurryThis,
} from "./primordials.ts";
import { typeError } from "./webidl.ts";

const ArrayBufferProto = ArrayBuffer.prototype as ArrayBuffer & {
  transfer?: (this: ArrayBuffer, length?: number) => ArrayBuffer;
};
type Getter<T, R> = (self: T) => R;
const getter = <T, R>(proto: object, key: PropertyKey): Getter<T, R> =>
  uncurryThis(Object.getOwnPropertyDescriptor(proto, key)!.get! as (this: T) => R);
// The intrinsic accessors and methods, called through uncurryThis (no arguments array, see primordials.ts).
const transferFn = ArrayBufferProto.transfer === undefined
  ? undefined
  : uncurryThis(ArrayBufferProto.transfer as (this: ArrayBuffer) => ArrayBuffer);
const detachedGetter = Object.getOwnPropertyDescriptor(ArrayBufferProto, "detached") === undefined
  ? undefined
  : getter<ArrayBuffer, boolean>(ArrayBufferProto, "detached");
const byteLengthGetter = getter<unknown, number>(ArrayBufferProto, "byteLength");
const TypedArrayProto = Object.getPrototypeOf(Uint8Array.prototype) as object;
const typedArrayBufferGetter = getter<unknown, ArrayBuffer>(TypedArrayProto, "buffer");
const typedArrayTagGetter = getter<unknown, string | undefined>(TypedArrayProto, Symbol.toStringTag);
const typedArraySet = uncurryThis(
  (TypedArrayProto as Uint8Array).set as (this: Uint8Array, source: ArrayLike<number>) => void,
);
const typedArrayByteOffsetGetter = getter<unknown, number>(TypedArrayProto, "byteOffset");
const typedArrayByteLengthGetter = getter<unknown, number>(TypedArrayProto, "byteLength");
const dataViewByteOffsetGetter = getter<unknown, number>(DataView.prototype, "byteOffset");
const dataViewByteLengthGetter = getter<unknown, number>(DataView.prototype, "byteLength");
const dataViewBufferGetter = getter<unknown, ArrayBuffer>(DataView.prototype, "buffer");
const ArrayBufferIsView = ArrayBuffer.isView;
const Uint8ArrayPrototype: object = Uint8Array.prototype;
const structuredCloneFn: typeof structuredClone | undefined =
  (globalThis as { structuredClone?: typeof structuredClone })
    .structuredClone;

export function isArrayBuffer(x: unknown): x is ArrayBuffer {
  try {
    byteLengthGetter(x);
    return true;
  } catch {
    return false;
  }
}

export function arrayBufferByteLength(buffer: ArrayBuffer): number {
  return byteLengthGetter(buffer);
}

/** The spec's IsDetachedBuffer. */
export function IsDetachedBuffer(buffer: ArrayBuffer): boolean {
  if (detachedGetter !== undefined) return detachedGetter(buffer);
  // Pre-ES2024 engines: a detached buffer reports byteLength 0 and rejects views over it.
  if (arrayBufferByteLength(buffer) !== 0) return false;
  try {
    new NativeUint8Array(buffer);
    return false;
  } catch {
    return true;
  }
}

/** The spec's TransferArrayBuffer: a new ArrayBuffer with the same data; `buffer` is detached. */
export function TransferArrayBuffer(buffer: ArrayBuffer): ArrayBuffer {
  if (IsDetachedBuffer(buffer)) throw typeError("Cannot transfer a detached ArrayBuffer");
  return transferUnchecked(buffer);
}

/** The spec's CanTransferArrayBuffer (WebAssembly.Memory buffers are not transferable either). */
export function CanTransferArrayBuffer(buffer: ArrayBuffer): boolean {
  return !IsDetachedBuffer(buffer);
}

/**
 * Whether `view` (known to be an ArrayBufferView) is a Uint8Array, by the test its engine runs fastest, as a
 * guess that the typed-array getter which follows confirms (it throws for a DataView). V8: the
 * %TypedArray%.prototype[@@toStringTag] getter, its [[TypedArrayName]] (a Buffer is a Uint8Array too) is a
 * field load there, where Object.getPrototypeOf is a runtime call. JavaScriptCore: the other way round: the
 * prototype is Uint8Array.prototype, as for nearly every chunk (a real view has an ordinary, unobservable
 * [[GetPrototypeOf]]).
 */
function likelyUint8Array(view: ArrayBufferView): boolean {
  if (!JAVASCRIPTCORE) return typedArrayTagGetter(view) === "Uint8Array";
  return ObjectGetPrototypeOf(view) === Uint8ArrayPrototype;
}

/** The underlying buffer of an ArrayBufferView, read without user-patchable getters. */
export function viewBuffer(view: ArrayBufferView): ArrayBuffer {
  if (likelyUint8Array(view)) {
    try {
      return typedArrayBufferGetter(view);
    } catch {
      // not a typed array after all: decided below
    }
  }
  return (typedArrayTag(view) !== undefined ? typedArrayBufferGetter(view) : dataViewBufferGetter(view)) as ArrayBuffer;
}

/** The [[ByteOffset]] of a typed array, read without user-patchable getters. */
export function typedArrayByteOffset(view: ArrayBufferView): number {
  return typedArrayByteOffsetGetter(view);
}

/** The byte length of a typed array, read without user-patchable getters. */
export function typedArrayByteLength(view: ArrayBufferView): number {
  return typedArrayByteLengthGetter(view);
}

/** An ArrayBufferView's [[ByteOffset]] (0 once its buffer is detached), read without user-patchable getters. */
export function viewByteOffset(view: ArrayBufferView): number {
  if (likelyUint8Array(view)) {
    try {
      return typedArrayByteOffsetGetter(view);
    } catch {
      // not a typed array after all: decided below
    }
  }
  if (typedArrayTag(view) !== undefined) return typedArrayByteOffsetGetter(view);
  try {
    return dataViewByteOffsetGetter(view);
  } catch {
    return 0; // a DataView over a detached buffer
  }
}

/** An ArrayBufferView's byte length (0 once its buffer is detached), read without user-patchable getters. */
export function viewByteLength(view: ArrayBufferView): number {
  if (likelyUint8Array(view)) {
    try {
      return typedArrayByteLengthGetter(view);
    } catch {
      // not a typed array after all: decided below
    }
  }
  if (typedArrayTag(view) !== undefined) return typedArrayByteLengthGetter(view);
  try {
    return dataViewByteLengthGetter(view);
  } catch {
    return 0; // a DataView over a detached buffer
  }
}

/** The [[TypedArrayName]] of a typed array, or undefined for a DataView. */
export function typedArrayTag(view: ArrayBufferView): string | undefined {
  return typedArrayTagGetter(view);
}

/**
 * WebIDL conversion to `ArrayBufferView` (no [AllowShared]): a typed array or DataView over a
 * non-shared ArrayBuffer.
 */
export function convertArrayBufferView(value: unknown, context: string): ArrayBufferView {
  if (!ArrayBufferIsView(value)) throw typeError(`${context} must be an ArrayBuffer view`);
  // The ArrayBuffer byteLength getter only accepts non-shared buffers (and does not throw for them).
  if (!isArrayBuffer(viewBuffer(value as ArrayBufferView))) {
    throw typeError(`${context} must not be backed by a SharedArrayBuffer`);
  }
  return value as ArrayBufferView;
}

/** CopyDataBlockBytes(to, toIndex, from, fromIndex, count). */
export function copyDataBlockBytes(
  to: ArrayBuffer,
  toIndex: number,
  from: ArrayBuffer,
  fromIndex: number,
  count: number,
): void {
  typedArraySet(new NativeUint8Array(to, toIndex, count), new NativeUint8Array(from, fromIndex, count));
}

/** CloneArrayBuffer(buffer, offset, length, %ArrayBuffer%). */
export function cloneArrayBuffer(buffer: ArrayBuffer, offset: number, length: number): ArrayBuffer {
  const out = new NativeArrayBuffer(length);
  copyDataBlockBytes(out, 0, buffer, offset, length);
  return out;
}

/** The spec's CloneAsUint8Array(O). */
export function CloneAsUint8Array(view: ArrayBufferView): Uint8Array {
  const tag = typedArrayTag(view);
  if (tag === "Uint8Array") {
    // A Uint8Array source is copied by one set() of the view itself (same bytes, no extra views).
    const out = new NativeUint8Array(typedArrayByteLengthGetter(view));
    typedArraySet(out, view as Uint8Array);
    return out;
  }
  const byteOffset = tag === undefined ? dataViewByteOffsetGetter(view) : typedArrayByteOffsetGetter(view);
  const byteLength = tag === undefined ? dataViewByteLengthGetter(view) : typedArrayByteLengthGetter(view);
  return new NativeUint8Array(cloneArrayBuffer(viewBuffer(view), byteOffset, byteLength));
}

/** The buffer, offset and length of an ArrayBufferView, read once through the intrinsic getters. */
export interface ViewParts {
  buffer: ArrayBuffer;
  byteOffset: number;
  byteLength: number;
}

/**
 * WebIDL `ArrayBufferView` conversion that also returns the view's parts: one brand check and one read of
 * each intrinsic getter (the enqueue hot path of byte streams).
 */
export function viewParts(value: unknown, context: string): ViewParts {
  if (ArrayBufferIsView(value) && likelyUint8Array(value as ArrayBufferView)) {
    let buffer: ArrayBuffer | undefined;
    try {
      buffer = typedArrayBufferGetter(value);
    } catch {
      // not a typed array after all: decided below
    }
    if (buffer !== undefined) {
      return {
        buffer,
        byteOffset: typedArrayByteOffsetGetter(value),
        byteLength: typedArrayByteLengthGetter(value),
      };
    }
  }
  if (typedArrayTag(value as ArrayBufferView) !== undefined) {
    return {
      buffer: typedArrayBufferGetter(value),
      byteOffset: typedArrayByteOffsetGetter(value),
      byteLength: typedArrayByteLengthGetter(value),
    };
  }
  if (!ArrayBufferIsView(value)) throw typeError(`${context} must be an ArrayBuffer view`);
  return {
    buffer: dataViewBufferGetter(value),
    byteOffset: dataViewByteOffsetGetter(value),
    byteLength: dataViewByteLengthGetter(value),
  };
}

/**
 * The [[ViewedArrayBuffer]] of `value` when it is a typed array whose prototype is Uint8Array.prototype (as
 * nearly every chunk is), else undefined. Runs no user code and throws nothing.
 */
export function uint8ArrayBuffer(value: unknown): ArrayBuffer | undefined {
  if (!ArrayBufferIsView(value) || !likelyUint8Array(value as ArrayBufferView)) return undefined;
  try {
    return typedArrayBufferGetter(value);
  } catch {
    return undefined; // a DataView given Uint8Array.prototype
  }
}

/** TransferArrayBuffer for a buffer known not to be detached (the callers checked its length). */
export function transferUnchecked(buffer: ArrayBuffer): ArrayBuffer {
  if (transferFn !== undefined) return transferFn(buffer);
  // Engines without ArrayBuffer.prototype.transfer (Node 20): structuredClone's transfer list detaches too;
  // a buffer that cannot be detached (WebAssembly.Memory) makes it throw, which the spec wants as TypeError.
  let out: ArrayBuffer;
  try {
    out = structuredCloneFn!(buffer, { transfer: [buffer] });
  } catch {
    throw typeError("The ArrayBuffer cannot be transferred");
  }
  if (!IsDetachedBuffer(buffer)) throw typeError("The ArrayBuffer cannot be transferred");
  return out;
}

/** Whether `value` is a Uint8Array (or a subclass, such as Node's Buffer), by its [[TypedArrayName]]; runs no user code. */
export function isUint8Array(value: unknown): value is Uint8Array {
  return ArrayBufferIsView(value) && typedArrayTagGetter(value) === "Uint8Array";
}

// Captured at load; the call is marked pure so that bundles without the consumers drop it.
const Uint8ArraySet: Uint8Array["set"] = /* @__PURE__ */ (() => (TypedArrayProto as Uint8Array).set)();

/** The bytes of `chunks` (Uint8Arrays of `length` bytes in all) in one new Uint8Array, copied with the intrinsic set(). */
export function concatUint8Arrays(chunks: readonly Uint8Array[], length: number): Uint8Array<ArrayBuffer> {
  const out = new NativeUint8Array(length);
  let offset = 0;
  for (let i = 0; i < chunks.length; i++) {
    const chunk = chunks[i]!;
    ReflectApply(Uint8ArraySet, out, [chunk, offset]);
    offset += typedArrayByteLengthGetter(chunk);
  }
  return out;
}
