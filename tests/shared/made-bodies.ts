/**
 * What a `Response` or `Request` made from a stream shows of that stream (BODY-OWN, adapters/kit/made-bodies.ts):
 * `body` is the stream itself, and `bodyUsed`, `text()`, `clone()`... see it locked or read. Web-standard globals
 * only (the stream and body classes of the moment: ours while patched, the runtime's before): used by the Deno
 * tests (tests/unit/made-bodies.test.ts), comparing the answers with the patch on to those without it.
 * @module
 */

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

/** The cases, each giving what it saw. */
export const MADE_BODY_CASES: Readonly<Record<string, () => Promise<unknown[]>>> = {
  "body is the stream given, for a Response and a Request": async () => {
    const s = source();
    const response = new Response(s);
    const t = source();
    const request = new Request("http://127.0.0.1/", { method: "POST", body: t, duplex: "half" } as RequestInit);
    return [response.body === s, request.body === t, response.bodyUsed, request.bodyUsed];
  },
  "the same own keys as the runtime's own (SLOT-PRIVATE: nothing of ours shows to reflection)": async () => {
    const response = new Response(source());
    const request = new Request("http://127.0.0.1/", { method: "POST", body: source(), duplex: "half" } as RequestInit);
    await response.text();
    return [Reflect.ownKeys(response).map(String), Reflect.ownKeys(request).map(String)];
  },
  "read through body: the chunks, then bodyUsed, and text() and clone() refuse it": async () => {
    const response = new Response(source());
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const lockedText = await outcome(response.text());
    const lockedClone = thrown(() => response.clone());
    reader.releaseLock();
    return [first, response.bodyUsed, lockedText, lockedClone, await outcome(response.text()), response.body!.locked];
  },
  "locked but not read: refused while locked, whole once let go": async () => {
    const response = new Response(source());
    const reader = response.body!.getReader();
    const seen: unknown[] = [response.bodyUsed, await outcome(response.arrayBuffer()), thrown(() => response.clone())];
    reader.releaseLock();
    seen.push(response.bodyUsed, await outcome(response.text()), response.bodyUsed, response.body!.locked);
    return seen;
  },
  "read by the runtime's text(): body is still the stream, used and locked": async () => {
    const s = source();
    const response = new Response(s);
    const text = await outcome(response.text());
    return [text, response.body === s, response.bodyUsed, s.locked, await outcome(response.text())];
  },
  "the stream read before anyone asks for body: the Response is used": async () => {
    const s = source();
    const response = new Response(s);
    const reader = s.getReader();
    await reader.read();
    reader.releaseLock();
    return [response.bodyUsed, await outcome(response.json()), thrown(() => response.clone())];
  },
  "clone(): both read whole, and body is a branch": async () => {
    const s = source();
    const response = new Response(s);
    const copy = response.clone();
    return [
      response.body === s,
      await outcome(copy.text()),
      await outcome(response.text()),
      response.bodyUsed,
      s.locked,
    ];
  },
  "cancelled through body: used, and text() refuses it": async () => {
    const response = new Response(source());
    await response.body!.cancel("stop");
    return [response.bodyUsed, await outcome(response.text())];
  },
};

/** Every case's answer, by name. */
export async function madeBodyOutcomes(): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [name, run] of Object.entries(MADE_BODY_CASES)) out[name] = await run();
  return out;
}
