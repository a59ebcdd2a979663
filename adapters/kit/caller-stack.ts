/**
 * The caller's frames on an error a native read rejected with. Bun gives an error it creates outside any
 * JavaScript frame (a fetch body whose connection resets) the frames of the async functions awaiting the promise
 * it rejects, so the native `pipeTo()` a user awaits gives `at async <the user's function>`. A native stream piped
 * into ours is read by a shell (native-shells.ts), whose reading function is the only one awaiting the native
 * read: Bun then names that function alone. {@link awaitPipeWithCallerStack} puts the user's frames back. An
 * adapter that wants this sets `shellHooks.onNativeReadError` to {@link noteNativeReadError} and passes
 * {@link awaitPipeWithCallerStack} as the patch's `awaitNativePipe`.
 * @module
 */

/** The name of the shell's function that awaits native reads (its frame is the only one Bun finds). */
const NATIVE_READ_FRAME = "readNativeBurst";

/** Errors a shell got from a native read. */
const nativeReadErrors = new WeakSet<object>();

/** Records that a shell's native read rejected with `error`. */
export function noteNativeReadError(error: unknown): void {
  if (typeof error === "object" && error !== null) nativeReadErrors.add(error);
}

/** Whether `error` came from a native read and names no frame but the shell's (or none). */
function hasOnlyShellFrames(error: object): boolean {
  if (!nativeReadErrors.has(error)) return false;
  const stack = (error as { stack?: unknown }).stack;
  if (stack === undefined) return true;
  if (typeof stack !== "string") return false;
  const lines = stack.split("\n");
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s+at /.test(line) && !line.includes(` ${NATIVE_READ_FRAME} `)) return false;
  }
  return true;
}

const captureStackTrace = (Error as { captureStackTrace?: (target: object, constructorOpt?: unknown) => void })
  .captureStackTrace;

/**
 * Awaits `pipe` (a pipe from a shell of a native stream); an error it rejects with that a native read created
 * with no frames of the user's gets the frames of the code awaiting this function, as the runtime's own pipe
 * gives it. Any other error is passed on untouched.
 */
export async function awaitPipeWithCallerStack(pipe: Promise<void>): Promise<void> {
  try {
    await pipe;
  } catch (error) {
    if (captureStackTrace !== undefined && typeof error === "object" && error !== null && hasOnlyShellFrames(error)) {
      captureStackTrace(error, awaitPipeWithCallerStack);
    }
    throw error;
  }
}
