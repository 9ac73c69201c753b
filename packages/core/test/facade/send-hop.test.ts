/**
 * `sendHop(politeness, url, send, options)`: one hop an adapter sends itself. What its user sees is
 * whether the hop went out, when the host's next hop may start, and the error a refusal or a failed
 * send ends with; so the tests run hops on the memory scheduler with a fake clock, and read the
 * order of the pass's reports from a recording wrapper where the order is the point.
 */

import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { OptionOverrides } from '../../../../test/helpers/options.js';
import { isRobotsDisallowedError, type PolitelyEvent, type Politeness } from '../../src/index.js';
import {
  ADAPTER_KIT,
  type AdapterKit,
  adapterKit,
  type HopAnswer,
  type SendPass,
  sendHop,
} from '../../src/public/adapter.js';
import { createFakeClock, type FakeClock } from '../schedule/fake-clock.js';
import { pastRobotsTxt, politeOnClock } from './fake-clock-politeness.js';

const polite = (clock: FakeClock, options: OptionOverrides = {}): Politeness =>
  politeOnClock('HopBot/1.0', clock, options);

/** The politeness, with every pass its adapter kit opens reporting its calls to `log`. */
function recording(politeness: Politeness, log: string[]): Politeness {
  const kit = adapterKit(politeness);
  const recorded: AdapterKit = {
    ...kit,
    async pass(...args: Parameters<AdapterKit['pass']>): Promise<SendPass> {
      const pass = await kit.pass(...args);
      log.push('pass');
      const noted = <T>(entry: string, report: () => T): T => {
        log.push(entry);
        return report();
      };
      return {
        decision: pass.decision,
        sent: (at) => noted('sent', () => pass.sent(at)),
        answered: (...answer) => noted(`answered ${answer[0]}`, () => pass.answered(...answer)),
        failed: (error) => noted('failed', () => pass.failed(error)),
        release: () => noted('release', () => pass.release()),
      };
    },
  };
  return new Proxy(politeness, {
    get(target, name) {
      if (name === ADAPTER_KIT) return recorded;
      const value = Reflect.get(target, name, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const ok = (status = 200): HopAnswer => ({ status });

/** A hop's outcome once it settles: its response or its error. */
function settling<R>(hop: Promise<R>) {
  const seen: { response?: R; error?: unknown; settled: boolean } = { settled: false };
  hop.then(
    (response) => Object.assign(seen, { response, settled: true }),
    (error: unknown) => Object.assign(seen, { error, settled: true }),
  );
  return seen;
}

describe('sendHop', () => {
  it('never sends a refused hop: the refusal is reported, its error thrown, no place or slot taken', async () => {
    const clock = createFakeClock();
    const politeness = polite(clock);
    await pastRobotsTxt(politeness, clock);
    const events: PolitelyEvent[] = [];
    politeness.subscribe((event) => events.push(event));
    const sends: string[] = [];
    const send = (url: string) => async () => {
      sends.push(url);
      return 'body';
    };

    await expect(
      sendHop(politeness, 'http://site.test/private/a', send('a'), { answer: () => ok() }),
    ).rejects.toSatisfy(isRobotsDisallowedError);
    expect(events.filter((event) => event.type === 'skip')).toMatchObject([
      { type: 'skip', url: 'http://site.test/private/a', stage: 'send' },
    ]);

    // A refusal of the caller's own: called with the hop's stage, its error is the hop's.
    const refusals: string[] = [];
    const own = new Error('refused here');
    await expect(
      sendHop(politeness, 'http://site.test/private/b', send('b'), {
        stage: 'redirect',
        refuse: (decision, stage) => {
          refusals.push(`${decision.url} ${stage}`);
          return own;
        },
        answer: () => ok(),
      }),
    ).rejects.toBe(own);
    expect(refusals).toEqual(['http://site.test/private/b redirect']);
    expect(politeness.stats().skipped).toMatchObject({ send: 1 });

    // Nothing was sent, and the host's first slot is still free: an allowed hop goes at once.
    const allowed = settling(sendHop(politeness, 'http://site.test/c', send('c'), { answer: () => ok() }));
    await clock.advance(0);
    expect(allowed.response).toBe('body');
    expect(sends).toEqual(['c']);
  });

  it('reports a failed send before giving its place back, and rethrows its error', async () => {
    const clock = createFakeClock();
    const log: string[] = [];
    const politeness = recording(polite(clock), log);
    await pastRobotsTxt(politeness, clock);
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    await expect(
      sendHop(politeness, 'http://site.test/a', () => Promise.reject(reset), { answer: () => ok() }),
    ).rejects.toBe(reset);
    expect(log).toEqual(['pass', 'failed', 'release']);
    // A dropped connection slows the host as a 5xx does.
    const decision = await politeness.check('http://site.test/a');
    expect(adapterKit(politeness).paceMs(decision)).toBeGreaterThan(decision.delayMs);
  });

  it('feeds the response back before it reports the send, then calls onSent', async () => {
    const clock = createFakeClock();
    const log: string[] = [];
    const politeness = recording(polite(clock), log);
    await pastRobotsTxt(politeness, clock);
    const origin = clock.now();
    await sendHop(politeness, 'http://site.test/a', async () => 'throttled', {
      answer: () => ({ status: 429, retryAfter: '5' }),
      onSent: (decision, at) => log.push(`onSent ${decision.url} ${typeof at}`),
    });
    expect(log).toEqual(['pass', 'answered 429', 'sent', 'onSent http://site.test/a number', 'release']);
    // The 429 backed the host off by its Retry-After.
    expect((await adapterKit(politeness).nextStart('http://site.test/b')) - origin).toBe(5000);
  });

  it('counts the next hop from the send the adapter saw, by the delay asked', async () => {
    const clock = createFakeClock();
    const politeness = polite(clock);
    await pastRobotsTxt(politeness, clock);
    const origin = clock.now();
    // The request left 300 ms after its slot (connection setup, a slow client).
    await sendHop(politeness, 'http://site.test/a', async () => 'ok', {
      answer: () => ({ status: 200, sentAt: origin + 300 }),
    });
    expect((await adapterKit(politeness).nextStart('http://site.test/b')) - origin).toBe(1300);
  });

  it('holds the host place until the body ends, or gives it back at once when there is none', async () => {
    const clock = createFakeClock();
    const politeness = polite(clock, { robots: { fetch: async () => new Response('', { status: 404 }) } });
    const body = new EventEmitter();
    await sendHop(politeness, 'http://site.test/a', async () => 'streamed', {
      answer: () => ({ status: 200, body }),
    });
    const next = settling(
      sendHop(politeness, 'http://site.test/b', async () => 'next', { answer: () => ok() }),
    );
    await clock.advance(0);
    expect(next.settled).toBe(false);
    body.emit('end');
    await clock.advance(0);
    expect(next.response).toBe('next');

    // Without a body the place was given back with the response: a hop that may not wait goes.
    const after = settling(
      sendHop(politeness, 'http://site.test/c', async () => 'after', {
        inFlightMaxWaitMs: 0,
        answer: () => ok(),
      }),
    );
    await clock.advance(0);
    expect(after.response).toBe('after');
  });

  it('gives the place back when the body closes or errors before its end', async () => {
    const clock = createFakeClock();
    const politeness = polite(clock, { robots: { fetch: async () => new Response('', { status: 404 }) } });
    for (const event of ['close', 'error'] as const) {
      const body = new EventEmitter();
      await sendHop(politeness, 'http://site.test/a', async () => 'streamed', {
        answer: () => ({ status: 200, body }),
      });
      body.emit(event, new Error('destroyed'));
    }
    const next = settling(
      sendHop(politeness, 'http://site.test/b', async () => 'next', {
        inFlightMaxWaitMs: 0,
        answer: () => ok(),
      }),
    );
    await clock.advance(0);
    expect(next.response).toBe('next');
  });

  it('feeds a response from another host (the client followed a redirect) to that host', async () => {
    const clock = createFakeClock();
    const politeness = polite(clock, { robots: { fetch: async () => new Response('', { status: 404 }) } });
    const origin = clock.now();
    await sendHop(politeness, 'http://site.test/a', async () => 'elsewhere', {
      answer: () => ({ status: 503, retryAfter: '7', url: 'http://other.test/landing' }),
    });
    expect((await adapterKit(politeness).nextStart('http://other.test/x')) - origin).toBe(7000);
    // The hop's own host is paced from its send, not backed off.
    expect((await adapterKit(politeness).nextStart('http://site.test/x')) - origin).toBe(0);
  });

  it('ends its waits with the signal and sends a URL robots.txt does not speak for as is', async () => {
    const clock = createFakeClock();
    const politeness = polite(clock);
    await pastRobotsTxt(politeness, clock);
    await sendHop(politeness, 'http://site.test/a', async () => 'first', { answer: () => ok() });
    const controller = new AbortController();
    const waiting = settling(
      sendHop(politeness, 'http://site.test/b', async () => 'never', {
        signal: controller.signal,
        answer: () => ok(),
      }),
    );
    await clock.advance(500);
    controller.abort(new Error('gave up'));
    await clock.advance(0);
    expect(waiting.error).toMatchObject({ message: 'gave up' });

    expect(await sendHop(politeness, 'data:text/plain,hi', async () => 'data', { answer: () => ok() })).toBe(
      'data',
    );
  });
});
