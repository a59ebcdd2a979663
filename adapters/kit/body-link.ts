/**
 * The state a body shell (body-shells.ts) and the shell under it (native-shells.ts) share: one owner, read
 * and changed through its methods. The shell under it records its controller and marks the link touched
 * when it reads or cancels; the body shell hands the native stream over whole, which it may only do while
 * the link is untouched.
 * @module
 */

/** The link between a body shell and the shell of its native stream. */
export class BodyLink {
  /** The native body. */
  readonly native: globalThis.ReadableStream;
  #controller: ReadableByteStreamController | ReadableStreamDefaultController<unknown> | undefined;
  #touched = false;
  #handedOver = false;

  constructor(native: globalThis.ReadableStream) {
    this.native = native;
  }

  /** The shell's controller, recorded when the shell starts. */
  started(controller: ReadableByteStreamController | ReadableStreamDefaultController<unknown>): void {
    this.#controller = controller;
  }

  /** Errors the shell (its native stream, handed over, failed with `error`). */
  error(error: unknown): void {
    this.#controller!.error(error);
  }

  /** The shell pulled from or cancelled its native stream: the stream is no longer free to hand over. */
  touch(): void {
    this.#touched = true;
  }

  /** The native stream was handed over whole (to a pipe, to a native API), or the runtime locked it. */
  handOver(): void {
    this.#handedOver = true;
  }

  /** Whether the native stream was handed over (the shell then does not cancel it). */
  get handedOver(): boolean {
    return this.#handedOver;
  }

  /** Whether the native stream is still the body shell's to hand over: neither touched nor handed over. */
  get free(): boolean {
    return !this.#touched && !this.#handedOver;
  }
}
