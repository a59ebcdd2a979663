/**
 * DENO-BYTE-KIND: whether one of Deno's native streams is a readable byte stream, read from its
 * `[[controller]]` slot (a `ReadableByteStreamController` or not) instead of taking a BYOB reader and
 * releasing it, which costs Deno a `TypeError` (with its stack) for the released reader's `closed` promise:
 * about 9 % of the CPU of a patched Hono POST echo on `Deno.serve`, where every request body gets a body
 * shell (bench/README.md, `hono-echo`). Unobservable: the probe it replaces leaves an unlocked stream as it
 * was, and only its answer is used. Measured in `hono-echo` (bench/real).
 * @module
 */
import { Native } from "../kit/natives.ts";

/** The own symbol under which Deno keeps a stream's controller, found on a stream made at load. */
const kController: symbol | undefined = Native.ReadableStream === undefined
  ? undefined
  : Object.getOwnPropertySymbols(new Native.ReadableStream()).find((key) => key.description === "[[controller]]");

/** The prototype of Deno's byte stream controller, from a byte stream made at load. */
const byteControllerProto: object | undefined = kController === undefined
  ? undefined
  : controllerProtoOf(new Native.ReadableStream({ type: "bytes" }));

function controllerProtoOf(native: object): object | undefined {
  const controller = (native as Record<symbol, unknown>)[kController!];
  return typeof controller === "object" && controller !== null ? Object.getPrototypeOf(controller) : undefined;
}

/**
 * Whether `native` is a readable byte stream, from its controller slot; undefined when this Deno keeps no
 * such slot where expected (the kit then probes with a BYOB reader).
 */
export function isNativeByteStream(native: globalThis.ReadableStream): boolean | undefined {
  if (byteControllerProto === undefined) return undefined;
  const proto = controllerProtoOf(native);
  return proto === undefined ? undefined : proto === byteControllerProto;
}
