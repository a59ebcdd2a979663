/**
 * CreateReadableStream and CreateReadableByteStream (Streams §4.9.1), for internal sources.
 * @module
 */
import type { SizeAlgorithm } from "../strategies/extract.ts";
import { ByteControllerInternal, SetUpReadableByteStreamController } from "./byte-controller.ts";
import { DefaultControllerInternal, SetUpReadableStreamDefaultController } from "./default-controller.ts";
import type { SourceAlgorithms } from "./source-algorithms.ts";

export function CreateReadableStream(
  startAlgorithm: (() => unknown) | undefined,
  algorithms: SourceAlgorithms,
  highWaterMark = 1,
  sizeAlgorithm: SizeAlgorithm | undefined = undefined,
): DefaultControllerInternal {
  const stream = new DefaultControllerInternal();
  SetUpReadableStreamDefaultController(stream, startAlgorithm, algorithms, highWaterMark, sizeAlgorithm);
  return stream;
}

export function CreateReadableByteStream(
  startAlgorithm: (() => unknown) | undefined,
  algorithms: SourceAlgorithms,
): ByteControllerInternal {
  const stream = new ByteControllerInternal();
  SetUpReadableByteStreamController(stream, startAlgorithm, algorithms, 0, undefined);
  return stream;
}
