/**
 * The scenarios written against the WHATWG classes, parametrised by the implementation's constructors.
 *
 * The worker imports this module once per implementation with a distinct query (`web.ts?impl=native`),
 * so each implementation runs its own copy of this code and the JIT's type feedback of one does not
 * leak into another's call sites.
 *
 * Every run counts the bytes its consumer receives and folds a checksum (see Expect in
 * ../lib/catalog.ts) and throws when they differ from the expected values.
 * @module
 */
import { type Data, freshChunks, XOR_KEYS } from "../lib/catalog.ts";
import { Tally } from "../lib/tally.ts";
import { checkHtmlGzip, type CompressionClasses, htmlGzip } from "./compression.ts";

/** The constructors an implementation provides. */
export interface WebImpl {
  ReadableStream: typeof ReadableStream;
  WritableStream: typeof WritableStream;
  TransformStream: typeof TransformStream;
  /** Its own CompressionStream / DecompressionStream / TextEncoderStream, when it has them (html-gzip). */
  CompressionStream?: typeof CompressionStream;
  DecompressionStream?: typeof DecompressionStream;
  TextEncoderStream?: typeof TextEncoderStream;
}

/** Runtime classes every implementation uses as they are (the native ones, captured at startup). */
export interface Shared {
  CompressionStream: typeof CompressionStream;
  DecompressionStream: typeof DecompressionStream;
}

/** One runnable benchmark: `prepare` (untimed) makes the argument of `run` (timed). */
export interface Bench {
  prepare?: () => Uint8Array<ArrayBuffer>[];
  run: (fresh: Uint8Array<ArrayBuffer>[]) => Promise<void>;
  /** how this implementation runs the scenario, when it differs from the others */
  note?: string;
}

/** A readable/writable pair, such as a (native) CompressionStream. */
interface Pair {
  readable: ReadableStream<Uint8Array>;
  writable: WritableStream<Uint8Array>;
}

function keep(_value: unknown): void {}

