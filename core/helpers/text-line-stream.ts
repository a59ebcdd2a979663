/**
 * `TextLineStream`: strings in, lines out.
 * @module
 */
import type { TransformStreamDefaultController } from "../api/transform.ts";
import { TransformStream as TransformStreamClass } from "../transform/transform-stream.ts";
import { convertBoolean, convertDictionary, typeError } from "../shared/webidl.ts";
import { describeValue } from "../shared/describe.ts";

/** Options of {@link TextLineStream}. */
export interface TextLineStreamOptions {
  /** Also end a line at a lone `\r` (old Mac OS line ends). Default `false`: a lone `\r` stays in the line. */
  allowCR?: boolean;
}

const CR = 13;

/**
 * Enqueues every line of `text` that is complete (ends in `\n`, `\r\n`, or with `allowCR` a lone `\r`) without its
 * line break, and returns the rest (the start of the next line). A `\r` at the very end is kept in the rest: the
 * next chunk may start with the `\n` of a `\r\n`.
 */
function enqueueLines(text: string, allowCR: boolean, controller: TransformStreamDefaultController<string>): string {
  let start = 0;
  let cr = allowCR ? text.indexOf("\r") : -1;
  for (;;) {
    const lf = text.indexOf("\n", start);
    if (cr !== -1 && cr < start) cr = text.indexOf("\r", start);
    // A lone \r ends a line (allowCR only): one that is not the \r of the next \r\n.
    if (cr !== -1 && (lf === -1 || cr < lf - 1)) {
      if (cr === text.length - 1) break;
      controller.enqueue(text.slice(start, cr));
      start = cr + 1;
      continue;
    }
    if (lf === -1) break;
    const end = lf > start && text.charCodeAt(lf - 1) === CR ? lf - 1 : lf;
    controller.enqueue(text.slice(start, end));
    start = lf + 1;
  }
  return start === 0 ? text : text.slice(start);
}

/** The class behind {@link TextLineStream}. */
class TextLineStreamClass extends TransformStreamClass<string, string> {
  constructor(options?: TextLineStreamOptions) {
    const dict = convertDictionary(options, "TextLineStream options");
    const allowCR = dict === undefined ? false : convertBoolean(dict.allowCR);
    let rest = "";
    super({
      transform(chunk, controller: TransformStreamDefaultController<string>) {
        if (typeof chunk !== "string") {
          throw typeError(`TextLineStream: every chunk must be a string, got ${describeValue(chunk)}`);
        }
        rest = enqueueLines(rest === "" ? chunk : rest + chunk, allowCR, controller);
      },
      flush(controller: TransformStreamDefaultController<string>) {
        if (rest === "") return;
        // With allowCR a final \r ends the last line.
        controller.enqueue(allowCR && rest.charCodeAt(rest.length - 1) === CR ? rest.slice(0, -1) : rest);
        rest = "";
      },
    });
  }
}

/** A TransformStream of strings in and lines out: the global TransformStream interface. */
export type TextLineStream = globalThis.TransformStream<string, string>;

/** The `TextLineStream` constructor. */
export interface TextLineStreamConstructor {
  /** The prototype of every TextLineStream. */
  readonly prototype: TextLineStream;
  /** A TextLineStream; `allowCR`: also split at a lone `\r`. */
  new (options?: TextLineStreamOptions): TextLineStream;
}

/**
 * A TransformStream that splits text into lines: each chunk written is a string, each chunk read is one line
 * without its line break. A line ends at `\n` or `\r\n` (also across chunk boundaries), and with `allowCR` at a
 * lone `\r`. Empty lines are kept, but the text after the last line break is a line only if it is not empty, so
 * a final line break makes no empty trailing line. Writing a chunk that is not a string errors the stream with
 * a TypeError (nothing is converted).
 *
 * @example
 * ```ts
 * import { ReadableStream, TextLineStream } from "fusestreams";
 *
 * const lines = ReadableStream.from(["a\nb", "c\r\n", "d\n"]).pipeThrough(new TextLineStream());
 * for await (const line of lines) console.log(line); // "a", "bc", "d"
 * ```
 */
export const TextLineStream: TextLineStreamConstructor = TextLineStreamClass as unknown as TextLineStreamConstructor;
