/**
 * BUN-DIRECT-SOURCE (adapters/bun/direct-sources.ts): a `type: "direct"` stream made while patched and read
 * first by one of ours runs its source in ours. Each test runs the same application code without the patch
 * (Bun's own classes read the direct stream) and with it (ours), and compares what the code sees: the chunks
 * and their boundaries, errors (the same object), how often `pull()` is called and with which `this`, the
 * values `write()` returns, `cancel()` reaching the source, the lock on the direct stream.
 *
 * On other runtimes every test is skipped with a message.
 *
 *   bun tests/unit/bun-direct-sources.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as bun from "../../adapters/bun/mod.ts";
import { bounded, currentRuntime } from "../shared/contract-suite.ts";
import { bothWays } from "../shared/bun-both-ways.ts";

const onBun = currentRuntime === "Bun" && typeof Bun !== "undefined";

const bunTest = (name: string, fn: () => Promise<void>): void => {
  if (!onBun) {
    test.skip(`bun direct sources: ${name}`, () => undefined);
    return;
  }
  test(`bun direct sources: ${name}`, async () => {
    try {
      await bounded(fn(), name);
    } finally {
      bun.unpatchGlobalWebStreams();
    }
  });
};
if (!onBun) console.log(`bun-direct-sources: skipped on ${currentRuntime} (Bun's direct streams are needed)`);

/** The controller of a direct source, as far as these tests use it. */
interface Direct {
  write(chunk: unknown): unknown;
  flush(): unknown;
  end(): unknown;
  close(error?: unknown): unknown;
  error(error: unknown): unknown;
}

/** A direct stream of `pull` (made with the global class: Bun's own, or through the patch's maker). */
function direct(
  pull: (this: unknown, controller: Direct) => unknown,
  extra: Record<string, unknown> = {},
): ReadableStream<Uint8Array> {
  return new ReadableStream({ type: "direct", pull, ...extra } as unknown as UnderlyingDefaultSource<Uint8Array>);
}

/** Reads `stream` piped through an identity TransformStream (the global class): its chunks, then its end. */
async function readThrough(stream: ReadableStream<Uint8Array>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const reader = stream.pipeThrough(new TransformStream()).getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      seen.push(`${value.constructor.name}[${Array.from(value).join(",")}]`);
    }
    seen.push("done");
  } catch (error) {
    seen.push(`error ${(error as Error).name}: ${(error as Error).message}`);
  }
  seen.push(`locked ${stream.locked}`);
  return seen;
}

const tick = (ms = 2): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

bunTest("the fast path is taken: the source gets a controller of ours while patched", async () => {
  const kinds: string[] = [];
  const run = () =>
    readThrough(direct((c) => {
      kinds.push(Object.getPrototypeOf(c) === Object.prototype ? "plain" : "Bun's");
      c.write("x");
      c.end();
    }));
  await bothWays(run);
  assert.is(kinds.length, 2);
  assert.equal(kinds, ["Bun's", "plain"], "Bun's own controller natively, ours while patched");
});

bunTest("flush() hands what was written to a waiting read, and only then", async () => {
  const [native, patched] = await bothWays(() =>
    readThrough(direct((c) => {
      c.write("a");
      c.write("bc");
      c.flush();
      c.write("d");
      c.flush();
      c.flush();
      c.write("e");
      c.end();
    }))
  );
  assert.is(patched, native);
  assert.ok(native.includes("Uint8Array[97,98,99]"), native);
});

bunTest("bytes and text mixed, bytes copied when written", async () => {
  const [native, patched] = await bothWays(() =>
    readThrough(direct((c) => {
      const bytes = new Uint8Array([1, 2, 3]);
      c.write(bytes);
      bytes[0] = 9;
      c.write("é");
      c.write(new Uint16Array([0x0102]).buffer);
      c.write(new DataView(new Uint8Array([7, 8]).buffer));
      c.end();
    }))
  );
  assert.is(patched, native);
});

