/**
 * A ReadableStream async iterator written step by step from the standards, over any implementation's
 * public reader: the reference implementation's own iterator (web-streams-polyfill) resolves each chunk
 * through an extra queueMicrotask, so the fuzzer iterates the reference's streams with this one instead.
 *
 * Web IDL §3.7.10.2 (asynchronous iterator prototype object): next() chains "next steps" behind the ongoing
 * promise, and the next steps react to "get the next iteration result" (one reaction job); return() chains
 * the "return steps" behind the ongoing promise and reacts once more to build the result.
 * Streams §4.2.5 (asynchronous iteration): "get the next iteration result" is a read request whose chunk
 * steps resolve with the chunk; its close and error steps release the reader first. A reader's read()
 * promise is resolved at the same points (ReadableStreamDefaultReaderRead), so reacting to it once is the
 * standard's single reaction; the reader is released in that reaction rather than inside the close/error
 * steps, which nothing a program does can tell apart (it only changes `locked`, read after the loop).
 * Streams §4.2.5 "asynchronous iterator return": cancel through the reader unless preventCancel, release it.
 * @module
 */

interface Reader {
  read(): Promise<{ done: boolean; value?: unknown }>;
  cancel(reason?: unknown): Promise<void>;
  releaseLock(): void;
}

/** The async iterator of `stream.values({ preventCancel })`, as the standards define it. */
export function specValues(stream: { getReader(): unknown }, preventCancel = false): AsyncIterableIterator<unknown> {
  const reader = stream.getReader() as Reader;
  let ongoing: Promise<IteratorResult<unknown>> | null = null;
  let finished = false;

  // Streams §4.2.5: get the next iteration result (read request steps), then Web IDL's next steps' reaction.
  const nextSteps = (): Promise<IteratorResult<unknown>> => {
    if (finished) return Promise.resolve({ value: undefined, done: true });
    return reader.read().then(
      (r) => {
        ongoing = null;
        if (r.done) {
          reader.releaseLock();
          finished = true;
          return { value: undefined, done: true };
        }
        return { value: r.value, done: false };
      },
      (e: unknown) => {
        reader.releaseLock();
        ongoing = null;
        finished = true;
        throw e;
      },
    );
  };

  // Web IDL: return steps (Streams: asynchronous iterator return).
  const returnSteps = (value: unknown): Promise<unknown> => {
    if (finished) return Promise.resolve({ value, done: true });
    finished = true;
    if (!preventCancel) {
      const result = reader.cancel(value);
      reader.releaseLock();
      return result;
    }
    reader.releaseLock();
    return Promise.resolve(undefined);
  };

  const iterator: AsyncIterableIterator<unknown> = {
    next() {
      const steps = (): Promise<IteratorResult<unknown>> => nextSteps();
      ongoing = ongoing ? ongoing.then(steps, steps) : steps();
      return ongoing;
    },
    return(value?: unknown) {
      const steps = (): Promise<unknown> => returnSteps(value);
      const after = ongoing ? ongoing.then(steps, steps) : steps();
      return after.then(() => ({ value, done: true as const }));
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
