/** The behaviour-table driver for @politely/got: one polite got client per scenario. */
import { getDisallowedDecision, politeGot, politenessOf } from '@politely/got';
import got from 'got';
import { type BehaviourDriver, visitAll } from './driver.js';
import type { Outcome } from './table.js';

export const gotDriver: BehaviourDriver = {
  name: '@politely/got',
  async run(run) {
    const { options } = run;
    const extendOptions = politeGot(options);
    const client = got.extend(extendOptions, { retry: { limit: 0 }, throwHttpErrors: false });
    const visit = async (url: string): Promise<Outcome> => {
      try {
        await client(url);
        return { url, result: 'fetched' };
      } catch (error) {
        const reason = getDisallowedDecision(error)?.reason;
        if (reason === undefined || reason === 'allowed') throw error;
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
