/**
 * FP-PULL-TURN (core/README.md): a job that a pipe would queue as its own microtask while an underlying
 * source's pull() is running synchronously (the write of a chunk that pull() enqueued) runs at the start of
 * that pull's reaction job instead, which the spec queues when pull() returns. The job still runs after the
 * producer's call has returned and after every job the producer queued, so it is never synchronous with
 * enqueue(); one microtask per chunk is saved.
 * @module
 */
import { JobQueue } from "../shared/jobs.ts";
import { ReadableStreamExtras } from "./stream-internal.ts";

/** A job deferred to a pull reaction: an object whose flush() is the job (a pipe's), so no closure is needed. */
export interface PullTurnJob {
  flush(): void;
}

/** Jobs deferred while no pull turn is tracked: each runs in a microtask of its own, as jobs of this queue. */
const microtaskJobs: JobQueue<PullTurnJob> = new JobQueue(() => microtaskJobs.shift().flush());

/**
 * The part of a controller that collects the jobs of one pull turn: in its extras (made on first use),
 * `turnJob` is the first job deferred to its next pull reaction (usually the only one), `turnJobs` the jobs
 * after the first, in order (the array is reused, never shrunk), `turnJobCount` how many are deferred.
 */
export interface PullTurn {
  ext: ReadableStreamExtras | undefined;
}

/** The controller whose pull() is running synchronously right now, if any (tracked while a pipe is live). */
let active: PullTurn | undefined = undefined;

/**
 * How many pipes that may defer a job are live. Pull turns are only tracked while there is one: without a
 * tracked turn a deferred job is queued as a microtask of its own, which is the spec's timing, so a pipe that
 * starts inside an untracked pull() loses only the saved microtask. The read loop is spared two stores per pull.
 */
let deferringPipes = 0;

/** What {@link BeginPullTurn} returns when no pipe is live and the turn is not tracked. */
const UNTRACKED: PullTurn = { ext: undefined };

/** A pipe that may call {@link DeferToPullReaction} has started. */
export function AddPullTurnUser(): void {
  deferringPipes++;
}

/** A pipe counted by {@link AddPullTurnUser} has finished. */
export function RemovePullTurnUser(): void {
  deferringPipes--;
}

/** Marks `turn` as running its pull(); returns what {@link EndPullTurn} needs. */
export function BeginPullTurn(turn: PullTurn): PullTurn | undefined {
  // Untracked only outside every tracked turn: inside one, `active` must name this turn, not the outer one.
  if (deferringPipes === 0 && active === undefined) return UNTRACKED;
  const outer = active;
  active = turn;
  return outer;
}

/** Ends the pull turn begun by {@link BeginPullTurn}. */
export function EndPullTurn(outer: PullTurn | undefined): void {
  if (outer !== UNTRACKED) active = outer;
}

/** Runs `job` in the reaction of the pull() running now, or in a microtask when no pull() is running. */
export function DeferToPullReaction(job: PullTurnJob): void {
  const controller = active;
  if (controller === undefined) {
    microtaskJobs.queue(job);
    return;
  }
  const turn = controller.ext ??= new ReadableStreamExtras();
  if (turn.turnJobCount++ === 0) {
    turn.turnJob = job;
  } else {
    (turn.turnJobs ??= [])[turn.turnJobCount - 2] = job;
  }
}

/** True when jobs wait for this controller's pull reaction. */
export function HasPullTurnJobs(controller: PullTurn): boolean {
  const turn = controller.ext;
  return turn !== undefined && turn.turnJobCount !== 0;
}

/** Runs (at the start of the pull reaction, or in a microtask of their own) the jobs deferred to `controller`. */
export function RunPullTurnJobs(controller: PullTurn): void {
  const turn = controller.ext;
  if (turn === undefined || turn.turnJobCount === 0) return;
  const first = turn.turnJob!;
  turn.turnJob = undefined;
  first.flush();
  if (turn.turnJobCount !== 1) RunMoreTurnJobs(turn);
  turn.turnJobCount = 0;
}

function RunMoreTurnJobs(turn: ReadableStreamExtras): void {
  const jobs = turn.turnJobs!;
  // Index loop: a job may defer more jobs (they then run in this same pass, still in order).
  for (let i = 0; i < turn.turnJobCount - 1; i++) {
    const job = jobs[i]!;
    jobs[i] = undefined!;
    job.flush();
  }
}
