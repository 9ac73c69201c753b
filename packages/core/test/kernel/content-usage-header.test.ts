/**
 * The Content-Usage response header as sites send it: repeated, joined by clients in their own ways,
 * huge or malformed. An explicit `n` for a purpose wins over a `y` whatever the order (issue 35), as it
 * does between robots.txt lines; nothing a site sends throws.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPoliteness } from '../../src/index.js';
import { parseContentUsageHeader, parseUsagePref } from '../../src/kernel/content-usage.js';
import { contentUsageRefusal } from '../../src/kernel/content-usage-refusal.js';

async function trainDecision() {
  const politeness = createPoliteness({
    userAgent: 'FooBot/1.0 (+https://foo.test/bot)',
    pacing: { minDelayMs: 0 },
    purpose: 'ai-train',
    robots: { fetch: async () => new Response('User-agent: *\nAllow: /\n', { status: 200 }) },
    logger: false,
  });
  const decision = await politeness.check('http://site.test/page');
  await politeness.close();
  return decision;
}

describe('n wins over y for a label, in any order', () => {
  it.each([
    ['two header lines, n first', ['train-ai=n', 'train-ai=y']],
    ['two header lines, y first', ['train-ai=y', 'train-ai=n']],
    ['one comma-joined value (Node, fetch), n first', 'train-ai=n, train-ai=y'],
    ['one comma-joined value, y first', 'train-ai=y, train-ai=n'],
    ['lines joined by a line break (Chromium DevTools, Puppeteer)', 'train-ai=n\ntrain-ai=y'],
    ['CRLF-joined, with parameters and other labels', 'search=y, train-ai=n;why="x"\r\ntrain-ai=y, search=y'],
  ])('%s: the content is refused', async (_name, header) => {
    expect(parseContentUsageHeader(header)?.['train-ai']).toBe('n');
    expect(contentUsageRefusal(await trainDecision(), header)).toMatchObject({
      allowed: false,
      reason: 'usage-refused',
      usageRefusal: { purpose: 'ai-train', label: 'train-ai', source: 'header' },
    });
  });

  it('a y alone, or repeated, refuses nothing; a later y still replaces another value', async () => {
    const decision = await trainDecision();
    expect(contentUsageRefusal(decision, ['train-ai=y', 'train-ai=y'])).toBeUndefined();
    expect(contentUsageRefusal(decision, 'train-ai=?0, train-ai=y')).toBeUndefined();
    expect({ ...parseUsagePref('a=1, a=2') }).toEqual({ a: '2' });
  });

  it('empty header lines are empty list members, not a malformed field', () => {
    expect(parseContentUsageHeader(['', 'train-ai=n', ' '])).toEqual({ 'train-ai': 'n' });
    expect(parseContentUsageHeader('\n')).toBeUndefined();
  });
});

describe('huge and malformed headers', () => {
  it('a 1 MB header of many members is read to its end', () => {
    const members = Array.from({ length: 80_000 }, (_, i) => `k${i % 100}=y`).join(', ');
    const header = `${members}, train-ai=n, ${members.replaceAll('=y', '="v"')}`;
    expect(header.length).toBeGreaterThan(1_000_000);
    expect(parseContentUsageHeader(header)?.['train-ai']).toBe('n');
  });

  it('a malformed field says nothing (RFC 9651 4.2), whatever its size', () => {
    for (const header of [
      `train-ai=n, ${'('.repeat(500_000)}`,
      `train-ai=n, x="${'a'.repeat(500_000)}`,
      `train-ai=n, x=:${'A'.repeat(500_000)}`,
      `${'9'.repeat(500_000)}`,
      'train-ai=n,',
      '\u0000train-ai=n',
    ]) {
      expect(parseContentUsageHeader(header)).toBeUndefined();
    }
  });

  it('never throws on any string or list of strings', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.array(fc.string())), (header) => {
        const prefs = parseContentUsageHeader(header);
        expect(prefs === undefined || typeof prefs === 'object').toBe(true);
      }),
    );
  });
});
