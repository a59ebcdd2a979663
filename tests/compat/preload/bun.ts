/**
 * Loaded before a Bun test file in the compatibility check's patched run (`bun test --preload`): turns the global
 * patch on exactly as an application does at startup.
 * @module
 */
import { patchGlobalWebStreams } from "../../../adapters/bun/mod.ts";

patchGlobalWebStreams();