bunTest("a chunk per microtask of writes; an async pull settles before the next pull", async () => {
  const calls: number[] = [];
  const [native, patched] = await bothWays(async () => {
    let pulls = 0;
    const seen = await readThrough(direct(async (c) => {
      pulls++;
      c.write("x");
      await null;
      c.write("y");
      c.write("z");
      await tick();
      c.write("w");
      if (pulls === 2) c.end();
    }));
    calls.push(pulls);
    return seen;
  });
  assert.is(patched, native);
  assert.is(calls[1], calls[0], "as many pulls");
});

bunTest("a synchronous pull per read, with the source as this", async () => {
  const [native, patched] = await bothWays(async () => {
    let pulls = 0;
    const thisSeen: boolean[] = [];
    const source = {
      type: "direct",
      pull(this: unknown, c: Direct) {
        thisSeen.push(this === source);
        pulls++;
        if (pulls > 4) c.end();
        else c.write(`p${pulls}`);
      },
    };
    const seen = await readThrough(new ReadableStream(source as unknown as UnderlyingDefaultSource<Uint8Array>));
    return { seen, pulls, thisSeen };
  });
  assert.is(patched, native);
});

bunTest("surrogates: a pair split across writes and a lone one are U+FFFD, a whole pair is kept", async () => {
  const [native, patched] = await bothWays(() =>
    readThrough(direct((c) => {
      c.write("a\ud83d");
      c.write("\ude00b");
      c.write("\ud83d\ude00");
      c.write("\udc00");
      c.write("\ud800");
      c.end();
    }))
  );
  assert.is(patched, native);
  assert.ok(native.includes("239,191,189,239,191,189"), native);
});

bunTest("write() returns the bytes taken (ASCII text and bytes), 0 for nothing and after the end", async () => {
  const [native, patched] = await bothWays(async () => {
    const returned: unknown[] = [];
    const seen = await readThrough(direct((c) => {
      returned.push(c.write("abc"), c.write(new Uint8Array(5)), c.write(""), c.write(new Uint8Array(0)));
      c.end();
      returned.push(c.write("late"));
    }));
    return { seen, returned };
  });
  assert.is(patched, native);
});

bunTest("error(error) errors the stream with that object", async () => {
  const failure = new Error("errored by the source");
  const [native, patched] = await bothWays(async () => {
    const reader = direct((c) => {
      c.write("lost");
      c.error(failure);
    }).pipeThrough(new TransformStream()).getReader();
    return await reader.read().then((r) => `read ${r.done}`, (e) => e === failure ? "same error" : `other ${e}`);
  });
  assert.is(patched, native);
  assert.is(native, '"same error"');
});

bunTest("close(error) errors the stream with that object and drops what was not delivered", async () => {
  const failure = new Error("closed with an error");
  const [native, patched] = await bothWays(async () => {
    const reader = direct((c) => {
      c.write("lost");
      c.close(failure);
    }).pipeThrough(new TransformStream()).getReader();
    const result = await reader.read().then(
      (r) => `read ${r.done}`,
      (e) => e === failure ? "same error" : `other ${e}`,
    );
    return result;
  });
  assert.is(patched, native);
  assert.is(native, '"same error"');
});

bunTest("a pull that throws, or rejects, errors the stream with that object", async () => {
  const failure = new Error("pull failed");
  for (const asyncPull of [false, true]) {
    const [native, patched] = await bothWays(async () => {
      const reader = direct(
        asyncPull
          ? async (c) => {
            c.write("before");
            await tick();
            throw failure;
          }
          : () => {
            throw failure;
          },
      ).pipeThrough(new TransformStream()).getReader();
      const seen: string[] = [];
      for (;;) {
        try {
          const { value, done } = await reader.read();
          if (done) break;
          seen.push(`chunk ${value.byteLength}`);
        } catch (error) {
          seen.push(error === failure ? "same error" : `other ${error}`);
          break;
        }
      }
      return seen;
    });
    assert.is(patched, native, asyncPull ? "async" : "sync");
  }
});

