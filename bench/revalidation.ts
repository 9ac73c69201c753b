import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { coreSourcesAt } from './base-sources.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const DEFAULT_BASE = 'b915e12';
const ORIGINS = 1000;
const CONCURRENCY = 50;
const TTL_MS = 86_400_000;
const ETAG = '"corpus-median-v1"';
const LAST_MODIFIED = 'Sun, 01 Mar 2026 00:00:00 GMT';
/** ../shared/corpus beside the repository, as the engine benchmarks read it; POLITELY_CORPUS names another. */
const CORPUS = process.env.POLITELY_CORPUS ?? fileURLToPath(new URL('../../shared/corpus/', import.meta.url));

/** The corpus file of median size (its bytes as stored), or a stand-in of that size without the corpus. */
function medianRobotsTxt(): { body: Buffer; name: string } {
  const manifest = join(CORPUS, 'manifest.tsv');
  if (existsSync(manifest)) {
    const rows = readFileSync(manifest, 'utf8')
      .split('\n')
      .slice(1)
      .filter(Boolean)
      .map((line) => line.split('\t'))
      .map(([file, , bytes]) => ({ file: file ?? '', bytes: Number(bytes) }))
      .sort((a, b) => a.bytes - b.bytes);
    const median = rows[Math.floor(rows.length / 2)];
    if (median) return { body: readFileSync(join(CORPUS, 'robots', median.file)), name: median.file };
  }
  const body = Buffer.from(`User-agent: *\n${'Disallow: /private/\n'.repeat(32)}`);
  return { body, name: 'generated (no ../shared/corpus)' };
}

interface Tally {
  requests: number;
  notModified: number;
  full: number;
  conditional: number;
  bodyBytes: number;
}

interface Sites {
  readonly origins: readonly string[];
  /** Wire bytes sent and received by every server so far (closed connections included). */
  wire(): { sent: number; received: number };
  readonly tally: Tally;
  close(): Promise<void>;
}

async function startSites(body: Buffer, honour: boolean): Promise<Sites> {
  const tally: Tally = { requests: 0, notModified: 0, full: 0, conditional: 0, bodyBytes: 0 };
  const sockets: Socket[] = [];
  const servers: Server[] = [];
  const origins: string[] = [];
  for (let i = 0; i < ORIGINS; i++) {
    const server = createServer((req, res) => {
      tally.requests++;
      const ifNoneMatch = req.headers['if-none-match'];
      const ifModifiedSince = req.headers['if-modified-since'];
      if (ifNoneMatch !== undefined || ifModifiedSince !== undefined) tally.conditional++;
      const unchanged =
        honour && (ifNoneMatch !== undefined ? ifNoneMatch === ETAG : ifModifiedSince === LAST_MODIFIED);
      const validators = { etag: ETAG, 'last-modified': LAST_MODIFIED };
      if (unchanged) {
        tally.notModified++;
        res.writeHead(304, validators);
        res.end();
        return;
      }
      tally.full++;
      tally.bodyBytes += body.byteLength;
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': body.byteLength, ...validators });
      res.end(body);
    });
    server.on('connection', (socket) => sockets.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    origins.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  }
  return {
    origins,
    tally,
    wire: () => ({
      sent: sockets.reduce((sum, socket) => sum + socket.bytesWritten, 0),
      received: sockets.reduce((sum, socket) => sum + socket.bytesRead, 0),
    }),
    close: async () => {
      await Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.closeAllConnections();
              server.close(() => resolve());
            }),
        ),
      );
    },
  };
}

interface Phase {
  readonly requests: number;
  readonly full: number;
  readonly notModified: number;
  readonly conditional: number;
  readonly bodyBytes: number;
  readonly sent: number;
  readonly received: number;
}

interface Row {
  readonly code: string;
  readonly server: string;
  readonly crawl: Phase;
  readonly recrawl: Phase;
  readonly load: string;
}

