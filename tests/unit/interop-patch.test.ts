/**
 * adapters/kit: the patch transaction (all or nothing, exact restore, the failing step named), the shared
 * global patch built on it, the runtime check of the Node.js adapter on other runtimes, and
 * toNativeReadableStream. Runs on every runtime.
 *
 *   node tests/unit/interop-patch.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import * as fuse from "../../mod.ts";
import { createGlobalPatch } from "../../adapters/kit/global-patch.ts";
import { PatchTransaction } from "../../adapters/kit/patch-transaction.ts";
import { toNativeReadableStream } from "../../adapters/kit/to-native.ts";
import * as nodeAdapter from "../../adapters/node/mod.ts";
import * as denoAdapter from "../../adapters/deno/mod.ts";
import * as bunAdapter from "../../adapters/bun/mod.ts";
import { diffSnapshot, type Snapshot, takeSnapshot } from "../shared/snapshot.ts";

const g = globalThis as unknown as Record<PropertyKey, unknown>;
const runtime = "Deno" in g ? "Deno" : "Bun" in g ? "Bun" : "Node.js";
const NativeRS = globalThis.ReadableStream;
// Node.js loads undici (which adds a global symbol) on first use of fetch/Response: not the patch's doing.
void g["fetch"];
void g["Response"];

/** Every global, prototype and prototype link a patch may touch, and our classes' (see tests/shared/snapshot.ts). */
function snapshot(): Snapshot {
  return takeSnapshot({ fuse });
}

test("PatchTransaction: a failing step puts back every earlier change and names the step", () => {
  const target: Record<string, unknown> = { kept: 1 };
  Object.defineProperty(target, "ro", { value: "x", writable: false, enumerable: false, configurable: true });
  const proto = { p: 1 };
  const obj = Object.create(proto) as object;
  const tx = new PatchTransaction("test patch");
  tx.step("first", (t) => {
    t.defineValue(target, "kept", 2);
    t.defineValue(target, "added", 3);
    t.defineValue(target, "ro", "y");
    t.setPrototype(obj, null);
  });
  assert.is(target["kept"], 2);
  assert.is(Object.getPrototypeOf(obj), null);
  const cause = new RangeError("boom");
  let caught: unknown;
  try {
    tx.step("second step", (t) => {
      t.defineAccessor(target, "kept", () => 9);
      throw cause;
    });
  } catch (err) {
    caught = err;
  }
  assert.instance(caught, Error);
  assert.match((caught as Error).message, /test patch failed at step "second step"/);
  assert.match((caught as Error).message, /boom/);
  assert.is((caught as Error).cause, cause);
  assert.equal(Object.getOwnPropertyDescriptor(target, "kept"), {
    value: 1,
    writable: true,
    enumerable: true,
    configurable: true,
  });
  assert.not.ok("added" in target);
  assert.equal(Object.getOwnPropertyDescriptor(target, "ro"), {
    value: "x",
    writable: false,
    enumerable: false,
    configurable: true,
  });
  assert.is(Object.getPrototypeOf(obj), proto);
});

test("PatchTransaction.restore: what cannot be put back (frozen meanwhile) does not stop the rest, and is named", () => {
  const frozen: Record<string, unknown> = { a: 1 };
  const other: Record<string, unknown> = { b: 1 };
  const proto = {};
  const obj = Object.create(proto) as object;
  const tx = new PatchTransaction("test patch");
  tx.step("change", (t) => {
    t.defineValue(other, "b", 2);
    t.setPrototype(obj, null);
    t.defineValue(frozen, "a", 2);
  });
  Object.freeze(frozen);
  let caught: unknown;
  try {
    tx.restore();
  } catch (err) {
    caught = err;
  }
  assert.instance(caught, TypeError, "the failure is reported");
  assert.match((caught as Error).message, /test patch/);
  assert.match((caught as Error).message, /"a"/, (caught as Error).message);
  assert.is(other["b"], 1, "the rest is put back");
  assert.is(Object.getPrototypeOf(obj), proto, "prototype links too");
  assert.is(frozen["a"], 2);
});

test("PatchTransaction: a step that fails, then an undo that fails: the step's error, saying what stayed changed", () => {
  const target: Record<string, unknown> = { a: 1 };
  const tx = new PatchTransaction("test patch");
  let caught: unknown;
  try {
    tx.step("breaks", (t) => {
      t.defineValue(target, "a", 2);
      Object.freeze(target);
      throw new RangeError("boom");
    });
  } catch (err) {
    caught = err;
  }
  assert.instance(caught, Error);
  assert.match((caught as Error).message, /failed at step "breaks"/);
  assert.not.match((caught as Error).message, /changed nothing/);
  assert.match((caught as Error).message, /could not put back/);
  assert.instance((caught as Error).cause, RangeError);
});

test("PatchTransaction: a TypeError stays a TypeError; a non-configurable property fails its step", () => {
  const target = {};
  Object.defineProperty(target, "fixed", { value: 1, configurable: false });
  const tx = new PatchTransaction("t");
  assert.throws(
    () => tx.step("fixed", (t) => t.defineValue(target, "fixed", 2)),
    (err: unknown) => err instanceof TypeError && /step "fixed"/.test((err as Error).message),
  );
});

test(`createGlobalPatch: the shared steps, then a failing step: everything is put back exactly (${runtime})`, () => {
  const before = snapshot();
  const patch = createGlobalPatch({
    runtime: "edge",
    checkRuntime: () => undefined,
    after: [
      {
        name: "planted failure",
        run: () => {
          // The shared steps ran (or one of them failed first): either way nothing may be left changed.
          throw new Error("planted");
        },
      },
    ],
  });
  let caught: unknown;
  try {
    patch.patchGlobalWebStreams();
  } catch (err) {
    caught = err;
  }
  assert.instance(caught, Error);
  assert.match((caught as Error).message, /failed at step "[^"]+"/);
  assert.not.ok(patch.isGlobalWebStreamsPatched());
  assert.equal(diffSnapshot(before, snapshot()), []);
  assert.is(globalThis.ReadableStream, NativeRS);
});

