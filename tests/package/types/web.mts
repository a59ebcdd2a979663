// Type-checked against the packed tarball by scripts/package-test.ts (ESM consumer: the `import` declarations).
// Runs in setups with lib.dom and with @types/node: only globals both declare are used here.
import {
  ByteLengthQueuingStrategy,
  CountQueuingStrategy,
  inspectPipeChain,
  ReadableStream,
  ReadableStreamDefaultReader,
  type ReadableStreamReadResult,
  TransformStream,
  type TransformStreamDefaultController,
  WritableStream,
} from "fusestreams";
import * as bun from "fusestreams/bun";
import * as deno from "fusestreams/deno";
import * as edge from "fusestreams/edge";

type IsAny<T> = 0 extends 1 & T ? true : false;
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T extends true>(): T | undefined {
  return undefined;
}

// Every entry point hands out the same classes.
// (Types: each instance type is the environment's global interface, so ours and native are one type.)
export const sameClasses: boolean = bun.ReadableStream === ReadableStream && deno.ReadableStream === ReadableStream &&
  edge.ReadableStream === ReadableStream;

// Ours where the global type is expected, and the reverse.
const ours: ReadableStream<string> = new ReadableStream<string>(
  { start: (c) => c.enqueue("x") },
  new CountQueuingStrategy({ highWaterMark: 1 }),
);
const asGlobal: globalThis.ReadableStream<string> = ours;
const back: ReadableStream<string> = asGlobal;
const bytes = new ReadableStream({ type: "bytes" });
const globalBytes: globalThis.ReadableStream<Uint8Array<ArrayBuffer>> = bytes;
export const bytesBack: ReadableStream<Uint8Array<ArrayBuffer>> = globalBytes;
export const writableToGlobal: globalThis.WritableStream<string> = new WritableStream<string>();
export const writableFromGlobal: WritableStream<string> = new globalThis.WritableStream<string>();
export const transformToGlobal: globalThis.TransformStream<string, number> = new TransformStream<string, number>();
export const transformFromGlobal: TransformStream<string, number> = new globalThis.TransformStream<string, number>();
export const readerFromGlobal: ReadableStreamDefaultReader<string> = asGlobal.getReader();
export const nativeWithOurStrategy: globalThis.WritableStream<Uint8Array<ArrayBuffer>> = new globalThis.WritableStream<
  Uint8Array<ArrayBuffer>
>(
  {},
  new ByteLengthQueuingStrategy({ highWaterMark: 1024 }),
);

// What the runtimes accept: a Response body, native transforms in a pipe chain, native destinations.
export const response: Response = new Response(bytes);
export const responseOfText: Response = new Response(back.pipeThrough(new TextEncoderStream()));
export const encoded: ReadableStream<Uint8Array<ArrayBuffer>> = ours.pipeThrough(new TextEncoderStream());
export const decoded: ReadableStream<string> = bytes.pipeThrough(new TextDecoderStream());
export const piped: Promise<void> = ours.pipeTo(new globalThis.WritableStream<string>());
export const fromNative: ReadableStream<Uint8Array<ArrayBuffer>> = ReadableStream.from(new Response("x").body!);
export const nativeThroughOurs: globalThis.ReadableStream<number> = new globalThis.ReadableStream<string>().pipeThrough(
  new TransformStream<string, number>({
    transform: (chunk: string, c: TransformStreamDefaultController<number>) => c.enqueue(chunk.length),
  }),
);

// Generic defaults are lib.dom's (any), and results have lib.dom's shapes.
expectType<IsAny<ReadableStream extends ReadableStream<infer R> ? R : never>>();
expectType<
  IsAny<
    Parameters<WritableStream["getWriter"]>["length"] extends 0
      ? ReturnType<WritableStream["getWriter"]> extends { write(chunk?: infer W): unknown } ? W : never
      : never
  >
>();
expectType<IsAny<TransformStream extends { readable: ReadableStream<infer O> } ? O : never>>();
expectType<Equal<Awaited<ReturnType<ReadableStreamDefaultReader<string>["read"]>>, ReadableStreamReadResult<string>>>();
expectType<Equal<ReturnType<ReadableStream["cancel"]>, Promise<void>>>();

export async function consume(): Promise<string[]> {
  const out: string[] = [];
  for await (const chunk of ours) out.push(chunk);
  inspectPipeChain(new WritableStream());
  return out;
}
