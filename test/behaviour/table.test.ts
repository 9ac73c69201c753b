/**
 * The table must be able to fail: a driver that ignores robots.txt and pacing fails every row.
 * (reference.test.ts shows the other half: a driver straight on the core facade passes every row.)
 */
import { describe, expect, it } from 'vitest';
import { type BehaviourDriver, runScenario } from './driver.js';
import { scenarios } from './table.js';

const impoliteDriver: BehaviourDriver = {
  name: 'impolite (plain fetch, no robots.txt, no pacing)',
  async run({ urls }) {
    return Promise.all(
      urls.map(async (url) => {
        const response = await fetch(url);
        await response.arrayBuffer();
        return { url, result: 'fetched' as const };
      }),
    );
  },
};

describe('behaviour table: every row catches an impolite driver', () => {
  it.each(scenarios.map((scenario) => [scenario.name, scenario] as const))('%s', async (_name, scenario) => {
    await expect(runScenario(impoliteDriver, scenario)).rejects.toMatchObject({ name: 'AssertionError' });
  });
});
