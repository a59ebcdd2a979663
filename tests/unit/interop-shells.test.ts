/**
 * adapters/kit pieces the edge runtimes rely on, checked on every runtime: a patch transaction on a
 * non-configurable but writable property (edge-runtime's globals), body shells over a native body that
 * was handed to a new body (edge-runtime's server re-wraps every response), and body shells over the two
 * branches of a native default stream's tee() (undici 6 clones bodies so), which share chunk objects: a
 * body shell is of its native stream's kind, so it never transfers a default stream's chunks.
 *
 *   node tests/unit/interop-shells.test.ts
 */
import { test } from "uvu";
import * as assert from "uvu/assert";
import { bodyShellOf, takeBodyForPipe, takeNativeOfBodyShell } from "../../adapters/kit/body-shells.ts";
import { PatchTransaction } from "../../adapters/kit/patch-transaction.ts";

const NativeRS = globalThis.ReadableStream;

async function readAll(
  stream: { getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }> } },
): Promise<number[]> {
  const reader = stream.getReader();
  const out: number[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(...value!);
  }
}

test("PatchTransaction.defineValue: a non-configurable writable property gets the value, keeps its attributes, and is put back", () => {
  const target = {} as Record<string, unknown>;
  Object.defineProperty(target, "x", { value: 1, writable: true, enumerable: false, configurable: false });
  const tx = new PatchTransaction("test");
  tx.step("set", (t) => t.defineValue(target, "x", 2));
  assert.equal(Object.getOwnPropertyDescriptor(target, "x"), {
    value: 2,
    writable: true,
    enumerable: false,
    configurable: false,
  });
  tx.restore();
  assert.equal(Object.getOwnPropertyDescriptor(target, "x"), {
    value: 1,
    writable: true,
    enumerable: false,
    configurable: false,
  });
});

test("PatchTransaction.defineValue: a non-configurable read-only property still fails the step", () => {
  const target = {} as Record<string, unknown>;
  Object.defineProperty(target, "x", { value: 1, writable: false, configurable: false });
  const tx = new PatchTransaction("test");
  assert.throws(() => tx.step("set", (t) => t.defineValue(target, "x", 2)), /step "set"/);
  assert.is(target["x"], 1);
});

test("BODY-PIPE: the body shell stays locked while its pipe reads, then is unlocked, closed or errored as the native body", async () => {
  const closing = new NativeRS<Uint8Array>({
    start(c) {
      c.enqueue(new Uint8Array([1, 2]));
      c.enqueue(new Uint8Array([3]));
      c.close();
    },
  });
  const shell = bodyShellOf(closing);
  const piped = takeBodyForPipe(shell, undefined)!;
  assert.ok(piped !== undefined, "an unread body shell is handed to the pipe");
  assert.ok(shell.locked, "locked to the pipe");
  assert.equal(await readAll(piped), [1, 2, 3]);
  assert.not.ok(shell.locked, "unlocked once the pipe's source ended");
  await shell.getReader().closed;

  const boom = new Error("boom");
  const failing = new NativeRS<Uint8Array>({
    start(c) {
      c.enqueue(new Uint8Array([9]));
    },
    pull(c) {
      c.error(boom);
    },
  });
  const shell2 = bodyShellOf(failing);
  const piped2 = takeBodyForPipe(shell2, undefined)!;
  const failed = await readAll(piped2).then(() => undefined, (e: unknown) => e);
  assert.is(failed, boom, "the pipe's read fails with the native error");
  assert.not.ok(shell2.locked, "unlocked after the error");
  const closed = await shell2.getReader().closed.then(() => undefined, (e: unknown) => e);
  assert.is(closed, boom, "the body shell errored with the same object");
});

test("bodyShellOf: the same shell for the same native body, a fresh one after it was handed over", async () => {
  const native = new NativeRS<Uint8Array>({
    start(c) {
      c.enqueue(new Uint8Array([1, 2]));
      c.close();
    },
  });
  const first = bodyShellOf(native);
  assert.is(bodyShellOf(native), first);
  assert.is(takeNativeOfBodyShell(first), native);
  assert.is(first.locked, true);
  const second = bodyShellOf(native);
  assert.is.not(second, first);
  assert.is(second.locked, false);
  assert.equal(await readAll(second), [1, 2]);
});

test("body shells over both branches of a native default tee: every byte reaches both", async () => {
  const chunks = [new Uint8Array([1, 2, 3]), new Uint8Array([4, 5]), new Uint8Array([6])];
  const native = new NativeRS<Uint8Array>({
    start(c) {
      for (const chunk of chunks) c.enqueue(chunk);
      c.close();
    },
  });
  const [a, b] = native.tee();
  const first = await readAll(bodyShellOf(a));
  const second = await readAll(bodyShellOf(b));
  assert.equal(first, [1, 2, 3, 4, 5, 6]);
  assert.equal(second, [1, 2, 3, 4, 5, 6]);
});

test("a body shell is of its native stream's kind: BYOB readers only over a byte stream", () => {
  const overDefault = bodyShellOf(new NativeRS<Uint8Array>());
  assert.throws(() => overDefault.getReader({ mode: "byob" }), TypeError);
  assert.is(overDefault.locked, false);
  const overBytes = bodyShellOf(new NativeRS({ type: "bytes" }) as globalThis.ReadableStream<Uint8Array>);
  overBytes.getReader({ mode: "byob" }).releaseLock();
});

test("a body shell over a native byte stream hands out its bytes exactly", async () => {
  const native = new NativeRS({
    type: "bytes",
    start(c) {
      c.enqueue(new Uint8Array([9, 8, 7]));
      c.enqueue(new Uint8Array([6]));
      c.close();
    },
  });
  assert.equal(await readAll(bodyShellOf(native as globalThis.ReadableStream<Uint8Array>)), [9, 8, 7, 6]);
});

test.run();
