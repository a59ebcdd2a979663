/**
 * The three pipelines of issue 25's table, built from the global classes (with the patch on, the adapter's):
 * `pipe-html`, `pipe-html-gzip`, `pipe-sse`. Each iteration drains the pipeline with
 * `new Response(s).arrayBuffer()`.
 * @module
 */
import { gunzipSync } from "node:zlib";
import { SIZES } from "../catalog.ts";
import {
  checkBytes,
  checkGzipTrailer,
  checksum,
  crc32,
  HTML_STEPS,
  htmlExpected,
  htmlStrings,
  sseChunks,
  sseExpected,
  sseLine,
} from "../data.ts";
import { drain, gzip, type InprocRow, nativeBody, type Natives, textDecoder } from "./env.ts";

/** A pull source of `strings`, one per pull, from the global ReadableStream. */
export function stringSource(strings: readonly string[]): ReadableStream<string> {
  let i = 0;
  return new ReadableStream<string>({
    pull(controller) {
      if (i < strings.length) controller.enqueue(strings[i++]!);
      else controller.close();
    },
  });
}

/** `strings` -> the three HTML steps, each a TransformStream -> TextEncoderStream. */
export function htmlPipeline(strings: readonly string[]): ReadableStream<Uint8Array> {
  let s = stringSource(strings);
  for (const step of HTML_STEPS) {
    s = s.pipeThrough(
      new TransformStream<string, string>({
        transform(chunk, controller) {
          controller.enqueue(step(chunk));
        },
      }),
    );
  }
  return s.pipeThrough(new TextEncoderStream());
}

/** The SSE row's parse step: events split on blank lines, the `data:` line of each turned into a line of HTML. */
export function sseParser(): TransformStream<string, string> {
  let buffered = "";
  return new TransformStream<string, string>({
    transform(text, controller) {
      buffered += text;
      let end: number;
      while ((end = buffered.indexOf("\n\n")) >= 0) {
        const event = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const at = event.indexOf("data: ");
        if (at < 0) continue;
        const eol = event.indexOf("\n", at);
        controller.enqueue(sseLine(eol < 0 ? event.slice(at + 6) : event.slice(at + 6, eol)));
      }
    },
    flush() {
      if (buffered !== "") throw new TypeError(`an unterminated event at the end: ${JSON.stringify(buffered)}`);
    },
  });
}

/** Builds one of this module's rows. */
export function build(id: string, natives: Natives): InprocRow {
  switch (id) {
    case "pipe-html": {
      const strings = htmlStrings(SIZES.htmlStrings);
      const want = htmlExpected(strings);
      const sum = checksum(want);
      return {
        async run() {
          const got = await drain(htmlPipeline(strings));
          if (got.byteLength !== want.byteLength || checksum(got) !== sum) checkBytes(got, want, id);
        },
        async verify() {
          checkBytes(await drain(htmlPipeline(strings)), want, id);
        },
      };
    }
    case "pipe-html-gzip":
    case "pipe-html-gzip-batched": {
      const strings = htmlStrings(SIZES.htmlStrings);
      const want = htmlExpected(strings);
      const trailer = { crc: crc32(want), size: want.byteLength };
      const gzipped = () => drain(htmlPipeline(strings).pipeThrough(gzip()));
      return {
        async run() {
          checkGzipTrailer(await gzipped(), trailer);
        },
        async verify() {
          const gz = await gzipped();
          checkGzipTrailer(gz, trailer);
          checkBytes(new Uint8Array(gunzipSync(gz)), want, id);
        },
      };
    }
    case "pipe-sse": {
      const chunks = sseChunks(SIZES.sseEvents);
      const want = sseExpected(chunks);
      const sum = checksum(want);
      const once = () =>
        drain(
          nativeBody(natives, chunks)
            .pipeThrough(textDecoder())
            .pipeThrough(sseParser())
            .pipeThrough(new TextEncoderStream()),
        );
      return {
        async run() {
          const got = await once();
          if (got.byteLength !== want.byteLength || checksum(got) !== sum) checkBytes(got, want, id);
        },
        async verify() {
          checkBytes(await once(), want, id);
        },
      };
    }
  }
  throw new Error(`pipelines.ts has no row ${id}`);
}
