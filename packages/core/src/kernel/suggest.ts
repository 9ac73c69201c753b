/**
 * "Did you mean ...?" for mistyped names (options, CLI flags): the closest known name by edit distance,
 * when it is close enough to be a plausible typo.
 */

/**
 * Edit distance counting a swap of two neighbours as one edit (`agnet` -> `agent`), case-insensitive
 * (a wrong case is a typo too): the optimal string alignment variant of Damerau-Levenshtein.
 */
function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  const rows: number[][] = [];
  for (let i = 0; i <= x.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= y.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const above = rows[i - 1] ?? [];
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      let best = Math.min((above[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (above[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) {
        best = Math.min(best, (rows[i - 2]?.[j - 2] ?? 0) + 1);
      }
      row.push(best);
    }
    rows.push(row);
  }
  return rows[x.length]?.[y.length] ?? 0;
}

/**
 * Names users bring from other crawlers and rate limiters (Scrapy's DOWNLOAD_DELAY, Crawlee's
 * sameDomainDelaySecs, p-throttle, Bottleneck), and the names ours stand for. Spelling distance alone
 * cannot find these: `crawlDelay` is a prefix of `crawlDelayAboveMax`, which is not what it means.
 * A target is suggested only where it is a known name.
 */
const MEANT: Readonly<Record<string, readonly string[]>> = {
  crawldelay: ['minDelayMs'],
  crawldelayms: ['minDelayMs'],
  delay: ['minDelayMs'],
  delayms: ['minDelayMs'],
  mindelay: ['minDelayMs'],
  interval: ['minDelayMs'],
  ratelimit: ['minDelayMs'],
  samedomaindelaysecs: ['minDelayMs'],
  concurrency: ['maxConcurrentPerHost'],
  maxconcurrency: ['maxConcurrentPerHost'],
  ua: ['userAgent'],
  useragent: ['userAgent'],
  'user-agent': ['userAgent'],
  timeout: ['robotsTimeoutMs'],
  cache: ['store'],
};

/**
 * The known name closest to `input`, or undefined when none is close: first a name users mean by
 * `input` (the table above), then `input` as a prefix of exactly one known name that adds a short
 * suffix (`minDelay` -> `minDelayMs`; not `crawlDelay` -> `crawlDelayAboveMax`), then the name at the
 * smallest edit distance, when at most a third of the longer name's letters differ.
 */
export function closestName(input: string, known: Iterable<string>): string | undefined {
  const names = [...known];
  const lower = input.toLowerCase();
  const meant = (Object.hasOwn(MEANT, lower) ? MEANT[lower] : undefined)?.find((name) =>
    names.includes(name),
  );
  if (meant !== undefined && meant !== input) return meant;
  const prefixed = names.filter(
    (name) => lower.length >= 3 && name.toLowerCase().startsWith(lower) && name.length - lower.length <= 3,
  );
  if (prefixed.length === 1) return prefixed[0];
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const name of names) {
    const d = distance(input, name);
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  if (best === undefined) return undefined;
  return bestDistance <= Math.max(1, Math.floor(Math.max(input.length, best.length) / 3)) ? best : undefined;
}
