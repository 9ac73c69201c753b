/**
 * The `purpose` option through the facade: the decision, the error, the event and the counters a
 * refusal by AI usage preferences gives, from robots.txt and from a response's Content-Usage header.
 */
import { describe, expect, it } from 'vitest';
import { mergeOptions } from '../../../../test/helpers/options.js';
import {
  createPoliteness,
  getDisallowedDecision,
  isRobotsDisallowedError,
  isUsageRefusedError,
  type PolitelyEvent,
  type PolitenessOptions,
} from '../../src/index.js';
import { contentUsageRefusal } from '../../src/kernel/content-usage-refusal.js';
import { sendHop } from '../../src/public/adapter.js';

const ROBOTS = [
  'Content-Signal: search=yes, ai-input=no',
  '',
  'User-agent: *',
  'Allow: /',
  'Disallow: /private',
  'Content-Usage: train-ai=y',
  'Content-Usage: /no-train/ train-ai=n',
].join('\n');

function polite(options: Partial<PolitenessOptions> = {}) {
  const events: PolitelyEvent[] = [];
  const politeness = createPoliteness(
    mergeOptions(
      {
        userAgent: 'FooBot/1.0 (+https://foo.test/bot)',
        pacing: { minDelayMs: 0 },
        robots: { fetch: async () => new Response(ROBOTS, { status: 200 }) },
        onEvent: (event) => void events.push(event),
        logger: false,
      },
      options,
    ),
  );
  return { politeness, events };
}

describe('the purpose option', () => {
  it('without one, refuses nothing and reads no usage lines (issue 35.3: they cost nothing)', async () => {
    const { politeness } = polite();
    const decision = await politeness.check('http://site.test/no-train/x');
    expect(decision).toMatchObject({ allowed: true, reason: 'allowed' });
    expect(decision).not.toHaveProperty('usage');
    expect(decision).not.toHaveProperty('purpose');
    await politeness.close();
  });

  it('with one, an allowed decision carries the preferences', async () => {
    const { politeness } = polite({ purpose: 'search' });
    expect(await politeness.check('http://site.test/no-train/x')).toMatchObject({
      allowed: true,
      purpose: 'search',
      usage: {
        contentUsage: { 'train-ai': 'n' },
        contentSignal: { search: 'yes', 'ai-input': 'no' },
        lines: [1, 7],
      },
    });
    await politeness.close();
  });

  it('refuses a URL whose preferences say no: its own reason, code, event and counter', async () => {
    const { politeness, events } = polite({ purpose: 'ai-train' });
    const decision = await politeness.check('http://site.test/no-train/x');
    expect(decision).toMatchObject({
      allowed: false,
      reason: 'usage-refused',
      purpose: 'ai-train',
      usageRefusal: { purpose: 'ai-train', by: 'Content-Usage', label: 'train-ai', source: 'robots.txt' },
    });
    const error = await politeness.admit('http://site.test/no-train/y').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ERR_USAGE_REFUSED', name: 'UsageRefusedError' });
    expect(isUsageRefusedError(error)).toBe(true);
    expect(isRobotsDisallowedError(error)).toBe(true);
    expect((error as Error).message).toContain('Content-Usage train-ai=no');
    expect(events.filter((e) => e.type === 'usage-refused').map((e) => e.url)).toEqual([
      'http://site.test/no-train/x',
      'http://site.test/no-train/y',
    ]);
    expect(politeness.stats().decisions).toMatchObject({ usageRefused: 2, allowed: 0 });
    // Elsewhere training is welcome; a disallowed path stays 'disallowed'.
    expect(await politeness.check('http://site.test/other')).toMatchObject({ allowed: true });
    expect(await politeness.check('http://site.test/private/x')).toMatchObject({ reason: 'disallowed' });
    await politeness.close();
  });

  it('ai-input is refused by the file-level Content-Signal', async () => {
    const { politeness } = polite({ purpose: 'ai-input' });
    expect(await politeness.check('http://site.test/page')).toMatchObject({
      reason: 'usage-refused',
      usageRefusal: { by: 'Content-Signal', label: 'ai-input' },
    });
    await politeness.close();
  });

  it('a disallowed error is no usage refusal', async () => {
    const { politeness } = polite({ purpose: 'ai-train' });
    const error = await politeness.admit('http://site.test/private/x').catch((e: unknown) => e);
    expect([isRobotsDisallowedError(error), isUsageRefusedError(error)]).toEqual([true, false]);
    expect(error).toMatchObject({ code: 'ERR_ROBOTS_DISALLOWED' });
    await politeness.close();
  });

  it('path-scoped Content-Usage lines decide in a group without Allow/Disallow rules (issue 35.4)', async () => {
    const cases: [string, string, string][] = [
      ['User-agent: *\nContent-Usage: /nope/ train-ai=n\n', '/nope/secret', 'usage-refused'],
      // The common allow-all group: an empty Disallow is no rule.
      ['User-agent: *\nDisallow:\nContent-Usage: /nope/ train-ai=n\n', '/nope/secret', 'usage-refused'],
      ['User-agent: *\nContent-Usage: train-ai=n\nContent-Usage: /open/ train-ai=y\n', '/open/x', 'allowed'],
      [
        'User-agent: *\nContent-Usage: train-ai=n\nContent-Usage: /open/ train-ai=y\n',
        '/closed',
        'usage-refused',
      ],
    ];
    for (const [body, path, reason] of cases) {
      const politeness = createPoliteness({
        userAgent: 'FooBot/1.0 (+https://foo.test/bot)',
        pacing: { minDelayMs: 0 },
        purpose: 'ai-train',
        robots: { fetch: async () => new Response(body, { status: 200 }) },
        logger: false,
      });
      expect({ body, path, reason: (await politeness.check(`http://site.test${path}`)).reason }).toEqual({
        body,
        path,
        reason,
      });
      await politeness.close();
    }
  });

  it('rejects an unknown purpose, naming the choices', () => {
    expect(() => polite({ purpose: 'training' as never })).toThrow(
      /`purpose` to be 'search', 'ai-input' or 'ai-train'/,
    );
  });
});

