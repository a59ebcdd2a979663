/**
 * Our streams as Bun bodies (BUN-DIRECT) read by JavaScript, with the Bun adapter's patch on (issue 27, case
 * 10): application code written against the globals runs once without the patch (Bun's streams) and once
 * with it (ours), and must show the same thing:
 *
 * - how far the source is pulled ahead of the body's reader (a reader, iteration, `tee()`, pipes to native
 *   and to our destinations);
 * - every chunk enqueued before the source errors reaches the reader, then the error itself;
 * - each chunk reaches the reader as one chunk.
 *
 * On other runtimes every test is skipped with a message.
 *
 *   bun tests/unit/bun-bodies.test.ts
 */
import { connect } from "node:net";
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as bun from "../../adapters/bun/mod.ts";
import { bounded, currentRuntime } from "../shared/contract-suite.ts";
import { bothWays } from "../shared/bun-both-ways.ts";

const onBun = currentRuntime === "Bun" && typeof Bun !== "undefined";
const enc = new TextEncoder();
const dec = new TextDecoder();

const bunTest = (name: string, fn: () => Promise<void>): void => {
  if (!onBun) {
    test.skip(`bun bodies: ${name}`, () => undefined);
    return;
  }
  test(`bun bodies: ${name}`, async () => {
    try {
      await bounded(fn(), name);
    } finally {
      bun.unpatchGlobalWebStreams();
    }
  });
};
if (!onBun) console.log(`bun-bodies: skipped on ${currentRuntime} (Bun's Response is needed)`);

const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 10));
const NativeWS = globalThis.WritableStream;

/** A source of 100-byte chunks (one per pull) as the body of a Response, counting its pulls. */
function countedBody(): { body: ReadableStream<Uint8Array>; pulls(): number } {
  let pulls = 0;
  const source = new ReadableStream<Uint8Array>({
    pull(c) {
      pulls++;
      c.enqueue(new Uint8Array(100).fill(pulls));
    },
  });
  return { body: new Response(source).body!, pulls: () => pulls };
}

bunTest(
  "piped into our WritableStream, a body of ours is pulled as far as the same stream of ours itself",
  async () => {
    // (our pipe follows the standard and has one more chunk in flight than Bun's own pipe: core, not bodies)
    bun.patchGlobalWebStreams();
    const run = async (asBody: boolean) => {
      const { body, pulls } = countedBody();
      let writes = 0;
      let source = body;
      if (!asBody) {
        let n = 0;
        source = new ReadableStream({
          pull(c) {
            c.enqueue(new Uint8Array(100).fill(++n));
          },
        });
      }
      void source.pipeTo(new WritableStream({ write: () => (++writes === 1 ? new Promise(() => {}) : undefined) }));
      await tick();
      return [writes, asBody ? pulls() : undefined];
    };
    const viaBody = await run(true);
    let plainPulls = 0;
    {
      let writes = 0;
      const source = new ReadableStream({
        pull(c) {
          plainPulls++;
          c.enqueue(new Uint8Array(100));
        },
      });
      void source.pipeTo(new WritableStream({ write: () => (++writes === 1 ? new Promise(() => {}) : undefined) }));
      await tick();
    }
    assert.equal(viaBody, [1, plainPulls]);
  },
);

bunTest("the source is pulled no further ahead of the body's reader than a native body's", async () => {
  const scenarios: [string, () => Promise<unknown>][] = [
    ["a reader, one read", async () => {
      const { body, pulls } = countedBody();
      const reader = body.getReader();
      const first = await reader.read();
      await tick();
      const afterOne = pulls();
      await reader.read();
      await reader.read();
      await tick();
      return [first.value!.byteLength, afterOne, pulls()];
    }],
    ["for await, one chunk", async () => {
      const { body, pulls } = countedBody();
      let size = 0;
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        size = chunk.byteLength;
        break;
      }
      await tick();
      return [size, pulls()];
    }],
    ["values({ preventCancel }), two chunks, then a reader", async () => {
      const { body, pulls } = countedBody();
      const sizes: number[] = [];
      const iterator = (body as unknown as { values(o: object): AsyncIterable<Uint8Array> }).values({
        preventCancel: true,
      });
      for await (const chunk of iterator) {
        sizes.push(chunk.byteLength);
        if (sizes.length === 2) break;
      }
      await tick();
      const reader = body.getReader();
      sizes.push((await reader.read()).value!.byteLength);
      await tick();
      return [sizes, pulls()];
    }],
    ["tee(), one read of one branch", async () => {
      const { body, pulls } = countedBody();
      const [a] = body.tee();
      await a.getReader().read();
      await tick();
      return pulls();
    }],
    ["pipeTo() Bun's WritableStream that takes one chunk and waits", async () => {
      const { body, pulls } = countedBody();
      let writes = 0;
      void body.pipeTo(new NativeWS({ write: () => (++writes === 1 ? new Promise(() => {}) : undefined) }));
      await tick();
      return [writes, pulls()];
    }],
    ["pipeThrough(new TransformStream()), one read", async () => {
      const { body, pulls } = countedBody();
      const reader = body.pipeThrough(new TransformStream()).getReader();
      await reader.read();
      await tick();
      return pulls();
    }],
    ["new Response(body).body read once (a body handed on)", async () => {
      const { body, pulls } = countedBody();
      await new Response(body).body!.getReader().read();
      await tick();
      return pulls();
    }],
  ];
  for (const [label, scenario] of scenarios) {
    const [native, patched] = await bothWays(scenario);
    assert.is(patched, native, label);
  }
});

