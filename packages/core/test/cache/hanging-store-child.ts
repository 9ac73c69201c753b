/**
 * Run by hanging-store.test.ts in a process of its own: a check through a store whose calls never
 * settle and hold no handle (no socket, no timer), so only politely's store timeout can keep the
 * process alive until it answers. Prints the verdict's reason.
 */
import { createPoliteness } from '../../src/index.js';

const never = () => new Promise<never>(() => {});
const politeness = createPoliteness({
  userAgent: 'HangingStoreTest/1.0 (+https://example.test/bot)',
  store: { get: never, set: never, delete: never },
  robots: { fetch: async () => new Response('User-agent: *\nDisallow: /private\n', { status: 200 }) },
});
const decision = await politeness.check('http://hanging-store.test/private/page');
console.log(decision.reason);
await politeness.close();
