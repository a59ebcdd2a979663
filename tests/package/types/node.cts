// Type-checked against the packed tarball by scripts/package-test.ts: CommonJS, with @types/node.
import { Readable } from "node:stream";
import { ReadableStream, toNodeReadable } from "fusestreams/node";

const ours = new ReadableStream<string>({ start: (c) => c.enqueue("x") });
export const readable: Readable = Readable.fromWeb(ours);
export const viaAdapter: Readable = toNodeReadable(ours);
export const toWeb: ReadableStream = Readable.toWeb(readable);
