/**
 * A preview for the compatibility check (`scripts/compat.ts --node-stream-web`): the global patch, and then
 * `node:stream/web`'s exports replaced by the patched globals (with `syncBuiltinESMExports()` so ESM imports
 * agree), which is what issue 27's must-have 2 asks of the patch itself. Node's own stream tests mostly take their
 * classes from `node:stream/web`; with the plain patch they test Node's classes, with this they test ours.
 * @module
 */
import { createRequire, syncBuiltinESMExports } from "node:module";
import { patchGlobalWebStreams } from "../../../adapters/node/mod.ts";

patchGlobalWebStreams();
const streamWeb = createRequire(import.meta.url)("node:stream/web") as Record<string, unknown>;
const globals = globalThis as unknown as Record<string, unknown>;
for (const name of Object.keys(streamWeb)) {
  if (name in globals) streamWeb[name] = globals[name];
}
syncBuiltinESMExports();
