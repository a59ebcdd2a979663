/**
 * The `CompressionFormat` argument of `new CompressionStream(format)` / `new DecompressionStream(format)`
 * (Compression §4, §5): WebIDL enum conversion, against the formats the runtime's own classes accept.
 * @module
 */
import { typeError } from "../shared/webidl.ts";
import { nativeAcceptsFormat } from "./native-classes.ts";

/**
 * A compression format: the standard's `"deflate"`, `"deflate-raw"` and `"gzip"`, and those some runtimes
 * add (`"brotli"`: Node.js >= 22.15, Deno, Bun; `"zstd"`: Bun). A format is accepted exactly where the
 * runtime's own `CompressionStream` accepts it.
 */
export type CompressionFormat = "deflate" | "deflate-raw" | "gzip" | "brotli" | "zstd";

/** Whether a stream compresses or decompresses. */
export type CodecMode = "compress" | "decompress";

/**
 * Converts the constructor's argument to a CompressionFormat (WebIDL: ToString, then one of the enum's
 * values; beyond the standard's three, one the runtime's own class of the same kind accepts), or throws the
 * TypeError.
 */
export function convertCompressionFormat(value: unknown, mode: CodecMode): CompressionFormat {
  const interfaceName = mode === "compress" ? "CompressionStream" : "DecompressionStream";
  if (typeof value === "symbol") {
    throw typeError(`Failed to construct '${interfaceName}': a Symbol is not a CompressionFormat`);
  }
  const format = `${value as string}`;
  switch (format) {
    case "deflate":
    case "deflate-raw":
    case "gzip":
      return format;
    case "brotli":
    case "zstd":
      if (nativeAcceptsFormat(format, mode)) return format;
  }
  throw typeError(
    `Failed to construct '${interfaceName}': "${format}" is not a compression format this runtime supports`,
  );
}
