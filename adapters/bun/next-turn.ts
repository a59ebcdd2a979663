/**
 * BUN-TURN: the turn of the event loop as a number, counted by one `setImmediate` per turn that asks, shared by
 * every body that asks in it. A patched `Bun.serve` response notes the turn it was pulled in (direct-body.ts), where it
 * queued a `setImmediate` of its own (with BRIDGE-NATIVE-FED, the served echo 0.96x the CPU: bench/README.md).
 * @module
 */

/** How many turns have ended while someone asked (see {@link currentTurn}). */
let turns = 0;
/** A `setImmediate` is queued to count the turn in progress. */
let counting = false;

function turnEnded(): void {
  counting = false;
  turns++;
}

/**
 * The turn of the event loop now: a later call returns a greater number once the `setImmediate` queued by the turn's
 * first call has run (so after the task that called it; a call made by an immediate that runs before that one, in the
 * same check phase, sees the number grow when that one runs, where an immediate of its own would have run a turn
 * later: for BUN-DIRECT's mark, an error is then given after a flush rather than at once, as a turn later).
 */
export function currentTurn(): number {
  if (!counting) {
    counting = true;
    setImmediate(turnEnded);
  }
  return turns;
}
