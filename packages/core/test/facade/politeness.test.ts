import { afterEach, describe, expect, it } from 'vitest';
import { type Route, startHost, type TestHost, text } from '../../../../test/helpers/hosts.js';
import { mergeOptions, type OptionOverrides } from '../../../../test/helpers/options.js';
import { sendGet } from '../../../../test/helpers/send.js';
import { judgePacing, startWireCapture } from '../../../../test/helpers/wire.js';
import {
  createPoliteness,
  getDisallowedDecision,
  isRobotsDisallowedError,
  isWaitTooLongError,
  type PolitelyEvent,
  type Politeness,
} from '../../src/index.js';
import { adapterKit, emptyStats } from '../../src/public/adapter.js';

const hosts: TestHost[] = [];
const instances: Politeness[] = [];
afterEach(async () => {
  await Promise.all(instances.splice(0).map((p) => p.close()));
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

async function host(ip: string, routes: Record<string, Route>) {
  const started = await startHost({ ip, routes, fallback: text('<html>page</html>') });
  hosts.push(started);
  return started;
}

function polite(options: OptionOverrides = {}) {
  const instance = createPoliteness(
    mergeOptions(
      {
        userAgent: 'FooBot/2.0 (+https://example.test)',
        pacing: { minDelayMs: 0 },
        logger: false,
      },
      options,
    ),
  );
  instances.push(instance);
  return instance;
}

const ROBOTS = `# test site
User-agent: *
Disallow: /private
Allow: /private/open

User-agent: FooBot
Disallow: /foo-only
Crawl-delay: 0.2
Sitemap: /sitemap.xml
`;

describe('createPoliteness: decisions', () => {
  it('explains every verdict with its reason, source and deciding line', async () => {
    const site = await host('127.0.0.21', { '/robots.txt': text(ROBOTS) });
    const p = polite();
    const blocked = await p.check(site.url('/foo-only/x'));
    expect(blocked).toMatchObject({
      allowed: false,
      reason: 'disallowed',
      source: 'robots.txt',
      productToken: 'FooBot',
      robotsUrl: site.url('/robots.txt'),
      rule: { directive: 'disallow', pattern: '/foo-only', line: 7 },
      crawlDelayMs: 200,
      delayMs: 220, // Crawl-delay plus the 10% safety margin
      hostKey: '127.0.0.21',
    });
    // FooBot has its own group, so the * group's Disallow: /private does not apply (RFC 9309 2.2.1).
    expect(await p.check(site.url('/private/x'))).toMatchObject({ allowed: true, reason: 'allowed' });
    expect((await p.check(site.url('/private/x'))).rule).toBeUndefined();
    expect(site.requests('/robots.txt')).toHaveLength(1);
  });

  it('matches the product token of userAgent, or productToken when given', async () => {
    const site = await host('127.0.0.21', { '/robots.txt': text(ROBOTS) });
    const other = polite({ userAgent: 'Mozilla/5.0 (compatible; OtherBot)', productToken: 'OtherBot' });
    expect(await other.check(site.url('/private/x'))).toMatchObject({ allowed: false, rule: { line: 3 } });
    expect(await other.check(site.url('/private/open'))).toMatchObject({ allowed: true, rule: { line: 4 } });
    expect(site.requests('/robots.txt')[0]?.headers['user-agent']).toBe('Mozilla/5.0 (compatible; OtherBot)');
  });

  it('allows all when robots.txt is 404 and disallows all when it answers 503 (RFC 9309 2.3.1.3/2.3.1.4)', async () => {
    const missing = await host('127.0.0.22', { '/robots.txt': text('nope', 404) });
    const failing = await host('127.0.0.23', { '/robots.txt': text('busy', 503) });
    const p = polite();
    expect(await p.check(missing.url('/any'))).toMatchObject({ allowed: true, source: 'unavailable' });
    expect(await p.check(failing.url('/any'))).toMatchObject({ allowed: false, reason: 'unreachable' });
    const lenient = polite({ robots: { onUnreachable: 'allow' } });
    expect(await lenient.check(failing.url('/any'))).toMatchObject({ allowed: true, source: 'unreachable' });
  });

  it('never blocks /robots.txt itself and never fetches anything to say so', async () => {
    const site = await host('127.0.0.21', { '/robots.txt': text('User-agent: *\nDisallow: /\n') });
    const p = polite();
    expect(await p.check(site.url('/robots.txt'))).toMatchObject({
      allowed: true,
      source: 'robots.txt-itself',
    });
    expect(site.log).toHaveLength(0);
    expect(await p.check(site.url('/x'))).toMatchObject({ allowed: false });
  });

  it('skips a host whose Crawl-delay is above maxCrawlDelayMs, or caps it on request', async () => {
    const slow = await host('127.0.0.24', { '/robots.txt': text('User-agent: *\nCrawl-delay: 120\n') });
    expect(await polite({ pacing: { maxCrawlDelayMs: 30_000 } }).check(slow.url('/a'))).toMatchObject({
      allowed: false,
      reason: 'crawl-delay-too-long',
      crawlDelayMs: 120_000,
    });
    expect(
      await polite({ pacing: { maxCrawlDelayMs: 30_000, crawlDelayAboveMax: 'cap' } }).check(slow.url('/a')),
    ).toMatchObject({
      allowed: true,
      delayMs: 30_050,
    });
    expect(
      await polite({ pacing: { respectCrawlDelay: false, minDelayMs: 250 } }).check(slow.url('/a')),
    ).toMatchObject({
      allowed: true,
      delayMs: 275,
    });
  });

  it('answers checkCached without I/O only once the origin is known', async () => {
    const site = await host('127.0.0.21', { '/robots.txt': text(ROBOTS) });
    const p = polite();
    expect(adapterKit(p).checkCached(site.url('/foo-only'))).toBeUndefined();
    adapterKit(p).prefetch(site.url('/anything'));
    await expect.poll(() => adapterKit(p).checkCached(site.url('/foo-only'))?.allowed).toBe(false);
    expect(site.requests('/robots.txt')).toHaveLength(1);
  });

  it('rejects non-http URLs with a TypeError', async () => {
    const p = polite();
    await expect(p.check('ftp://example.com/x')).rejects.toThrow(TypeError);
    await expect(p.check('not a url')).rejects.toThrow(TypeError);
  });
});

describe('createPoliteness: admission and pacing', () => {
  it('nextStart says when a host is due, for a decision or a URL, without reserving', async () => {
    let now = 1_000_000;
    const p = polite({ pacing: { minDelayMs: 1000 }, clock: { now: () => now, sleep: async () => {} } });
    // /robots.txt is decided without I/O, so no server is needed here.
    const decision = adapterKit(p).checkCached('http://a.test/robots.txt');
    if (!decision) throw new Error('expected a decision for /robots.txt');
    expect(await adapterKit(p).nextStart(decision)).toBe(now);
    expect(await adapterKit(p).nextStart('http://a.test/page')).toBe(now);
    expect(await adapterKit(p).tryReserve(decision)).toEqual({ ok: true, startAt: now });
    expect(await adapterKit(p).nextStart(new URL('http://a.test/other'))).toBe(now + decision.delayMs);
    expect(await adapterKit(p).nextStart('http://b.test/')).toBe(now);
    now += decision.delayMs;
    expect(await adapterKit(p).nextStart(decision)).toBe(now);
    expect(p.stats().reservations).toMatchObject({ immediate: 1, deferred: 0 });
  });

  /**
   * Sends every URL at once, as the adapters do: a place among the host's requests in flight, held
   * until the response, then the slot, and the real send reported as it happens. A caller stalled
   * between its slot and its send then holds the next one back. With a bare admit it could not: in CI
   * under load 15, a caller sent 330 ms after its slot, and so 0.6 ms before the next caller, whose
   * slot had come meanwhile. Any failure fails the test with its own error (not as a page missing
   * from the wire).
   */
  async function fetchAll(p: Politeness, urls: string[]) {
    const kit = adapterKit(p);
    return Promise.all(
      urls.map(async (url) => {
        const pass = await kit.pass(await p.check(url), { sendReported: true });
        let reported: Promise<void> | undefined;
        try {
          await sendGet(url, undefined, (at) => {
            reported = pass.sent(at);
          });
          await reported;
        } finally {
          pass.release();
        }
      }),
    );
  }

  it('admit rejects a disallowed URL with a readable error and never sends it', async () => {
    const site = await host('127.0.0.25', { '/robots.txt': text(ROBOTS) });
    const p = polite();
    const error = await p.admit(site.url('/foo-only/secret')).catch((e: unknown) => e);
    expect(isRobotsDisallowedError(error)).toBe(true);
    expect((error as { code: string }).code).toBe('ERR_ROBOTS_DISALLOWED');
    expect((error as Error).message).toContain('"Disallow: /foo-only" at line 7');
    expect(getDisallowedDecision(error)).toMatchObject({
      reason: 'disallowed',
      url: site.url('/foo-only/secret'),
    });
    expect(site.requests('/foo-only/secret')).toHaveLength(0);
  });

  it('spaces starts to one host by its Crawl-delay while another host runs freely (at the wire)', async () => {
    const slow = await host('127.0.0.26', { '/robots.txt': text('User-agent: *\nCrawl-delay: 0.3\n') });
    const fast = await host('127.0.0.27', { '/robots.txt': text('User-agent: *\nDisallow:\n') });
    const p = polite();
    const wire = await startWireCapture([slow, fast]);
    await Promise.all([
      fetchAll(
        p,
        [1, 2, 3, 4].map((i) => slow.url(`/page${i}`)),
      ),
      fetchAll(
        p,
        [1, 2, 3, 4, 5, 6].map((i) => fast.url(`/page${i}`)),
      ),
    ]);
    const requests = await wire.stop();
    const pacing = judgePacing(requests, 300);
    const slowPages = pacing.get(slow.ip);
    // As the site sees them: never closer than the Crawl-delay asked, with no tolerance.
    expect(slowPages?.times).toHaveLength(4);
    expect(slowPages?.violations).toEqual([]);
    const fastPages = pacing.get(fast.ip);
    expect(fastPages?.times).toHaveLength(6);
    // The fast host was not held back: all six of its pages went out before the slow host's last page.
    expect(fastPages?.times.at(-1)).toBeLessThan(slowPages?.times.at(-1) ?? 0);
  });

  it('counts the robots.txt fetch as a request to the host (minDelayMs after it, at the wire)', async () => {
    const site = await host('127.0.0.28', { '/robots.txt': text('User-agent: *\nDisallow:\n') });
    const p = polite({ pacing: { minDelayMs: 200 } });
    const wire = await startWireCapture([site]);
    await fetchAll(p, [site.url('/first')]);
    const requests = await wire.stop();
    expect(requests.map((r) => r.path)).toEqual(['/robots.txt', '/first']);
    expect(judgePacing(requests, 200, { includeRobotsTxt: true }).get(site.ip)?.violations).toEqual([]);
  });

  it('one host, one key: every spelling of one server shares one robots.txt fetch and one pace', async () => {
    const site = await host('127.0.0.32', { '/robots.txt': text('User-agent: *\nCrawl-delay: 10\n') });
    const p = polite();
    const spellings = [
      site.url('/a'),
      `http://127.0.0.32.:${site.port}/b`,
      `http://0x7f.0.0.32:${site.port}/c`,
      `http://2130706464:${site.port}/d`,
      `http://[::ffff:7f00:20]:${site.port}/e`,
      `http://[::FFFF:127.0.0.32]:${site.port}/f`,
    ];
    const decisions = await Promise.all(spellings.map((url) => p.check(url)));
    expect(new Set(decisions.map((d) => d.hostKey))).toEqual(new Set(['127.0.0.32']));
    expect(new Set(decisions.map((d) => d.robotsUrl))).toEqual(new Set([site.url('/robots.txt')]));
    expect(site.requests('/robots.txt')).toHaveLength(1);
    // robots.txt's fetch holds its host for the Crawl-delay it asks, as a page would: every spelling
    // waits for that one slot (a key of its own would be free at once).
    const slots = await Promise.all(decisions.map((decision) => adapterKit(p).tryReserve(decision)));
    const notBefore = new Set(slots.map((slot) => (slot.ok ? 'free' : slot.notBefore)));
    expect(notBefore.size).toBe(1);
    expect([...notBefore][0]).toBeGreaterThan(Date.now() + 9_000);
    expect(adapterKit(p).hostKey('http://Example.COM./x')).toBe(
      adapterKit(p).hostKey('http://example.com/y'),
    );
  });

  it('paces the robots.txt fetch like any other request: it waits for a backed-off host', async () => {
    const site = await host('127.0.0.33', { '/robots.txt': text('User-agent: *\nDisallow:\n') });
    const p = polite({ pacing: { minDelayMs: 300 } });
    const wire = await startWireCapture([site]);
    const backedOffAt = Date.now(); // the scheduler's clock, the kernel's capture clock
    await p.observeResponse(site.url('/x'), 503, '1');
    await p.admit(site.url('/page'));
    await fetch(site.url('/page')).then((r) => r.text());
    const requests = await wire.stop();
    expect(requests.map((r) => r.path)).toEqual(['/robots.txt', '/page']);
    // Retry-After: 1 holds the robots.txt request too, and the page keeps the delay after it.
    expect((requests[0]?.at ?? 0) - backedOffAt).toBeGreaterThanOrEqual(1000);
    expect(judgePacing(requests, 300, { includeRobotsTxt: true }).get(site.ip)?.violations).toEqual([]);
  });

  it('backs a host off after 429 with Retry-After, and rejects waits above maxWaitMs', async () => {
    const site = await host('127.0.0.29', { '/robots.txt': text('User-agent: *\nDisallow:\n') });
    const p = polite();
    await p.check(site.url('/')); // robots.txt known: a robots.txt fetch would itself wait for the backoff
    const events: PolitelyEvent[] = [];
    p.subscribe((e) => events.push(e));
    expect(await p.observeResponse(site.url('/x'), 429, '2')).toBe(2000);
    expect(await p.observeResponse(site.url('/x'), 200, null)).toBeUndefined();
    expect(events).toContainEqual({
      type: 'backoff',
      host: '127.0.0.29',
      ms: 2000,
      status: 429,
      cause: 'retry-after',
    });
    const error = await p.admit(site.url('/y'), { maxWaitMs: 500 }).catch((e: unknown) => e);
    expect(isWaitTooLongError(error)).toBe(true);
    expect((error as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(1500);
    const deferred = await adapterKit(p).tryReserve(await p.check(site.url('/y')));
    expect(deferred).toMatchObject({ ok: false });
    expect(site.requests('/y')).toHaveLength(0);
    expect(p.stats()).toMatchObject({ backoffs: 1, reservations: { tooLong: 1, deferred: 1 } });
  });

  it('markSent counts spacing from the real send: the next slot moves to send time + delay', async () => {
    const site = await host('127.0.0.32', { '/robots.txt': text('User-agent: *\nCrawl-delay: 5\n') });
    const p = polite();
    const decision = await p.check(site.url('/a'));
    // robots.txt's fetch holds the host for its Crawl-delay; a send long ago moves nothing.
    const held = await adapterKit(p).tryReserve(decision);
    expect(held.ok).toBe(false);
    const longAgo = Date.now() - 10 * decision.delayMs;
    await adapterKit(p).markSent(decision, { at: longAgo });
    expect(await adapterKit(p).tryReserve(decision)).toMatchObject({
      ok: false,
      notBefore: held.ok || held.notBefore,
    });
    const sentAt = Date.now() + 2_000; // a send the adapter saw happen later than the slot it reserved
    await adapterKit(p).markSent(site.url('/a'), { at: sentAt });
    const next = await adapterKit(p).tryReserve(decision);
    expect(next.ok).toBe(false);
    expect(next.ok === false && next.notBefore).toBeGreaterThanOrEqual(sentAt + decision.delayMs);
    await adapterKit(p).markSent('https://not-cached.invalid/x'); // unknown origin: nothing to move, never rejects
  });

  it('aborting a waiting admit rejects with the signal reason and sends nothing', async () => {
    const site = await host('127.0.0.30', { '/robots.txt': text('User-agent: *\nCrawl-delay: 5\n') });
    const p = polite();
    // robots.txt fetched: its Crawl-delay holds the host 5 s, as after a page.
    await p.check(site.url('/one'));
    const controller = new AbortController();
    const waiting = p.admit(site.url('/two'), { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('user gave up')), 50);
    await expect(waiting).rejects.toThrow('user gave up');
  });
});

describe('createPoliteness: events, stats and a shared instance', () => {
  it('reports fetches and decisions, survives a throwing listener, and is returned as is when passed in', async () => {
    const site = await host('127.0.0.31', { '/robots.txt': text(ROBOTS) });
    const seen: PolitelyEvent['type'][] = [];
    const p = polite({ onEvent: (e) => seen.push(e.type) });
    p.subscribe(() => {
      throw new Error('listener bug');
    });
    expect(createPoliteness(p)).toBe(p);
    await p.check(site.url('/foo-only'));
    await p.check(site.url('/ok'));
    expect(seen).toEqual(['robots-fetch', 'decision', 'decision']);
    expect(p.stats()).toMatchObject({
      decisions: { allowed: 1, disallowed: 1 },
      robotsFetches: { ok: 1 },
    });
  });

  it('survives a logger that throws: the check is answered and the listeners still hear the event', async () => {
    const site = await host('127.0.0.32', { '/robots.txt': text(ROBOTS) });
    const warned: string[] = [];
    const heard: PolitelyEvent['type'][] = [];
    const down = () => Promise.reject(new Error('store down'));
    const p = polite({
      logger: {
        warn: (message: string) => {
          warned.push(message);
          throw new Error('logger bug');
        },
        info: () => {},
      },
      onEvent: (e) => heard.push(e.type),
      store: { get: down, set: down, delete: down },
    });
    await expect(p.check(site.url('/ok'))).resolves.toMatchObject({ allowed: true });
    await p.close();
    expect(warned.some((message) => message.startsWith('store failed'))).toBe(true);
    expect(heard).toContain('store-error');
  });

  it('reportSkip: one skip event with the stage for every listener, counted by stage', async () => {
    const site = await host('127.0.0.101', { '/robots.txt': text(ROBOTS) });
    const fromOption: PolitelyEvent[] = [];
    const p = polite({ onEvent: (e) => fromOption.push(e) });
    const subscribed: PolitelyEvent[] = [];
    p.subscribe((e) => subscribed.push(e));
    const decision = await p.check(site.url('/foo-only/x'));
    if (decision.allowed) throw new Error('expected a disallowed decision');

    adapterKit(p).reportSkip(decision, 'redirect');

    const skips = subscribed.filter((e) => e.type === 'skip');
    expect(skips).toEqual([
      { type: 'skip', url: site.url('/foo-only/x'), host: '127.0.0.101', stage: 'redirect', decision },
    ]);
    expect(fromOption.filter((e) => e.type === 'skip')).toEqual(skips);
    expect(p.stats().skipped).toEqual({
      enqueue: 0,
      dequeue: 0,
      send: 0,
      redirect: 1,
      navigation: 0,
      subresource: 0,
      response: 0,
    });
  });

  it('reportSkip counts a skip nobody listens to', async () => {
    const site = await host('127.0.0.101', { '/robots.txt': text(ROBOTS) });
    const p = polite();
    const decision = await p.check(site.url('/foo-only/x'));
    if (decision.allowed) throw new Error('expected a disallowed decision');
    adapterKit(p).reportSkip(decision, 'send');
    adapterKit(p).reportSkip(decision, 'send');
    expect(p.stats().skipped).toMatchObject({ send: 2, redirect: 0 });
  });

  it("emptyStats: a fresh Politeness's stats(), every counter at 0", () => {
    const leaves = (value: unknown): unknown[] =>
      typeof value === 'object' && value !== null ? Object.values(value).flatMap(leaves) : [value];
    const empty = emptyStats();
    expect(empty).toEqual(polite().stats());
    expect(new Set(leaves(empty))).toEqual(new Set([0]));
  });
});
