/**
 * Latency-aware pacing against fixed-delay pacing, side by side in one run, judged at the wire
 * (tcpdump's time of each request line): requests per second to
 *
 * - a server whose latency climbs from 20 ms to 500 ms and back (Heritrix's delayFactor idea: a slow
 *   server is asked less often), and
 * - a server that answers 503 (no Retry-After) for a while, then recovers (errors slow the pace, good
 *   responses relax it one at a time).
 *
 * Each server is crawled twice at once, on two addresses: by got + politeGot with the defaults
 * (latency-aware, `latencyFactor: 2`) and with the signals off (`latencyFactor: 0, maxDelayMs: 0`:
 * minDelayMs and nothing else). Both count the gap from the end of the previous response (got's
 * default spacing). Run alone: `npm run bench -- signals`.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Agent } from 'node:http';
import { pathToFileURL } from 'node:url';
import type { PolitelyEvent } from '@politely/core';
import { politeGot, politenessOf } from '@politely/got';
import got from 'got';
import { markdownTable } from '../examples/demo/table.js';
import { startWireCapture, type WireRequest, type WireTarget } from '../test/helpers/wire.js';

const USER_AGENT = 'PolitelySignalsBench/1.0 (+http://127.0.0.1/bot)';
const MIN_DELAY_MS = 100;
/** Seconds of each phase: calm, trouble (500 ms latency, or 503s), calm again. */
const PHASES = [5, 8, 12] as const;
const TOTAL_S = PHASES[0] + PHASES[1] + PHASES[2];

/** Simulated hosts on 127.0.0.190 and up: clear of the tests, the demo webs and the pacing bench. */
const FIRST_OCTET = 190;
const SERVERS = [
  { name: 'latency', mode: 'latency' },
  { name: 'latency', mode: 'latency' },
  { name: '503', mode: 'errors' },
  { name: '503', mode: 'errors' },
] as const;

/**
 * The sites, in their own process so their event loop is not the crawler's. Phases count from `t0`
 * (epoch ms, given by the bench) on the server's clock.
 */
const WEB_SOURCE = `
const http = require('node:http');
const [first, t0, calm, trouble, ...modes] = process.argv.slice(1);
const phase = () => { const s = (Date.now() - Number(t0)) / 1000; return s >= Number(calm) && s < Number(calm) + Number(trouble) ? 'trouble' : 'calm'; };
Promise.all(modes.map((mode, i) => new Promise((resolve) => {
  const server = http.createServer((req, res) => {
    if (req.url === '/robots.txt') { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('User-agent: *\\nAllow: /\\n'); return; }
    const troubled = phase() === 'trouble';
    const latency = mode === 'latency' && troubled ? 500 : 20;
    setTimeout(() => {
      if (mode === 'errors' && troubled) { res.writeHead(503, { 'content-type': 'text/plain' }); res.end('busy'); return; }
      res.writeHead(200, { 'content-type': 'text/html' }); res.end('<p>page</p>');
    }, latency);
  });
  server.listen(0, '127.0.0.' + (Number(first) + i), () => resolve(server.address().port));
}))).then((ports) => process.stdout.write(JSON.stringify(ports) + '\\n'));
`;

interface Crawl {
  readonly label: string;
  readonly target: WireTarget;
  readonly events: PolitelyEvent[];
  run(until: number): Promise<void>;
  close(): Promise<void>;
}

function crawler(label: string, target: WireTarget, latencyAware: boolean): Crawl {
  const events: PolitelyEvent[] = [];
  const options = politeGot({
    userAgent: USER_AGENT,
    pacing: {
      minDelayMs: MIN_DELAY_MS,
      maxWaitMs: 600_000,
      ...(latencyAware ? {} : { latencyFactor: 0, maxDelayMs: 0 }),
    },
    logger: false,
    onEvent: (event) => {
      if (event.type === 'pace-changed') events.push(event);
    },
  });
  const agent = new Agent({ keepAlive: true });
  const client = got.extend(options, {
    retry: { limit: 0 },
    throwHttpErrors: false,
    agent: { http: agent },
  });
  return {
    label,
    target,
    events,
    async run(until) {
      // A crawler with plenty queued for this host: one loop, each page as soon as pacing allows.
      for (let i = 0; Date.now() < until; i++) await client(`http://${target.ip}:${target.port}/page/${i}`);
    },
    async close() {
      agent.destroy();
      await politenessOf(options).close();
    },
  };
}

