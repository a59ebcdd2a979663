/**
 * Runs the differential fuzzer's bounded suite (tests/fuzz/fuzz.test.ts) with the unit tests: scripts/unit.ts
 * only picks up tests/unit/*.test.ts.
 */
import "../fuzz/fuzz.test.ts";
