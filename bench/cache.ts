/**
 * Warm-cache overhead: what a check costs on an origin whose robots.txt is already compiled in process
 * memory (cache lookup + engine check), against the bare engine check on the same rules and URLs.
 * Run alone: `npx tsx bench/cache.ts`.
 */
import { pathToFileURL } from 'node:url';
import { Bench } from 'tinybench';
import { createRobotsCache } from '../packages/core/src/cache/robots-cache.js';
import { parseRobotsTxt } from '../packages/core/src/engine/index.js';
import type { FetchLike } from '../packages/core/src/fetch/types.js';
import { resolveOptions } from '../packages/core/src/options.js';

const TOKEN = 'BenchBot';
const ORIGIN = 'https://shop.example';

/** A mid-sized, realistic robots.txt: a global group, two named groups, wildcards, a sitemap. */
function sampleRobotsTxt(): string {
  const lines = ['User-agent: *'];
  for (const section of ['cart', 'checkout', 'account', 'wishlist', 'compare', 'search', 'tag', 'filter']) {
    lines.push(`Disallow: /${section}/`, `Disallow: /*/${section}/*?`, `Allow: /${section}/help$`);
  }
  lines.push('Disallow: /*?sessionid=', 'Disallow: /*.pdf$', 'Allow: /media/', '', 'User-agent: BenchBot');
  for (let i = 0; i < 30; i++) lines.push(`Disallow: /archive/${2000 + i}/`);
  lines.push(
    'Crawl-delay: 2',
    '',
    'User-agent: OtherBot',
    'Disallow: /',
    '',
    `Sitemap: ${ORIGIN}/sitemap.xml`,
  );
  return `${lines.join('\n')}\n`;
}

const PATHS = [
  '/',
  '/products/shoes/red-sneaker-42',
  '/cart/items?sessionid=abc',
  '/archive/2017/post-12',
  '/media/img/logo.png',
  '/en/filter/size?color=red',
  '/docs/manual.pdf',
  '/account/help',
];

export async function runCacheBench(): Promise<void> {
  const body = sampleRobotsTxt();
  const bytes = new TextEncoder().encode(body);
  const fetch: FetchLike = async () => ({
    status: 200,
    headers: new Headers({ 'content-type': 'text/plain' }),
    body: (async function* () {
      yield bytes;
    })(),
  });
  const cache = createRobotsCache(resolveOptions({ userAgent: `${TOKEN}/1.0` }), {
    fetch,
    clock: { now: Date.now },
    emit: () => {},
  });
  const urls = PATHS.map((path) => new URL(path, ORIGIN));
  const hrefs = urls.map((url) => url.href);
  const warm = await cache.get(urls[0] as URL);
  const robots = parseRobotsTxt(body);
  if (!warm.robots) throw new Error(`warm-up failed: ${warm.source}`);

  let i = 0;
  const next = () => {
    i = (i + 1) % urls.length;
    return i;
  };
  let sink = 0;
  const bench = new Bench({ time: 500, warmupTime: 100 });
  bench
    .add('bare engine check (RobotsTxt#check)', () => {
      const k = next();
      if (robots.check(hrefs[k] as string, TOKEN).allowed) sink++;
    })
    .add('warm cache.get + check (async)', async () => {
      const k = next();
      const entry = await cache.get(urls[k] as URL);
      if (entry.robots?.check(hrefs[k] as string, TOKEN).allowed) sink++;
    })
    .add('warm cache.peek + check (sync)', () => {
      const k = next();
      const entry = cache.peek(urls[k] as URL);
      if (entry?.robots?.check(hrefs[k] as string, TOKEN).allowed) sink++;
    });
  await bench.run();

  const meanUs = (name: string) => {
    const task = bench.getTask(name);
    const result = task?.result as { latency?: { mean: number } } | undefined;
    return (result?.latency?.mean ?? Number.NaN) * 1000;
  };
  const bare = meanUs('bare engine check (RobotsTxt#check)');
  console.log('\n## Warm robots.txt cache: per-check overhead\n');
  console.log(
    `robots.txt: ${bytes.byteLength} bytes; ${PATHS.length} URLs in rotation; no I/O after warm-up.\n`,
  );
  console.log('| check | mean µs | overhead vs bare µs |');
  console.log('| --- | ---: | ---: |');
  for (const task of bench.tasks) {
    const mean = meanUs(task.name);
    const overhead = task.name.startsWith('bare') ? '' : (mean - bare).toFixed(2);
    console.log(`| ${task.name} | ${mean.toFixed(2)} | ${overhead} |`);
  }
  if (sink < 0) console.log(sink);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runCacheBench();
}
