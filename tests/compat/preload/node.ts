/**
 * Loaded before a Node test file in the compatibility check's patched run (`node --import`): turns the global
 * patch on exactly as an application does at startup.
 * @module
 */
import { patchGlobalWebStreams } from "../../../adapters/node/mod.ts";

patchGlobalWebStreams();