/** A Response body: 5 chunks queued at once, then the source errors (at once, or after a timer). */
function failingBody(when: "at once" | "later", error: Error): ReadableStream<Uint8Array> {
  return new Response(
    new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < 5; i++) c.enqueue(enc.encode(`c${i};`));
        if (when === "later") setTimeout(() => c.error(error), 5);
      },
      pull(c) {
        if (when === "at once") c.error(error);
      },
    }),
  ).body!;
}

bunTest("every chunk enqueued before the source errors reaches the body's reader, then the error", async () => {
  const error = new RangeError("the source failed");
  const settle = async (got: string[], run: () => Promise<unknown>): Promise<unknown> => {
    try {
      await run();
      return [got, "no error"];
    } catch (e) {
      return [got, e === error ? "the source's error" : String(e)];
    }
  };
  for (const when of ["at once", "later"] as const) {
    const scenarios: [string, () => Promise<unknown>][] = [
      ["a reader", () => {
        const got: string[] = [];
        return settle(got, async () => {
          const reader = failingBody(when, error).getReader();
          for (let r = await reader.read(); !r.done; r = await reader.read()) got.push(dec.decode(r.value));
        });
      }],
      ["for await", () => {
        const got: string[] = [];
        return settle(got, async () => {
          for await (const chunk of failingBody(when, error) as unknown as AsyncIterable<Uint8Array>) {
            got.push(dec.decode(chunk));
          }
        });
      }],
      ["pipeTo()", () => {
        const got: string[] = [];
        return settle(got, () =>
          failingBody(when, error).pipeTo(
            new WritableStream({
              write(chunk) {
                got.push(dec.decode(chunk));
              },
            }),
          ));
      }],
      ["pipeThrough(new TransformStream()) and a reader", () => {
        const got: string[] = [];
        return settle(got, async () => {
          const reader = failingBody(when, error).pipeThrough(new TransformStream()).getReader();
          for (let r = await reader.read(); !r.done; r = await reader.read()) got.push(dec.decode(r.value));
        });
      }],
      ["text()", () => settle([], () => new Response(failingBody(when, error)).text())],
    ];
    for (const [label, scenario] of scenarios) {
      const [native, patched] = await bothWays(scenario);
      assert.is(patched, native, `${label}, the source failing ${when}`);
    }
  }
});

