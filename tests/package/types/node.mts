// Type-checked against the packed tarball by scripts/package-test.ts, with @types/node (node:stream interop).
import { Readable } from "node:stream";
import { ReadableStream as NodeWebReadableStream } from "node:stream/web";
import {
  fromNodeReadable,
  isGlobalWebStreamsPatched,
  ReadableStream,
  toNodeReadable,
  TransformStream,
} from "fusestreams/node";

const ours = new ReadableStream<string>({ start: (c) => c.enqueue("x") });
export const readable: Readable = Readable.fromWeb(ours);
export const viaAdapter: Readable = toNodeReadable(ours);
export const toWeb: ReadableStream = Readable.toWeb(readable);
export const nodeWeb: NodeWebReadableStream<string> = ours;
export const nodeWebBack: ReadableStream<string> = new NodeWebReadableStream<string>();
export const fromNode: ReadableStream<string> = fromNodeReadable<string>(Readable.from(["a"]));
export const patched: boolean = isGlobalWebStreamsPatched();
export const throughOurs: ReadableStream<number> = nodeWebBack.pipeThrough(new TransformStream<string, number>());
