/**
 * What a `Response` does with a body that a reader of `response.body` has locked, before anything was
 * read: `text()`, `arrayBuffer()`, `blob()` and `clone()` must fail as they fail for a native locked body,
 * and succeed once the reader is released. With the patch on, `response.body` is a shell of ours in front
 * of the native body, so the native body's lock must follow the shell's. Web-standard globals only: used by
 * the Deno and Bun suites (tests/unit/runtime-adapter-suite.ts), the Node.js adapter tests and the edge
 * worker (tests/edge/worker.ts), each comparing the answers with the patch on to those without it.
 * @module
 */

/** One line per case: `ok <value>`, `a Response`, or the error's `name: message`. */
export type LockOutcomes = Record<string, string>;

type Method = "text" | "arrayBuffer" | "blob" | "clone";

function describe(value: unknown): string {
  if (typeof value === "string") return `ok ${value}`;
  if (value instanceof ArrayBuffer) return `ok ${value.byteLength} bytes`;
  if (typeof Blob === "function" && value instanceof Blob) return `ok a Blob of ${value.size}`;
  if (typeof Response === "function" && value instanceof Response) return "a Response";
  return `ok ${String(value)}`;
}

async function outcome(fn: () => unknown): Promise<string> {
  try {
    return describe(await fn());
  } catch (e) {
    return e instanceof Error ? `${e.name}: ${e.message}` : `thrown ${String(e)}`;
  }
}

/**
 * The outcomes for bodies made by `makeBody` (called once per case): each method with the body locked
 * by a reader of `response.body`; the same after the reader was released; and `text()` again after a
 * locked `text()` failed and the reader was released.
 */
export async function lockedBodyOutcomes(
  ResponseClass: typeof Response,
  makeBody: () => unknown,
): Promise<LockOutcomes> {
  const out: LockOutcomes = {};
  const fresh = (): Response => new ResponseClass(makeBody() as BodyInit);
  for (const method of ["text", "arrayBuffer", "blob", "clone"] as Method[]) {
    const call = (r: Response): unknown => (r[method] as () => unknown).call(r);
    const locked = fresh();
    locked.body!.getReader();
    out[`locked ${method}()`] = await outcome(() => call(locked));
    out[`locked ${method}(): body.locked, bodyUsed`] = `${String(locked.body?.locked)}, ${String(locked.bodyUsed)}`;
    const released = fresh();
    released.body!.getReader().releaseLock();
    out[`released ${method}()`] = await outcome(() => call(released));
  }
  const again = fresh();
  const reader = again.body!.getReader();
  out["locked text(), then released"] = await outcome(() => again.text());
  reader.releaseLock();
  out["... text() again"] = await outcome(() => again.text());
  // A pipe locks the body at once. Whether it has read yet (a "disturbed" message rather than a "locked"
  // one) is the pipe's own timing (Bun's native pipe reads at once), so only the error's kind is kept.
  const piped = fresh();
  const pipe = piped.body!.pipeTo(new WritableStream());
  out["body.pipeTo(), then text() at once"] = (await outcome(() => piped.text())).replace(
    /:.*/,
    ": (the runtime's message)",
  );
  await pipe.catch(() => undefined);
  return out;
}

/**
 * What `new Request(request)` does with a Request whose body a reader of `request.body` holds (natively
 * the body is unusable), and with one whose reader was released.
 */
export async function lockedRequestOutcomes(RequestClass: typeof Request): Promise<LockOutcomes> {
  const fresh = (): Request => new RequestClass("http://example.invalid/", { method: "POST", body: "some body" });
  const locked = fresh();
  locked.body!.getReader();
  const released = fresh();
  released.body!.getReader().releaseLock();
  return {
    "locked new Request(request)": await outcome(() => new RequestClass(locked)),
    "released new Request(request)": await outcome(() => new RequestClass(released).text()),
  };
}
