/**
 * The contract suite's {@link Registrar} for the unit runs: uvu's `test`, and `test.skip` with each reason
 * printed once (a skip is never silent).
 * @module
 */
import { test } from "uvu";
import type { Registrar } from "../shared/contract-suite.ts";

const said = new Set<string>();

/** Registers the contract suite's cases as uvu tests. */
export const uvuRegistrar: Registrar = {
  test,
  skip(name: string, why: string): void {
    if (!said.has(why)) {
      said.add(why);
      console.log(`(skipped: ${why})`);
    }
    test.skip(name, () => undefined);
  },
};