bunTest("a chunk that is not text or bytes throws Bun's TypeError in write()", async () => {
  const [native, patched] = await bothWays(async () => {
    const thrown: unknown[] = [];
    const seen = await readThrough(direct((c) => {
      for (const bad of [5, {}, null, undefined, true]) {
        try {
          c.write(bad);
          thrown.push("no error");
        } catch (error) {
          thrown.push([(error as Error).name, (error as { code?: string }).code, (error as Error).message]);
        }
      }
      c.write("ok");
      c.end();
    }));
    return { seen, thrown };
  });
  assert.is(patched, native);
});

bunTest("cancelling the pipe's readable side cancels the source with the same reason", async () => {
  const reason = new Error("no more");
  const [native, patched] = await bothWays(async () => {
    const got: unknown[] = [];
    const stream = direct(async (c) => {
      c.write("first");
      await tick(50);
    }, {
      cancel(r: unknown) {
        got.push(r === reason ? "same reason" : `other ${r}`);
      },
    });
    const reader = stream.pipeThrough(new TransformStream()).getReader();
    got.push(`read ${(await reader.read()).value?.byteLength}`);
    await reader.cancel(reason);
    await tick(20);
    return got;
  });
  assert.is(patched, native);
  assert.ok(native.includes("same reason"), native);
});

bunTest("a direct stream Bun read first stays Bun's: ours then reads it through Bun's reader", async () => {
  const [native, patched] = await bothWays(async () => {
    let pulls = 0;
    const stream = direct((c) => {
      pulls++;
      if (pulls > 3) c.end();
      else c.write(`p${pulls}`);
    });
    const bunReader = stream.getReader();
    const first = await bunReader.read();
    bunReader.releaseLock();
    const rest = await readThrough(stream);
    return { first: first.value?.byteLength, rest, pulls };
  });
  assert.is(patched, native);
});

bunTest("pipeTo() a WritableStream gets the same chunks and closes it", async () => {
  const [native, patched] = await bothWays(async () => {
    const written: string[] = [];
    const stream = direct(async (c) => {
      c.write("one");
      await tick();
      c.write("two");
      c.flush();
      c.write("three");
      c.end();
    });
    await stream.pipeTo(
      new WritableStream({
        write(chunk) {
          written.push(new TextDecoder().decode(chunk));
        },
        close() {
          written.push("closed");
        },
      }),
    );
    // (Not compared: a native stream piped into ours stays locked after the pipe, direct or not.)
    return written;
  });
  assert.is(patched, native);
});

bunTest("a pipe that refuses its options leaves the direct stream unlocked and unread", async () => {
  const [native, patched] = await bothWays(async () => {
    let pulls = 0;
    const stream = direct((c) => {
      pulls++;
      c.write("x");
      c.end();
    });
    const error = await stream.pipeTo(new WritableStream(), { signal: "no" as unknown as AbortSignal })
      .then(() => "resolved", (e: Error) => e.name);
    const locked = stream.locked;
    const text = await new Response(stream).text();
    return { error, locked, pulls, text };
  });
  assert.is(patched, native);
});

bunTest("React's Bun build rendered into a CompressionStream gives the same page", async () => {
  const { createElement } = await import("react");
  const { renderToReadableStream } = await import("react-dom/server");
  const { gunzipSync } = await import("node:zlib");
  const page = () =>
    createElement(
      "ul",
      null,
      Array.from({ length: 40 }, (_, i) => createElement("li", { key: i }, `row ${i} <ü€😀>`)),
    );
  const [native, patched] = await bothWays(async () => {
    const rendered = await renderToReadableStream(page());
    const gz = new Uint8Array(await new Response(rendered.pipeThrough(new CompressionStream("gzip"))).arrayBuffer());
    return new TextDecoder().decode(gunzipSync(gz));
  });
  assert.is(patched, native);
  assert.ok(native.includes("row 39 &lt;ü€😀&gt;"), native.slice(0, 200));
});

test.run();
