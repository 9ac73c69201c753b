/**
 * `politeness.sitemaps(url)`: the Sitemap URLs of an origin's robots.txt, from the cache, fetching
 * robots.txt once when it is not cached; what was fetched is read from the site's request log.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startHost, type TestHost, text } from '../../../../test/helpers/hosts.js';
import { createPoliteness, type Politeness } from '../../src/index.js';

const hosts: TestHost[] = [];
const instances: Politeness[] = [];
afterEach(async () => {
  await Promise.all(instances.splice(0).map((p) => p.close()));
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

async function site(ip: string, robots: Parameters<TestHost['route']>[1]) {
  const started = await startHost({ ip, routes: { '/robots.txt': robots } });
  hosts.push(started);
  return started;
}

function polite() {
  const instance = createPoliteness({ userAgent: 'MapBot/1.0', pacing: { minDelayMs: 0 }, logger: false });
  instances.push(instance);
  return instance;
}

const ROBOTS = [
  'Sitemap: https://example.com/sitemap-a.xml',
  'User-agent: *',
  'Disallow: /private',
  'sitemap:   https://example.com/sitemap-b.xml.gz  ',
  'Sitemap: /relative-sitemap.xml',
  'Sitemap: ftp://example.com/not-http.xml',
  'Sitemap: https://example.com/sitemap-a.xml',
  '',
].join('\n');

describe('politeness.sitemaps(url)', () => {
  it('returns the absolute http(s) Sitemap URLs in file order, each once', async () => {
    const host = await site('127.0.0.64', text(ROBOTS));
    const p = polite();
    expect(await p.sitemaps(host.url('/any/page?q=1'))).toEqual([
      'https://example.com/sitemap-a.xml',
      'https://example.com/sitemap-b.xml.gz',
    ]);
    expect(host.requests('/robots.txt')).toHaveLength(1);
  });

  it('is single-flight with check, and answers from the cache afterwards', async () => {
    const host = await site('127.0.0.65', { ...text(ROBOTS), delayMs: 100 });
    const p = polite();
    const [maps, decision, again] = await Promise.all([
      p.sitemaps(host.url('/')),
      p.check(host.url('/private/x')),
      p.sitemaps(host.url('/b')),
    ]);
    expect(decision.allowed).toBe(false);
    expect(maps).toEqual(again);
    expect(await p.sitemaps(host.url('/c'))).toHaveLength(2);
    expect(host.requests('/robots.txt')).toHaveLength(1);
  });

  it('is empty when robots.txt is missing, unreachable or names no sitemap', async () => {
    const missing = await site('127.0.0.66', text('not here', 404));
    const failing = await site('127.0.0.67', text('busy', 503));
    const none = await site('127.0.0.68', text('User-agent: *\nDisallow:\n'));
    const p = polite();
    expect(await p.sitemaps(missing.url('/'))).toEqual([]);
    expect(await p.sitemaps(failing.url('/'))).toEqual([]);
    expect(await p.sitemaps(none.url('/'))).toEqual([]);
  });

  it('rejects a non-http(s) URL with a TypeError', async () => {
    await expect(polite().sitemaps('ftp://example.com/')).rejects.toThrow(TypeError);
  });
});
