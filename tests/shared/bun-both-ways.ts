/**
 * The Bun tests' comparison of the patch with Bun's own classes: the same application code run without the
 * patch and then with it.
 * @module
 */
import * as bun from "../../adapters/bun/mod.ts";

/** Runs `fn` natively and then with the Bun adapter's patch on; returns both results as JSON. */
export async function bothWays(fn: () => Promise<unknown>): Promise<[native: string, patched: string]> {
  const native = JSON.stringify(await fn());
  bun.patchGlobalWebStreams();
  try {
    return [native, JSON.stringify(await fn())];
  } finally {
    bun.unpatchGlobalWebStreams();
  }
}
