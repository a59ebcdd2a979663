/**
 * Loaded before a Deno or Deno std test file in the compatibility check's patched run (`deno test --preload`): turns the global
 * patch on exactly as an application does at startup.
 * @module
 */
import { patchGlobalWebStreams } from "../../../adapters/deno/mod.ts";

patchGlobalWebStreams();
