/**
 * `RequestInit` dictionaries whose members other than `body` are not plain own enumerable properties:
 * inherited from a prototype, non-enumerable, or behind a class getter that needs the object itself as
 * `this` (a private field). `new Request(url, init)` and `fetch(url, init)` must read them as the runtime
 * reads them, whatever the body. Used by the Deno and Bun suites and the edge worker. Web-standard only.
 * @module
 */

/** An init whose `method` is a getter reading a private field (it fails with any other `this`). */
class InitWithGetter {
  readonly #method = "PUT";
  body: unknown;
  duplex = "half";
  constructor(body: unknown) {
    this.body = body;
  }
  get method(): string {
    return this.#method;
  }
}

/** One case: how to make the init around a body, and `method x-a-header body-text` a Request made of it gives. */
export interface InitCase {
  readonly make: (body: unknown) => object;
  readonly expected: string;
}

/** The cases, by name (the body's text is always `body`). */
export const INIT_CASES: Readonly<Record<string, InitCase>> = {
  "inherited members": {
    make: (body) =>
      Object.assign(Object.create({ method: "POST", headers: { "x-a": "1" } }) as object, { body, duplex: "half" }),
    expected: "POST 1 body",
  },
  "a non-enumerable member": {
    make: (body) => Object.defineProperty({ body, duplex: "half" }, "method", { value: "PATCH", enumerable: false }),
    expected: "PATCH null body",
  },
  "a class instance with a getter": { make: (body) => new InitWithGetter(body), expected: "PUT null body" },
};

/** `method x-a-header body-text` of a Request (or of what a server received). */
export async function describeRequest(request: Request): Promise<string> {
  return `${request.method} ${request.headers.get("x-a")} ${await request.text()}`;
}
