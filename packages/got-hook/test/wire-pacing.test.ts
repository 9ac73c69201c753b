/**
 * Pacing judged at the wire (the kernel's time of each request line, tcpdump on lo), with no
 * tolerance: no gap below the asked delay, each scenario with two CPU-burning processes beside it.
 */
import got, { type Got } from 'got';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startDelayingProxy } from '../../../examples/shared/delaying-proxy.js';
import { slowConnectAgent } from '../../../examples/shared/slow-connect-agent.js';
import {
  crawlFileSite,
  FILE_SITE_CRAWL_DELAY_SECS,
  FILE_SITE_PATHS,
  judgeFileSite,
  serveFileSite,
} from '../../../test/helpers/file-site.js';
import { html, type TestHost, text } from '../../../test/helpers/hosts.js';
import {
  burnCpu,
  judgePacing,
  skipWithoutWire,
  startWireCapture,
  type WireRequest,
} from '../../../test/helpers/wire.js';
import { type GotPacingOptions, politeGot, politenessOf } from '../src/index.js';
import { host, track, USER_AGENT } from './setup.js';

let burners: { stop(): void } | undefined;
beforeEach(() => {
  burners = burnCpu(2);
});
afterEach(() => {
  burners?.stop();
});

function client(minDelayMs: number, pacing: GotPacingOptions = {}, extra: Parameters<Got['extend']>[0] = {}) {
  const options = politeGot({ userAgent: USER_AGENT, pacing: { minDelayMs } }, pacing);
  track(politenessOf(options));
  return got.extend(options, { retry: { limit: 0 }, throwHttpErrors: false }, extra);
}

const okHost = () =>
  host({ routes: { '/robots.txt': text('User-agent: *\nAllow: /\n') }, fallback: html('ok') });

/** Every page of every host requested at once: callers queue for their hosts' slots. */
async function crawl(target: Got, hosts: readonly TestHost[], pages: number): Promise<WireRequest[]> {
  const capture = await startWireCapture(hosts);
  const urls = hosts.flatMap((h) => Array.from({ length: pages }, (_, i) => h.url(`/page/${i}`)));
  const responses = await Promise.all(urls.map((url) => target(url)));
  const seen = await capture.stop();
  expect(responses.map((response) => response.statusCode)).toEqual(urls.map(() => 200));
  return seen;
}

/** What a polite crawl looks like: every page of every host, no gap below the delay. */
const polite = (hosts: readonly TestHost[], pages: number) =>
  hosts.map((h) => ({ ip: h.ip, pages, violations: [] })).sort((a, b) => a.ip.localeCompare(b.ip));

/** Per host: page count and the gaps below the asked delay (none expected). */
function verdict(seen: readonly WireRequest[], askedMs: number) {
  return [...judgePacing(seen, askedMs).values()]
    .map((h) => ({ ip: h.ip, pages: h.times.length, violations: h.violations }))
    .sort((a, b) => a.ip.localeCompare(b.ip));
}

describe.each([100, 200])('politeGot at %i ms, two CPU burners beside it', (delayMs) => {
  it('never sends two requests to one host closer than asked, at the wire', async () => {
    const hosts = [await okHost(), await okHost(), await okHost()];

    const seen = await crawl(client(delayMs), hosts, 8);

    expect(verdict(seen, delayMs)).toEqual(polite(hosts, 8));
  });
});

describe('politeGot at the default 1 s delay', () => {
  it('keeps 1000 ms between requests at the wire, the first on a slow new connection', async () => {
    const site = await okHost();
    // 120 ms of connection setup (a TLS handshake's worth) that a reused connection does not pay.
    const agent = slowConnectAgent(120);

    const seen = await crawl(client(1000, {}, { agent: { http: agent } }), [site], 3);
    agent.destroy();

    expect(verdict(seen, 1000)).toEqual(polite([site], 3));
  });
});

describe("counting from the real send (spacing: 'start')", () => {
  it('counts from when a request went out after a 120 ms connection setup, not from its slot', async () => {
    const hosts = [await okHost(), await okHost()];
    const agent = slowConnectAgent(120);

    const seen = await crawl(client(200, { spacing: 'start' }, { agent: { http: agent } }), hosts, 6);
    agent.destroy();

    expect(verdict(seen, 200)).toEqual(polite(hosts, 6));
  });
});

