/**
 * The compiled-rules cache is bounded by bytes (issue 10, item 1): origins each serving a hostile
 * ~500 KB robots.txt of ~20,000 distinct wildcard rules go through `check`, and the heap after GC
 * stays under the byte budget plus a fixed overhead, while the count bound (10,000 origins) is never
 * reached. The full 10,000 origins with the default 256 MiB budget is `npm run bench -- memory`.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { createPoliteness } from '../../packages/core/src/index.js';
import { hostileFetch } from '../helpers/hostile-robots.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** Heap in use after a full GC, typed arrays' buffers included (they live outside the JS heap). */
function heapAfterGc(): number {
  gc();
  gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

const MiB = 1024 * 1024;
const BUDGET = 16 * MiB;
/** Code, the last body being parsed, counters: what a run needs whatever the budget. */
const FIXED_OVERHEAD = 16 * MiB;
const ORIGINS = 40;

describe('memory budget of the compiled-rules cache', () => {
  it(`${ORIGINS} origins of hostile 500 KB robots.txt stay within ${BUDGET / MiB} MiB + ${FIXED_OVERHEAD / MiB} MiB`, async () => {
    const { fetch, requests } = hostileFetch();
    const politeness = createPoliteness({
      userAgent: 'PoliteBot/1.0',
      scheduler: 'memory',
      logger: false,
      memory: { budgetBytes: BUDGET },
      robots: { fetch },
    });
    const before = heapAfterGc();
    let peak = 0;
    for (let i = 0; i < ORIGINS; i++) {
      const decision = await politeness.check(`http://o${i}.example/o${i}/page`);
      expect(decision.source).toBe('robots.txt');
      if (i % 10 === 9) peak = Math.max(peak, heapAfterGc() - before);
    }
    peak = Math.max(peak, heapAfterGc() - before);
    expect(peak).toBeLessThan(BUDGET + FIXED_OVERHEAD);
    // Evicted by bytes (the count bound is 10,000): the first origin is fetched again; the last is still in memory.
    await politeness.check('http://o0.example/again');
    await politeness.check(`http://o${ORIGINS - 1}.example/again`);
    expect(requests.get('http://o0.example')).toBe(2);
    expect(requests.get(`http://o${ORIGINS - 1}.example`)).toBe(1);
    expect(politeness.stats().cache.memoryHits).toBeGreaterThanOrEqual(1);
    await politeness.close();
    console.log(
      `rules budget: ${ORIGINS} hostile origins, heap growth after GC ${(peak / MiB).toFixed(1)} MiB (budget ${BUDGET / MiB} MiB)`,
    );
  }, 120_000);

  // Issue 35.3: Content-Usage lines were compiled (one matcher each) on every allowed check and left
  // out of the estimate: 40 such origins grew the heap some 500 MiB under this budget.
  it.each([
    ['without a purpose', undefined],
    ['with purpose ai-train', 'ai-train'],
  ] as const)(
    `${ORIGINS} origins of 500 KB of Content-Usage lines stay within the same bound, %s`,
    async (_, purpose) => {
      const { fetch, requests } = hostileFetch(500_000, 'usage');
      const politeness = createPoliteness({
        userAgent: 'PoliteBot/1.0',
        scheduler: 'memory',
        logger: false,
        memory: { budgetBytes: BUDGET },
        robots: { fetch },
        // A TDM purpose also fetches each origin's tdmrep.json, paced as robots.txt is: the default 1 s
        // after it, 40 s of waiting on a test about memory.
        pacing: { minDelayMs: 0 },
        ...(purpose !== undefined ? { purpose } : {}),
      });
      const before = heapAfterGc();
      let peak = 0;
      for (let i = 0; i < ORIGINS; i++) {
        const decision = await politeness.check(`http://o${i}.example/o${i}/page`);
        expect(decision.source).toBe('robots.txt');
        if (i % 10 === 9) peak = Math.max(peak, heapAfterGc() - before);
      }
      peak = Math.max(peak, heapAfterGc() - before);
      expect(peak).toBeLessThan(BUDGET + FIXED_OVERHEAD);
      await politeness.check('http://o0.example/again');
      expect(requests.get('http://o0.example')).toBe(2);
      await politeness.close();
      console.log(
        `usage budget (${purpose ?? 'no purpose'}): ${ORIGINS} origins, heap growth after GC ${(peak / MiB).toFixed(1)} MiB (budget ${BUDGET / MiB} MiB)`,
      );
    },
    120_000,
  );
});
