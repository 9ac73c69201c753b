/**
 * How a fleet worker that sends on its own (not through @politely/got or @politely/fetch) stays polite
 * when a process can be descheduled between its slot and its send: the host's in-flight place is held
 * from before the slot until the real send has been reported. Another process's slot is then reserved
 * after this send is known, so it is spaced from what the server saw, not from the slot this process
 * took (which is all a fleet can know while the send is still pending).
 */
import type { Decision, Politeness } from '../../packages/core/src/index.js';
import { sendGet } from '../helpers/send.js';

export async function sendPolitely(
  polite: Politeness,
  url: string,
): Promise<{ readonly decision: Decision; readonly sentAt: number }> {
  const lease = await polite.acquireInFlight(await polite.check(url));
  try {
    const decision = await polite.admit(url);
    const { sentAt } = await sendGet(url);
    await polite.markSent(decision, { at: sentAt });
    return { decision, sentAt };
  } finally {
    lease.release();
  }
}
