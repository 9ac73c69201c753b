/** The behaviour-table driver for @politely/got: one polite got client per scenario. */
import { readPageDirectives } from '@politely/core';
import { getDisallowedDecision, politeGot, politenessOf } from '@politely/got';
import got from 'got';
import { type BehaviourDriver, readPage, type VisitOutcome, visitAll } from './driver.js';

export const gotDriver: BehaviourDriver = {
  name: '@politely/got',
  async run(run) {
    const { options } = run;
    const extendOptions = politeGot(options);
    const client = got.extend(extendOptions, { retry: { limit: 0 }, throwHttpErrors: false });
    const visit = async (url: string): Promise<VisitOutcome> => {
      // A withheld page's body bytes would reach the caller here, before the error: none may.
      let streamed = 0;
      try {
        if (run.scenario.stream) {
          for await (const chunk of client.stream(url)) streamed += (chunk as Buffer).length;
          return { url, result: 'fetched' };
        }
        const response = await client(url);
        // The got response as it is: headers, rawHeaders (several X-Robots-Tag lines apart), body.
        if (run.scenario.pageRules)
          return readPage(url, readPageDirectives(response, options.userAgent), response.body);
        return { url, result: 'fetched' };
      } catch (error) {
        const reason = getDisallowedDecision(error)?.reason;
        if (reason === undefined || reason === 'allowed') throw error;
        if (streamed > 0)
          throw new Error(`${url}: ${streamed} body bytes reached the caller before the refusal`);
        return { url, result: 'skipped', reason };
      }
    };
    try {
      return await visitAll(run, visit);
    } finally {
      await politenessOf(extendOptions).close();
    }
  },
};
