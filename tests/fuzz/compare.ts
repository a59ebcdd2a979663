/**
 * What is compared between two outcomes of one program (ours vs native), and the invariants each outcome
 * must satisfy on its own.
 *
 * Invariants (checked for both implementations; the acceptance criterion "never loses, duplicates or
 * reorders a chunk, and never stalls"):
 *  - the case finished (no stall: the consumer's loop ended, see interpret.ts for the watchdog);
 *  - at every point with an oracle (transform inputs, the other branch of a tee, the consumer's reads or
 *    the sink's writes) the chunks that arrived are a prefix of the ideal sequence: nothing duplicated,
 *    reordered or invented (byte data: the concatenated bytes);
 *  - where a point ended cleanly (reader done, loop exit, pipe fulfilled, sink closed, flush called), the
 *    whole ideal sequence arrived: nothing lost.
 *
 * Differential (ours must equal native):
 *  - "exact" programs (no pipe): every channel, i.e. the chunk sequence at every point and the ordered
 *    events there (source pulls and cancel reasons, transform/sink calls, how each read ended, which
 *    promises fulfilled or rejected and with which error), plus unhandled rejections. Errors made by the
 *    program compare by their tag, errors made by an implementation by their name. The global interleaving
 *    of different channels is NOT compared (only with --strict in run.ts, as information).
 *  - "piped" programs: without a fault, the same as exact (every chunk arrives everywhere, every callback
 *    runs a fixed number of times). With its one fault, only the channels at or downstream of the
 *    fault's origin compare their events (the chunk counts there are covered by the prefix invariant):
 *    upstream of the fault, whether a source had already closed when a cancel arrived depends on how far
 *    the pipe read ahead, which the standard leaves to the implementation.
 * @module
 */
import type { Channel, Outcome } from "./interpret.ts";
import { faultOrigin, isPiped, oracle, type Program } from "./program.ts";

/** Where a channel sits in the chain: src 0, stage i at i+1 (its incoming pipe at i+0.5), consumer last. */
function position(p: Program, channel: string): number {
  const m = /^(tee|t|p)(\d+)$/.exec(channel);
  if (m) return Number(m[2]) + (m[1] === "p" ? 0.5 : 1);
  if (channel === "src") return 0;
  return p.stages.length + 1;
}

