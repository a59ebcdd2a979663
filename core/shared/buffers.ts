/**
 * ArrayBuffer helpers for byte streams: the spec's TransferArrayBuffer, IsDetachedBuffer,
 * CanTransferArrayBuffer, CopyDataBlockBytes and the ArrayBufferView checks of WebIDL.
 * @module
 */
import { NativeArrayBuffer, NativeTypeError, NativeUint8Array, ObjectGetPrototypeOf, ReflectApply } from "./primordials.ts";

const ArrayBufferProto = ArrayBuffer.prototype as ArrayBuffer & {
  transfer?: (this: ArrayBuffer, length?: number) => ArrayBuffer;
};
const transferFn = ArrayBufferProto.transfer;
const detachedGetter = Object.getOwnPropertyDescriptor(ArrayBufferProto, "detached")?.get;
const byteLengthGetter = Object.getOwnPropertyDescriptor(ArrayBufferProto, "byteLength")!.get!;
const TypedArrayProto = Object.getPrototypeOf(Uint8Array.prototype) as object;
const typedArrayBufferGetter = Object.getOwnPropertyDescriptor(TypedArrayProto, "buffer")!.get!;
const typedArrayTagGetter = Object.getOwnPropertyDescriptor(TypedArrayProto, Symbol.toStringTag)!.get!;
const typedArraySet = (TypedArrayProto as Uint8Array).set;
const typedArrayByteOffsetGetter = Object.getOwnPropertyDescriptor(TypedArrayProto, "byteOffset")!.get!;
const typedArrayByteLengthGetter = Object.getOwnPropertyDescriptor(TypedArrayProto, "byteLength")!.get!;
const dataViewByteOffsetGetter = Object.getOwnPropertyDescriptor(DataView.prototype, "byteOffset")!.get!;
const dataViewByteLengthGetter = Object.getOwnPropertyDescriptor(DataView.prototype, "byteLength")!.get!;
const DataViewProto = DataView.prototype;
const dataViewBufferGetter = Object.getOwnPropertyDescriptor(DataViewProto, "buffer")!.get!;
const ArrayBufferIsView = ArrayBuffer.isView;
const Uint8ArrayPrototype: object = Uint8Array.prototype;
const structuredCloneFn: typeof structuredClone | undefined = (globalThis as { structuredClone?: typeof structuredClone })
  .structuredClone;

export function isArrayBuffer(x: unknown): x is ArrayBuffer {
  try {
    ReflectApply(byteLengthGetter, x, []);
    return true;
  } catch {
    return false;
  }
}


export function arrayBufferByteLength(buffer: ArrayBuffer): number {
  return ReflectApply(byteLengthGetter, buffer, []) as number;
}

/** The spec's IsDetachedBuffer. */
export function IsDetachedBuffer(buffer: ArrayBuffer): boolean {
  if (detachedGetter !== undefined) return ReflectApply(detachedGetter, buffer, []) as boolean;
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
  if (IsDetachedBuffer(buffer)) throw new NativeTypeError("Cannot transfer a detached ArrayBuffer");
  return transferUnchecked(buffer);
}

/** The spec's CanTransferArrayBuffer (WebAssembly.Memory buffers are not transferable either). */
export function CanTransferArrayBuffer(buffer: ArrayBuffer): boolean {
  return !IsDetachedBuffer(buffer);
}

/**
 * A guess that `view` (known to be an ArrayBufferView: a real view has an ordinary, unobservable
 * [[GetPrototypeOf]]) is a typed array: its prototype is Uint8Array.prototype, as for nearly every chunk. The
 * typed-array getter that follows confirms it (it throws for a DataView given that prototype), so the
 * %TypedArray%.prototype[@@toStringTag] getter, slow in JavaScriptCore, is not needed to tell the two apart.
 */
function likelyUint8Array(view: ArrayBufferView): boolean {
  return ObjectGetPrototypeOf(view) === Uint8ArrayPrototype;
}

/** The underlying buffer of an ArrayBufferView, read without user-patchable getters. */
export function viewBuffer(view: ArrayBufferView): ArrayBuffer {
  if (likelyUint8Array(view)) {
    try {
      return ReflectApply(typedArrayBufferGetter, view, []) as ArrayBuffer;
    } catch {
      // not a typed array after all: decided below
    }
  }
  return (typedArrayTag(view) !== undefined
    ? ReflectApply(typedArrayBufferGetter, view, [])
    : ReflectApply(dataViewBufferGetter, view, [])) as ArrayBuffer;
}

/** The [[ByteOffset]] of a typed array, read without user-patchable getters. */
export function typedArrayByteOffset(view: ArrayBufferView): number {
  return ReflectApply(typedArrayByteOffsetGetter, view, []) as number;
}

/** The byte length of a typed array, read without user-patchable getters. */
export function typedArrayByteLength(view: ArrayBufferView): number {
  return ReflectApply(typedArrayByteLengthGetter, view, []) as number;
}

