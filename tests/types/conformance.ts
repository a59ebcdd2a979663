/**
 * Compile-time check, run by `tsconfig.core.json` only (lib.dom, no other types): each class implements the
 * public constructor type core/api/ exports, whose instances are lib.dom's global stream interfaces. The
 * exports themselves are cast (under bun-types the globals carry Bun's own extensions, such as `readMany()`,
 * which fusestreams does not implement), so this file is where a drift between a class and the standard's
 * interface fails the type check.
 * @module
 */
import type {
  ByteLengthQueuingStrategyConstructor,
  CountQueuingStrategyConstructor,
  ReadableByteStreamControllerConstructor,
  ReadableStreamBYOBReaderConstructor,
  ReadableStreamBYOBRequestConstructor,
  ReadableStreamConstructor,
  ReadableStreamDefaultControllerConstructor,
  ReadableStreamDefaultReaderConstructor,
  TextDecoderStreamConstructor,
  TextEncoderStreamConstructor,
  TransformStreamConstructor,
  TransformStreamDefaultControllerConstructor,
  WritableStreamConstructor,
  WritableStreamDefaultControllerConstructor,
  WritableStreamDefaultWriterConstructor,
} from "../../core/mod.ts";
import { TextDecoderStream } from "../../core/codecs/text-decoder-stream.ts";
import { TextEncoderStream } from "../../core/codecs/text-encoder-stream.ts";
import { ReadableStreamBYOBReader } from "../../core/readable/byob-reader.ts";
import { ReadableByteStreamController, ReadableStreamBYOBRequest } from "../../core/readable/byte-controller.ts";
import { ReadableStreamDefaultController } from "../../core/readable/default-controller.ts";
import { ReadableStreamDefaultReader } from "../../core/readable/default-reader.ts";
import { ReadableStream } from "../../core/readable/readable-stream.ts";
import { ByteLengthQueuingStrategy } from "../../core/strategies/byte-length.ts";
import { CountQueuingStrategy } from "../../core/strategies/count.ts";
import { TransformStream, TransformStreamDefaultController } from "../../core/transform/transform-stream.ts";
import { WritableStreamDefaultController } from "../../core/writable/default-controller.ts";
import { WritableStreamDefaultWriter } from "../../core/writable/default-writer.ts";
import { WritableStream } from "../../core/writable/writable-stream.ts";

export const readableStream: ReadableStreamConstructor = ReadableStream;
export const defaultReader: ReadableStreamDefaultReaderConstructor = ReadableStreamDefaultReader;
export const byobReader: ReadableStreamBYOBReaderConstructor = ReadableStreamBYOBReader;
export const defaultController: ReadableStreamDefaultControllerConstructor = ReadableStreamDefaultController;
export const byteController: ReadableByteStreamControllerConstructor = ReadableByteStreamController;
export const byobRequest: ReadableStreamBYOBRequestConstructor = ReadableStreamBYOBRequest;
export const writableStream: WritableStreamConstructor = WritableStream;
export const writer: WritableStreamDefaultWriterConstructor = WritableStreamDefaultWriter;
export const writableController: WritableStreamDefaultControllerConstructor = WritableStreamDefaultController;
export const transformStream: TransformStreamConstructor = TransformStream;
export const transformController: TransformStreamDefaultControllerConstructor = TransformStreamDefaultController;
export const byteLength: ByteLengthQueuingStrategyConstructor = ByteLengthQueuingStrategy;
export const count: CountQueuingStrategyConstructor = CountQueuingStrategy;
export const textEncoderStream: TextEncoderStreamConstructor = TextEncoderStream;
export const textDecoderStream: TextDecoderStreamConstructor = TextDecoderStream;
