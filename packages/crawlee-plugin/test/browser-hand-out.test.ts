/**
 * When a browser crawler gets its next request: a browser opens a page between taking a request and
 * navigating, so once the crawler has opened a page, a request is handed out a little before its host
 * is due (HAND_OUT_LEAD_MS) and the page guard holds the navigation until the slot. An HTTP crawler
 * never opens a page, and gets a request only when its host is due. The slot itself is the guard's
 * (wire tests: browser-pacing.test.ts, browser-favicon.test.ts); here the request manager is asked
 * directly, with Date.now() moved by hand (timers stay real), so a loaded machine cannot blur the cases.
 */

import type { Request } from '@crawlee/core';
import { createPoliteness } from '@politely/core';
import { adapterKit } from '@politely/core/adapter';
import { withPoliteness } from '@politely/crawlee';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { routeOnlyPage } from '../../../test/helpers/stand-in-pages.js';
import { HAND_OUT_LEAD_MS } from '../src/browser-wiring.js';
import { crawleeTestEnv } from './harness.js';

const DELAY_MS = 3000;
const closing: (() => Promise<void>)[] = [];
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
});
afterEach(async () => {
  vi.useRealTimers();
  for (const close of closing.splice(0)) await close();
});

/** Date.now() moves to `at`; the manager's frontier and core's scheduler read it. */
const moveTo = (at: number) => vi.setSystemTime(at);

interface Manager {
  fetchNextRequest(): Promise<Request | null>;
  markRequestHandled(request: Request): Promise<unknown>;
  sent(decision: unknown, at?: number): void;
}

/** A polite crawler's request manager over a queue of two pages of one host, the first one sent now. */
async function oneSent() {
  const politeness = createPoliteness({
    userAgent: 'LeadBot/1.0',
    pacing: { minDelayMs: DELAY_MS },
    robots: { fetch: async () => new Response('User-agent: *\nAllow: /\n') },
  });
  const env = await crawleeTestEnv('hand-out');
  closing.push(async () => {
    await politeness.close();
    await env.requestQueue.drop();
  });
  await env.requestQueue.addRequests(['http://a.test/1', 'http://a.test/2']);
  const options = withPoliteness(
    { requestQueue: env.requestQueue, log: env.log, requestHandler: async () => {} },
    politeness,
  ) as unknown as {
    requestQueue: Manager;
    browserPoolOptions?: { postPageCreateHooks?: ((page: object) => unknown)[] };
  };
  const manager = options.requestQueue;
  let first: Request | null = null;
  // The first request waits for its origin's robots.txt, then a delay after that fetch (parked meanwhile).
  for (let tries = 0; first === null && tries < 1000; tries++) {
    first = await manager.fetchNextRequest();
    if (first === null) {
      await new Promise((resolve) => setTimeout(resolve, 1));
      moveTo(Date.now() + 20);
    }
  }
  expect(first?.url).toBe('http://a.test/1');
  // As the HTTP client or the page guard does when the request goes out.
  const decision = await politeness.check('http://a.test/1');
  const pass = await adapterKit(politeness).pass(decision);
  const sentAt = Date.now();
  await pass.sent(sentAt);
  manager.sent(decision, sentAt);
  pass.release();
  await manager.markRequestHandled(first as Request);
  const openPage = async () => {
    for (const hook of options.browserPoolOptions?.postPageCreateHooks ?? []) await hook(routeOnlyPage());
  };
  // The host's next slot, as core's scheduler gives it (the delay plus core's margin).
  const slotAt = await adapterKit(politeness).nextStart(decision);
  expect(slotAt).toBeGreaterThanOrEqual(sentAt + DELAY_MS);
  return { manager, slotAt, openPage };
}

describe('browser crawlers: a request handed out before its host is due, its navigation held by the guard', () => {
  it('once the crawler opened a page, the next request of a host comes within the lead of its slot', async () => {
    const { manager, slotAt, openPage } = await oneSent();
    await openPage();
    moveTo(slotAt - HAND_OUT_LEAD_MS - 1);
    expect(await manager.fetchNextRequest()).toBeNull();
    moveTo(slotAt - HAND_OUT_LEAD_MS);
    expect((await manager.fetchNextRequest())?.url).toBe('http://a.test/2');
  }, 30_000);

  it('a crawler that opened no page gets nothing while its host is not due, and the request at its slot', async () => {
    const { manager, slotAt } = await oneSent();
    expect(await manager.fetchNextRequest()).toBeNull();
    moveTo(slotAt - 1);
    expect(await manager.fetchNextRequest()).toBeNull();
    moveTo(slotAt);
    expect((await manager.fetchNextRequest())?.url).toBe('http://a.test/2');
  }, 30_000);
});
