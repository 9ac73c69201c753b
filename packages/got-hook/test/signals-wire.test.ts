/**
 * Latency-aware pacing and host grouping with got against real loopback servers, judged at the wire
 * (the kernel's time of each request line): a slow server is asked less often, the asked delay is
 * still never undercut, and hosts grouped by registrable domain or by address share one pace.
 */
import type { LookupAddress } from 'node:dns';
import got, { type Got } from 'got';
import { describe, expect, it } from 'vitest';
import { html, type TestHost, text } from '../../../test/helpers/hosts.js';
import { judgePacing, startWireCapture, type WireRequest } from '../../../test/helpers/wire.js';
import { ADDRESS_TTL_MS } from '../../core/src/facade/host-key.js';
import { politeGot, politenessOf } from '../src/index.js';
import { host, track, USER_AGENT } from './setup.js';

const ROBOTS = { '/robots.txt': text('User-agent: *\nAllow: /\n') };

/** Page requests (robots.txt left out), sorted by wire time, and the gaps between them. */
function pageGaps(seen: readonly WireRequest[], ips: readonly string[]): number[] {
  const times = seen
    .filter((r) => ips.includes(r.ip) && !r.path.endsWith('/robots.txt'))
    .map((r) => r.at)
    .sort((a, b) => a - b);
  return times.slice(1).map((t, i) => t - (times[i] ?? t));
}

describe('latency-aware pacing at the wire', () => {
  it('a server answering in 250 ms is asked at most once per 3 x 250 ms; the asked delay still holds', async () => {
    const latencyMs = 250;
    const slow = await host({ routes: ROBOTS, fallback: { status: 200, body: 'slow', delayMs: latencyMs } });
    const fast = await host({ routes: ROBOTS, fallback: html('fast') });
    const options = politeGot({ userAgent: USER_AGENT, pacing: { minDelayMs: 100 } });
    track(politenessOf(options));
    const client = got.extend(options, { retry: { limit: 0 } });
    const capture = await startWireCapture([slow, fast]);
    await Promise.all(
      [slow, fast].map(async (site) => {
        for (let i = 0; i < 6; i++) await client(site.url(`/page/${i}`));
      }),
    );
    const seen = await capture.stop();
    const judged = judgePacing(seen, 100);
    expect(judged.get(slow.ip)?.violations).toEqual([]);
    expect(judged.get(fast.ip)?.violations).toEqual([]);
    expect(judged.get(fast.ip)?.times).toHaveLength(6);
    // From the third page on the pace knows the latency (each response's is known once it is read):
    // the server works 250 ms, then is left alone 2 x 250 ms (latencyFactor 2) before the next request.
    const gaps = pageGaps(seen, [slow.ip]);
    expect(gaps).toHaveLength(5);
    for (const gap of gaps.slice(1)) expect(gap).toBeGreaterThanOrEqual(3 * latencyMs);
  });
});

/** A DNS table for got and for robots.txt: names of the test web to loopback addresses. */
function resolver(table: Record<string, string>) {
  const dnsLookup = (
    hostname: string,
    options: { all?: boolean | undefined } | number | undefined,
    callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    const address = table[hostname];
    if (!address) {
      callback(Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '');
      return;
    }
    if (typeof options === 'object' && options?.all) callback(null, [{ address, family: 4 }]);
    else callback(null, address, 4);
  };
  // robots.txt goes out through core's fetch: send it to the address, as the page requests go.
  const fetch = (url: string | URL, init?: RequestInit) => {
    const target = new URL(String(url));
    target.hostname = table[target.hostname] ?? target.hostname;
    return globalThis.fetch(target, init);
  };
  const lookups: string[] = [];
  const lookup = async (hostname: string) => {
    lookups.push(hostname);
    const address = table[hostname];
    if (!address) throw new Error(`ENOTFOUND ${hostname}`);
    return address;
  };
  return { dnsLookup, fetch, lookup, lookups };
}