bunTest("new Response(stream).body is the stream itself; bodyUsed, locks and clone() as for Bun's own", async () => {
  const bytes = () =>
    new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(enc.encode("ab"));
        c.enqueue(enc.encode("cd"));
        c.close();
      },
    });
  const describe = (e: unknown) => `${(e as Error).name} ${(e as { code?: unknown }).code} ${(e as Error).message}`;
  const scenarios: [string, () => Promise<unknown>][] = [
    ["identity", async () => {
      const s = bytes();
      const response = new Response(s);
      const request = new Request("http://127.0.0.1/", { method: "POST", body: s } as RequestInit);
      return [response.body === s, request.body === s];
    }],
    ["bodyUsed and locked after a read of the body", async () => {
      const s = bytes();
      const response = new Response(s);
      const before = response.bodyUsed;
      const reader = response.body!.getReader();
      const lockedBefore = response.bodyUsed;
      await reader.read();
      return [before, lockedBefore, response.bodyUsed, s.locked];
    }],
    ["text() of a locked body", async () => {
      const response = new Response(bytes());
      response.body!.getReader();
      return await response.text().then((v) => v, describe);
    }],
    ["text() of a read, released body", async () => {
      const response = new Response(bytes());
      const reader = response.body!.getReader();
      await reader.read();
      reader.releaseLock();
      return await response.text().then((v) => v, describe);
    }],
    ["text() once a reader let go unread", async () => {
      const response = new Response(bytes());
      response.body!.getReader().releaseLock();
      return [await response.text(), response.bodyUsed, response.body!.locked];
    }],
    ["clone(): both bodies, and the original's body is a branch", async () => {
      const s = bytes();
      const response = new Response(s);
      const copy = response.clone();
      return [response.body === s, await copy.text(), await response.text()];
    }],
    ["clone() of a locked body", () => {
      const response = new Response(bytes());
      response.body!.getReader();
      try {
        response.clone();
        return Promise.resolve("cloned");
      } catch (e) {
        return Promise.resolve(describe(e));
      }
    }],
    ["clone(): one branch read once pulls the source as far as Bun's own", async () => {
      const { body, pulls } = countedBody();
      const response = new Response(body);
      await response.clone().body!.getReader().read();
      await tick();
      return pulls();
    }],
    ["new Response(response.body) takes the same stream", async () => {
      const s = bytes();
      const first = new Response(s);
      const second = new Response(first.body);
      return [second.body === s, await second.text(), first.bodyUsed];
    }],
  ];
  for (const [label, scenario] of scenarios) {
    const [native, patched] = await bothWays(scenario);
    assert.is(patched, native, label);
  }
});

bunTest("a cancel of the body's reader reaches the source with its reason", async () => {
  const scenario = async () => {
    const reasons: unknown[] = [];
    const body = new Response(
      new ReadableStream({
        pull(c) {
          c.enqueue(enc.encode("x"));
        },
        cancel(reason) {
          reasons.push(reason);
        },
      }),
    ).body!;
    const reader = body.getReader();
    await reader.read();
    await reader.cancel("enough");
    await tick();
    return reasons;
  };
  const [native, patched] = await bothWays(scenario);
  assert.is(patched, native);
});

bunTest("after Bun.serve or readableStreamToText read a body, it is locked as Bun's own is (or not)", async () => {
  const source = () =>
    new ReadableStream<Uint8Array>({
      pull(c) {
        c.enqueue(enc.encode("abc"));
        c.close();
      },
    });
  let served: ReadableStream<Uint8Array> | undefined;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => new Response(served = source()),
  });
  try {
    const [native, patched] = await bothWays(async () => {
      const seen: unknown[] = [];
      assert.is(await (await fetch(server.url)).text(), "abc");
      await tick();
      seen.push(served!.locked);
      const read = source();
      assert.is(await Bun.readableStreamToText(read), "abc");
      seen.push(read.locked);
      return seen;
    });
    assert.is(patched, native);
    assert.is(JSON.parse(native)[0], true, "Bun's own server keeps the body it read locked");
  } finally {
    server.stop(true);
  }
});

bunTest("Bun.serve: a body of ours reaches the client byte for byte, and a chunk before a pause is sent", async () => {
  // A response takes each chunk as it comes (BUN-RESPONSE-AS-IS): the client must get the same bytes, strings and
  // bytes in order, and a chunk written before the source waits must be sent before it waits (the client's
  // reply here is what ends the wait: a chunk held back would never arrive, and the test would time out).
  let clientGot!: () => void;
  let source: () => ReadableStream<unknown> = () => new ReadableStream();
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(source() as never) });
  try {
    const mixed = () =>
      new ReadableStream<unknown>({
        async start(c) {
          for (let i = 0; i < 300; i++) {
            if (i % 7 === 0) c.enqueue(`s${i}`);
            else if (i % 11 === 0) c.enqueue(new DataView(new Uint8Array([65, 66, i & 255]).buffer));
            else if (i % 13 === 0) c.enqueue(new Uint8Array(0));
            else c.enqueue(new Uint8Array(700).fill(i & 255));
            if (i % 50 === 0) await new Promise((resolve) => setTimeout(resolve, 0));
          }
          c.enqueue(new Uint8Array(200_000).fill(3));
          c.enqueue("end");
          c.close();
        },
      });
    const read = async () => new Uint8Array(await (await fetch(server.url)).arrayBuffer());
    source = mixed;
    const native = await read();
    bun.patchGlobalWebStreams();
    source = mixed;
    const patched = await read();
    assert.is(patched.length, native.length, "length");
    assert.ok(patched.every((byte, i) => byte === native[i]), "the same bytes");

    source = () =>
      new ReadableStream<unknown>({
        async start(c) {
          c.enqueue(enc.encode("first"));
          await new Promise<void>((resolve) => (clientGot = resolve));
          c.enqueue(enc.encode("second"));
          c.close();
        },
      });
    const response = await fetch(server.url);
    const reader = response.body!.getReader();
    const first = await reader.read();
    assert.is(dec.decode(first.value), "first", "sent before the source waits");
    clientGot();
    let rest = "";
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      rest += dec.decode(next.value);
    }
    assert.is(rest, "second");
  } finally {
    server.stop(true);
  }
});

