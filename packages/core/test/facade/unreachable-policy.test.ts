/**
 * `unreachablePolicy: 'google'` through the facade: the verdicts a crawler gets along Google's
 * timeline (with `onUnreachable` where the timeline leaves it the choice), the `unreachable-phase`
 * events, and the outage start shared by a fleet through a Keyv store on Redis. Fake clocks, real
 * loopback servers, real Redis.
 */
import { createKeyv } from '@keyv/redis';
import { afterEach, describe, expect, it } from 'vitest';
import { startHost, type TestHost, text } from '../../../../test/helpers/hosts.js';
import { internalOptions, mergeOptions } from '../../../../test/helpers/options.js';
import { REDIS_URL, requireRedis, uniquePrefix } from '../../../../test/helpers/redis.js';
import {
  createPoliteness,
  type PolitelyEvent,
  type Politeness,
  type PolitenessOptions,
} from '../../src/index.js';
import { createFakeClock, type FakeClock } from '../schedule/fake-clock.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const hosts: TestHost[] = [];
const instances: Politeness[] = [];
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(instances.splice(0).map((p) => p.close()));
  await Promise.all(closers.splice(0).map((close) => close()));
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

async function site(ip: string) {
  const host = await startHost({ ip, routes: { '/robots.txt': text('busy', 503), '/': text('home') } });
  hosts.push(host);
  return host;
}

function polite(clock: FakeClock, options: Partial<PolitenessOptions> = {}) {
  const events: PolitelyEvent[] = [];
  const instance = createPoliteness(
    mergeOptions(
      {
        userAgent: 'TimelineBot/1.0',
        pacing: { minDelayMs: 0 },
        logger: false,
        clock,
        scheduler: 'memory',
        robots: { unreachablePolicy: 'google' },
        onEvent: (event) => events.push(event),
      },
      options,
    ),
  );
  instances.push(instance);
  const phases = () => events.flatMap((e) => (e.type === 'unreachable-phase' ? [e.phase] : []));
  return { p: instance, phases };
}

const redisUp = await requireRedis('unreachable timeline shared through Redis');

describe("unreachablePolicy: 'google' (facade)", () => {
  it('no good copy: disallowed for 12 h whatever onUnreachable says, then onUnreachable, then the home page decides', async () => {
    const host = await site('127.0.0.85');
    const clock = createFakeClock(Date.parse('2026-03-01T00:00:00Z'));
    const lenient = polite(clock, { robots: { onUnreachable: 'allow' } });
    const strict = polite(clock);
    const url = host.url('/page');

    for (const { p } of [lenient, strict]) {
      expect(await p.check(url)).toMatchObject({
        allowed: false,
        reason: 'unreachable',
        source: 'unreachable',
      });
    }
    await clock.advance(12 * HOUR);
    expect(await lenient.p.check(url)).toMatchObject({ allowed: true, source: 'unreachable' });
    expect(await strict.p.check(url)).toMatchObject({ allowed: false, reason: 'unreachable' });

    await clock.advance(30 * DAY - 12 * HOUR);
    for (const { p } of [lenient, strict]) {
      expect(await p.check(url)).toMatchObject({ allowed: true, reason: 'allowed', source: 'unavailable' });
    }
    expect(lenient.phases()).toEqual(['disallow-all', 'last-good-copy', 'allow-all']);

    host.route('/robots.txt', text('User-agent: *\nDisallow: /page\n'));
    await clock.advance(HOUR);
    expect(await strict.p.check(url)).toMatchObject({ allowed: false, reason: 'disallowed' });
    expect(strict.phases()).toEqual(['disallow-all', 'last-good-copy', 'allow-all', 'recovered']);
  });

  it("the default is 'rfc': an unreachable robots.txt with no good copy is disallowed with no phases", async () => {
    const host = await site('127.0.0.86');
    const clock = createFakeClock(Date.parse('2026-03-01T00:00:00Z'));
    const events: PolitelyEvent[] = [];
    const p = createPoliteness(
      internalOptions({
        userAgent: 'RfcBot/1.0',
        pacing: { minDelayMs: 0 },
        logger: false,
        clock,
        onEvent: (e) => events.push(e),
      }),
    );
    instances.push(p);
    await clock.advance(40 * DAY);
    expect(await p.check(host.url('/page'))).toMatchObject({ allowed: false, reason: 'unreachable' });
    expect(events.filter((e) => e.type === 'unreachable-phase')).toEqual([]);
    expect(events.filter((e) => e.type === 'robots-fetch')).toHaveLength(1);
    expect(host.requests('/')).toHaveLength(0);
  });

  it('rejects an unknown policy, naming the option and the value', () => {
    expect(() =>
      createPoliteness({ userAgent: 'X/1', robots: { unreachablePolicy: 'googel' as 'google' } }),
    ).toThrow(/`robots.unreachablePolicy` to be 'rfc' or 'google', got `"googel"`/);
  });
});

describe.skipIf(!redisUp)("unreachablePolicy: 'google' with a Keyv store on Redis", () => {
  it('the fleet shares the outage start: a process joining 13 hours in uses the last good copy', async () => {
    const host = await site('127.0.0.87');
    host.route('/robots.txt', text('User-agent: *\nDisallow: /private\n'));
    const store = createKeyv(REDIS_URL, { namespace: uniquePrefix('timeline') });
    closers.push(() => store.disconnect());
    const clockA = createFakeClock(Date.parse('2026-03-01T00:00:00Z'));
    const a = polite(clockA, { store });
    expect((await a.p.check(host.url('/public'))).allowed).toBe(true);
    host.route('/robots.txt', text('busy', 503));
    await clockA.advance(DAY);
    expect(await a.p.check(host.url('/public'))).toMatchObject({ allowed: false, reason: 'unreachable' });

    const clockB = createFakeClock(clockA.now() + 13 * HOUR);
    const b = polite(clockB, { store });
    expect(await b.p.check(host.url('/public'))).toMatchObject({ allowed: true, source: 'stale' });
    expect(await b.p.check(host.url('/private'))).toMatchObject({ allowed: false, reason: 'disallowed' });
    expect(b.phases()).toEqual(['last-good-copy']);
  });
});