/** One row: a first crawl and a re-crawl past cacheTtlMs, on `root`'s robots.txt cache. */
async function measure(root: string, code: string, body: Buffer, honour: boolean): Promise<Row> {
  const load = loadavg()[0]?.toFixed(2) ?? '?';
  const { createPoliteness } = (await import(
    pathToFileURL(join(root, 'packages/core/src/facade/politeness.ts')).href
  )) as typeof import('../packages/core/src/facade/politeness.js');
  const sites = await startSites(body, honour);
  const clock = { t: Date.parse('2026-03-01T00:00:00Z') };
  const politeness = createPoliteness({
    userAgent: 'BenchBot/1.0',
    scheduler: 'memory',
    logger: false,
    pacing: { minDelayMs: 0 },
    robots: { cacheTtlMs: TTL_MS },
    clock: {
      now: () => clock.t,
      sleep: async (ms: number) => {
        clock.t += Math.max(ms, 0);
      },
    },
  } as Parameters<typeof createPoliteness>[0]);
  const snapshot = (): Phase => ({ ...sites.tally, ...sites.wire() });
  const minus = (a: Phase, b: Phase): Phase => ({
    requests: a.requests - b.requests,
    full: a.full - b.full,
    notModified: a.notModified - b.notModified,
    conditional: a.conditional - b.conditional,
    bodyBytes: a.bodyBytes - b.bodyBytes,
    sent: a.sent - b.sent,
    received: a.received - b.received,
  });
  const crawl = async () => {
    let next = 0;
    const worker = async () => {
      while (next < sites.origins.length) {
        const origin = sites.origins[next++];
        const decision = await politeness.check(`${origin}/page`);
        if (decision.robotsUrl === '') throw new Error('no decision');
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  };
  try {
    const start = snapshot();
    await crawl();
    const afterCrawl = snapshot();
    clock.t += TTL_MS + 1;
    await crawl();
    // Let the last responses' bytes be counted.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const end = snapshot();
    return {
      code,
      server: honour ? 'honours conditions' : 'ignores conditions',
      crawl: minus(afterCrawl, start),
      recrawl: minus(end, afterCrawl),
      load,
    };
  } finally {
    await politeness.close();
    await sites.close();
  }
}

const kb = (bytes: number) => (bytes / 1024).toFixed(1);

export async function runRevalidationBench(): Promise<void> {
  const flag = process.argv.find((arg) => arg.startsWith('--base='));
  const base = flag === undefined ? DEFAULT_BASE : flag.slice('--base='.length);
  const { body, name } = medianRobotsTxt();
  console.log('\n## Re-crawl of 1,000 origins after the robots.txt cache expired\n');
  console.log(
    `Each origin's robots.txt: ${body.byteLength} bytes (${name}, the corpus's median size), with an ETag and a Last-Modified. One check per origin (${CONCURRENCY} at a time), the fake clock moved past cacheTtlMs, one check per origin again. Counted by the servers: requests, responses, body bytes, bytes on the wire (status lines and headers included) sent and received.\n`,
  );
  console.log(
    '| code | servers | crawl | requests | 200 | 304 | conditional | body KiB | wire KiB sent | wire KiB received | load (1 min) |',
  );
  console.log('| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  const baseRoot = coreSourcesAt(base, 'revalidation');
  const rows: Row[] = [];
  try {
    rows.push(await measure(baseRoot, `before (${base})`, body, true));
    rows.push(await measure(REPO, 'after', body, false));
    rows.push(await measure(REPO, 'after', body, true));
  } finally {
    rmSync(baseRoot, { recursive: true, force: true });
  }
  for (const row of rows) {
    for (const [label, phase] of [
      ['first', row.crawl],
      ['re-crawl', row.recrawl],
    ] as const) {
      console.log(
        `| ${row.code} | ${row.server} | ${label} | ${phase.requests} | ${phase.full} | ${phase.notModified} | ${phase.conditional} | ${kb(phase.bodyBytes)} | ${kb(phase.sent)} | ${kb(phase.received)} | ${row.load} |`,
      );
    }
  }
  const before = rows[0]?.recrawl;
  const after = rows[2]?.recrawl;
  if (before && after && after.sent > 0) {
    console.log(
      `\nRe-crawl, after / before: requests ${(after.requests / before.requests).toFixed(2)}, body bytes ${(after.bodyBytes / Math.max(1, before.bodyBytes)).toFixed(3)}, wire bytes sent ${(after.sent / before.sent).toFixed(2)} (${(before.sent / after.sent).toFixed(1)}x fewer), received ${(after.received / before.received).toFixed(2)}.`,
    );
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runRevalidationBench();
}