function isPrefix(a: readonly number[], b: readonly number[]): boolean {
  if (a.length > b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

function short(units: readonly number[]): string {
  return units.length > 40 ? `[${units.slice(0, 40).join(",")},... (${units.length})]` : `[${units.join(",")}]`;
}

const EMPTY: Channel = { chunks: [], units: [], events: [], settled: [] };

/** Invariant violations of one outcome. */
export function invariants(p: Program, o: Outcome): string[] {
  const problems: string[] = [];
  if (o.stalled) problems.push("stalled");
  const crash = o.channels["crash"];
  if (crash) problems.push(`crashed: ${crash.events.join("; ")}`);
  const exp = oracle(p);
  const check = (channel: string, ideal: readonly number[] | undefined, complete: boolean, point = channel): void => {
    if (!ideal) return;
    let got = (o.channels[channel] ?? EMPTY).units;
    const tail = exp.partial.get(point);
    if (tail) {
      // the sequence was cut at an unknown chunk boundary; take off what the flushes after the cut appended
      for (let k = tail.length; k > 0; k--) {
        if (got.length >= k && isPrefix(tail.slice(0, k), got.slice(got.length - k))) {
          got = got.slice(0, got.length - k);
          break;
        }
      }
    }
    if (!isPrefix(got, ideal)) {
      problems.push(
        `${channel}: arrived ${short(got)} is not a prefix of ${short(ideal)} (duplicated, reordered or invented)`,
      );
    } else if (complete && !tail && got.length !== ideal.length) {
      problems.push(`${channel}: ended cleanly but only ${short(got)} of ${short(ideal)} arrived (lost)`);
    }
  };
  for (const [i, st] of p.stages.entries()) {
    if (st.kind === "tee") {
      const events = (o.channels[`tee${i}`] ?? EMPTY).events;
      check(`tee${i}`, exp.seqs[`tee${i}`], events.includes("end:done"));
    } else if (st.op !== "none") {
      const events = (o.channels[`t${i}`] ?? EMPTY).events;
      check(`t${i}`, exp.seqs[`t${i}`], events.includes("flush"));
    }
  }
  const out = exp.seqs["out"];
  const outEvents = (o.channels["out"] ?? EMPTY).events;
  const sinkEvents = (o.channels["sink"] ?? EMPTY).events;
  switch (p.consumer.kind) {
    case "reader":
    case "byob":
      check("out", out, outEvents.some((e) => e.startsWith("end:done")));
      break;
    case "iterate":
      check("out", out, outEvents.includes("end:loop-exit") && !outEvents.includes("end:break"));
      break;
    case "pipeTo":
      // (a fulfilled pipe with preventClose only waited for the writes to settle: a failing sink may have refused some)
      check(
        "sink",
        out,
        sinkEvents.includes("close") || (outEvents.includes("pipe:fulfilled") && !p.consumer.sink.fault),
        "out",
      );
      break;
    case "writer":
      check("out", out, outEvents.includes("end:done"));
      check("sink", out, sinkEvents.includes("close"), "out");
      break;
  }
  return problems;
}

function same(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * Leniencies for a native implementation's known deviations (see nativeDeviations in fuzz.ts): what they
 * change is left out of the comparison on that runtime only.
 */
export interface Normalization {
  /** do not compare with native at all (ours is still held to the invariants) */
  skip?: boolean;
  /** byte data: compare the concatenated bytes at each point, not the chunk boundaries; a final
   * `read(view)` result compares without the size of the view it hands back */
  byteBoundaries?: boolean;
  /** leave out the source's pull() calls (and respond()/enqueue failures inside them) */
  pullCount?: boolean;
}

// (a close() in a pull() that ran once more than the standard runs it can find the stream already cancelled)
const PULL_EVENTS = /^(pull|respond \d+|enqueue threw .*|close threw .*|pull body threw .*)$/;

/**
 * A piped program with a fault whose reader releases its lock after k chunks: whether the k-th chunk got
 * through before the fault is the pipe's read-ahead, so whether the release happened (and which reader's
 * `closed` saw the error) is too.
 */
function releaseRacesFault(p: Program, origin: number): boolean {
  return isPiped(p) && origin !== Number.POSITIVE_INFINITY && p.consumer.kind === "reader" &&
    p.consumer.releaseAt !== undefined;
}

/**
 * After a pipe with preventCancel fails, the program cancels the pipe's input itself (interpret.ts). When a tee
 * is upstream, that cancel settles at once if the pipe had read the branch to its end, and stays pending (until
 * the other branch is cancelled too) if not: the pipe's read-ahead again, so it is not compared (seed 290742786).
 */
function followUpCancelRaces(p: Program, channel: string): boolean {
  const m = /^p(\d+)$/.exec(channel);
  return m !== null && p.stages.slice(0, Number(m[1])).some((st) => st.kind === "tee");
}

/**
 * The same read-ahead decides whether a pipe with a tee upstream settles at all when a fault makes it cancel
 * its input (no preventCancel): the tee branch's cancel settles at once if the pipe had read it to its end,
 * and stays pending until the other branch is cancelled if not, and the pipe waits for it. So a pipe that
 * settled in one run and is still pending in the other is not a difference (seed 408013503); how it settles
 * when both do is still compared.
 */
function withoutLonePipeSettle(a: string[], b: string[], p: Program, channel: string): [string[], string[]] {
  const settles = (events: string[]): boolean => events.some((e) => e.startsWith("pipe:"));
  if (!followUpCancelRaces(p, channel) || settles(a) === settles(b)) return [a, b];
  const drop = (events: string[]): string[] => events.filter((e) => !e.startsWith("pipe:"));
  return [drop(a), drop(b)];
}

function normalizeSettled(settled: readonly string[], channel: string, p: Program, origin: number): string[] {
  let out = channel === "out" && releaseRacesFault(p, origin)
    ? settled.filter((e) => !e.startsWith("closed"))
    : [...settled];
  if (followUpCancelRaces(p, channel)) out = out.filter((e) => !e.startsWith("cancel:"));
  return out.sort();
}

function normalizeEvents(
  events: readonly string[],
  channel: string,
  n: Normalization,
  piped: boolean,
  releaseRaces: boolean,
): string[] {
  let out = [...events];
  if (releaseRaces && channel === "out") out = out.filter((e) => e !== "reacquired");
  if (n.pullCount && channel === "src") out = out.filter((e) => !PULL_EVENTS.test(e));
  if (n.byteBoundaries) out = out.map((e) => e.replace(/view\(0\/\d+\)/, "view(0)"));
  // A reader that asks for a batch of k reads at once gets one end event per read that found the stream
  // errored or closed: k minus the chunks still in that batch. In a piped program, how many chunks got
  // through before a fault is the pipe's read-ahead (left to the implementation), so runs of the same end
  // event count once.
  if (piped) out = out.filter((e, i) => !(e.startsWith("end:") && e === out[i - 1]));
  return out;
}

/**
 * What a piped program leaves to the implementation, on top of a deviation's normalization: with a byte
 * source, whether a pipe's read is pending when pull() runs decides between a byobRequest (autoAllocate) and
 * enqueue(), so chunk boundaries and the source's pull()/respond() calls follow the pipe's pace.
 */
function pipedNormalization(p: Program, n: Normalization): Normalization {
  if (!isPiped(p) || p.source.kind !== "bytes") return n;
  return { ...n, byteBoundaries: true, pullCount: true };
}

/** Differences between ours and native that the standard does not allow. */
export function differences(
  p: Program,
  ours: Outcome,
  native: Outcome,
  n: Normalization = {},
  label = "native",
): string[] {
  const other = `${label}:`.padEnd(7);
  const problems: string[] = [];
  if (n.skip) return problems;
  const piped = isPiped(p);
  n = pipedNormalization(p, n);
  const origin = piped ? faultOrigin(p) : Number.NEGATIVE_INFINITY;
  const compareChunks = !piped || origin === Number.POSITIVE_INFINITY;
  const releaseRaces = releaseRacesFault(p, origin);
  const names = [...new Set([...Object.keys(ours.channels), ...Object.keys(native.channels)])].sort();
  for (const name of names) {
    const a = ours.channels[name] ?? EMPTY;
    const b = native.channels[name] ?? EMPTY;
    const exact = !piped || position(p, name) >= origin || name === "crash";
    const [ea, eb] = withoutLonePipeSettle(
      normalizeEvents(a.events, name, n, piped, releaseRaces),
      normalizeEvents(b.events, name, n, piped, releaseRaces),
      p,
      name,
    );
    if (exact && !same(ea, eb)) {
      problems.push(`${name} events differ:\n      ours:   ${ea.join(" | ")}\n      ${other} ${eb.join(" | ")}`);
    }
    const sa = normalizeSettled(a.settled, name, p, origin);
    const sb = normalizeSettled(b.settled, name, p, origin);
    if (exact && !same(sa, sb)) {
      problems.push(
        `${name} promises settled differently:\n      ours:   ${sa.join(" | ")}\n      ${other} ${sb.join(" | ")}`,
      );
    }
    if (compareChunks && n.byteBoundaries && p.source.kind === "bytes") {
      if (!same(a.units.map(String), b.units.map(String))) {
        problems.push(`${name} bytes differ:\n      ours:   ${short(a.units)}\n      ${other} ${short(b.units)}`);
      }
    } else if (compareChunks && !same(a.chunks, b.chunks)) {
      problems.push(
        `${name} chunks differ:\n      ours:   ${a.chunks.join(" ")}\n      ${other} ${b.chunks.join(" ")}`,
      );
    }
  }
  if (ours.stalled !== native.stalled) problems.push(`stalled: ours ${ours.stalled}, ${label} ${native.stalled}`);
  const ua = [...ours.unhandled].sort();
  const ub = [...native.unhandled].sort();
  if (!same(ua, ub)) problems.push(`unhandled rejections differ: ours [${ua.join(", ")}], ${label} [${ub.join(", ")}]`);
  return problems;
}

/** Global interleaving differences (information only, see --strict). */
export function orderDifferences(ours: Outcome, native: Outcome): string[] {
  const n = Math.max(ours.log.length, native.log.length);
  for (let i = 0; i < n; i++) {
    if (ours.log[i] !== native.log[i]) {
      const from = Math.max(0, i - 3);
      return [
        `global order differs at entry ${i}:\n      ours:   ${ours.log.slice(from, i + 4).join(" | ")}\n      native: ${
          native.log.slice(from, i + 4).join(" | ")
        }`,
      ];
    }
  }
  return [];
}
