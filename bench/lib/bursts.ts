/**
 * The push pattern of the batched-read scenarios (React, network): a producer that delivers chunks in bursts,
 * one burst per task. Shared by every implementation's copy of the scenarios and by the floor.
 * @module
 */

/**
 * Calls `push(i)` for i = 0 … count - 1, `size` calls per task (a MessageChannel message each), then `end()`.
 * `afterBurst`, when given, runs at the end of every task (the floor wakes its consumer there).
 */
export function pushInBursts(
  count: number,
  size: number,
  push: (i: number) => void,
  end: () => void,
  afterBurst?: () => void,
): void {
  const channel = new MessageChannel();
  let i = 0;
  channel.port1.onmessage = () => {
    const stop = Math.min(count, i + size);
    while (i < stop) push(i++);
    if (i === count) {
      end();
      channel.port1.close();
    } else {
      channel.port2.postMessage(null);
    }
    afterBurst?.();
  };
  channel.port2.postMessage(null);
}
