import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (pkg: string) => fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url));

export default defineConfig({
  // Tests run against source: the workspace packages resolve to their src/ entry points.
  resolve: {
    alias: {
      '@politely/core': src('core'),
      '@politely/got': src('got-hook'),
      '@politely/fetch': src('fetch'),
      '@politely/crawlee': src('crawlee-plugin'),
    },
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