bunTest("Bun.serve: a body of ours leaves on the wire as Bun's own stream does, chunk framing and all", async () => {
  // BUN-RESPONSE-AS-IS: Bun's response sink frames each write as an HTTP chunk; joined writes (BUN-COALESCE as it
  // was for responses) gave other framing than Bun's own pump of the same chunks.
  const kib = (i: number) => new Uint8Array(1024).fill(i);
  const shapes: Record<string, () => ReadableStream<Uint8Array>> = {
    "64 chunks in one task": () => {
      let i = 0;
      return new ReadableStream<Uint8Array>({
        pull(c) {
          if (i < 64) c.enqueue(kib(i++));
          else c.close();
        },
      });
    },
    "one chunk per wake": () => {
      let i = 0;
      return new ReadableStream<Uint8Array>({
        async pull(c) {
          await null;
          if (i < 40) c.enqueue(kib(i++).subarray(0, 100 + i));
          else c.close();
        },
      });
    },
  };
  let source: () => ReadableStream<Uint8Array> = shapes["64 chunks in one task"]!;
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(source()) });
  /** The raw bytes of one response, its Date header taken out. */
  const raw = async (): Promise<string> => {
    const parts: Uint8Array[] = [];
    await new Promise<void>((resolve, reject) => {
      const socket = connect(server.port!, "127.0.0.1", () => {
        socket.write("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
      });
      socket.on("data", (data: Uint8Array) => parts.push(new Uint8Array(data)));
      socket.on("close", () => resolve());
      socket.on("error", reject);
    });
    return Buffer.concat(parts).toString("latin1").replace(/\r\nDate: [^\r]*/i, "");
  };
  try {
    for (const [name, shape] of Object.entries(shapes)) {
      source = shape;
      const native = await raw();
      bun.patchGlobalWebStreams();
      try {
        source = shape;
        const patched = await raw();
        assert.ok(native.length > 40 * 100, `${name}: a whole response (${native.length} bytes)`);
        assert.is(patched, native, `${name}: the same bytes on the wire`);
      } finally {
        bun.unpatchGlobalWebStreams();
      }
    }
  } finally {
    server.stop(true);
  }
});

