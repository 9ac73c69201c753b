/**
 * `createSitemapFollower`: robots.txt comes from an injected fetch (no network), sitemap files from a
 * fake `download` that records what was asked, and the XML format from a toy parser (a real one is the
 * caller's: Crawlee's in the plugin). What a user sees: the pages handed to `onPages`, the files
 * downloaded, and what was logged.
 */
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { createPoliteness, type FetchLike, type Politeness } from '../src/index.js';
import {
  createSitemapFollower,
  type SitemapEntry,
  type SitemapFollowerOptions,
  type SitemapPages,
} from '../src/public/fetch.js';

const instances: Politeness[] = [];
afterEach(async () => {
  await Promise.all(instances.splice(0).map((p) => p.close()));
});

/** robots.txt per host name (none: an empty one); counts the fetches per host. */
function polite(robots: Record<string, string>) {
  const fetches: string[] = [];
  const fetch: FetchLike = async (url) => {
    fetches.push(new URL(url).hostname);
    const bytes = new TextEncoder().encode(robots[new URL(url).hostname] ?? '');
    return {
      status: 200,
      headers: new Headers({ 'content-type': 'text/plain' }),
      body: (async function* () {
        yield bytes;
      })(),
    };
  };
  const p = createPoliteness({
    userAgent: 'SitemapBot/1.0',
    pacing: { minDelayMs: 0 },
    scheduler: 'memory',
    robots: { fetch },
    logger: false,
  });
  instances.push(p);
  return { p, fetches };
}

/** A toy XML reader for tests: `<sitemap><loc>` entries are sitemaps, `<url><loc>` entries pages. */
function* toyXml({ content }: { content: string }): Iterable<SitemapEntry> {
  for (const [, tag, loc] of content.matchAll(/<(url|sitemap)><loc>([^<]*)<\/loc>/g)) {
    yield { loc: loc as string, isSitemap: tag === 'sitemap' };
  }
}
const urlset = (locs: string[]) =>
  `<urlset>${locs.map((loc) => `<url><loc>${loc}</loc></url>`).join('')}</urlset>`;
const index = (locs: string[]) =>
  `<sitemapindex>${locs.map((loc) => `<sitemap><loc>${loc}</loc></sitemap>`).join('')}</sitemapindex>`;

/** A follower over `files` (URL -> body); records downloads, pages handed out and log lines. */
function follower(
  p: Politeness,
  files: Record<string, Uint8Array | string | Error>,
  options: Partial<SitemapFollowerOptions> = {},
) {
  const downloaded: string[] = [];
  const handed: SitemapPages[] = [];
  const logged: string[] = [];
  const log = (level: string) => (message: string, data?: Record<string, unknown>) =>
    logged.push(`${level} ${message} ${JSON.stringify(data)}`);
  const follow = createSitemapFollower(p, {
    download: async (url) => {
      downloaded.push(url);
      const body = files[url];
      if (body instanceof Error) throw body;
      return body;
    },
    parseXml: toyXml,
    onPages: (pages) => void handed.push(pages),
    logger: { debug: log('debug'), warn: log('warn') },
    ...options,
  });
  return { follow, downloaded, handed, logged };
}

