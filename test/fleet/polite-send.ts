/**
 * How a fleet worker that sends on its own (not through @politely/got or @politely/fetch) stays polite
 * when a process can be descheduled between its slot and its send: the host's in-flight place is held
 * from before the slot until the real send has been reported. Another process's slot is then reserved
 * after this send is known, so it is spaced from what the server saw, not from the slot this process
 * took (which is all a fleet can know while the send is still pending).
 */
import { adapterKit } from '@politely/core/adapter';
import type { Decision, Politeness } from '../../packages/core/src/index.js';
import { sendGet } from '../helpers/send.js';

export async function sendPolitely(
  polite: Politeness,
  url: string,
): Promise<{ readonly decision: Decision; readonly sentAt: number }> {
  const pass = await adapterKit(polite).pass(await polite.check(url));
  try {
    const { sentAt } = await sendGet(url);
    await pass.sent(sentAt);
    return { decision: pass.decision, sentAt };
  } finally {
    pass.release();
  }
}
