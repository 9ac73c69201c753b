/**
 * A reference driver straight on the core facade and Node's fetch, following redirects by hand and
 * admitting every hop. It tests the table itself: a row that fails here is a wrong row, not an adapter bug.
 */
import { createPoliteness, getDisallowedDecision, readPageDirectives } from '@politely/core';
import { adapterKit, responseVerdict } from '@politely/core/adapter';
import { type BehaviourDriver, readPage, type VisitOutcome, visitAll } from './driver.js';

const MAX_REDIRECTS = 5;

export const referenceDriver: BehaviourDriver = {
  name: 'reference (core facade + fetch)',
  async run(run) {
    const { options } = run;
    const politeness = createPoliteness(options);
    const visit = async (url: string): Promise<VisitOutcome> => {
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
        const body = await response.text();
        const location = response.headers.get('location');
        if (response.status >= 300 && response.status < 400 && location) {
          target = new URL(location, target).href;
          continue;
        }
        await politeness.observeResponse(target, response.status, response.headers.get('retry-after'), {
          headers: response.headers,
        });
        const withheld = responseVerdict(decision, { status: response.status, headers: response.headers });
        if (withheld) return { url, result: 'skipped', reason: withheld.reason };
        if (!run.scenario.pageRules) return { url, result: 'fetched' };
        return readPage(url, readPageDirectives({ headers: response.headers, body }, politeness), body);
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