describe('createSitemapFollower', () => {
  it('hands out the pages of the sitemaps robots.txt lists, XML and text, once per origin', async () => {
    const { p, fetches } = polite({
      'a.test': 'User-agent: *\nSitemap: https://a.test/sitemap.xml\nSitemap: https://a.test/more.txt\n',
    });
    const { follow, downloaded, handed } = follower(p, {
      'https://a.test/sitemap.xml': urlset(['https://a.test/1', 'https://a.test/2']),
      'https://a.test/more.txt': 'https://a.test/3\r\n  https://a.test/1 \nnot a url\n',
    });

    const task = follow.meet('https://a.test/page');
    expect(follow.meet('https://a.test/other?q=1')).toBeUndefined();
    await task;
    expect(follow.meet(new URL('https://a.test/later'))).toBeUndefined();

    expect(handed).toEqual([
      { origin: 'https://a.test', urls: ['https://a.test/1', 'https://a.test/2', 'https://a.test/3'] },
    ]);
    expect(downloaded).toEqual(['https://a.test/sitemap.xml', 'https://a.test/more.txt']);
    expect(fetches).toEqual(['a.test']);
  });

  it('follows the files a sitemap index names, each once', async () => {
    const { p } = polite({ 'a.test': 'Sitemap: https://a.test/index.xml\n' });
    const { follow, downloaded, handed } = follower(p, {
      'https://a.test/index.xml': index([
        'https://a.test/p1.xml',
        'https://a.test/p2.xml',
        'https://a.test/index.xml',
      ]),
      'https://a.test/p1.xml': urlset(['https://a.test/1']),
      'https://a.test/p2.xml': index(['https://a.test/p1.xml', 'https://a.test/p3.xml']),
      'https://a.test/p3.xml': urlset(['https://a.test/3']),
    });
    await follow.meet('https://a.test/');
    expect(downloaded).toEqual([
      'https://a.test/index.xml',
      'https://a.test/p1.xml',
      'https://a.test/p2.xml',
      'https://a.test/p3.xml',
    ]);
    expect(handed.map((pages) => pages.urls)).toEqual([['https://a.test/1', 'https://a.test/3']]);
  });

  it("keeps pages on the origin's own hostname only (the sitemaps protocol's rule)", async () => {
    const { p } = polite({ 'a.test': 'Sitemap: https://a.test/s.xml\n' });
    const { follow, handed } = follower(p, {
      'https://a.test/s.xml': urlset([
        'https://a.test/1',
        'http://a.test:8080/2',
        'https://b.test/3',
        'https://sub.a.test/4',
        'not a url',
      ]),
    });
    await follow.meet('https://a.test/');
    expect(handed.map((pages) => pages.urls)).toEqual([['https://a.test/1', 'http://a.test:8080/2']]);
  });

  it('downloads maxFiles files per origin at most, sitemap index entries included', async () => {
    const listed = Array.from({ length: 10 }, (_, i) => `https://a.test/s${i}.xml`);
    const { p } = polite({ 'a.test': 'Sitemap: https://a.test/index.xml\n' });
    const files: Record<string, string> = { 'https://a.test/index.xml': index(listed) };
    for (const [i, url] of listed.entries()) files[url] = urlset([`https://a.test/page${i}`]);
    const { follow, downloaded, handed } = follower(p, files, { maxFiles: 3 });
    await follow.meet('https://a.test/');
    expect(downloaded).toEqual([
      'https://a.test/index.xml',
      'https://a.test/s0.xml',
      'https://a.test/s1.xml',
    ]);
    expect(handed.map((pages) => pages.urls)).toEqual([['https://a.test/page0', 'https://a.test/page1']]);
  });

  it('hands out maxUrls pages per origin at most, and reads no further file once there', async () => {
    const { p } = polite({ 'a.test': 'Sitemap: https://a.test/s.xml\nSitemap: https://a.test/t.xml\n' });
    const { follow, downloaded, handed } = follower(
      p,
      {
        'https://a.test/s.xml': urlset([
          'https://a.test/1',
          'https://a.test/1',
          'https://a.test/2',
          'https://a.test/3',
        ]),
        'https://a.test/t.xml': urlset(['https://a.test/4']),
      },
      { maxUrls: 2 },
    );
    await follow.meet('https://a.test/');
    expect(handed.map((pages) => pages.urls)).toEqual([['https://a.test/1', 'https://a.test/2']]);
    expect(downloaded).toEqual(['https://a.test/s.xml']);
  });

  it('unpacks a gzipped file, and skips one that unpacks past maxFileBytes (a gzip bomb)', async () => {
    const { p } = polite({
      'a.test': 'Sitemap: https://a.test/s.xml.gz\nSitemap: https://a.test/bomb.xml.gz\n',
    });
    const bomb = gzipSync(
      `<urlset><url><loc>https://a.test/bomb</loc></url>${' '.repeat(2_000_000)}</urlset>`,
    );
    const { follow, handed, logged } = follower(
      p,
      {
        'https://a.test/s.xml.gz': gzipSync(urlset(['https://a.test/g'])),
        'https://a.test/bomb.xml.gz': bomb,
      },
      { maxFileBytes: 1_000_000 },
    );
    expect(bomb.byteLength).toBeLessThan(10_000);
    await follow.meet('https://a.test/');
    expect(handed.map((pages) => pages.urls)).toEqual([['https://a.test/g']]);
    expect(logged).toEqual([expect.stringMatching(/^debug sitemap not loaded .*bomb\.xml\.gz.*"error"/)]);
  });

  it('logs a failing download and a failing parse, keeps what was read, and never rejects', async () => {
    const { p } = polite({
      'a.test': [
        'Sitemap: https://a.test/down.xml',
        'Sitemap: https://a.test/missing.xml',
        'Sitemap: https://a.test/broken.xml',
        'Sitemap: https://a.test/ok.txt',
      ].join('\n'),
    });
    const { follow, handed, logged } = follower(
      p,
      {
        'https://a.test/down.xml': new Error('connection reset'),
        'https://a.test/broken.xml': '<urlset>',
        'https://a.test/ok.txt': 'https://a.test/ok\n',
      },
      {
        parseXml: async function* () {
          yield { loc: 'https://a.test/before', isSitemap: false };
          throw new Error('unclosed tag');
        },
      },
    );
    await expect(follow.meet('https://a.test/')).resolves.toBeUndefined();
    expect(handed.map((pages) => pages.urls)).toEqual([['https://a.test/before', 'https://a.test/ok']]);
    expect(logged).toEqual([
      'debug sitemap not loaded {"url":"https://a.test/down.xml","error":"Error: connection reset"}',
      'debug sitemap not loaded {"url":"https://a.test/missing.xml"}',
      'debug sitemap not parsed {"url":"https://a.test/broken.xml","error":"Error: unclosed tag"}',
    ]);
  });

  it('logs a failing onPages and resolves; calls it not at all when there are no pages', async () => {
    const { p } = polite({ 'a.test': 'Sitemap: https://a.test/s.txt\n', 'b.test': 'User-agent: *\n' });
    let calls = 0;
    const { follow, logged } = follower(
      p,
      { 'https://a.test/s.txt': 'https://a.test/1\n' },
      {
        onPages: () => {
          calls++;
          throw new Error('queue closed');
        },
      },
    );
    await expect(follow.meet('https://a.test/')).resolves.toBeUndefined();
    await follow.meet('https://b.test/');
    expect(calls).toBe(1);
    expect(logged).toEqual(['warn onPages failed {"origin":"https://a.test","error":"Error: queue closed"}']);
  });

  it('remembers maxOrigins origins at most, then starts over; ignores URLs that are not http(s)', async () => {
    const { p } = polite({});
    const { follow } = follower(p, {}, { maxOrigins: 2 });
    expect(follow.meet('data:text/plain,hi')).toBeUndefined();
    expect(follow.meet('not a url')).toBeUndefined();
    expect(follow.meet('http://[malformed')).toBeUndefined();
    expect(follow.meet('ftp://a.test/')).toBeUndefined();
    await follow.meet('https://a.test/');
    await follow.meet('https://b.test/');
    expect(follow.meet('https://b.test/x')).toBeUndefined();
    // A third origin clears the memory: a.test is followed again when met again.
    await follow.meet('https://c.test/');
    expect(follow.meet('https://a.test/')).toBeInstanceOf(Promise);
  });

  it('checks its options once, at creation', () => {
    const { p } = polite({});
    const base = { download: async () => undefined, parseXml: toyXml, onPages: () => {} };
    expect(() => createSitemapFollower(p, { ...base, maxFiles: 0 })).toThrow(
      'Expected option `maxFiles` to be an integer >= 1, got `0` (number)',
    );
    expect(() => createSitemapFollower(p, { ...base, maxUrl: 5 } as never)).toThrow(
      /Unknown sitemap follower option `maxUrl`/,
    );
    expect(() =>
      createSitemapFollower(p, { download: base.download, onPages: base.onPages } as never),
    ).toThrow('Option `parseXml` is required (a function)');
    expect(() => createSitemapFollower({} as Politeness, base)).toThrow(/Expected a Politeness/);
  });
});
