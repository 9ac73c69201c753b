import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (pkg: string) => fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url));

// Tests run against source: the workspace packages resolve to their src/ entry points.
const alias = {
  '@politely/core': src('core'),
  '@politely/got': src('got-hook'),
  '@politely/crawlee': src('crawlee-plugin'),
};

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      { resolve: { alias }, test: { name: 'core', include: ['packages/core/test/**/*.test.ts'] } },
      { resolve: { alias }, test: { name: 'got', include: ['packages/got-hook/test/**/*.test.ts'] } },
      {
        resolve: { alias },
        test: { name: 'crawlee', include: ['packages/crawlee-plugin/test/**/*.test.ts'] },
      },
      { resolve: { alias }, test: { name: 'cross', include: ['test/**/*.test.ts'] } },
    ],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
