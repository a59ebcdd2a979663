/**
 * The readable and writable sides of a CompressionStream or DecompressionStream (GenericTransformStream,
 * Compression §4-5), made when first asked for. Until then an adapter may give the stream another pair
 * (NATIVE-CODEC-THROUGH, core/README.md): the runtime's own codec stream, piped from a native source by the
 * runtime itself, behind streams of ours.
 * @module
 */
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

/** How each codec class finds the slot of one of its instances (registered by the classes). */
const slotReaders: ((x: unknown) => CodecPairSlot | undefined)[] = [];

/** Registers a codec class's way to find the slot of its instances. */
export function registerCodecPairSlots(read: (x: unknown) => CodecPairSlot | undefined): void {
  slotReaders.push(read);
}

/**
 * NATIVE-CODEC-THROUGH: the slot of `stream` when it is one of our CompressionStream or DecompressionStream
 * objects whose sides nobody has asked for yet (so whatever sides it is given are the first anyone sees);
 * undefined otherwise. Found through the classes' private fields: no getter of the object is called.
 */
export function unopenedCodecPair(stream: unknown): CodecPairSlot | undefined {
  for (let i = 0; i < slotReaders.length; i++) {
    const slot = slotReaders[i]!(stream);
    if (slot !== undefined) return slot.unopened ? slot : undefined;
  }
  return undefined;
}
