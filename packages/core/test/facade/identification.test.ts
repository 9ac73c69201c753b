/**
 * Identification: `sendUserAgent` is a validated option every adapter reads from the facade, and a
 * User-Agent that does not name the crawler (a browser string, or one without the product token) is a
 * warning event and one logger.warn, not a silent match.
 */

import { describe, expect, it } from 'vitest';
import { identificationWarnings } from '../../src/facade/identification.js';
import { createPoliteness, type PolitelyEvent, type PolitenessOptions } from '../../src/index.js';
import { adapterKit } from '../../src/public/adapter.js';

const CHROME =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

function create(options: PolitenessOptions) {
  const events: PolitelyEvent[] = [];
  const warnings: string[] = [];
  const politeness = createPoliteness({
    ...options,
    onEvent: (event) => events.push(event),
    logger: { warn: (message) => warnings.push(message) },
  });
  return { politeness, events, warnings };
}

describe('sendUserAgent', () => {
  it('defaults to true and can be turned off', async () => {
    const on = createPoliteness({ userAgent: 'MyBot/1.0' });
    const off = createPoliteness({ userAgent: 'MyBot/1.0', sendUserAgent: false });
    expect([adapterKit(on).sendUserAgent, adapterKit(off).sendUserAgent]).toEqual([true, false]);
    await Promise.all([on.close(), off.close()]);
  });

  it('is validated with the other options', () => {
    expect(() => createPoliteness({ userAgent: 'MyBot/1.0', sendUserAgent: 'no' as never })).toThrow(
      /Expected option `sendUserAgent` to be a boolean, got `"no"` \(string\)/,
    );
  });
});

describe('identification warnings', () => {
  it('warns once, as an event and in the log, when userAgent is a browser string', async () => {
    const { politeness, events, warnings } = create({ userAgent: CHROME });
    expect(politeness.productToken).toBe('Mozilla');
    const reported = events.filter((e) => e.type === 'identification-warning');
    expect(reported).toEqual([
      expect.objectContaining({ problem: 'browser-user-agent', userAgent: CHROME, productToken: 'Mozilla' }),
    ]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/looks like a browser.*product token is "Mozilla"/);
    // Later work does not repeat it.
    adapterKit(politeness).checkCached('https://example.test/');
    expect(warnings).toHaveLength(1);
    await politeness.close();
  });

  it('warns when rules are matched for a token the site never sees', async () => {
    const browser = create({ userAgent: CHROME, productToken: 'AcmeBot' });
    expect(browser.warnings[0]).toMatch(/rules are matched for "AcmeBot" while the site sees a browser/);
    const mismatch = create({ userAgent: 'OtherBot/2.0', productToken: 'AcmeBot' });
    expect(mismatch.events).toEqual([
      expect.objectContaining({ type: 'identification-warning', problem: 'token-not-in-user-agent' }),
    ]);
    await Promise.all([browser.politeness.close(), mismatch.politeness.close()]);
  });

  it('is silent for a crawler that names itself, browser-style User-Agent included', async () => {
    expect(identificationWarnings('MyBot/1.0 (+https://example.com/bot)', 'MyBot')).toEqual([]);
    expect(
      identificationWarnings('Mozilla/5.0 (compatible; AcmeBot/1.0; +https://acme.test/bot)', 'AcmeBot'),
    ).toEqual([]);
    const { events, warnings, politeness } = create({ userAgent: 'MyBot/1.0 (+https://example.com/bot)' });
    expect(events).toEqual([]);
    expect(warnings).toEqual([]);
    await politeness.close();
  });
});

describe('unknown options', () => {
  it('suggests the closest option and lists only options users set (no internal test clock)', () => {
    let message = '';
    try {
      createPoliteness({ userAgent: 'MyBot/1.0', minDelay: 500 } as never);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(
      /Unknown option `minDelay` \(value `500` \(number\)\); did you mean `pacing.minDelayMs`\?/,
    );
    expect(message).toContain('sendUserAgent');
    expect(message).not.toMatch(/\bclock\b/);
  });

  it('makes no suggestion when nothing is close', () => {
    expect(() => createPoliteness({ userAgent: 'MyBot/1.0', zzz: 1 } as never)).toThrow(
      /Unknown option `zzz` \(value `1` \(number\)\); known options: userAgent, /,
    );
  });
});

describe('a userAgent that is not a product token followed by a version or comments', () => {
  it('warns once, as an event and in the log, with the token rules are matched for', async () => {
    const { politeness, events, warnings } = create({ userAgent: 'My Bot' });
    expect(politeness.productToken).toBe('My');
    expect(events).toEqual([
      expect.objectContaining({
        type: 'identification-warning',
        problem: 'user-agent-not-a-product-token',
        productToken: 'My',
      }),
    ]);
    expect(warnings).toEqual([expect.stringContaining('robots.txt groups are matched for "My"')]);
    expect(warnings[0]).toContain('"MyBot/1.0 (+https://example.com/bot)"');
    adapterKit(politeness).checkCached('https://example.test/');
    expect(warnings).toHaveLength(1);
    await politeness.close();
  });

  it.each(['MyBot2/1.0', 'my.bot/1.0', 'MyBot crawler'])('warns for %j', (userAgent) => {
    expect(identificationWarnings(userAgent, userAgent.replace(/[^A-Za-z_-].*$/, ''))).toEqual([
      expect.objectContaining({ problem: 'user-agent-not-a-product-token' }),
    ]);
  });

  it.each([
    ['MyBot', 'MyBot'],
    ['MyBot/1.0', 'MyBot'],
    ['MyBot/1.0 (+https://example.com/bot)', 'MyBot'],
    ['MyBot (+https://example.com/bot)', 'MyBot'],
    ['My-Bot_X/1.0 libcurl/8.0', 'My-Bot_X'],
    // An explicit productToken is the user's choice: only whether the User-Agent names it counts.
    ['My Bot', 'Bot'],
  ])('stays quiet for %j (token %s)', (userAgent, productToken) => {
    expect(identificationWarnings(userAgent, productToken)).toEqual([]);
  });
});
