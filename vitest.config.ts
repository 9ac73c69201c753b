import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

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
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
