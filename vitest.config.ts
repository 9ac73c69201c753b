import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import type { TestSpecification } from 'vitest/node';
import { BaseSequencer } from 'vitest/node';

/**
 * Files that spend a long stretch waiting (a browser, a real Crawl-delay judged at the wire, Redis
 * failover, the corpus): started first, so the run does not end on one of them alone. Vitest's own
 * order (longest first from its cache) still decides among the rest, and among these when it has a cache.
 */
const SLOW_FIRST = /browser|playwright|puppeteer|corpus|fleet|wire|pacing|pack\.test|proxy|in-flight/;

class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const slow = (spec: TestSpecification) => (SLOW_FIRST.test(spec.moduleId) ? 0 : 1);
    // Array.prototype.sort is stable: within each group the base order stays.
    return sorted.sort((a, b) => slow(a) - slow(b));
  }
}

const src = (pkg: string) => fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url));
/** `@politely/core/engine` and the other subpaths of the core (package.json `exports`). */
const coreSubpaths = fileURLToPath(new URL('./packages/core/src/public/', import.meta.url));

export default defineConfig({
  // Tests run against source: the workspace packages resolve to their src/ entry points.
  resolve: {
    // Exact matches: a plain '@politely/core' key would also catch '@politely/core/engine'.
    alias: [
      { find: /^@politely\/core$/, replacement: src('core') },
      {
        find: /^@politely\/core\/(engine|fetch|scheduler|cache|browser|frontier|adapter)$/,
        replacement: `${coreSubpaths}$1.ts`,
      },
      { find: /^@politely\/got$/, replacement: src('got-hook') },
      { find: /^@politely\/fetch$/, replacement: src('fetch') },
      { find: /^@politely\/crawlee$/, replacement: src('crawlee-plugin') },
    ],
  },
  test: {
    // `extends: true`: every project inherits the aliases and time limits set here.
    projects: [
      { extends: true, test: { name: 'core', include: ['packages/core/test/**/*.test.ts'] } },
      { extends: true, test: { name: 'got', include: ['packages/got-hook/test/**/*.test.ts'] } },
      { extends: true, test: { name: 'fetch', include: ['packages/fetch/test/**/*.test.ts'] } },
      { extends: true, test: { name: 'crawlee', include: ['packages/crawlee-plugin/test/**/*.test.ts'] } },
      { extends: true, test: { name: 'cross', include: ['test/**/*.test.ts'] } },
    ],
    // Deletes the Redis keys each test file made (test/helpers/redis.ts, uniquePrefix).
    setupFiles: ['test/helpers/redis-cleanup.ts'],
    // Most files wait (a browser, a Crawl-delay judged at the wire, Redis failover) far more than they
    // compute: with vitest's default of one worker on 2 cores the suite used 42% of the CPU. Five files
    // run side by side. What made that unsafe is fixed at the source: browser-in-flight's host waits for
    // its two pages instead of hoping a loaded machine opens the second tab within 1.5 s; the corpus
    // differential's reference costs half the CPU; CPU burners stand down on a machine already busy
    // (test/helpers/wire.ts). Every file has its own loopback hosts on ports of its own, captures
    // filtered by address and port, Redis keys under a prefix of its own and temp folders from mkdtemp.
    // `vitest run --maxWorkers=1` still runs one file at a time.
    maxWorkers: 5,
    sequence: { sequencer: SlowFirstSequencer },
    // Generous for a browser launch while four other files run beside it on 2 cores; a time limit,
    // not an assertion.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
