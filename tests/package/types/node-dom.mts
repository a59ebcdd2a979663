// Type-checked against the packed tarball by scripts/package-test.ts with lib.dom AND @types/node. There
// the global ReadableStream is lib.dom's, and TypeScript cannot relate it to node:stream/web's (two separate
// declarations of the streams API): Readable.fromWeb() rejects a native stream as it rejects ours. Our types
// are the global ones, so ours behaves exactly like a native stream here; toNodeReadable() takes either.
import { Readable } from "node:stream";
import { ReadableStream, toNodeReadable } from "fusestreams/node";

const ours = new ReadableStream<Uint8Array<ArrayBuffer>>({ start: (c) => c.close() });
const native: globalThis.ReadableStream<Uint8Array<ArrayBuffer>> = new Response("x").body!;
export const same: globalThis.ReadableStream<Uint8Array<ArrayBuffer>> = ours;
export const sameBack: ReadableStream<Uint8Array<ArrayBuffer>> = native;
// @ts-expect-error lib.dom's ReadableStream is not node:stream/web's (TypeScript 7, @types/node 26)
export const nativeFromWeb: Readable = Readable.fromWeb(native);
// @ts-expect-error the same for ours: it is lib.dom's ReadableStream type
export const oursFromWeb: Readable = Readable.fromWeb(ours);
export const viaAdapter: Readable = toNodeReadable(ours);
export const nativeViaAdapter: Readable = toNodeReadable(native);