/** The benchmark for scenario `id`, or undefined when it has no WHATWG form. */
export function build(id: string, impl: WebImpl, data: Data, shared: Shared): Bench | undefined {
  const { ReadableStream: RS, WritableStream: WS, TransformStream: TS } = impl;
  const { chunks, count, size, expect } = data;

  /** Default stream; pull() enqueues the next chunk, closing after the last. */
  function source(): ReadableStream<Uint8Array> {
    let i = 0;
    return new RS<Uint8Array>({
      pull(controller) {
        controller.enqueue(chunks[i++]!);
        if (i === count) controller.close();
      },
    });
  }

  function sink(tally: Tally): WritableStream<Uint8Array> {
    return new WS<Uint8Array>({
      write(chunk) {
        tally.add(chunk);
      },
    });
  }

  async function readAll(stream: ReadableStream<Uint8Array>, tally: Tally): Promise<void> {
    const reader = stream.getReader();
    for (;;) {
      const result = await reader.read();
      if (result.done) break;
      tally.add(result.value);
    }
  }

  function identity(): TransformStream<Uint8Array, Uint8Array> {
    return new TS<Uint8Array, Uint8Array>();
  }

  function passOn(): TransformStream<Uint8Array, Uint8Array> {
    return new TS<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        controller.enqueue(chunk);
      },
    });
  }

  function chain(stages: number, make: () => TransformStream<Uint8Array, Uint8Array>): ReadableStream<Uint8Array> {
    let stream = source();
    for (let i = 0; i < stages; i++) stream = stream.pipeThrough(make());
    return stream;
  }

  function pipeChain(stages: number, make: () => TransformStream<Uint8Array, Uint8Array>, what: string): Bench {
    return {
      async run() {
        const tally = new Tally();
        await chain(stages, make).pipeTo(sink(tally));
        tally.check(expect, what);
      },
    };
  }

  /** A foreign pair seen through this implementation's classes: writes go to its writer, reads come from its reader. */
  function bridge(pair: Pair): Pair {
    const writer = pair.writable.getWriter();
    const reader = pair.readable.getReader();
    return {
      writable: new WS<Uint8Array>({
        write: (chunk) => writer.write(chunk),
        close: () => writer.close(),
        abort: (reason) => writer.abort(reason),
      }),
      readable: new RS<Uint8Array>({
        async pull(controller) {
          const result = await reader.read();
          if (result.done) controller.close();
          else controller.enqueue(result.value);
        },
        cancel: (reason) => reader.cancel(reason),
      }),
    };
  }

  function construct(make: () => unknown, ops: number): Bench {
    return {
      async run() {
        for (let i = 0; i < ops; i++) keep(make());
        // let start() / the first pull() of every stream run, as they would in real use
        for (let i = 0; i < 8; i++) await null;
      },
    };
  }

  switch (id) {
    case "read-loop":
      return {
        async run() {
          const tally = new Tally();
          await readAll(source(), tally);
          tally.check(expect, "read loop");
        },
      };

    case "write-loop":
      return {
        async run() {
          const tally = new Tally();
          const writer = sink(tally).getWriter();
          for (let i = 0; i < count; i++) {
            await writer.ready;
            void writer.write(chunks[i]!);
          }
          await writer.close();
          tally.check(expect, "write loop");
        },
      };

    case "write-await":
      return {
        async run() {
          const tally = new Tally();
          const writer = sink(tally).getWriter();
          for (let i = 0; i < count; i++) await writer.write(chunks[i]!);
          await writer.close();
          tally.check(expect, "write loop (await write)");
        },
      };

    case "for-await":
      return {
        async run() {
          const tally = new Tally();
          for await (const chunk of source()) tally.add(chunk);
          tally.check(expect, "for-await");
        },
      };

    case "pipe-to":
      return pipeChain(0, identity, "pipeTo");

    case "flight":
      return {
        prepare: () => freshChunks(data),
        async run(fresh) {
          const tally = new Tally();
          let controller!: ReadableByteStreamController;
          const stream = new RS({
            type: "bytes",
            start(c) {
              controller = c;
            },
          });
          for (let i = 0; i < count; i++) controller.enqueue(fresh[i]!);
          controller.close();
          await readAll(stream, tally);
          tally.check(expect, "React Flight pattern");
        },
      };

    case "byte-read":
      return {
        prepare: () => freshChunks(data),
        async run(fresh) {
          const tally = new Tally();
          let i = 0;
          const stream = new RS({
            type: "bytes",
            pull(controller) {
              controller.enqueue(fresh[i++]!);
              if (i === count) controller.close();
            },
          });
          await readAll(stream, tally);
          tally.check(expect, "byte read loop");
        },
      };

    case "byte-byob":
      return {
        async run() {
          const tally = new Tally();
          let i = 0;
          const stream = new RS({
            type: "bytes",
            pull(controller) {
              const chunk = chunks[i++]!;
              const request = controller.byobRequest;
              if (request) {
                new Uint8Array(request.view!.buffer, request.view!.byteOffset, chunk.byteLength).set(chunk);
                request.respond(chunk.byteLength);
              } else {
                controller.enqueue(chunk.slice());
              }
              if (i === count) controller.close();
            },
          });
          const reader = stream.getReader({ mode: "byob" });
          let view = new Uint8Array(size);
          for (;;) {
            const result = await reader.read(view);
            if (result.done) break;
            tally.add(result.value);
            view = new Uint8Array(result.value.buffer);
          }
          tally.check(expect, "BYOB read loop");
        },
      };

    case "byte-tee":
      return {
        prepare: () => freshChunks(data),
        async run(fresh) {
          const left = new Tally();
          const right = new Tally();
          const stream = new RS({
            type: "bytes",
            start(controller) {
              for (let i = 0; i < count; i++) controller.enqueue(fresh[i]!);
              controller.close();
            },
          });
          const [a, b] = stream.tee();
          await Promise.all([readAll(a, left), readAll(b, right)]);
          left.check(expect, "byte tee, branch 1");
          right.check(expect, "byte tee, branch 2");
        },
      };

    case "construct-readable":
      return construct(() => new RS({ pull() {} }), 256);

    case "construct-writable":
      return construct(() => new WS({ write() {} }), 256);

    case "construct-transform":
      return construct(
        () =>
          new TS({
            transform(chunk, controller) {
              controller.enqueue(chunk);
            },
          }),
        256,
      );

    case "iter-short": {
      const chunk = new Uint8Array(16);
      return {
        async run() {
          let chunks = 0;
          for (let i = 0; i < 256; i++) {
            const stream = new RS<Uint8Array>({
              start(controller) {
                controller.enqueue(chunk);
                controller.enqueue(chunk);
                controller.close();
              },
            });
            for await (const got of stream) chunks += got === chunk ? 1 : 0;
          }
          if (chunks !== 512) throw new Error(`iter-short: ${chunks} chunks read, expected 512`);
        },
      };
    }

    case "pipe-through-1":
      return pipeChain(1, identity, "pipeThrough 1x identity");
    case "pipe-through-3":
      return pipeChain(3, identity, "pipeThrough 3x identity");
    case "pipe-through-8":
      return pipeChain(8, identity, "pipeThrough 8x identity");
    case "transform-fn-1":
      return pipeChain(1, passOn, "pipeThrough 1x transform()");
    case "transform-fn-3":
      return pipeChain(3, passOn, "pipeThrough 3x transform()");
    case "transform-fn-8":
      return pipeChain(8, passOn, "pipeThrough 8x transform()");

    case "xor-3": {
      let stage = 0;
      const xor = (): TransformStream<Uint8Array, Uint8Array> => {
        const key = XOR_KEYS[stage++ % XOR_KEYS.length]!;
        return new TS<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            const n = chunk.length;
            const out = new Uint8Array(n);
            for (let j = 0; j < n; j++) out[j] = chunk[j]! ^ key;
            controller.enqueue(out);
          },
        });
      };
      return {
        async run() {
          const tally = new Tally();
          stage = 0;
          await chain(3, xor).pipeTo(sink(tally));
          tally.check(data.expectXor, "XOR chain");
        },
      };
    }

    case "async-transform":
      return pipeChain(
        1,
        () =>
          new TS<Uint8Array, Uint8Array>({
            async transform(chunk, controller) {
              controller.enqueue(chunk);
            },
          }),
        "async transform",
      );

    case "async-transform-6":
      return {
        async run() {
          const tally = new Tally();
          await readAll(
            chain(
              6,
              () =>
                new TS<Uint8Array, Uint8Array>({
                  async transform(chunk, controller) {
                    controller.enqueue(chunk);
                  },
                }),
            ),
            tally,
          );
          tally.check(expect, "6x async transform -> reader loop");
        },
      };

    case "reader-pull-6":
      return {
        async run() {
          const tally = new Tally();
          let stream = source();
          for (let i = 0; i < 6; i++) {
            const reader = stream.getReader();
            stream = new RS<Uint8Array>({
              async pull(controller) {
                const { done, value } = await reader.read();
                if (done) controller.close();
                else controller.enqueue(value);
              },
            });
          }
          await readAll(stream, tally);
          tally.check(expect, "6x reader-pull -> reader loop");
        },
      };

    case "writer-pull":
      return {
        async run() {
          const tally = new Tally();
          const { readable, writable } = new TS<Uint8Array, Uint8Array>();
          const writer = writable.getWriter();
          const reader = readable.getReader();
          const out = new RS<Uint8Array>({
            async pull(controller) {
              const { done, value } = await reader.read();
              if (done) controller.close();
              else controller.enqueue(value);
            },
          });
          const written = (async () => {
            for (const chunk of chunks) await writer.write(chunk);
            await writer.close();
          })();
          await readAll(out, tally);
          await written;
          tally.check(expect, "writer -> TransformStream -> reader-pull -> reader loop");
        },
      };

    case "html-gzip": {
      // Each implementation's own CompressionStream (ours: with its runtime adapter's codec); one without one
      // takes no part. Without a TextEncoderStream of its own, the encoder is a TransformStream calling
      // TextEncoder.encode() (said in the note).
      if (impl.CompressionStream === undefined || impl.DecompressionStream === undefined) return undefined;
      const classes = { ...impl, ReadableStream: RS } as unknown as CompressionClasses;
      const gunzip = async (bytes: Uint8Array): Promise<Uint8Array> =>
        new Uint8Array(
          await new Response(
            new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new shared.DecompressionStream("gzip")),
          ).arrayBuffer(),
        );
      return {
        ...(impl.TextEncoderStream === undefined
          ? { note: "no TextEncoderStream of its own: the encoder is a TransformStream calling TextEncoder.encode()" }
          : {}),
        async run() {
          await checkHtmlGzip(await htmlGzip(classes), gunzip);
        },
      };
    }

    case "gzip-mixed": {
      // pipeThrough() only takes the implementation's own streams (WebIDL conversion), so an implementation
      // that rejects the native pair in either direction gets it wrapped in a writer/reader bridge.
      let direct = true;
      try {
        new RS<BufferSource>().pipeThrough(new shared.CompressionStream("gzip"));
        new shared.CompressionStream("gzip").readable.pipeThrough(new TS());
      } catch {
        direct = false;
      }
      // the chunks are Uint8Array<ArrayBuffer>; the DOM types of the native pair only say BufferSource
      const wrap = (pair: CompressionStream | DecompressionStream): Pair =>
        direct ? (pair as unknown as Pair) : bridge(pair as unknown as Pair);
      return {
        ...(direct ? {} : { note: "native Compression/DecompressionStream wrapped in writer/reader bridges" }),
        async run() {
          const tally = new Tally();
          await source()
            .pipeThrough(passOn())
            .pipeThrough(wrap(new shared.CompressionStream("gzip")))
            .pipeThrough(wrap(new shared.DecompressionStream("gzip")))
            .pipeThrough(passOn())
            .pipeTo(sink(tally));
          tally.check(expect, "gzip mixed chain");
        },
      };
    }

    case "chain-reader":
      return {
        async run() {
          const tally = new Tally();
          await readAll(chain(3, passOn), tally);
          tally.check(expect, "3x transform -> reader loop");
        },
      };

    case "chain-for-await":
      return {
        async run() {
          const tally = new Tally();
          for await (const chunk of chain(3, passOn)) tally.add(chunk);
          tally.check(expect, "3x transform -> for-await");
        },
      };
  }
  return undefined;
}