test(`createGlobalPatch: a runtime check that fails changes nothing and says why (${runtime})`, () => {
  const before = snapshot();
  const patch = createGlobalPatch({ runtime: "bun", checkRuntime: () => "not this runtime" });
  assert.throws(
    () => patch.patchGlobalWebStreams(),
    (err: unknown) => err instanceof TypeError && /not this runtime/.test((err as Error).message),
  );
  assert.equal(diffSnapshot(before, snapshot()), []);
});

test(`the Node.js adapter's patch on ${runtime}: ${runtime === "Node.js" ? "patches and unpatches exactly" : "fails at once, naming the runtime, and changes nothing"}`, () => {
  const before = snapshot();
  if (runtime === "Node.js") {
    nodeAdapter.patchGlobalWebStreams();
    try {
      assert.is(globalThis.ReadableStream as unknown, fuse.ReadableStream);
      assert.ok(nodeAdapter.isGlobalWebStreamsPatched());
    } finally {
      nodeAdapter.unpatchGlobalWebStreams();
    }
  } else {
    assert.throws(
      () => nodeAdapter.patchGlobalWebStreams(),
      (err: unknown) =>
        err instanceof TypeError && /for Node\.js/.test((err as Error).message) &&
        new RegExp(runtime).test((err as Error).message),
    );
  }
  assert.not.ok(nodeAdapter.isGlobalWebStreamsPatched());
  assert.equal(diffSnapshot(before, snapshot()), []);
});

/** The adapter of the runtime this runs on. */
const ownAdapter = runtime === "Deno" ? denoAdapter : runtime === "Bun" ? bunAdapter : nodeAdapter;

test(`${runtime} adapter's patch: a pipe into a native stream that fails at once leaves the native stream unlocked, as natively`, async () => {
  const NativeWS = globalThis.WritableStream;
  const NativeTS = globalThis.TransformStream;
  /** For a source made by `RS`: whether each failing pipe failed, and whether the native sides stayed unlocked. */
  const observe = async (RS: typeof globalThis.ReadableStream) => {
    const locked = new RS();
    locked.getReader();
    const ws1 = new NativeWS();
    const lockedSource = await locked.pipeTo(ws1).then(() => "fulfilled", (e: Error) => e.name);
    const ws2 = new NativeWS();
    const badSignal = await new RS().pipeTo(ws2, { signal: 1 as unknown as AbortSignal }).then(
      () => "fulfilled",
      (e: Error) => e.name,
    );
    const pair = new NativeTS();
    let through = "returned";
    try {
      locked.pipeThrough(pair);
    } catch (e) {
      through = (e as Error).name;
    }
    return {
      lockedSource,
      ws1: ws1.locked,
      badSignal,
      ws2: ws2.locked,
      through,
      pairWritable: pair.writable.locked,
      pairReadable: pair.readable.locked,
    };
  };
  const expected = await observe(globalThis.ReadableStream);
  assert.equal(expected, {
    lockedSource: "TypeError",
    ws1: false,
    badSignal: "TypeError",
    ws2: false,
    through: "TypeError",
    pairWritable: false,
    pairReadable: false,
  });
  ownAdapter.patchGlobalWebStreams();
  try {
    assert.equal(await observe(fuse.ReadableStream as unknown as typeof globalThis.ReadableStream), expected);
  } finally {
    ownAdapter.unpatchGlobalWebStreams();
  }
});

test("toNativeReadableStream: a native stream reading ours, chunks unchanged, backpressure kept", async () => {
  let pulls = 0;
  const objects = [{ a: 1 }, "two", 3];
  const ours = new fuse.ReadableStream<unknown>(
    {
      pull(c) {
        if (pulls === objects.length) c.close();
        else c.enqueue(objects[pulls]);
        pulls++;
      },
    },
    { highWaterMark: 0 },
  );
  const native = toNativeReadableStream(ours);
  assert.ok(native instanceof NativeRS);
  assert.ok(ours.locked);
  await new Promise((r) => setTimeout(r, 5));
  assert.is(pulls, 0, "nothing is read before the native consumer reads");
  const reader = native.getReader();
  const first = await reader.read();
  assert.is(first.value, objects[0], "the same object, not a copy");
  assert.ok(pulls <= 2, `read ahead at most one chunk (pulls: ${pulls})`);
  assert.is((await reader.read()).value, "two");
  assert.is((await reader.read()).value, 3);
  assert.ok((await reader.read()).done);
  assert.is(toNativeReadableStream(native), native, "a native stream is returned as it is");
});

test("toNativeReadableStream: errors and cancel propagate with identity both ways", async () => {
  const boom = new Error("boom");
  const erroring = new fuse.ReadableStream({
    pull(c) {
      c.error(boom);
    },
  });
  const n1 = toNativeReadableStream(erroring);
  await n1.getReader().read().then(
    () => assert.unreachable("should reject"),
    (err: unknown) => assert.is(err, boom),
  );
  let cancelReason: unknown;
  const cancellable = new fuse.ReadableStream({
    cancel(reason) {
      cancelReason = reason;
    },
  });
  const n2 = toNativeReadableStream(cancellable);
  const reason = { why: "stop" };
  await n2.cancel(reason);
  assert.is(cancelReason, reason);
  assert.throws(() => toNativeReadableStream(cancellable), TypeError, "a locked stream is rejected");
  assert.throws(() => toNativeReadableStream({} as fuse.ReadableStream), TypeError);
});

test.run();