describe('the Content-Usage response header', () => {
  it('contentUsageRefusal: only with a purpose, and only for its own label', async () => {
    const { politeness } = polite({ purpose: 'search' });
    const decision = await politeness.check('http://site.test/page');
    expect(contentUsageRefusal(decision, 'train-ai=n')).toBeUndefined();
    expect(contentUsageRefusal(decision, 'search=n;reason="x", train-ai=y')).toMatchObject({
      allowed: false,
      reason: 'usage-refused',
      usageRefusal: { purpose: 'search', by: 'Content-Usage', label: 'search', source: 'header' },
      usage: { contentUsage: { search: 'n', 'train-ai': 'y' } },
    });
    expect(contentUsageRefusal(decision, 'search=nope, (')).toBeUndefined();
    const { politeness: noPurpose } = polite();
    expect(contentUsageRefusal(await noPurpose.check('http://site.test/page'), 'search=n')).toBeUndefined();
    await politeness.close();
    await noPurpose.close();
  });

  it('sendHop withholds the content, reports it as skipped at the response, and rejects', async () => {
    const { politeness, events } = polite({ purpose: 'ai-train' });
    let withheld = 0;
    const error = await sendHop(politeness, 'http://site.test/page', async () => 'content', {
      answer: () => ({ status: 200, contentUsage: 'train-ai=n', withhold: () => void withheld++ }),
    }).catch((e: unknown) => e);
    expect(isUsageRefusedError(error)).toBe(true);
    expect(getDisallowedDecision(error)).toMatchObject({ usageRefusal: { source: 'header' } });
    expect(withheld).toBe(1);
    expect(politeness.stats().skipped.response).toBe(1);
    expect(events.filter((e) => e.type === 'skip' || e.type === 'usage-refused').map((e) => e.type)).toEqual([
      'skip',
      'usage-refused',
    ]);
    // A redirect's header is not the content's; another label is no refusal.
    for (const answer of [
      { status: 301, contentUsage: 'train-ai=n' },
      { status: 200, contentUsage: 'search=n' },
    ]) {
      await expect(
        sendHop(politeness, 'http://site.test/page', async () => 'sent', { answer: () => answer }),
      ).resolves.toBe('sent');
    }
    await politeness.close();
  });
});
