/**
 * Bun's fastest way to take one of our streams as a body (BUN-DIRECT): a native `type: "direct"`
 * ReadableStream whose one `pull()` pipes ours (fused) into a sink that hands each chunk to the direct
 * controller's `write()`. Bun's body consumers (`text()`, `arrayBuffer()`, `Bun.serve`, `fetch` uploads,
 * `Bun.readableStreamTo*`) then receive the bytes without a native queue, a native read or a promise per
 * chunk. Measured against the default bridge (a native stream pulling one read of ours at a time) in
 * `rt-response-text` and `rt-serve-3` (README, Bun).
 * @module
 */
import type { ReadableStream } from "../../mod.ts";
import { type BridgePipe, pipeToBridge } from "../kit/bridge-pipe.ts";
import { Native, noop } from "../kit/natives.ts";

/** The controller Bun passes to a `type: "direct"` source's `pull()`. */
interface DirectController {
  /** Returns the bytes buffered, or a promise when the destination wants the writer to wait. */
  write(data: Uint8Array): number | Promise<number>;
  /** Ends the stream; with an error, errors it. */
  close(error?: unknown): void;
}

/**
 * A native Bun stream with the bytes of `stream` (see `BodyBridge`): nothing is read before the body's
 * consumer pulls; backpressure is Bun's (a `write()` that returns a promise keeps the pipe waiting for
 * it); a chunk that is not a BufferSource errors the body with `bodyBytes`' `TypeError` and cancels
 * `stream` with it; an error of `stream` errors the body with the same object; cancelling the body
 * cancels `stream` with the same reason.
 */
export function directBody(stream: ReadableStream<unknown>, context: string): globalThis.ReadableStream<Uint8Array> {
  let pipe: BridgePipe | undefined;
  let done: Promise<void> | undefined;
  const source = {
    type: "direct",
    pull(controller: DirectController): Promise<void> {
      if (done !== undefined) return done;
      pipe = pipeToBridge(stream, context, {
        write(bytes): Promise<void> | undefined {
          const written = controller.write(bytes);
          // Unobservable: the pipe is the only writer, and waiting on Bun's promise is its backpressure.
          return typeof written === "number" ? undefined : written.then(noop);
        },
        close() {
          controller.close();
        },
      });
      done = pipe.done.then(undefined, (error: unknown) => {
        try {
          controller.close(error);
        } catch {
          // already cancelled by its consumer
        }
        throw error;
      });
      return done;
    },
    cancel(reason: unknown): Promise<void> {
      if (pipe === undefined) return stream.cancel(reason);
      return pipe.cancel(reason);
    },
  };
  return new Native.ReadableStream(source as unknown as UnderlyingDefaultSource<Uint8Array>);
}
