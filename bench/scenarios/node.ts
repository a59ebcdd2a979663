/**
 * node:stream equivalents of the scenarios, for the `node` implementation (Readable / Writable /
 * Transform / PassThrough / pipeline). Scenarios without a sensible equivalent (byte streams, BYOB, tee)
 * return undefined. Verification works as in web.ts (same Tally, own copy).
 * @module
 */
import { Buffer } from "node:buffer";
import { once } from "node:events";
import { PassThrough, pipeline as pipelineCallback, Readable, Transform, Writable } from "node:stream";
import { buffer as consumeBuffer, text as consumeText } from "node:stream/consumers";
import { finished, pipeline } from "node:stream/promises";
import { createGunzip, createGzip } from "node:zlib";
import { type Data, XOR_KEYS } from "../lib/catalog.ts";
import { burstReadable, pullReadable } from "../lib/node-sources.ts";
import { Tally } from "../lib/tally.ts";

/** One runnable benchmark: `prepare` (untimed) makes the argument of `run` (timed). */
export interface NodeBench {
  prepare?: () => Buffer[];
  run: (fresh: Buffer[]) => Promise<void>;
}

function keep(_value: unknown): void {}

/** The node:stream benchmark for scenario `id`, or undefined when there is no equivalent. */
export function build(id: string, data: Data): NodeBench | undefined {
  const { count, expect } = data;
  const buffers = data.chunks.map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength));

  function source(): Readable {
    return pullReadable(buffers);
  }

  function sink(tally: Tally): Writable {
    return new Writable({
      write(chunk: Buffer, _encoding, callback) {
        tally.add(chunk);
        callback();
      },
    });
  }

  async function drain(stream: Readable, tally: Tally): Promise<void> {
    stream.on("data", (chunk: Buffer) => tally.add(chunk));
    await finished(stream);
  }

  function passOn(): Transform {
    return new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        callback(null, chunk);
      },
    });
  }

  function pipeChain(make: () => Transform[], what: string): NodeBench {
    return {
      async run() {
        const tally = new Tally();
        await pipeline([source(), ...make(), sink(tally)]);
        tally.check(expect, what);
      },
    };
  }

  function times(n: number, make: () => Transform): () => Transform[] {
    return () => Array.from({ length: n }, make);
  }

  /** pipeline(source, ...transforms) with its last stream returned for the consumer. */
  function chainEnd(transforms: Transform[], onError: (error: Error) => void): Transform {
    return pipelineCallback([source(), ...transforms], (error) => {
      if (error) onError(error);
    }) as unknown as Transform;
  }

  function construct(make: () => unknown, ops: number): NodeBench {
    return {
      async run() {
        for (let i = 0; i < ops; i++) keep(make());
        for (let i = 0; i < 8; i++) await null;
      },
    };
  }

  switch (id) {
    case "read-loop":
      return {
        async run() {
          const tally = new Tally();
          await drain(source(), tally);
          tally.check(expect, "read loop");
        },
      };

    case "write-loop":
      return {
        async run() {
          const tally = new Tally();
          const writable = sink(tally);
          for (let i = 0; i < count; i++) {
            if (!writable.write(buffers[i])) await once(writable, "drain");
          }
          writable.end();
          await finished(writable);
          tally.check(expect, "write loop");
        },
      };

    case "write-await":
      return {
        async run() {
          const tally = new Tally();
          const writable = sink(tally);
          for (let i = 0; i < count; i++) {
            await new Promise<void>((resolve, reject) => {
              writable.write(buffers[i], (error) => (error ? reject(error) : resolve()));
            });
          }
          writable.end();
          await finished(writable);
          tally.check(expect, "write loop (await write)");
        },
      };

    case "for-await":
      return {
        async run() {
          const tally = new Tally();
          for await (const chunk of source()) tally.add(chunk as Buffer);
          tally.check(expect, "for-await");
        },
      };

    case "pipe-to":
      return pipeChain(() => [], "pipeline");

    case "batch-pull":
      return {
        async run() {
          const tally = new Tally();
          for await (const chunk of source()) tally.add(chunk as Buffer);
          tally.check(expect, "batch-pull (for await over a Readable)");
        },
      };

    case "batch-push":
      return {
        async run() {
          const tally = new Tally();
          for await (const chunk of burstReadable(buffers, 64)) tally.add(chunk as Buffer);
          tally.check(expect, "batch-push (for await over a Readable)");
        },
      };

    case "consume-bytes":
      return {
        async run() {
          const tally = new Tally();
          tally.add(await consumeBuffer(source()));
          tally.check(expect, "node:stream/consumers buffer()");
        },
      };

    case "consume-text":
      return {
        async run() {
          const tally = new Tally();
          tally.addAscii(await consumeText(source()));
          tally.check(expect, "node:stream/consumers text()");
        },
      };

    case "flight":
      return {
        prepare: () => data.chunks.map((c) => Buffer.from(c)),
        async run(fresh) {
          const tally = new Tally();
          const readable = new Readable({ read() {} });
          for (let i = 0; i < count; i++) readable.push(fresh[i]);
          readable.push(null);
          await drain(readable, tally);
          tally.check(expect, "React Flight pattern");
        },
      };

    case "construct-readable":
      return construct(() => new Readable({ read() {} }), 256);

    case "construct-writable":
      return construct(
        () =>
          new Writable({
            write(_chunk, _encoding, callback) {
              callback();
            },
          }),
        256,
      );

    case "construct-transform":
      return construct(passOn, 256);

    case "pipe-through-1":
      return pipeChain(times(1, () => new PassThrough()), "PassThrough x1");
    case "pipe-through-3":
      return pipeChain(times(3, () => new PassThrough()), "PassThrough x3");
    case "pipe-through-8":
      return pipeChain(times(8, () => new PassThrough()), "PassThrough x8");
    case "transform-fn-1":
      return pipeChain(times(1, passOn), "Transform x1");
    case "transform-fn-3":
      return pipeChain(times(3, passOn), "Transform x3");
    case "transform-fn-8":
      return pipeChain(times(8, passOn), "Transform x8");

    case "xor-3":
      return {
        async run() {
          const tally = new Tally();
          const stages = XOR_KEYS.map(
            (key) =>
              new Transform({
                transform(chunk: Buffer, _encoding, callback) {
                  const n = chunk.length;
                  const out = Buffer.allocUnsafe(n);
                  for (let j = 0; j < n; j++) out[j] = chunk[j]! ^ key;
                  callback(null, out);
                },
              }),
          );
          await pipeline([source(), ...stages, sink(tally)]);
          tally.check(data.expectXor, "XOR chain");
        },
      };

    case "async-transform":
      return pipeChain(
        times(
          1,
          () =>
            new Transform({
              transform(chunk: Buffer, _encoding, callback) {
                Promise.resolve(chunk).then((c) => callback(null, c), callback);
              },
            }),
        ),
        "async transform",
      );

    case "gzip-mixed":
      return {
        async run() {
          const tally = new Tally();
          await pipeline([source(), passOn(), createGzip(), createGunzip(), passOn(), sink(tally)]);
          tally.check(expect, "gzip mixed chain");
        },
      };

    case "chain-reader":
      return {
        async run() {
          const tally = new Tally();
          let failure: Error | undefined;
          const last = chainEnd(times(3, passOn)(), (error) => (failure = error));
          await drain(last, tally);
          if (failure) throw failure;
          tally.check(expect, "3x Transform -> on('data')");
        },
      };

    case "chain-for-await":
      return {
        async run() {
          const tally = new Tally();
          let failure: Error | undefined;
          const last = chainEnd(times(3, passOn)(), (error) => (failure = error));
          for await (const chunk of last) tally.add(chunk as Buffer);
          if (failure) throw failure;
          tally.check(expect, "3x Transform -> for await");
        },
      };
  }
  return undefined;
}