describe('through a forwarding proxy that holds each request 0-300 ms before connecting onward', () => {
  it("keeps the delay at the server by counting from the previous response (spacing: 'response')", async () => {
    const hosts = [await okHost(), await okHost()];
    const proxy = await startDelayingProxy();
    try {
      const seen = await crawl(client(200, {}, { agent: { http: proxy.agent() } }), hosts, 6);

      expect(verdict(seen, 200)).toEqual(polite(hosts, 6));
      // Every page went through the proxy, and so did each host's robots.txt (got's agent carries it).
      expect(proxy.holds).toHaveLength(14);
    } finally {
      await proxy.close();
    }
  });
});

describe('429 and 503 with Retry-After', () => {
  it('sends nothing to the host until Retry-After has passed since the 429 answered', async () => {
    // The 429 is answered 200 ms after it arrives, so the next request may not leave before 1.2 s.
    const site = await host({
      routes: { '/busy': { status: 429, headers: { 'retry-after': '1' }, body: 'slow down', delayMs: 200 } },
      fallback: html('ok'),
    });
    const target = client(0);
    const capture = await startWireCapture([site]);

    const busy = await target(site.url('/busy'));
    const next = await target(site.url('/next'));
    const seen = await capture.stop();

    expect([busy.statusCode, next.statusCode]).toEqual([429, 200]);
    const [first, second] = [seen.find((r) => r.path === '/busy'), seen.find((r) => r.path === '/next')];
    expect(second && first && second.at - first.at).toBeGreaterThanOrEqual(1200);
  });

  it("got's own retry of a 503 waits for Retry-After, at the wire", async () => {
    let answered = 0;
    const site = await host({
      routes: {
        '/flaky': (_req, res) => {
          answered++;
          if (answered === 1) res.writeHead(503, { 'retry-after': '1' }).end('later');
          else res.writeHead(200).end('ok');
        },
      },
    });
    const options = politeGot({ userAgent: USER_AGENT, pacing: { minDelayMs: 0 } });
    track(politenessOf(options));
    const retrying = got.extend(options, { retry: { limit: 1, methods: ['GET'], statusCodes: [503] } });
    const capture = await startWireCapture([site]);

    const response = await retrying(site.url('/flaky'));
    const seen = await capture.stop();

    expect(response.statusCode).toBe(200);
    const attempts = seen.filter((r) => r.path === '/flaky');
    expect(attempts).toHaveLength(2);
    const [first, second] = attempts as [WireRequest, WireRequest];
    expect(second.at - first.at).toBeGreaterThanOrEqual(1000);
  });
});

describe.skipIf(skipWithoutWire("politeGot's file pacing"))('files are paced as pages (issue 41.3)', () => {
  it('Crawl-delay: 1.5 on default options: no two requests closer than 1.5 s, robots.txt, tdmrep.json and the sitemap included', async () => {
    const site = await host({});
    serveFileSite(site, FILE_SITE_CRAWL_DELAY_SECS);
    // Default pacing (minDelayMs 1000); a TDM purpose, so tdmrep.json is fetched too.
    const options = politeGot({ userAgent: USER_AGENT, purpose: 'ai-train' });
    const politeness = track(politenessOf(options));
    const target = got.extend(options, { retry: { limit: 0 }, throwHttpErrors: false });
    const capture = await startWireCapture([site]);

    const listed = await crawlFileSite(politeness, site, async (url) => {
      const response = await target(url, { responseType: 'buffer' });
      return response.statusCode === 200 ? response.body : undefined;
    });
    const seen = await capture.stop();

    expect(listed).toHaveLength(2);
    expect(seen.map((request) => request.path).sort()).toEqual([...FILE_SITE_PATHS]);
    expect(judgeFileSite(seen, site, FILE_SITE_CRAWL_DELAY_SECS * 1000, 'politeGot')?.violations).toEqual([]);
  }, 60_000);
});
