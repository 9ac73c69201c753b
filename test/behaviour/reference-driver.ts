/**
 * A reference driver straight on the core facade and Node's fetch, following redirects by hand and
 * admitting every hop. It tests the table itself: a row that fails here is a wrong row, not an adapter bug.
 */

import { createPoliteness, getDisallowedDecision } from '@politely/core';
import { adapterKit } from '@politely/core/adapter';
import { type BehaviourDriver, visitAll } from './driver.js';
import type { Outcome } from './table.js';

const MAX_REDIRECTS = 5;

export const referenceDriver: BehaviourDriver = {
  name: 'reference (core facade + fetch)',
  async run(run) {
    const { options } = run;
    const politeness = createPoliteness(options);
    const visit = async (url: string): Promise<Outcome> => {
      let target = url;
      for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
        let decision: Awaited<ReturnType<typeof politeness.admit>>;
        try {
          decision = await politeness.admit(target);
        } catch (error) {
          const reason = getDisallowedDecision(error)?.reason;
          if (reason === undefined || reason === 'allowed') throw error;
          return { url, result: 'skipped', reason };
        }
        const response = await fetch(target, { redirect: 'manual' });
        // The request surely left by the time its response is here: the host's next slot counts from
        // then, so a send that ran late (a loaded machine) cannot crowd the one after it.
        await adapterKit(politeness).markSent(decision);
        await response.arrayBuffer();
        const location = response.headers.get('location');
        if (response.status >= 300 && response.status < 400 && location) {
          target = new URL(location, target).href;
          continue;
        }
        await politeness.observeResponse(target, response.status, response.headers.get('retry-after'));
        return { url, result: 'fetched' };
      }
      throw new Error(`more than ${MAX_REDIRECTS} redirects from ${url}`);
    };
    try {
      return await visitAll(run, visit);
    } finally {
      await politeness.close();
    }
  },
};
