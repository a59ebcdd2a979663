/**
 * The readable and writable sides of a CompressionStream or DecompressionStream (GenericTransformStream,
 * Compression §4-5), made when first asked for. Until then an adapter may give the stream another pair
 * (NATIVE-CODEC-THROUGH, core/README.md): the runtime's own codec stream, piped from a native source by the
 * runtime itself, behind streams of ours.
 * @module
 */
import { ObjectGetOwnPropertyDescriptor, ObjectGetPrototypeOf } from "../shared/primordials.ts";
import type { ReadableStream } from "../readable/readable-stream.ts";
import type { WritableStream } from "../writable/writable-stream.ts";
import { createCodecTransform } from "./codec-transform.ts";
import type { CodecMode, CompressionFormat } from "./formats.ts";
import { codecOutputQueue } from "./output-queue.ts";
import { type CompressionCodecFactory, installedCodecFactory } from "./codec.ts";
import { nativeCodecClass } from "./native-classes.ts";

/** The two sides of a codec stream. */
export interface CodecPair {
  readonly readable: ReadableStream<Uint8Array>;
  /** (BufferSource chunks, spelt out: the declarations must not need the DOM library's name for them.) */
  readonly writable: WritableStream<ArrayBufferView | ArrayBuffer>;
}

/** One codec stream's format and mode, and its pair once made. */
export class CodecPairSlot {
  readonly format: CompressionFormat;
  readonly mode: CodecMode;
  /** The output queue and the codec factory when the stream was made (the adapter's settings then). */
  readonly #queue: number = codecOutputQueue();
  readonly #factory: CompressionCodecFactory | undefined = installedCodecFactory();
  #pair: CodecPair | undefined = undefined;

  constructor(format: CompressionFormat, mode: CodecMode) {
    this.format = format;
    this.mode = mode;
    // With no codec at all (no factory, no class of the runtime's own), the TypeError comes from the constructor.
    if (this.#factory === undefined && nativeCodecClass(mode) === undefined) this.pair();
  }

  /** The pair: the one given by {@link CodecPairSlot.adopt}, else the codec's own TransformStream, made now. */
  pair(): CodecPair {
    return this.#pair ??= createCodecTransform(this.format, this.mode, this.#queue, this.#factory);
  }

  /** Whether the pair has not been made or given yet (nobody has seen either side). */
  get unopened(): boolean {
    return this.#pair === undefined;
  }

  /** Gives an unopened slot `pair` as its sides; false (and nothing changes) once the slot has one. */
  adopt(pair: CodecPair): boolean {
    if (this.#pair !== undefined) return false;
    this.#pair = pair;
    return true;
  }
}

/** A codec class as registered: how it finds an instance's slot, its prototype and its own side getters. */
interface CodecClass {
  readonly read: (x: unknown) => CodecPairSlot | undefined;
  readonly proto: object;
  readonly readable: unknown;
  readonly writable: unknown;
}

const codecClasses: CodecClass[] = [];

function getterOf(proto: object, key: string): unknown {
  return ObjectGetOwnPropertyDescriptor(proto, key)?.get;
}

/** Registers a codec class (`proto`: its prototype, with its `readable`/`writable` getters as defined now). */
export function registerCodecPairSlots(read: (x: unknown) => CodecPairSlot | undefined, proto: object): void {
  codecClasses.push({ read, proto, readable: getterOf(proto, "readable"), writable: getterOf(proto, "writable") });
}

/**
 * NATIVE-CODEC-THROUGH: the slot of `stream` when it is one of our CompressionStream or DecompressionStream
 * objects whose sides nobody has asked for yet (so whatever sides it is given are the first anyone sees), and
 * whose `readable` and `writable` are the class's own getters (not a subclass's, an own property's or a
 * replaced one's, which a pipe would call); undefined otherwise. Found through the classes' private fields, and
 * the getters compared by their descriptors: no getter is called.
 */
export function unopenedCodecPair(stream: unknown): CodecPairSlot | undefined {
  for (let i = 0; i < codecClasses.length; i++) {
    const known = codecClasses[i]!;
    const slot = known.read(stream);
    if (slot === undefined) continue;
    const object = stream as object;
    const plain = ObjectGetPrototypeOf(object) === known.proto &&
      ObjectGetOwnPropertyDescriptor(object, "readable") === undefined &&
      ObjectGetOwnPropertyDescriptor(object, "writable") === undefined &&
      getterOf(known.proto, "readable") === known.readable && getterOf(known.proto, "writable") === known.writable;
    return plain && slot.unopened ? slot : undefined;
  }
  return undefined;
}
