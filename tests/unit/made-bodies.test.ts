/**
 * BODY-OWN (adapters/kit/made-bodies.ts) on Deno: a Response or Request made from one of our streams answers that
 * stream as its `body`, and its `bodyUsed`, `text()`, `clone()`... see the state JavaScript left it in, as Deno's
 * own classes do for the stream they were given. Each case (tests/shared/made-bodies.ts) runs with Deno's own classes
 * (patch off) and with the patch on, and the two must agree.
 *
 * On other runtimes the cases are skipped with a message (Bun keeps the same promise by body-owners.ts).
 *
 *   deno run -A tests/unit/made-bodies.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as deno from "../../adapters/deno/mod.ts";
import { currentRuntime } from "../shared/contract-suite.ts";
import { MADE_BODY_CASES } from "../shared/made-bodies.ts";

const onDeno = currentRuntime === "Deno";

for (const [name, scenario] of Object.entries(MADE_BODY_CASES)) {
  if (!onDeno) {
    test.skip(`made bodies: ${name} (Deno only)`, () => undefined);
    continue;
  }
  test(`made bodies: ${name}`, async () => {
    const native = await scenario();
    deno.patchGlobalWebStreams();
    let patched: unknown[];
    try {
      patched = await scenario();
    } finally {
      deno.unpatchGlobalWebStreams();
    }
    assert.equal(patched, native);
  });
}

test.run();
