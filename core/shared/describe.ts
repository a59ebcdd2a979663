/**
 * What a value is, for error messages (a bad chunk, a wrong argument).
 * @module
 */

/** `a string`, `a number (42)`, `an object (Foo)`: what a bad chunk was, for error messages. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  const type = typeof value;
  if (type === "undefined") return "undefined";
  if (type === "string") return "a string";
  if (type === "object" || type === "function") {
    if (Array.isArray(value)) return "an Array";
    const ctor = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)?.constructor;
    const name = typeof ctor?.name === "string" && ctor.name !== "" ? ctor.name : "Object";
    return type === "function" ? "a function" : `an object (${name})`;
  }
  return `a ${type} (${String(value)})`;
}
