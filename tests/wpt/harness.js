// fusestreams WPT harness: a testharness.js-compatible API for running Web Platform Tests (.any.js files)
// in Node.js, Deno and Bun. Plain JavaScript on purpose: it also runs on Node 20, which cannot load .ts.
//
// Semantics follow the testharness.js documentation (https://web-platform-tests.org/writing-tests/testharness-api.html):
// - test() runs its function at once; promise_test() bodies run one after another, in registration order, the
//   first one after the current script has finished; async_test() runs its function at once and ends at done().
// - a test ends with PASS unless a step threw (FAIL), or it ran out of time (TIMEOUT); a step on a finished
//   test does nothing; add_cleanup() callbacks run when a test ends (awaited for promise tests).
// - promise_rejects_*() fail the test as soon as the promise fulfills, and reject when the reason is wrong.
// - errors outside any test step (uncaught exceptions, unhandled rejections) are harness errors: they are
//   reported but do not change any test's result.
// Differences, by design: every promise/async test also has its own timeout (so one hanging test does not hide
// the rest), and the whole file has a harness timeout after which unfinished tests are TIMEOUT / NOTRUN.

/** Test status codes, as in testharness.js. */
export const PASS = 0;
export const FAIL = 1;
export const TIMEOUT = 2;
export const NOTRUN = 3;
export const PRECONDITION_FAILED = 4;
export const STATUS_NAMES = ["PASS", "FAIL", "TIMEOUT", "NOTRUN", "PRECONDITION_FAILED"];

// Life cycle of a test.
const INITIAL = 0;
const STARTED = 1;
const HAS_RESULT = 2;
const CLEANING = 3;
const COMPLETE = 4;

/** Thrown by failed assertions. */
export class AssertionError extends Error {
  constructor(message) {
    super(message);
    this.name = "AssertionError";
  }
}

