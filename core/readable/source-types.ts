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
