/** The behaviour-table driver for @politely/fetch: one polite fetch per scenario, over Node's fetch. */
import { readPageDirectives } from '@politely/core';
import { getDisallowedDecision, politeFetch, politenessOf } from '@politely/fetch';
import { type BehaviourDriver, readPage, type VisitOutcome, visitAll } from './driver.js';

export const fetchDriver: BehaviourDriver = {
  name: '@politely/fetch',
  async run(run) {
    // The table never sets a robots.txt fetch; politeFetch's own `fetch` option is the fetch it wraps.
    const { robots: { fetch: _robotsFetch, ...robots } = {}, ...rest } = run.options;
    const options = { ...rest, robots };
    const fetch = politeFetch(options);
    const visit = async (url: string): Promise<VisitOutcome> => {
      try {
        const response = await fetch(url);
        // Read to the end, so the connection is free for the next page.
        const body = await response.text();
        if (!run.scenario.pageRules) return { url, result: 'fetched' };
        return readPage(
          url,
          readPageDirectives({ headers: response.headers, body }, options.userAgent),
          body,
        );
      } catch (error) {
        const reason = getDisallowedDecision(error)?.reason;
        if (reason === undefined || reason === 'allowed') throw error;
        return { url, result: 'skipped', reason };
      }
    };
    try {
      return await visitAll(run, visit);
    } finally {
      await politenessOf(fetch).close();
    }
  },
};
