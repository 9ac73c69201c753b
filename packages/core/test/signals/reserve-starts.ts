/** For pacing tests on a fake clock: when a facade's reservations start. */
import type { Decision, Politeness } from '../../src/index.js';
import type { FakeClock } from '../schedule/fake-clock.js';

/** Start times of `n` reservations in a row for one decision, each as soon as it is granted. */
export async function starts(
  p: Politeness,
  clock: FakeClock,
  decision: Decision,
  n: number,
): Promise<number[]> {
  const at: number[] = [];
  for (let i = 0; i < n; i++) {
    const pending = p.reserve(decision);
    let settled = false;
    void pending.then(() => {
      settled = true;
    });
    while (!settled) await clock.advance(10);
    at.push((await pending).startAt);
  }
  return at;
}