/** Each name's pages in turn, all names at once; `sites[i]` is the server behind `names[i]`. */
async function crawlByName(
  client: Got,
  sites: readonly TestHost[],
  names: readonly string[],
  pages: number,
): Promise<WireRequest[]> {
  const capture = await startWireCapture(sites);
  await Promise.all(
    names.map(async (name, n) => {
      const port = (sites[n] ?? sites[0])?.port;
      for (let i = 0; i < pages; i++) await client(`http://${name}:${port}/page/${i}`);
    }),
  );
  return capture.stop();
}

describe('host grouping at the wire', () => {
  it("hostKey 'domain': two names of one registrable domain, on two servers, share one pace", async () => {
    const a = await host({ routes: ROBOTS, fallback: html('a') });
    const b = await host({ routes: ROBOTS, fallback: html('b') });
    const names = { 'a.example.test': a.ip, 'b.example.test': b.ip };
    const { dnsLookup, fetch } = resolver(names);
    const options = politeGot({
      userAgent: USER_AGENT,
      pacing: { minDelayMs: 200, hostKey: 'domain' },
      robots: { fetch },
    });
    track(politenessOf(options));
    const client = got.extend(options, { retry: { limit: 0 }, dnsLookup });
    const seen = await crawlByName(client, [a, b], Object.keys(names), 4);
    const gaps = pageGaps(seen, [a.ip, b.ip]);
    expect(gaps).toHaveLength(7);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(200);
    expect(judgePacing(seen, 200).get(b.ip)?.times).toHaveLength(4);
  });

  /** One server under two names, got paced 200 ms by address. */
  async function twoNamesOneAddress() {
    const site = await host({ routes: ROBOTS, fallback: html('shared') });
    const names = { 'one.example.test': site.ip, 'two.other.test': site.ip };
    const { dnsLookup, fetch, lookup, lookups } = resolver(names);
    const options = politeGot({
      userAgent: USER_AGENT,
      pacing: { minDelayMs: 200, hostKey: 'ip', lookup },
      robots: { fetch },
    });
    track(politenessOf(options));
    const client = got.extend(options, { retry: { limit: 0 }, dnsLookup });
    return { site, names, client, lookups };
  }

  it("hostKey 'ip': two names of one address share one pace; robots.txt is still per origin", async () => {
    const { site, names, client } = await twoNamesOneAddress();
    const seen = await crawlByName(client, [site], Object.keys(names), 4);
    const gaps = pageGaps(seen, [site.ip]);
    expect(gaps).toHaveLength(7);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(200);
    // One robots.txt per origin (two names, two origins), whatever the pacing key.
    expect(site.requests('/robots.txt')).toHaveLength(2);
  });

  it("hostKey 'ip': past the minute an address is kept, the two names are resolved again and still share one pace", async () => {
    const { site, names, client, lookups } = await twoNamesOneAddress();
    await crawlByName(client, [site], Object.keys(names), 1);
    const resolvedFirst = lookups.length;
    // The host's slot passes on the real clock, then the wall clock moves past the addresses' minute.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const restore = wallClockForward(ADDRESS_TTL_MS + 1000);
    try {
      const seen = await crawlByName(client, [site], Object.keys(names), 3);
      const gaps = pageGaps(seen, [site.ip]);
      expect(gaps).toHaveLength(5);
      for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(200);
      expect(lookups.length).toBeGreaterThanOrEqual(resolvedFirst + 2);
    } finally {
      restore();
    }
  });
});

/**
 * Moves the wall clock (`Date.now`, which core's clock, its caches and got's timings read) forward by
 * `ms` from now on, as that much time passing would; timers and the wire keep real time. Returns the
 * undo. Only between requests: a wait under way would see its time come at once.
 */
function wallClockForward(ms: number): () => void {
  const realNow = Date.now;
  Date.now = () => realNow() + ms;
  return () => {
    Date.now = realNow;
  };
}
