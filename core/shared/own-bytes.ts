/**
 * OWN-BYTES: the last small Uint8Array the library made over a new ArrayBuffer of its own and enqueued (a
 * TextEncoderStream's output chunk), so that a check which must refuse views of a SharedArrayBuffer can know this
 * one without reading its `buffer`: JavaScriptCore copies a small typed array out of its heap when its `buffer`
 * is first read (bench/README.md, "Bun after BUN-COALESCE"). One slot: in a fused chain the next stage sees the
 * chunk before the encoder makes another; any other chunk takes the full check.
 * @module
 */

/** Larger arrays keep their bytes outside JavaScriptCore's heap (nothing to copy); the slot holds no more. */
const SMALL = 1024;

let last: Uint8Array | undefined;

/** Notes `bytes` (made by the library over an ArrayBuffer of its own, never shared) and returns it. */
export function noteOwnBytes<T extends Uint8Array>(bytes: T): T {
  if (bytes.byteLength <= SMALL) last = bytes;
  return bytes;
}

/**
 * Whether `chunk` is the Uint8Array {@link noteOwnBytes} noted last (a Uint8Array over an ArrayBuffer, detached
 * perhaps, never a SharedArrayBuffer). The slot is emptied.
 */
export function isOwnBytes(chunk: unknown): chunk is Uint8Array {
  if (chunk !== last || chunk === undefined) return false;
  last = undefined;
  return true;
}
