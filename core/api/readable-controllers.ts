// deno-lint-ignore-file no-explicit-any -- the generic defaults and callback types are lib.dom's (`any`)
/**
 * The public types of the objects a readable stream hands its underlying source: the two controllers and the
 * BYOB request, as the environment's global interfaces (see `readable.ts` for why), plus the classes behind
 * them. None of them can be constructed by user code: the constructors throw a TypeError.
 * @module
 */
import {
  ReadableByteStreamController as ByteControllerClass,
  ReadableStreamBYOBRequest as BYOBRequestClass,
} from "../readable/byte-controller.ts";
import { ReadableStreamDefaultController as DefaultControllerClass } from "../readable/default-controller.ts";
import type { NonConstructibleInterface } from "../types.ts";

/** The controller a default ReadableStream hands its underlying source (Streams §4.6): the global interface. */
export type ReadableStreamDefaultController<R = any> = globalThis.ReadableStreamDefaultController<R>;

/** The controller a readable byte stream (`type: "bytes"`) hands its underlying source (Streams §4.7): the global interface. */
export type ReadableByteStreamController = globalThis.ReadableByteStreamController;

/** A BYOB read as the underlying byte source sees it: fill `view`, then `respond()` (Streams §4.8): the global interface. */
export type ReadableStreamBYOBRequest = globalThis.ReadableStreamBYOBRequest;

/** Either controller. */
export type ReadableStreamController<T> = ReadableStreamDefaultController<T> | ReadableByteStreamController;

/** The `ReadableStreamDefaultController` interface object: for `instanceof`; `new` throws a TypeError. */
export type ReadableStreamDefaultControllerConstructor = NonConstructibleInterface<ReadableStreamDefaultController>;

/** The `ReadableByteStreamController` interface object: for `instanceof`; `new` throws a TypeError. */
export type ReadableByteStreamControllerConstructor = NonConstructibleInterface<ReadableByteStreamController>;

/** The `ReadableStreamBYOBRequest` interface object: for `instanceof`; `new` throws a TypeError. */
export type ReadableStreamBYOBRequestConstructor = NonConstructibleInterface<ReadableStreamBYOBRequest>;

/** The controller a default ReadableStream hands its underlying source (Streams §4.6). */
export const ReadableStreamDefaultController: ReadableStreamDefaultControllerConstructor =
  DefaultControllerClass as unknown as ReadableStreamDefaultControllerConstructor;

/** The controller a readable byte stream hands its underlying source (Streams §4.7). */
export const ReadableByteStreamController: ReadableByteStreamControllerConstructor =
  ByteControllerClass as unknown as ReadableByteStreamControllerConstructor;

/** A BYOB read as the underlying byte source sees it (Streams §4.8). */
export const ReadableStreamBYOBRequest: ReadableStreamBYOBRequestConstructor =
  BYOBRequestClass as unknown as ReadableStreamBYOBRequestConstructor;
