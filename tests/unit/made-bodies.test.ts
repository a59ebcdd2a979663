/**
 * BODY-OWN (adapters/kit/made-bodies.ts) on Deno: a Response or Request made from one of our streams answers that
 * stream as its `body`, and its `bodyUsed`, `text()`, `clone()`... see the state JavaScript left it in, as Deno's
 * own classes do for the stream they were given. Each case runs with Deno's own classes (patch off) and with the
 * patch on, and the two must agree.
 *
 * On other runtimes the cases are skipped with a message (Bun keeps the same promise by body-owners.ts).
 *
 *   deno run -A tests/unit/made-bodies.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as deno from "../../adapters/deno/mod.ts";
import { currentRuntime } from "../shared/contract-suite.ts";

const onDeno = currentRuntime === "Deno";

const encoder = new TextEncoder();

/** A stream of "ab", "cd", "ef" (one chunk per pull), made with the global class of the moment. */
function source(): ReadableStream<Uint8Array> {
  const parts = ["ab", "cd", "ef"];
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = parts.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(encoder.encode(next));
    },
  });
}

/** What a case saw: values and the names of the errors it met. */
type Seen = unknown[];

async function outcome(promise: Promise<unknown>): Promise<string> {
  try {
    const value = await promise;
    return `ok ${typeof value === "string" ? value : typeof value}`;
  } catch (error) {
    return `rejects ${(error as Error).name}`;
  }
}

function thrown(fn: () => unknown): string {
  try {
    fn();
    return "ok";
  } catch (error) {
    return `throws ${(error as Error).name}`;
  }
}

/** Runs `scenario` with Deno's own classes, then patched, and checks that both saw the same. */
function agreeing(name: string, scenario: () => Promise<Seen>): void {
  if (!onDeno) {
    test.skip(`made bodies: ${name} (Deno only)`, () => undefined);
    return;
  }
  test(`made bodies: ${name}`, async () => {
    const native = await scenario();
    deno.patchGlobalWebStreams();
    let patched: Seen;
    try {
      patched = await scenario();
    } finally {
      deno.unpatchGlobalWebStreams();
    }
    assert.equal(patched, native);
  });
}

agreeing("body is the stream given, for a Response and a Request", async () => {
  const s = source();
  const response = new Response(s);
  const t = source();
  const request = new Request("http://127.0.0.1/", { method: "POST", body: t, duplex: "half" } as RequestInit);
  return [response.body === s, request.body === t, response.bodyUsed, request.bodyUsed];
});

agreeing("read through body: the chunks, then bodyUsed, and text() and clone() refuse it", async () => {
  const response = new Response(source());
  const reader = response.body!.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  const lockedText = await outcome(response.text());
  const lockedClone = thrown(() => response.clone());
  reader.releaseLock();
  return [first, response.bodyUsed, lockedText, lockedClone, await outcome(response.text()), response.body!.locked];
});

agreeing("locked but not read: refused while locked, whole once let go", async () => {
  const response = new Response(source());
  const reader = response.body!.getReader();
  const seen: Seen = [response.bodyUsed, await outcome(response.arrayBuffer()), thrown(() => response.clone())];
  reader.releaseLock();
  seen.push(response.bodyUsed, await outcome(response.text()), response.bodyUsed, response.body!.locked);
  return seen;
});

agreeing("read by the runtime's text(): body is still the stream, used and locked", async () => {
  const s = source();
  const response = new Response(s);
  const text = await outcome(response.text());
  return [text, response.body === s, response.bodyUsed, s.locked, await outcome(response.text())];
});

agreeing("the stream read before anyone asks for body: the Response is used", async () => {
  const s = source();
  const response = new Response(s);
  const reader = s.getReader();
  await reader.read();
  reader.releaseLock();
  return [response.bodyUsed, await outcome(response.json()), thrown(() => response.clone())];
});

agreeing("clone(): both read whole, and body is a branch", async () => {
  const s = source();
  const response = new Response(s);
  const copy = response.clone();
  return [response.body === s, await outcome(copy.text()), await outcome(response.text()), response.bodyUsed, s.locked];
});

agreeing("cancelled through body: used, and text() refuses it", async () => {
  const response = new Response(source());
  await response.body!.cancel("stop");
  return [response.bodyUsed, await outcome(response.text())];
});

test.run();
