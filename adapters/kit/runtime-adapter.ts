/**
 * The one constructor of a runtime adapter: `createRuntimeAdapter(config)` returns the whole
 * {@link RuntimeAdapter} (the global patch, its undo and state, `toNativeReadableStream`) from a runtime's
 * configuration. Each `adapters/<runtime>/mod.ts` is that configuration plus the runtime's own extras, in
 * the way a Hono adapter passes a runtime's primitives to a shared core.
 * @module
 */
import type { PatchOptions, RuntimeAdapter, RuntimeName } from "./contract.ts";
import { createGlobalPatch, type GlobalPatch, type GlobalPatchOptions } from "./global-patch.ts";
import { runtimeMismatch } from "./runtime.ts";
import { toNativeReadableStream } from "./to-native.ts";

/** A runtime's configuration of the kit. */
export interface RuntimeAdapterConfig extends Omit<GlobalPatchOptions, "runtime" | "checkRuntime"> {
  /** The runtime the adapter is for. */
  readonly runtime: RuntimeName;
  /** The runtime as named in the patch's error when it runs elsewhere (e.g. `"Deno"`). */
  readonly displayName: string;
  /** Whether the code runs on the adapter's runtime (a shim of its globals on another runtime must not count). */
  readonly detect: () => boolean;
}

/**
 * The adapter of one runtime. The patch machinery is made on the first call of `patchGlobalWebStreams`, so
 * that a bundle that never calls it does not keep it (nothing runs at load).
 */
export function createRuntimeAdapter(config: RuntimeAdapterConfig): RuntimeAdapter {
  let patch: GlobalPatch | undefined;
  return {
    runtime: config.runtime,
    patchGlobalWebStreams(options?: PatchOptions): void {
      (patch ??= createGlobalPatch({
        ...config,
        checkRuntime: () => runtimeMismatch(config.displayName, config.detect()),
      })).patchGlobalWebStreams(options);
    },
    unpatchGlobalWebStreams(): void {
      patch?.unpatchGlobalWebStreams();
    },
    isGlobalWebStreamsPatched(): boolean {
      return patch?.isGlobalWebStreamsPatched() ?? false;
    },
    toNativeReadableStream,
  };
}
