/**
 * An exact picture of what a global patch could change: every own property (its descriptor, compared by
 * identity and attributes) and the [[Prototype]] of the global object, of every object on its prototype
 * chain, of every function reachable as a global (constructors and their statics), of those functions'
 * `prototype` objects, and of everything on those objects' prototype chains. No getter is called.
 *
 * Used wherever a test checks that a patch, undone or failed, left everything as it was: the edge worker
 * (workerd, edge-runtime), the edge adapter's refusal on Node, Deno and Bun, the shared patch steps
 * (tests/unit/interop-patch.test.ts), the Node adapter and the Deno and Bun suites: take a snapshot, do
 * something, then {@link diffSnapshot} lists what changed.
 * @module
 */

/** One captured object: its [[Prototype]] and own property descriptors. */
interface Entry {
  label: string;
  proto: object | null;
  extensible: boolean;
  props: Map<PropertyKey, PropertyDescriptor>;
}

/** What {@link takeSnapshot} returns. */
export type Snapshot = Map<object, Entry>;

function isObject(v: unknown): v is object {
  return (typeof v === "object" && v !== null) || typeof v === "function";
}

/**
 * Captures the global object, its chain and the functions (and their prototypes) it exposes; `roots`
 * adds the functions found as members of more objects (e.g. the adapter module: its classes' prototype
 * links and statics are compared too). A root's members are read with [[Get]] (a bundled module
 * namespace has getters), the root object itself is not captured. `objects` are captured themselves,
 * with their chains and the functions they hold (e.g. the `Deno` or `Bun` namespace, whose members a
 * patch may replace).
 */
export function takeSnapshot(
  roots: Record<string, object> = {},
  objects: Record<string, object | undefined> = {},
): Snapshot {
  // The first walk in a process can load what a runtime loads lazily (Node's undici, when the walk first reaches
  // fetch's globals, adds its global dispatcher symbols): walk once before the walk that counts, so that a
  // test run in a process of its own compares like with like.
  if (!warmedUp) {
    warmedUp = true;
    captureSnapshot(roots, objects);
  }
  return captureSnapshot(roots, objects);
}

let warmedUp = false;

function captureSnapshot(roots: Record<string, object>, objects: Record<string, object | undefined>): Snapshot {
  const snap: Snapshot = new Map();
  const visit = (obj: object, label: string, expand: boolean): void => {
    for (
      let o: object | null = obj, l = label;
      o !== null;
      o = Object.getPrototypeOf(o) as object | null, l += ".[[Prototype]]"
    ) {
      if (snap.has(o)) return;
      const props = new Map<PropertyKey, PropertyDescriptor>();
      for (const key of Reflect.ownKeys(o)) props.set(key, Object.getOwnPropertyDescriptor(o, key)!);
      snap.set(o, {
        label: l,
        proto: Object.getPrototypeOf(o) as object | null,
        extensible: Object.isExtensible(o),
        props,
      });
      if (!expand) continue;
      for (const [key, d] of props) visitFunction(d.value, `${l}.${String(key)}`);
    }
  };
  const visitFunction = (value: unknown, name: string): void => {
    if (typeof value !== "function") return;
    visit(value, name, false);
    const p = Object.getOwnPropertyDescriptor(value, "prototype");
    if (p && isObject(p.value)) visit(p.value, `${name}.prototype`, false);
  };
  visit(globalThis, "globalThis", true);
  for (const [label, obj] of Object.entries(objects)) if (obj !== undefined) visit(obj, label, true);
  for (const [label, root] of Object.entries(roots)) {
    for (const key of Object.keys(root)) visitFunction((root as Record<string, unknown>)[key], `${label}.${key}`);
  }
  return snap;
}

function describe(d: PropertyDescriptor | undefined): string {
  if (d === undefined) return "(absent)";
  const flags = `${d.enumerable ? "e" : "-"}${d.configurable ? "c" : "-"}${
    "value" in d ? (d.writable ? "w" : "-") : ""
  }`;
  if ("value" in d) return `value ${typeof d.value} ${flags}`;
  return `accessor ${flags}`;
}

/**
 * Data properties whose value is a new object on every read, whatever anyone does: Bun's
 * `PerformanceObserver.supportedEntryTypes` (a new array each time).
 */
const VOLATILE = new Set(["globalThis.PerformanceObserver.supportedEntryTypes"]);

/**
 * What differs between two snapshots of the same realm, one line per difference (empty when nothing
 * changed): properties added, removed or changed (value or accessor identity, attributes), prototype
 * links, extensibility, and objects reachable in only one of them.
 */
export function diffSnapshot(before: Snapshot, after: Snapshot): string[] {
  const out: string[] = [];
  for (const [obj, a] of before) {
    const b = after.get(obj);
    if (b === undefined) {
      out.push(`${a.label}: no longer reachable`);
      continue;
    }
    if (a.proto !== b.proto) out.push(`${a.label}: [[Prototype]] changed`);
    if (a.extensible !== b.extensible) out.push(`${a.label}: extensible ${a.extensible} -> ${b.extensible}`);
    for (const key of new Set([...a.props.keys(), ...b.props.keys()])) {
      const x = a.props.get(key);
      const y = b.props.get(key);
      const same = x !== undefined &&
        y !== undefined &&
        Object.is(x.value, y.value) &&
        x.get === y.get &&
        x.set === y.set &&
        x.writable === y.writable &&
        x.enumerable === y.enumerable &&
        x.configurable === y.configurable;
      if (!same && !VOLATILE.has(`${a.label}.${String(key)}`)) {
        out.push(
          `${a.label}.${String(key)}: ${describe(x)} -> ${describe(y)}${x && y ? " (other value or accessor)" : ""}`,
        );
      }
    }
  }
  for (const [obj, b] of after) if (!before.has(obj)) out.push(`${b.label}: newly reachable`);
  return out;
}