/** An ArrayBufferView's [[ByteOffset]] (0 once its buffer is detached), read without user-patchable getters. */
export function viewByteOffset(view: ArrayBufferView): number {
  if (likelyUint8Array(view)) {
    try {
      return ReflectApply(typedArrayByteOffsetGetter, view, []) as number;
    } catch {
      // not a typed array after all: decided below
    }
  }
  if (typedArrayTag(view) !== undefined) return ReflectApply(typedArrayByteOffsetGetter, view, []) as number;
  try {
    return ReflectApply(dataViewByteOffsetGetter, view, []) as number;
  } catch {
    return 0; // a DataView over a detached buffer
  }
}

/** An ArrayBufferView's byte length (0 once its buffer is detached), read without user-patchable getters. */
export function viewByteLength(view: ArrayBufferView): number {
  if (likelyUint8Array(view)) {
    try {
      return ReflectApply(typedArrayByteLengthGetter, view, []) as number;
    } catch {
      // not a typed array after all: decided below
    }
  }
  if (typedArrayTag(view) !== undefined) return ReflectApply(typedArrayByteLengthGetter, view, []) as number;
  try {
    return ReflectApply(dataViewByteLengthGetter, view, []) as number;
  } catch {
    return 0; // a DataView over a detached buffer
  }
}

/** The [[TypedArrayName]] of a typed array, or undefined for a DataView. */
export function typedArrayTag(view: ArrayBufferView): string | undefined {
  return ReflectApply(typedArrayTagGetter, view, []) as string | undefined;
}

/**
 * WebIDL conversion to `ArrayBufferView` (no [AllowShared]): a typed array or DataView over a
 * non-shared ArrayBuffer.
 */
export function convertArrayBufferView(value: unknown, context: string): ArrayBufferView {
  if (!ArrayBufferIsView(value)) throw new NativeTypeError(`${context} must be an ArrayBuffer view`);
  // The ArrayBuffer byteLength getter only accepts non-shared buffers (and does not throw for them).
  if (!isArrayBuffer(viewBuffer(value as ArrayBufferView))) {
    throw new NativeTypeError(`${context} must not be backed by a SharedArrayBuffer`);
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
  ReflectApply(typedArraySet, new NativeUint8Array(to, toIndex, count), [
    new NativeUint8Array(from, fromIndex, count),
  ]);
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
    const out = new NativeUint8Array(ReflectApply(typedArrayByteLengthGetter, view, []) as number);
    ReflectApply(typedArraySet, out, [view]);
    return out;
  }
  const byteOffset = tag === undefined
    ? ReflectApply(dataViewByteOffsetGetter, view, []) as number
    : ReflectApply(typedArrayByteOffsetGetter, view, []) as number;
  const byteLength = tag === undefined
    ? ReflectApply(dataViewByteLengthGetter, view, []) as number
    : ReflectApply(typedArrayByteLengthGetter, view, []) as number;
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
      buffer = ReflectApply(typedArrayBufferGetter, value, []) as ArrayBuffer;
    } catch {
      // not a typed array after all: decided below
    }
    if (buffer !== undefined) {
      return {
        buffer,
        byteOffset: ReflectApply(typedArrayByteOffsetGetter, value, []) as number,
        byteLength: ReflectApply(typedArrayByteLengthGetter, value, []) as number,
      };
    }
  }
  if (typedArrayTag(value as ArrayBufferView) !== undefined) {
    return {
      buffer: ReflectApply(typedArrayBufferGetter, value, []) as ArrayBuffer,
      byteOffset: ReflectApply(typedArrayByteOffsetGetter, value, []) as number,
      byteLength: ReflectApply(typedArrayByteLengthGetter, value, []) as number,
    };
  }
  if (!ArrayBufferIsView(value)) throw new NativeTypeError(`${context} must be an ArrayBuffer view`);
  return {
    buffer: ReflectApply(dataViewBufferGetter, value, []) as ArrayBuffer,
    byteOffset: ReflectApply(dataViewByteOffsetGetter, value, []) as number,
    byteLength: ReflectApply(dataViewByteLengthGetter, value, []) as number,
  };
}

/** TransferArrayBuffer for a buffer known not to be detached (the callers checked its length). */
export function transferUnchecked(buffer: ArrayBuffer): ArrayBuffer {
  if (transferFn !== undefined) return ReflectApply(transferFn, buffer, []) as ArrayBuffer;
  // Engines without ArrayBuffer.prototype.transfer (Node 20): structuredClone's transfer list detaches too;
  // a buffer that cannot be detached (WebAssembly.Memory) makes it throw, which the spec wants as TypeError.
  let out: ArrayBuffer;
  try {
    out = structuredCloneFn!(buffer, { transfer: [buffer] });
  } catch {
    throw new NativeTypeError("The ArrayBuffer cannot be transferred");
  }
  if (!IsDetachedBuffer(buffer)) throw new NativeTypeError("The ArrayBuffer cannot be transferred");
  return out;
}
