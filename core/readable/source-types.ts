/**
 * Underlying-source types the standard does not have (a runtime's own, e.g. Bun's `type: "direct"`): a
 * runtime adapter's global patch registers a maker for one, and `new ReadableStream({ type, ... })` with that
 * type returns what the maker returns (the runtime's own stream) instead of throwing the standard's
 * `TypeError`. Empty unless a patch is on; the patch's transaction removes what it added.
 * @module
 */

/** Makes a stream for an underlying source of a type the standard does not have. */
export type ReadableSourceTypeMaker = (underlyingSource: object, strategy: unknown) => object;

/** The registered makers, by type (a null-prototype object: only registered types are found). */
export const readableSourceTypes: Record<string, ReadableSourceTypeMaker | undefined> = Object.create(null);

/**
 * Makes a reader (a BYOB reader when `byob`) for a stream that is not one of ours (a runtime's own), or
 * returns undefined.
 */
export type ForeignReaderMaker = (stream: object, byob: boolean) => object | undefined;

/**
 * Readers of streams that are not ours: while a runtime adapter's patch has registered a maker as `make`,
 * `new ReadableStreamDefaultReader(stream)` / `new ReadableStreamBYOBReader(stream)` of a runtime's own stream
 * return what it makes (the runtime's reader) instead of throwing the standard's `TypeError`.
 */
export const foreignReaders: { make?: ForeignReaderMaker } = {};