export async function runSignalsBench(): Promise<void> {
  console.log(
    `\n## Latency-aware vs fixed-delay pacing (minDelayMs ${MIN_DELAY_MS}; phases ${PHASES.join(' s / ')} s)\n`,
  );
  const t0 = Date.now() + 1500;
  const child = spawn(
    process.execPath,
    [
      '-e',
      WEB_SOURCE,
      String(FIRST_OCTET),
      String(t0),
      String(PHASES[0]),
      String(PHASES[1]),
      ...SERVERS.map((s) => s.mode),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const crawls: Crawl[] = [];
  try {
    const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
    const ports = JSON.parse(chunk.toString()) as number[];
    const targets = ports.map((port, i) => ({ ip: `127.0.0.${FIRST_OCTET + i}`, port }));
    crawls.push(
      ...targets.map((target, i) =>
        crawler(`${SERVERS[i]?.name}, ${i % 2 === 0 ? 'latency-aware' : 'fixed delay'}`, target, i % 2 === 0),
      ),
    );
    const capture = await startWireCapture(targets);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, t0 - Date.now())));
    await Promise.all(crawls.map((c) => c.run(t0 + TOTAL_S * 1000)));
    const seen = await capture.stop();
    report(seen, crawls, t0, capture.source);
  } finally {
    await Promise.all(crawls.map((c) => c.close()));
    child.kill();
  }
}

function report(seen: readonly WireRequest[], crawls: readonly Crawl[], t0: number, source: string): void {
  const pages = (c: Crawl) =>
    seen.filter((r) => r.ip === c.target.ip && !r.path.endsWith('/robots.txt')).map((r) => r.at);
  const buckets = crawls.map((c) => {
    const counts = new Array<number>(TOTAL_S).fill(0);
    for (const at of pages(c)) {
      const second = Math.floor((at - t0) / 1000);
      if (second >= 0 && second < TOTAL_S) counts[second] = (counts[second] ?? 0) + 1;
    }
    return counts;
  });
  const phaseOf = (second: number) =>
    second < PHASES[0] ? 'calm' : second < PHASES[0] + PHASES[1] ? 'trouble' : 'calm';
  const rows = Array.from({ length: TOTAL_S }, (_, second) => [
    `${second}-${second + 1} s`,
    phaseOf(second),
    ...buckets.map((counts) => String(counts[second] ?? 0)),
  ]);
  console.log(
    markdownTable(
      [
        { title: 'second' },
        { title: 'phase' },
        ...crawls.map((c) => ({ title: `${c.label} (req/s)`, align: 'right' as const })),
      ],
      rows,
    ),
  );
  const sum = (counts: number[], from: number, to: number) =>
    counts.slice(from, to).reduce((a, b) => a + b, 0);
  const [calm, trouble] = PHASES;
  const summary = crawls.map((c, i) => {
    const counts = buckets[i] ?? [];
    const times = pages(c).sort((a, b) => a - b);
    const gaps = times.slice(1).map((t, k) => t - (times[k] ?? t));
    return [
      c.label,
      String(times.length),
      (sum(counts, 0, calm) / calm).toFixed(1),
      (sum(counts, calm, calm + trouble) / trouble).toFixed(1),
      (sum(counts, calm + trouble, TOTAL_S) / (TOTAL_S - calm - trouble)).toFixed(1),
      String(gaps.filter((g) => g < MIN_DELAY_MS).length),
      gaps.length ? `${Math.min(...gaps).toFixed(1)} ms` : '-',
      String(c.events.length),
    ];
  });
  console.log(
    `\n${markdownTable(
      [
        { title: 'crawl' },
        { title: 'pages', align: 'right' },
        { title: 'req/s calm', align: 'right' },
        { title: 'req/s trouble', align: 'right' },
        { title: 'req/s after', align: 'right' },
        { title: `gaps < ${MIN_DELAY_MS} ms`, align: 'right' },
        { title: 'smallest gap', align: 'right' },
        { title: 'pace-changed events', align: 'right' },
      ],
      summary,
    )}\n\njudged by ${source}\n`,
  );
  for (const c of crawls) {
    const shown = c.events
      .slice(0, 6)
      .map((e) => (e.type === 'pace-changed' ? `${e.fromMs}->${e.toMs} ms (${e.reason})` : ''));
    if (shown.length) console.log(`  ${c.label}: ${shown.join(', ')}${c.events.length > 30 ? ', ...' : ''}`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runSignalsBench();
}