/** Thrown by assert_implements_optional(); the test ends as PRECONDITION_FAILED. */
export class OptionalFeatureUnsupportedError extends AssertionError {
  constructor(message) {
    super(message);
    this.name = "OptionalFeatureUnsupportedError";
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Value formatting (for assertion messages only; never called unless an assertion fails).

const CONTROL_ESCAPES = { "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v", "\0": "\\0" };

function quote(s) {
  let out = "";
  for (const ch of s) {
    const code = ch.codePointAt(0);
    if (ch === "\\") out += "\\\\";
    else if (ch === '"') out += '\\"';
    else if (ch in CONTROL_ESCAPES) out += CONTROL_ESCAPES[ch];
    else if (code < 0x20 || (code >= 0x7f && code < 0xa0)) out += "\\x" + code.toString(16).padStart(2, "0");
    else if (code >= 0xd800 && code <= 0xdfff) out += "\\u" + code.toString(16);
    else out += ch;
  }
  return '"' + out + '"';
}

function clip(s, max) {
  return s.length > max ? s.slice(0, max - 1) + "\u2026" : s;
}

/**
 * A short, readable rendering of any value: strings quoted, -0 kept, arrays element by element,
 * other objects as `object "<String(value)>"`.
 */
export function format_value(value, seen = []) {
  if (typeof value === "object" && value !== null) {
    if (seen.includes(value)) return "[...]";
    seen.push(value);
  }
  if (Array.isArray(value)) {
    const shown = value.slice(0, 50).map((v) => format_value(v, seen));
    if (value.length > 50) shown.push("\u2026");
    return "[" + shown.join(", ") + "]";
  }
  switch (typeof value) {
    case "string":
      return quote(clip(value, 1000));
    case "number":
      return Object.is(value, -0) ? "-0" : String(value);
    case "bigint":
      return `${value}n`;
    case "boolean":
    case "undefined":
      return String(value);
    case "symbol":
      return value.toString();
    default: {
      if (value === null) return "null";
      let text;
      try {
        text = String(value);
      } catch (e) {
        let what;
        try {
          what = String(e);
        } catch {
          what = "an exception";
        }
        return `[stringifying the ${typeof value} threw ${what}]`;
      }
      return `${typeof value} ${quote(clip(text, 1000))}`;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Assertions.

function fail(name, description, text) {
  throw new AssertionError(
    `${name}: ${description === undefined || description === "" ? "" : description + " "}${text}`,
  );
}

function same(a, b) {
  return Object.is(a, b);
}

function hasOwn(object, key) {
  return Object.prototype.hasOwnProperty.call(object, key);
}

export function assert_true(actual, description) {
  if (actual !== true) fail("assert_true", description, `expected true got ${format_value(actual)}`);
}

export function assert_false(actual, description) {
  if (actual !== false) fail("assert_false", description, `expected false got ${format_value(actual)}`);
}

export function assert_equals(actual, expected, description) {
  if (typeof actual !== typeof expected) {
    fail(
      "assert_equals",
      description,
      `expected (${typeof expected}) ${format_value(expected)} but got (${typeof actual}) ${format_value(actual)}`,
    );
  }
  if (!same(actual, expected)) {
    fail("assert_equals", description, `expected ${format_value(expected)} but got ${format_value(actual)}`);
  }
}

export function assert_not_equals(actual, expected, description) {
  if (same(actual, expected)) fail("assert_not_equals", description, `got disallowed value ${format_value(actual)}`);
}

export function assert_in_array(actual, expected, description) {
  if (!expected.some((v) => same(v, actual))) {
    fail("assert_in_array", description, `value ${format_value(actual)} not in array ${format_value(expected)}`);
  }
}

export function assert_array_equals(actual, expected, description) {
  if (typeof actual !== "object" || actual === null || !("length" in actual)) {
    fail("assert_array_equals", description, `value is ${format_value(actual)}, expected array`);
  }
  if (actual.length !== expected.length) {
    fail(
      "assert_array_equals",
      description,
      `lengths differ, expected array ${format_value(expected)} length ${expected.length}, ` +
        `got ${format_value(actual)} length ${actual.length}`,
    );
  }
  for (let i = 0; i < actual.length; i++) {
    if (hasOwn(actual, i) !== hasOwn(expected, i)) {
      fail(
        "assert_array_equals",
        description,
        `expected property ${i} to be ${hasOwn(expected, i) ? "present" : "missing"} ` +
          `(expected array ${format_value(expected)} got ${format_value(actual)})`,
      );
    }
    if (!same(expected[i], actual[i])) {
      fail(
        "assert_array_equals",
        description,
        `expected property ${i} to be ${format_value(expected[i])} but got ${format_value(actual[i])} ` +
          `(expected array ${format_value(expected)} got ${format_value(actual)})`,
      );
    }
  }
}

export function assert_array_approx_equals(actual, expected, epsilon, description) {
  if (actual.length !== expected.length) {
    fail("assert_array_approx_equals", description, `lengths differ, expected ${expected.length} got ${actual.length}`);
  }
  for (let i = 0; i < actual.length; i++) {
    if (typeof actual[i] !== "number" || Math.abs(actual[i] - expected[i]) > epsilon) {
      fail(
        "assert_array_approx_equals",
        description,
        `expected property ${i} to be ${format_value(expected[i])} +/- ${epsilon} but got ${format_value(actual[i])}`,
      );
    }
  }
}

export function assert_object_equals(actual, expected, description) {
  if (typeof actual !== "object" || actual === null) {
    fail("assert_object_equals", description, `value is ${format_value(actual)}, expected object`);
  }
  const path = [];
  const compare = (a, e) => {
    path.push(a);
    for (const key in a) {
      if (!hasOwn(e, key)) fail("assert_object_equals", description, `unexpected property ${format_value(key)}`);
      const value = a[key];
      if (typeof value === "object" && value !== null) {
        if (!path.includes(value)) compare(value, e[key]);
      } else if (!same(value, e[key])) {
        fail(
          "assert_object_equals",
          description,
          `property ${format_value(key)} expected ${format_value(e[key])} got ${format_value(value)}`,
        );
      }
    }
    for (const key in e) {
      if (!hasOwn(a, key)) fail("assert_object_equals", description, `expected property ${format_value(key)} missing`);
    }
    path.pop();
  };
  compare(actual, expected);
}

export function assert_approx_equals(actual, expected, epsilon, description) {
  if (typeof actual !== typeof expected) {
    fail(
      "assert_approx_equals",
      description,
      `expected (${typeof expected}) ${format_value(expected)} but got (${typeof actual}) ${format_value(actual)}`,
    );
  }
  if (!(Math.abs(actual - expected) <= epsilon)) {
    fail(
      "assert_approx_equals",
      description,
      `expected ${format_value(expected)} +/- ${format_value(epsilon)} but got ${format_value(actual)}`,
    );
  }
}

function assertNumber(name, actual, description) {
  if (typeof actual !== "number") fail(name, description, `expected a number but got a ${typeof actual}`);
}

export function assert_less_than(actual, expected, description) {
  assertNumber("assert_less_than", actual, description);
  if (!(actual < expected)) {
    fail(
      "assert_less_than",
      description,
      `expected a number less than ${format_value(expected)} but got ${format_value(actual)}`,
    );
  }
}

export function assert_greater_than(actual, expected, description) {
  assertNumber("assert_greater_than", actual, description);
  if (!(actual > expected)) {
    fail(
      "assert_greater_than",
      description,
      `expected a number greater than ${format_value(expected)} but got ${format_value(actual)}`,
    );
  }
}

export function assert_less_than_equal(actual, expected, description) {
  assertNumber("assert_less_than_equal", actual, description);
  if (!(actual <= expected)) {
    fail(
      "assert_less_than_equal",
      description,
      `expected a number less than or equal to ${format_value(expected)} but got ${format_value(actual)}`,
    );
  }
}

export function assert_greater_than_equal(actual, expected, description) {
  assertNumber("assert_greater_than_equal", actual, description);
  if (!(actual >= expected)) {
    fail(
      "assert_greater_than_equal",
      description,
      `expected a number greater than or equal to ${format_value(expected)} but got ${format_value(actual)}`,
    );
  }
}

export function assert_between_exclusive(actual, lower, upper, description) {
  assertNumber("assert_between_exclusive", actual, description);
  if (!(actual > lower && actual < upper)) {
    fail(
      "assert_between_exclusive",
      description,
      `expected a number greater than ${lower} and less than ${upper} but got ${format_value(actual)}`,
    );
  }
}

export function assert_between_inclusive(actual, lower, upper, description) {
  assertNumber("assert_between_inclusive", actual, description);
  if (!(actual >= lower && actual <= upper)) {
    fail(
      "assert_between_inclusive",
      description,
      `expected a number between ${lower} and ${upper} (inclusive) but got ${format_value(actual)}`,
    );
  }
}

export function assert_regexp_match(actual, expected, description) {
  if (!expected.test(actual)) {
    fail("assert_regexp_match", description, `expected ${format_value(actual)} to match ${expected}`);
  }
}

export function assert_class_string(object, className, description) {
  const actual = Object.prototype.toString.call(object);
  const wanted = `[object ${className}]`;
  if (actual !== wanted) {
    fail("assert_class_string", description, `expected ${format_value(wanted)} but got ${format_value(actual)}`);
  }
}

export function assert_own_property(object, name, description) {
  if (!hasOwn(object, name)) {
    fail("assert_own_property", description, `expected property ${format_value(name)} missing`);
  }
}

export function assert_not_own_property(object, name, description) {
  if (hasOwn(object, name)) {
    fail("assert_not_own_property", description, `unexpected property ${format_value(name)} is found on object`);
  }
}

export function assert_inherits(object, name, description) {
  if (typeof object !== "object" && typeof object !== "function") {
    fail("assert_inherits", description, `provided value is not an object`);
  }
  if (!("hasOwnProperty" in object)) {
    fail("assert_inherits", description, `provided value is an object but has no hasOwnProperty method`);
  }
  if (hasOwn(object, name)) {
    fail("assert_inherits", description, `property ${format_value(name)} found on object, expected in prototype chain`);
  }
  if (!(name in object)) {
    fail("assert_inherits", description, `property ${format_value(name)} not found in prototype chain`);
  }
}

export function assert_idl_attribute(object, name, description) {
  assert_inherits(object, name, description);
}

export function assert_exists(object, name, description) {
  if (!hasOwn(object, name)) fail("assert_exists", description, `expected property ${format_value(name)} missing`);
}

export function assert_not_exists(object, name, description) {
  if (hasOwn(object, name)) fail("assert_not_exists", description, `unexpected property ${format_value(name)} found`);
}

export function assert_readonly(object, name, description) {
  const before = object[name];
  try {
    object[name] = before + "a";
    if (!same(object[name], before)) {
      fail("assert_readonly", description, `changing property ${format_value(name)} succeeded`);
    }
  } finally {
    try {
      object[name] = before;
    } catch {
      // it was read-only after all
    }
  }
}

export function assert_implements(condition, description) {
  if (!condition) fail("assert_implements", description, "");
}

export function assert_implements_optional(condition, description) {
  if (!condition) throw new OptionalFeatureUnsupportedError(`assert_implements_optional: ${description ?? ""}`);
}

export function assert_unreached(description) {
  fail("assert_unreached", description, "Reached unreachable code");
}

export function assert_any(assertFunc, actual, expectedList, ...rest) {
  const errors = [];
  for (const expected of expectedList) {
    try {
      assertFunc(actual, expected, ...rest);
      return;
    } catch (e) {
      errors.push(e.message);
    }
  }
  throw new AssertionError(errors.join("\n\n"));
}

function describeCall(func) {
  try {
    return clip(String(func), 200);
  } catch {
    return "function";
  }
}

function throwsJs(name, constructor, func, description) {
  try {
    func.call(undefined);
  } catch (e) {
    if (e instanceof AssertionError) throw e;
    if (typeof e !== "object" && typeof e !== "function") {
      fail(name, description, `${describeCall(func)} threw ${format_value(e)} with type ${typeof e}, not an object`);
    }
    if (e === null) fail(name, description, `${describeCall(func)} threw null, not an object`);
    if (typeof constructor !== "function") fail(name, description, `${format_value(constructor)} is not a constructor`);
    let base = constructor;
    while (base && !(typeof base === "function" && base.name === "Error")) base = Object.getPrototypeOf(base);
    if (!base) fail(name, description, `${format_value(constructor)} is not an Error subtype`);
    if (e.constructor !== constructor || e.name !== constructor.name) {
      fail(
        name,
        description,
        `${describeCall(func)} threw ${format_value(e)} (${format_value(e.name)}) expected instance of ` +
          `${format_value(constructor)} (${format_value(constructor.name)})`,
      );
    }
    return;
  }
  fail(name, description, `${describeCall(func)} did not throw`);
}

function throwsExactly(name, exception, func, description) {
  try {
    func.call(undefined);
  } catch (e) {
    if (e instanceof AssertionError) throw e;
    if (!same(e, exception)) {
      fail(
        name,
        description,
        `${describeCall(func)} threw ${format_value(e)} but we expected it to throw ${format_value(exception)}`,
      );
    }
    return;
  }
  fail(name, description, `${describeCall(func)} did not throw`);
}

// DOMException names and their legacy codes (WebIDL, "DOMException names" table); 0 = no legacy code.
const DOM_CODES = {
  IndexSizeError: 1,
  HierarchyRequestError: 3,
  WrongDocumentError: 4,
  InvalidCharacterError: 5,
  NoModificationAllowedError: 7,
  NotFoundError: 8,
  NotSupportedError: 9,
  InUseAttributeError: 10,
  InvalidStateError: 11,
  SyntaxError: 12,
  InvalidModificationError: 13,
  NamespaceError: 14,
  InvalidAccessError: 15,
  TypeMismatchError: 17,
  SecurityError: 18,
  NetworkError: 19,
  AbortError: 20,
  URLMismatchError: 21,
  QuotaExceededError: 22,
  TimeoutError: 23,
  InvalidNodeTypeError: 24,
  DataCloneError: 25,
  EncodingError: 0,
  NotReadableError: 0,
  UnknownError: 0,
  ConstraintError: 0,
  DataError: 0,
  TransactionInactiveError: 0,
  ReadOnlyError: 0,
  VersionError: 0,
  OperationError: 0,
  NotAllowedError: 0,
  OptOutError: 0,
};
const LEGACY_CONSTANT_NAMES = {
  INDEX_SIZE_ERR: "IndexSizeError",
  HIERARCHY_REQUEST_ERR: "HierarchyRequestError",
  WRONG_DOCUMENT_ERR: "WrongDocumentError",
  INVALID_CHARACTER_ERR: "InvalidCharacterError",
  NO_MODIFICATION_ALLOWED_ERR: "NoModificationAllowedError",
  NOT_FOUND_ERR: "NotFoundError",
  NOT_SUPPORTED_ERR: "NotSupportedError",
  INUSE_ATTRIBUTE_ERR: "InUseAttributeError",
  INVALID_STATE_ERR: "InvalidStateError",
  SYNTAX_ERR: "SyntaxError",
  INVALID_MODIFICATION_ERR: "InvalidModificationError",
  NAMESPACE_ERR: "NamespaceError",
  INVALID_ACCESS_ERR: "InvalidAccessError",
  TYPE_MISMATCH_ERR: "TypeMismatchError",
  SECURITY_ERR: "SecurityError",
  NETWORK_ERR: "NetworkError",
  ABORT_ERR: "AbortError",
  URL_MISMATCH_ERR: "URLMismatchError",
  QUOTA_EXCEEDED_ERR: "QuotaExceededError",
  TIMEOUT_ERR: "TimeoutError",
  INVALID_NODE_TYPE_ERR: "InvalidNodeTypeError",
  DATA_CLONE_ERR: "DataCloneError",
};

function throwsDom(name, type, func, description, constructor) {
  try {
    func.call(undefined);
  } catch (e) {
    if (e instanceof AssertionError) throw e;
    let wantedName;
    if (typeof type === "number") {
      wantedName = Object.keys(DOM_CODES).find((k) => DOM_CODES[k] === type);
      if (type === 0 || wantedName === undefined) {
        throw new AssertionError(`Test bug: ambiguous DOMException code ${type}`);
      }
    } else if (typeof type === "string") {
      wantedName = type in LEGACY_CONSTANT_NAMES ? LEGACY_CONSTANT_NAMES[type] : type;
      if (!(wantedName in DOM_CODES)) throw new AssertionError(`Test bug: unrecognized DOMException name ${type}`);
    } else {
      throw new AssertionError("Test bug: the DOMException type must be a name or a code");
    }
    const code = DOM_CODES[wantedName];
    if (typeof e !== "object" || e === null) {
      fail(name, description, `${describeCall(func)} threw ${format_value(e)}, not a DOMException ${wantedName}`);
    }
    const checks = { code };
    const modernName = "name" in e && e.name !== String(e.name).toUpperCase() && e.name !== "DOMException";
    if (code === 0 || modernName) checks.name = wantedName;
    for (const prop of Object.keys(checks)) {
      // Loose equality on purpose: the legacy code check accepts any value that compares equal.
      if (!(prop in e) || e[prop] != checks[prop]) {
        fail(
          name,
          description,
          `${describeCall(func)} threw ${format_value(e)} that is not a DOMException ${wantedName}: ` +
            `property ${prop} is equal to ${format_value(prop in e ? e[prop] : undefined)}, expected ${
              format_value(checks[prop])
            }`,
        );
      }
    }
    if (e.constructor !== constructor) {
      fail(name, description, `${describeCall(func)} threw an exception from the wrong global`);
    }
    return;
  }
  fail(name, description, `${describeCall(func)} did not throw`);
}

export function assert_throws_js(constructor, func, description) {
  throwsJs("assert_throws_js", constructor, func, description);
}

export function assert_throws_exactly(exception, func, description) {
  throwsExactly("assert_throws_exactly", exception, func, description);
}

export function assert_throws_dom(type, funcOrConstructor, descriptionOrFunc, maybeDescription) {
  if (typeof funcOrConstructor === "function" && funcOrConstructor.name === "DOMException") {
    throwsDom("assert_throws_dom", type, descriptionOrFunc, maybeDescription, funcOrConstructor);
  } else {
    throwsDom("assert_throws_dom", type, funcOrConstructor, descriptionOrFunc, globalThis.DOMException);
  }
}

/**
 * The older, single entry point some WPT files still call (e.g. `promise_rejects(t, new TypeError(), p)`):
 * a string or number names a DOMException (as in assert_throws_dom); any other value is an example whose `name`
 * the thrown value must carry, which is how the old testharness.js compared them.
 */
function throwsLegacy(name, expected, func, description) {
  if (typeof expected === "string" || typeof expected === "number") {
    throwsDom(name, expected, func, description, globalThis.DOMException);
    return;
  }
  if (typeof expected !== "object" || expected === null || !("name" in expected)) {
    throw new AssertionError(`Test bug: ${name} needs a DOMException name or an object with a name`);
  }
  try {
    func.call(undefined);
  } catch (e) {
    if (e instanceof AssertionError) throw e;
    if (typeof e !== "object" || e === null || !("name" in e) || e.name !== expected.name) {
      fail(
        name,
        description,
        `${describeCall(func)} threw ${format_value(e)}, expected an exception named ${format_value(expected.name)}`,
      );
    }
    return;
  }
  fail(name, description, `${describeCall(func)} did not throw`);
}

export function assert_throws(expected, func, description) {
  throwsLegacy("assert_throws", expected, func, description);
}

/** Adopts any thenable into a promise of this realm (a non-thenable rejects with a TypeError). */
function adopt(thenable) {
  return new Promise((resolve, reject) => {
    thenable.then(resolve, reject);
  });
}

export function promise_rejects_js(test, constructor, promise, description) {
  return adopt(promise)
    .then(test.unreached_func(`Should have rejected: ${description}`))
    .catch((e) =>
      throwsJs("promise_rejects_js", constructor, () => {
        throw e;
      }, description)
    );
}

export function promise_rejects_exactly(test, exception, promise, description) {
  return adopt(promise)
    .then(test.unreached_func(`Should have rejected: ${description}`))
    .catch((e) =>
      throwsExactly("promise_rejects_exactly", exception, () => {
        throw e;
      }, description)
    );
}

export function promise_rejects(test, expected, promise, description) {
  return adopt(promise)
    .then(test.unreached_func(`Should have rejected: ${description}`))
    .catch((e) =>
      throwsLegacy("promise_rejects", expected, () => {
        throw e;
      }, description)
    );
}

export function promise_rejects_dom(test, type, promiseOrConstructor, descriptionOrPromise, maybeDescription) {
  let constructor = globalThis.DOMException;
  let promise = promiseOrConstructor;
  let description = descriptionOrPromise;
  if (typeof promiseOrConstructor === "function" && promiseOrConstructor.name === "DOMException") {
    constructor = promiseOrConstructor;
    promise = descriptionOrPromise;
    description = maybeDescription;
  }
  return adopt(promise)
    .then(test.unreached_func(`Should have rejected: ${description}`))
    .catch((e) =>
      throwsDom(
        "promise_rejects_dom",
        type,
        () => {
          throw e;
        },
        description,
        constructor,
      )
    );
}

// ---------------------------------------------------------------------------------------------------------------
// Tests and the harness.

function messageOf(e) {
  try {
    return String(typeof e === "object" && e !== null ? e.message : e);
  } catch {
    return "(the exception could not be turned into a string)";
  }
}

function stackOf(e) {
  try {
    return typeof e === "object" && e !== null && typeof e.stack === "string" ? e.stack : null;
  } catch {
    return null;
  }
}

/**
 * Creates a harness. `options`:
 * - testTimeout: ms a promise/async test may run (default 5000);
 * - harnessTimeout: ms for the whole file, after which unfinished tests end as TIMEOUT/NOTRUN (default none);
 * - timeoutMultiplier: scales step_timeout() delays (default 1);
 * - onRegister(test), onResult(test), onHarnessError(message), onComplete(): reporting hooks.
 * Returns `{ api, done, harnessError }`: `api` is the object of testharness globals to install.
 */
export function createHarness(options = {}) {
  const testTimeout = options.testTimeout ?? 5000;
  const multiplier = options.timeoutMultiplier ?? 1;
  const onRegister = options.onRegister ?? (() => {});
  const onResult = options.onResult ?? (() => {});
  const onHarnessError = options.onHarnessError ?? (() => {});
  const onComplete = options.onComplete ?? (() => {});
  // Captured now: tests may patch or replace the globals later.
  const setTimer = globalThis.setTimeout;
  const clearTimer = globalThis.clearTimeout;

  const all = [];
  const resultCallbacks = [];
  const completionCallbacks = [];
  let unfinished = 0;
  let waitingForDone = true;
  let finished = false;
  let queue = Promise.resolve();

  function harnessError(message) {
    onHarnessError(message);
  }

  function maybeComplete() {
    if (finished || waitingForDone || unfinished > 0) return;
    finished = true;
    for (const cb of completionCallbacks) {
      try {
        cb(all, { status: 0 });
      } catch (e) {
        harnessError(`completion callback threw: ${messageOf(e)}`);
      }
    }
    onComplete();
  }

  class Test {
    constructor(name, properties) {
      this.name = name;
      this.properties = properties ?? {};
      this.status = NOTRUN;
      this.message = null;
      this.stack = null;
      this.phase = finished ? COMPLETE : INITIAL;
      this.index = all.length;
      this._cleanups = [];
      this._doneCallbacks = [];
      this._timer = undefined;
      this._isPromiseTest = false;
      if (this.phase === COMPLETE) {
        harnessError(`test "${name}" was created after the harness had finished`);
        return;
      }
      all.push(this);
      unfinished++;
      try {
        onRegister(this);
      } catch (e) {
        harnessError(`reporting the test "${name}" failed: ${messageOf(e)}`);
      }
    }

    get PASS() {
      return PASS;
    }
    get FAIL() {
      return FAIL;
    }
    get TIMEOUT() {
      return TIMEOUT;
    }
    get NOTRUN() {
      return NOTRUN;
    }
    get PRECONDITION_FAILED() {
      return PRECONDITION_FAILED;
    }

    _setStatus(status, message, stack) {
      this.status = status;
      this.message = message ?? null;
      this.stack = stack ?? null;
    }

    _startTimer() {
      if (this._timer !== undefined || this.phase >= HAS_RESULT || !(testTimeout > 0)) return;
      this._timer = setTimer(() => this._timedOut(`Test timed out (${testTimeout} ms)`), testTimeout);
    }

    _clearTimer() {
      if (this._timer !== undefined) {
        clearTimer(this._timer);
        this._timer = null;
      }
    }

    _timedOut(message) {
      if (this.phase >= HAS_RESULT) return;
      this._setStatus(TIMEOUT, message);
      this.phase = HAS_RESULT;
      this.done();
    }

    step(func, thisObj, ...args) {
      if (this.phase > STARTED) return undefined;
      this.phase = STARTED;
      // Until a result is known, a test that stops here has timed out.
      this._setStatus(TIMEOUT, "Test timed out");
      const receiver = arguments.length === 1 ? this : thisObj;
      try {
        return func.apply(receiver, args);
      } catch (e) {
        if (this.phase >= HAS_RESULT) return undefined;
        this._setStatus(
          e instanceof OptionalFeatureUnsupportedError ? PRECONDITION_FAILED : FAIL,
          messageOf(e),
          stackOf(e),
        );
        this.phase = HAS_RESULT;
        this.done();
        return undefined;
      }
    }

    step_func(func, thisObj) {
      // deno-lint-ignore no-this-alias -- the callbacks below run with another `this`
      const test = this;
      const explicitThis = arguments.length >= 2;
      return function (...args) {
        return test.step(func, explicitThis ? thisObj : test, ...args);
      };
    }

    step_func_done(func, thisObj) {
      // deno-lint-ignore no-this-alias -- the callbacks below run with another `this`
      const test = this;
      const explicitThis = arguments.length >= 2;
      return function (...args) {
        if (func) test.step(func, explicitThis ? thisObj : test, ...args);
        test.done();
      };
    }

    unreached_func(description) {
      return this.step_func(() => {
        assert_unreached(description);
      });
    }

    step_timeout(handler, timeout, ...args) {
      // deno-lint-ignore no-this-alias -- the callbacks below run with another `this`
      const test = this;
      return setTimer(this.step_func(() => handler.apply(test, args)), timeout * multiplier);
    }

    step_wait(condition, description, timeout = 3000, interval = 100) {
      // deno-lint-ignore no-this-alias -- the callbacks below run with another `this`
      const test = this;
      return new Promise((resolve, reject) => {
        const deadline = Date.now() + timeout * multiplier;
        const check = () => {
          let ok;
          try {
            ok = condition();
          } catch (e) {
            reject(e);
            return;
          }
          if (ok) resolve(undefined);
          else if (Date.now() >= deadline) {
            reject(new AssertionError(`step_wait: ${description ?? "condition not met"}`));
          } else setTimer(check, interval);
        };
        test.step(check);
      });
    }

    step_wait_func(condition, func, description, timeout, interval) {
      this.step_wait(condition, description, timeout, interval).then(
        this.step_func(func),
        this.step_func((e) => {
          throw e;
        }),
      );
    }

    step_wait_func_done(condition, func, description, timeout, interval) {
      this.step_wait(condition, description, timeout, interval).then(
        this.step_func_done(func),
        this.step_func((e) => {
          throw e;
        }),
      );
    }

    add_cleanup(callback) {
      this._cleanups.push(callback);
    }

    force_timeout() {
      this._timedOut("Test timed out (force_timeout)");
    }

    done() {
      if (this.phase >= CLEANING) return;
      if (this.phase <= STARTED) this._setStatus(PASS, null);
      this._clearTimer();
      this._runCleanups();
    }

    _runCleanups() {
      this.phase = CLEANING;
      const pending = [];
      for (const callback of this._cleanups) {
        let result;
        try {
          result = callback();
        } catch (e) {
          harnessError(`a cleanup function of "${this.name}" threw: ${messageOf(e)}`);
          continue;
        }
        if (this._isPromiseTest && result !== null && result !== undefined && typeof result.then === "function") {
          pending.push(result);
        }
      }
      if (pending.length === 0) {
        this._complete();
        return;
      }
      let left = pending.length;
      for (const p of pending) {
        Promise.resolve(p)
          .catch((e) => harnessError(`a cleanup promise of "${this.name}" rejected: ${messageOf(e)}`))
          .then(() => {
            if (--left === 0) this._complete();
          });
      }
    }

    _complete() {
      if (this.phase === COMPLETE) return;
      this._cleanups.length = 0;
      this.phase = COMPLETE;
      unfinished--;
      try {
        onResult(this);
      } catch (e) {
        harnessError(`reporting the result of "${this.name}" failed: ${messageOf(e)}`);
      }
      for (const cb of resultCallbacks) {
        try {
          cb(this);
        } catch (e) {
          harnessError(`result callback threw: ${messageOf(e)}`);
        }
      }
      const callbacks = this._doneCallbacks.splice(0);
      for (const cb of callbacks) cb();
      maybeComplete();
    }

    _whenDone(callback) {
      if (this.phase === COMPLETE) callback();
      else this._doneCallbacks.push(callback);
    }

    format_status() {
      return STATUS_NAMES[this.status];
    }
  }

  function nameOf(func, name) {
    if (name !== undefined && name !== null && name !== "") return String(name);
    if (typeof func === "function" && func.name) return func.name;
    return "Untitled";
  }

  function test(func, name, properties) {
    const t = new Test(nameOf(func, name), properties);
    if (t.phase === COMPLETE) return;
    const value = t.step(func, t, t);
    if (value !== undefined) {
      harnessError(`Test named "${t.name}" passed a function to \`test\` that returned a value.`);
    }
    if (t.phase === STARTED) t.done();
  }

  function async_test(func, name, properties) {
    if (typeof func !== "function") {
      properties = name;
      name = func;
      func = null;
    }
    const t = new Test(nameOf(func, name), properties);
    if (t.phase === COMPLETE) return t;
    t._startTimer();
    if (func) t.step(func, t, t);
    return t;
  }

  function promise_test(func, name, properties) {
    if (typeof func !== "function") {
      properties = name;
      name = func;
      func = null;
    }
    const t = new Test(nameOf(func, name), properties);
    if (t.phase === COMPLETE) return;
    t._isPromiseTest = true;
    queue = queue.then(() =>
      new Promise((resolve) => {
        if (t.phase === COMPLETE) {
          resolve(undefined);
          return;
        }
        t._startTimer();
        const returned = func ? t.step(func, t, t) : undefined;
        t.step(() => {
          if (!returned) {
            throw new AssertionError(
              `promise_test: test body must return a 'thenable' object (received ${format_value(returned)})`,
            );
          }
          if (typeof returned.then !== "function") {
            throw new AssertionError(
              "promise_test: test body must return a 'thenable' object (received an object with no `then` method)",
            );
          }
        });
        t._whenDone(() => resolve(undefined));
        Promise.resolve(returned)
          .then(() => {
            t.done();
          })
          .catch(t.step_func((reason) => {
            throw reason;
          }));
      })
    );
  }

  function promise_setup(func) {
    queue = queue.then(() => {
      let result;
      try {
        result = func();
      } catch (e) {
        harnessError(`promise_setup function threw: ${messageOf(e)}`);
        return undefined;
      }
      return Promise.resolve(result).then(
        () => undefined,
        (e) => harnessError(`promise_setup promise rejected: ${messageOf(e)}`),
      );
    });
  }

  function setup(funcOrProperties) {
    if (typeof funcOrProperties === "function") {
      try {
        funcOrProperties();
      } catch (e) {
        harnessError(`setup function threw: ${messageOf(e)}`);
      }
    }
  }

  function step_timeout(handler, timeout, ...args) {
    // deno-lint-ignore no-this-alias -- the callbacks below run with another `this`
    const receiver = this;
    return setTimer(() => handler.apply(receiver, args), timeout * multiplier);
  }

  /** Ends the wait for more tests; the harness completes once every test has finished. */
  function done() {
    waitingForDone = false;
    maybeComplete();
  }

  /** Ends the file now: unfinished tests that never started are NOTRUN, the others TIMEOUT. */
  function abort(message) {
    for (const t of all.slice()) {
      if (t.phase === COMPLETE) continue;
      t._clearTimer();
      if (t.phase === INITIAL) t._setStatus(NOTRUN, message);
      else if (t.phase < HAS_RESULT) t._setStatus(TIMEOUT, message);
      t._doneCallbacks.length = 0;
      t._complete();
    }
    waitingForDone = false;
    maybeComplete();
  }

  const api = {
    test,
    async_test,
    promise_test,
    promise_setup,
    setup,
    done,
    step_timeout,
    format_value,
    add_result_callback: (cb) => resultCallbacks.push(cb),
    add_completion_callback: (cb) => completionCallbacks.push(cb),
    add_start_callback: () => {},
    add_test_state_callback: () => {},
    generate_tests: (func, args, properties) => {
      for (const [name, ...rest] of args) test(() => func(...rest), name, properties);
    },
    AssertionError,
    OptionalFeatureUnsupportedError,
    assert_true,
    assert_false,
    assert_equals,
    assert_not_equals,
    assert_in_array,
    assert_array_equals,
    assert_array_approx_equals,
    assert_object_equals,
    assert_approx_equals,
    assert_less_than,
    assert_greater_than,
    assert_less_than_equal,
    assert_greater_than_equal,
    assert_between_exclusive,
    assert_between_inclusive,
    assert_regexp_match,
    assert_class_string,
    assert_own_property,
    assert_not_own_property,
    assert_inherits,
    assert_idl_attribute,
    assert_exists,
    assert_not_exists,
    assert_readonly,
    assert_implements,
    assert_implements_optional,
    assert_unreached,
    assert_any,
    assert_throws_js,
    assert_throws_exactly,
    assert_throws_dom,
    assert_throws,
    promise_rejects,
    promise_rejects_js,
    promise_rejects_exactly,
    promise_rejects_dom,
  };

  return { api, done, abort, harnessError, tests: all };
}
