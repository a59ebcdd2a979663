/**
 * NATIVE-CODEC-THROUGH (core/README.md): a native stream (or a body shell nothing has read) piped with
 * `pipeThrough()` into one of our CompressionStream / DecompressionStream objects whose sides nobody has
 * asked for yet, where the adapter's codec is the runtime's own compression streams (the edge adapter): the
 * runtime's own codec stream is piped from the native stream by the runtime itself, and ours gets as its sides
 * a body shell of the native codec's readable side and a writable side locked for as long as that pipe runs.
 * So the bytes never cross into JavaScript on the way, and `new Response(codec.readable)` hands the runtime
 * its own stream back (BODY-HANDBACK). Measured in `bench/edge` (`gunzip-blob`, `gzip-blob`).
 * @module
 */
import {
  nativeAcceptsFormat,
  nativeCodecClass,
  type ReadableStream,
  unopenedCodecPair,
  WritableStream,
} from "../../core/internal.ts";
import { bodyShell, takeBodyForNativePipe } from "./body-shells.ts";
import { isNativeReadable, noop } from "./natives.ts";

type NativePipeTo = (this: globalThis.ReadableStream, destination: globalThis.WritableStream) => Promise<void>;

/** The native source of a pipe: a native stream, or a body shell's native stream with what ends the shell. */
interface Source {
  readonly native: globalThis.ReadableStream<Uint8Array>;
  end?(failed: boolean, error?: unknown): void;
}

/**
 * `source.pipeThrough(transform, options)` run as described in the module's documentation, when it can be:
 * `source` is a native stream that is not locked, or a body shell nothing has read or locked; `options` is
 * undefined (nothing of the caller's is read); `transform` is an unopened codec stream of ours whose format the
 * runtime's own class accepts. Returns the codec's readable side, or undefined (and changes nothing): the
 * caller then pipes as usual.
 */
export function pipeThroughNativeCodec(
  source: unknown,
  transform: unknown,
  options: unknown,
  nativePipeTo: NativePipeTo,
): ReadableStream<Uint8Array> | undefined {
  if (options !== undefined) return undefined;
  const slot = unopenedCodecPair(transform);
  if (slot === undefined) return undefined;
  const Native = nativeCodecClass(slot.mode);
  if (Native === undefined || !nativeAcceptsFormat(slot.format, slot.mode)) return undefined;
  let from: Source | undefined;
  if (isNativeReadable(source)) {
    const native = source as globalThis.ReadableStream<Uint8Array>;
    if (!native.locked) from = { native };
  } else {
    from = takeBodyForNativePipe(source);
  }
  if (from === undefined) return undefined;
  const codec = new Native(slot.format) as unknown as {
    readable: globalThis.ReadableStream<Uint8Array>;
    writable: globalThis.WritableStream<BufferSource>;
  };
  // The pipe's hold on the writable side: locked while the runtime's pipe runs, then ended as that pipe
  // ended the runtime's writable side (closed, or aborted with the pipe's error) and let go.
  const writable = new WritableStream<BufferSource>();
  const writer = writable.getWriter();
  // A default stream, as the codec's own readable side is (the runtime's may also take BYOB readers).
  const readable = bodyShell(codec.readable, false);
  // (The core's pair type is its classes'; the kit sees the same objects through the public declarations.)
  slot.adopt({ readable, writable } as unknown as Parameters<typeof slot.adopt>[0]);
  nativePipeTo.call(from.native, codec.writable as globalThis.WritableStream).then(
    () => {
      writer.close().then(undefined, noop);
      writer.releaseLock();
      from.end?.(false);
    },
    (error: unknown) => {
      writer.abort(error).then(undefined, noop);
      writer.releaseLock();
      from.end?.(true, error);
    },
  );
  return readable;
}
