/** For pacing tests on a fake clock: when a facade's reservations start. */
import type { Decision, Politeness } from '../../src/index.js';
import { adapterKit } from '../../src/public/adapter.js';
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
    // The kit's pass is the one blocking slot; its place in flight is given back at once.
    const pending = adapterKit(p)
      .pass(decision)
      .then((pass) => {
        pass.release();
        return { startAt: clock.now() };
      });
    let settled = false;
    void pending.then(() => {
      settled = true;
    });
    while (!settled) await clock.advance(10);
    at.push((await pending).startAt);
  }
  return at;
}
