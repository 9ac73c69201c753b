/**
 * A hostile robots.txt for memory tests and benchmarks: ~500 KB of distinct wildcard rules, different
 * for every origin (nothing can be shared between origins), as a site with wildcard subdomains serves.
 */

/** A cheap deterministic generator (mulberry32), so every run builds the same files. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789-_';

function word(next: () => number, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[Math.floor(next() * ALPHABET.length)];
  return out;
}

/** Rule lines shared by every origin's file, built once per size (a file is then cheap to make). */
const templates = new Map<number, string[]>();

function template(bytes: number): string[] {
  let lines = templates.get(bytes);
  if (lines !== undefined) return lines;
  const next = random(bytes);
  lines = [];
  let size = 'User-agent: *'.length + 1;
  for (let rule = 0; size < bytes - 64; rule++) {
    const directive = next() < 0.2 ? 'Allow' : 'Disallow';
    let pattern = `${word(next, 3)}${rule.toString(36)}`;
    const stars = 1 + Math.floor(next() * 3);
    for (let s = 0; s < stars; s++) pattern += `*${word(next, 1 + Math.floor(next() * 4))}`;
    if (next() < 0.3) pattern += '$';
    // Each origin puts its own tag after the directive's `/` (6 chars), so count them here.
    lines.push(`${directive}: /`, pattern);
    size += directive.length + 3 + 6 + pattern.length + 1;
  }
  templates.set(bytes, lines);
  return lines;
}

/**
 * The robots.txt of origin number `index`: `User-agent: *` then Allow/Disallow lines such as
 * `Disallow: /x0k3fq3x9*q/7b*.php$` until about `bytes` (default 500,000). Every rule carries the
 * origin's tag, so no two origins share a pattern.
 */
export function hostileRobotsTxt(index: number, bytes = 500_000): string {
  const tag = index.toString(36).padStart(6, '0');
  const parts = template(bytes);
  const out: string[] = ['User-agent: *'];
  for (let i = 0; i < parts.length; i += 2) out.push(`${parts[i]}${tag}${parts[i + 1]}`);
  return `${out.join('\n')}\n`;
}

/**
 * The same file with every Allow/Disallow line a Content-Usage line of the same pattern
 * (`Content-Usage: /x0k3fq3x9*q/7b*.php$ train-ai=n`, `n` and `y` in turn), cut to about `bytes`:
 * issue 35.3's usage-heavy origin.
 */
export function hostileUsageRobotsTxt(index: number, bytes = 500_000): string {
  const out: string[] = [];
  let size = 0;
  for (const line of hostileRobotsTxt(index, bytes).split('\n')) {
    const usage = line.replace(/^(Allow|Disallow): /, 'Content-Usage: ');
    const next = usage === line ? line : `${usage} train-ai=${out.length % 2 === 0 ? 'n' : 'y'}`;
    if (size + next.length + 1 > bytes) break;
    out.push(next);
    size += next.length + 1;
  }
  return `${out.join('\n')}\n`;
}

/**
 * A robots.txt fetch for `createPoliteness({ fetch })` that serves every origin its own hostile file
 * (origin number = the first label's digits, `http://o123.example`), built on demand and never kept:
 * of Allow/Disallow lines, or with `usage`, of Content-Usage lines (hostileUsageRobotsTxt).
 * `requests` counts the fetches per origin.
 */
export function hostileFetch(
  bytes = 500_000,
  lines: 'rules' | 'usage' = 'rules',
): {
  readonly fetch: import('../../packages/core/src/fetch/types.js').FetchLike;
  readonly requests: Map<string, number>;
} {
  const requests = new Map<string, number>();
  const fetch: import('../../packages/core/src/fetch/types.js').FetchLike = async (url) => {
    const { origin, hostname, pathname } = new URL(url);
    // Only robots.txt is hostile here (and counted); anything else a crawl asks for (a TDM purpose's
    // /.well-known/tdmrep.json) is not found.
    if (pathname !== '/robots.txt') return { status: 404, headers: { get: () => null }, body: null };
    requests.set(origin, (requests.get(origin) ?? 0) + 1);
    const index = Number(/\d+/.exec(hostname)?.[0] ?? 0);
    const text = lines === 'usage' ? hostileUsageRobotsTxt(index, bytes) : hostileRobotsTxt(index, bytes);
    const body = new TextEncoder().encode(text);
    return {
      status: 200,
      headers: { get: (name: string) => (name.toLowerCase() === 'content-type' ? 'text/plain' : null) },
      body: (async function* () {
        yield body;
      })(),
    };
  };
  return { fetch, requests };
}