bunTest(
  "Bun's sinks given one join buffer (BUN-COALESCE-SCRATCH): bodies at once, read slowly or whole, arrive whole",
  async () => {
    // Three responses, three uploads, two files and three bodies read whole at once, each 300 chunks of 700 bytes
    // (more than the join buffer holds per task, in 3 tasks), every chunk's bytes its own: a join buffer overwritten
    // while a sink still held it would show another body's or another chunk's bytes.
    bun.patchGlobalWebStreams();
    const CHUNKS = 300;
    const SIZE = 700;
    const fillOf = (id: number, i: number): number => (id * 31 + i) & 255;
    const body = (id: number) =>
      new ReadableStream<Uint8Array>({
        async start(c) {
          for (let i = 0; i < CHUNKS; i++) {
            c.enqueue(new Uint8Array(SIZE).fill(fillOf(id, i)));
            if (i % 100 === 99) await new Promise((resolve) => setTimeout(resolve, 0));
          }
          c.close();
        },
      });
    const wrong = (id: number, bytes: Uint8Array): string | undefined => {
      if (bytes.length !== CHUNKS * SIZE) return `body ${id}: ${bytes.length} bytes`;
      for (let k = 0; k < bytes.length; k++) {
        if (bytes[k] !== fillOf(id, Math.floor(k / SIZE))) return `body ${id}: byte ${k} is ${bytes[k]}`;
      }
      return undefined;
    };
    const slowly = async (stream: ReadableStream<Uint8Array>): Promise<Uint8Array> => {
      const parts: Uint8Array[] = [];
      const reader = stream.getReader();
      for (;;) {
        const next = await reader.read();
        if (next.done) break;
        parts.push(next.value.slice());
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      return new Uint8Array(await new Blob(parts as BlobPart[]).arrayBuffer());
    };
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(request) {
        const id = Number(new URL(request.url).searchParams.get("id"));
        if (request.method === "GET") return new Response(body(id));
        return new Response(wrong(id, await slowly(request.body!)) ?? "ok");
      },
    });
    const dir = (await import("node:os")).tmpdir();
    const files = [6, 7].map((id) => `${dir}/fusestreams-scratch-${process.pid}-${id}.bin`);
    try {
      const results = await Promise.all([
        ...[0, 1, 2].map(async (id) => wrong(id, await slowly((await fetch(`${server.url}?id=${id}`)).body!))),
        ...[3, 4, 5].map(async (id) => {
          const init = { method: "POST", body: body(id), duplex: "half" } as unknown as RequestInit;
          const text = await (await fetch(`${server.url}?id=${id}`, init)).text();
          return text === "ok" ? undefined : text;
        }),
        ...[6, 7].map(async (id, k) => {
          await Bun.write(files[k]!, new Response(body(id)));
          return wrong(id, new Uint8Array(await Bun.file(files[k]!).arrayBuffer()));
        }),
        // Bun's one-shot byte sinks (BUN-COALESCE into arrayBuffer(), bytes(), Bun.readableStreamToBytes())
        (async () => wrong(8, new Uint8Array(await new Response(body(8)).arrayBuffer())))(),
        (async () => wrong(9, await new Response(body(9)).bytes()))(),
        (async () => wrong(10, await Bun.readableStreamToBytes(body(10))))(),
      ]);
      assert.equal(results, Array(11).fill(undefined), "every body whole");
    } finally {
      server.stop(true);
      for (const file of files) await Bun.file(file).delete().catch(() => undefined);
    }
  },
);

bunTest(
  "a TextEncoderStream's readable side read whole by Bun's consumers (FP-ENCODE-INTO): results, errors and locks",
  async () => {
    const BOOM = new Error("boom");
    const cases: unknown[][] = [
      ["\ufeff", "\ufeffa", "ü€😀", "\ud83d", "\ude00", "z\ud800"],
      ['{"a": ', '"\ufeffü"}'],
      ["", ""],
      ["one ", "two ", BOOM],
    ];
    const ways: Record<string, (s: ReadableStream<Uint8Array>) => Promise<unknown>> = {
      "text()": (s) => new Response(s).text(),
      "arrayBuffer()": async (s) => [...new Uint8Array(await new Response(s).arrayBuffer())].join(","),
      "bytes()": async (s) => (await new Response(s).bytes()).join(","),
      "blob()": async (s) => (await new Response(s).blob()).text(),
      "json()": (s) => new Response(s).json(),
      "Request text()": (s) => new Request("http://127.0.0.1/", { method: "POST", body: s }).text(),
      "Bun.readableStreamToText": (s) => Bun.readableStreamToText(s),
      "Bun.readableStreamToBytes": async (s) => (await Bun.readableStreamToBytes(s)).join(","),
      "Bun.readableStreamToBlob": async (s) => (await Bun.readableStreamToBlob(s)).text(),
      "Bun.readableStreamToJSON": (s) => Bun.readableStreamToJSON(s),
    };
    const run = async () => {
      const out: string[] = [];
      for (const chunks of cases) {
        for (const [way, read] of Object.entries(ways)) {
          let i = 0;
          const source = new ReadableStream<unknown>({
            pull(c) {
              const chunk = chunks[i++];
              if (chunk === BOOM) c.error(BOOM);
              else if (i > chunks.length) c.close();
              else c.enqueue(chunk);
            },
          });
          const encoded = source.pipeThrough(new TransformStream()).pipeThrough(
            new TextEncoderStream() as unknown as TransformStream<unknown, Uint8Array>,
          );
          let value: string;
          try {
            value = JSON.stringify(await read(encoded));
          } catch (error) {
            value = error === BOOM ? "the source's error" : `${(error as Error).name}: ${(error as Error).message}`;
          }
          out.push(`${way} of ${JSON.stringify(chunks.length)} chunks: ${value}, locked ${encoded.locked}`);
        }
      }
      return out;
    };
    const [native, patched] = await bothWays(run);
    assert.equal(JSON.parse(patched), JSON.parse(native));
  },
);

test.run();
