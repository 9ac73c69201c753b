/**
 * `npm run soak -- --minutes N --hosts N --workers N`: a fleet soak anyone can run (issue 33, point 5).
 *
 * Starts its own redis-server on a free port (the shared one is never touched), a loopback web of
 * `--hosts` sites (127.77.x.y by default, one address each), a tcpdump capture of every request line,
 * and `--workers` crawler processes (@politely/fetch on a Keyv on that Redis) that share one work
 * queue. Over the run it kills and restarts Redis, pauses it (DEBUG SLEEP), flushes its scripts and
 * SIGKILLs one worker and starts it again. Then it judges, at the wire: gaps below each host's delay,
 * pages lost, pages fetched twice, robots.txt fetches per origin, disallowed requests, and each
 * worker's memory after warm-up and at the end. Exit code 1 when a line fails, 2 when it cannot run.
 *
 * The work queue lives in this process, not in Redis: the soak restarts Redis empty, and a queue there
 * would lose its pages with it. An item handed to a worker is leased: acknowledged when the page is
 * fetched, handed out again when its worker dies (at once) or holds it past a visibility timeout.
 */
import { type ChildProcess, fork, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { FromWeb, FromWorker, SoakHost, ToWeb, ToWorker, WorkerSetup } from './protocol.js';

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '3' },
    hosts: { type: 'string', default: '500' },
    workers: { type: 'string', default: '3' },
    /** Pacing for sites without a Crawl-delay, and the floor for all. */
    'min-delay-ms': { type: 'string', default: '10000' },
    /** Crawl-delay range in seconds for every other site, `low-high`. */
    'crawl-delay': { type: 'string', default: '10-20' },
    /** First two octets of the sites' addresses. */
    net: { type: 'string', default: '127.77' },
    faults: { type: 'boolean', default: true },
  },
  allowNegative: true,
});

function positive(name: string, raw: string | undefined): number {
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    console.error(`soak: --${name} must be a positive number, got ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  return value;
}

const MINUTES = positive('minutes', args.minutes);
const HOSTS = Math.floor(positive('hosts', args.hosts));
const WORKERS = Math.floor(positive('workers', args.workers));
const MIN_DELAY_MS = positive('min-delay-ms', args['min-delay-ms']);
const [CRAWL_LOW, CRAWL_HIGH] = (args['crawl-delay'] ?? '').split('-').map(Number);
if (!(CRAWL_LOW && CRAWL_HIGH && CRAWL_LOW > 0 && CRAWL_HIGH >= CRAWL_LOW)) {
  console.error(`soak: --crawl-delay must be low-high in seconds, e.g. 10-20, got ${args['crawl-delay']}`);
  process.exit(2);
}
const NET = args.net ?? '127.77';
if (!/^127\.\d{1,3}$/.test(NET)) {
  console.error(`soak: --net must be the first two octets of a loopback address, e.g. 127.77, got ${NET}`);
  process.exit(2);
}
if (HOSTS > 250 * 250) {
  console.error('soak: at most 62500 hosts');
  process.exit(2);
}
const RUN_MS = MINUTES * 60_000;
/** Items one host may have handed out at once: two, so two processes can race for one host's slot. */
const PER_HOST_OUT = 2;
const MAX_WAIT_MS = 120_000;
/** A lease older than this goes back in the queue: longer than a worker's wait plus its page timeout. */
const VISIBILITY_TIMEOUT_MS = MAX_WAIT_MS + 60_000;
/** Tries of one page before it counts as lost. */
const MAX_TRIES = 8;

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const t0 = Date.now();
const stamp = () => `[${((Date.now() - t0) / 1000).toFixed(1).padStart(6)} s]`;
const say = (line: string) => console.log(`${stamp()} ${line}`);

// --- preconditions --------------------------------------------------------------------------------

if (spawnSync('redis-server', ['--version']).error) {
  console.error(
    '\n!!! soak SKIPPED: redis-server is not installed (Debian: apt-get install -y redis-server). The soak starts its own Redis so it can kill it. !!!\n',
  );
  process.exit(2);
}
// The capture's own limit: the run plus its drain and a margin.
process.env.POLITELY_MAX_CAPTURE_SECONDS ??= String(Math.ceil((RUN_MS * 2.5) / 1000) + 300);
const { startWireCapture, wireUnavailableReason } = await import('../../test/helpers/wire.js');
const { startPrivateRedis } = await import('../../packages/core/test/schedule/redis-server.js');

// --- the web --------------------------------------------------------------------------------------

/** Deterministic, so two runs with the same arguments crawl the same web. */
function hostsFor(count: number): SoakHost[] {
  return Array.from({ length: count }, (_, i) => {
    const ip = `${NET}.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`;
    const span = (CRAWL_HIGH as number) - (CRAWL_LOW as number);
    // Every other site asks a Crawl-delay, spread over the range; the rest are paced by minDelayMs.
    const crawlDelaySeconds = i % 2 === 0 ? (CRAWL_LOW as number) + ((i / 2) % (span + 1)) : undefined;
    const delay = Math.max(MIN_DELAY_MS, (crawlDelaySeconds ?? 0) * 1000);
    // Work for about 70% of the run at the asked pace: the rest is slack for outages and restarts.
    const pages = Math.max(3, Math.floor((RUN_MS * 0.7) / delay));
    return { ip, crawlDelaySeconds, pages };
  });
}
const hosts = hostsFor(HOSTS);
const askedMs = new Map(hosts.map((h) => [h.ip, Math.max(MIN_DELAY_MS, (h.crawlDelaySeconds ?? 0) * 1000)]));
const totalPages = hosts.reduce((sum, h) => sum + h.pages, 0);

const children: ChildProcess[] = [];
const workDir = mkdtempSync(join(tmpdir(), 'politely-soak-'));
let redis: Awaited<ReturnType<typeof startPrivateRedis>> | undefined;

/** Ends everything this run started, whatever happened. */
async function cleanUp(): Promise<void> {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await redis?.kill().catch(() => {});
  rmSync(workDir, { recursive: true, force: true });
}
process.once('SIGINT', () => {
  void cleanUp().then(() => process.exit(130));
});

// --- the queue ------------------------------------------------------------------------------------

interface HostQueue {
  readonly host: SoakHost;
  readonly origin: string;
  readonly pending: string[];
  readonly known: Set<string>;
  readonly fetched: Set<string>;
  readonly refused: Set<string>;
  out: number;
}
interface Lease {
  readonly queue: HostQueue;
  readonly path: string;
  readonly worker: WorkerHandle;
  readonly at: number;
}
interface WorkerHandle {
  readonly index: number;
  readonly child: ChildProcess;
  readonly leases: Set<number>;
  ready: boolean;
  gone: boolean;
  startedAt: number;
  memory: { at: number; rss: number; heapUsed: number }[];
  stopped?: () => void;
}

const queues = new Map<string, HostQueue>();
const queueList: HostQueue[] = [];
const leases = new Map<number, Lease>();
const tries = new Map<string, number>();
const failures = new Map<string, string>();
const workers: WorkerHandle[] = [];
const outages: { name: string; from: number; to?: number }[] = [];
const schedulerEvents: { worker: number; pid: number; type: string; at: number; origin?: string }[] = [];
const faultTimes: { name: string; at: number }[] = [];
let nextId = 1;
let cursor = 0;
let redeliveredOnDeath = 0;
let redeliveredOnTimeout = 0;
let retries = 0;
let draining = false;
let setup: WorkerSetup | undefined;
let slots = 0;

function enqueue(queue: HostQueue, path: string): void {
  if (queue.known.has(path)) return;
  queue.known.add(path);
  queue.pending.push(path);
}

function pump(): void {
  if (draining) return;
  for (;;) {
    const worker = workers
      .filter((w) => w.ready && !w.gone && w.leases.size < slots)
      .sort((a, b) => a.leases.size - b.leases.size)[0];
    if (!worker) return;
    let queue: HostQueue | undefined;
    for (let scanned = 0; scanned < queueList.length; scanned++) {
      const candidate = queueList[cursor % queueList.length] as HostQueue;
      cursor++;
      if (candidate.pending.length > 0 && candidate.out < PER_HOST_OUT) {
        queue = candidate;
        break;
      }
    }
    if (!queue) return;
    const path = queue.pending.shift() as string;
    // A page handed out again after its first lease did come back in the end.
    if (queue.fetched.has(path) || queue.refused.has(path)) continue;
    const id = nextId++;
    queue.out++;
    leases.set(id, { queue, path, worker, at: Date.now() });
    worker.leases.add(id);
    worker.child.send({ t: 'item', id, url: `${queue.origin}${path}` } satisfies ToWorker);
  }
}

/** Puts a lease's page back at the front of its host's queue. */
function reclaim(id: number): void {
  const lease = leases.get(id);
  if (!lease) return;
  leases.delete(id);
  lease.worker.leases.delete(id);
  lease.queue.out--;
  if (!lease.queue.fetched.has(lease.path) && !lease.queue.refused.has(lease.path))
    lease.queue.pending.unshift(lease.path);
}

function onDone(worker: WorkerHandle, message: Extract<FromWorker, { t: 'done' }>): void {
  const lease = leases.get(message.id);
  if (lease) {
    leases.delete(message.id);
    worker.leases.delete(message.id);
    lease.queue.out--;
  }
  // A lease taken back on timeout that still came home: its page is as fetched as any other.
  const queue = lease?.queue;
  if (!queue || !lease) return;
  const { path } = lease;
  if (message.outcome === 'fetched') {
    queue.fetched.add(path);
    for (const href of message.links) {
      const url = new URL(href, `${queue.origin}${path}`);
      if (url.origin === queue.origin) enqueue(queue, `${url.pathname}${url.search}`);
    }
  } else if (message.outcome === 'refused') {
    queue.refused.add(path);
  } else {
    retries++;
    const key = `${queue.host.ip}${path}`;
    const count = (tries.get(key) ?? 0) + 1;
    tries.set(key, count);
    if (count < MAX_TRIES) queue.pending.push(path);
    else failures.set(key, message.detail ?? 'failed');
  }
  pump();
}

function startWorker(index: number): Promise<WorkerHandle> {
  const child = fork(here('./worker.ts'), [], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.push(child);
  const worker: WorkerHandle = {
    index,
    child,
    leases: new Set(),
    ready: false,
    gone: false,
    startedAt: Date.now(),
    memory: [],
  };
  workers.push(worker);
  child.on('message', (message: FromWorker) => {
    if (message.t === 'done') onDone(worker, message);
    else if (message.t === 'memory')
      worker.memory.push({ at: Date.now(), rss: message.rss, heapUsed: message.heapUsed });
    else if (message.t === 'event')
      schedulerEvents.push({
        worker: index,
        pid: child.pid ?? 0,
        type: message.type,
        at: message.at,
        ...(message.origin ? { origin: message.origin } : {}),
      });
    else if (message.t === 'stopped') worker.stopped?.();
  });
  child.once('exit', (code, signal) => {
    worker.gone = true;
    const held = [...worker.leases];
    if (!draining) {
      // A worker that died mid-page loses nothing: its pages go back at the front of their queues.
      redeliveredOnDeath += held.length;
      if (held.length || code !== 0)
        say(
          `worker ${index} (pid ${child.pid}) ended (${signal ?? code}); ${held.length} of its pages handed out again`,
        );
    }
    for (const id of held) reclaim(id);
    worker.stopped?.();
    pump();
  });
  return new Promise((resolve, reject) => {
    const onReady = (message: FromWorker) => {
      if (message.t !== 'ready') return;
      child.off('message', onReady);
      worker.ready = true;
      worker.startedAt = Date.now();
      resolve(worker);
      pump();
    };
    child.on('message', onReady);
    child.once('exit', () => reject(new Error(`worker ${index} exited before it was ready`)));
    child.send({ t: 'setup', setup: setup as WorkerSetup } satisfies ToWorker);
  });
}

// --- faults ---------------------------------------------------------------------------------------

/** One command on a fresh connection (RESP inline), so an admin never rides a client's reconnects. */
function redisCommand(port: number, command: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    const done = (text: string) => {
      socket.destroy();
      resolve(text);
    };
    socket.setTimeout(timeoutMs, () => done(`(no reply in ${timeoutMs} ms)`));
    socket.on('error', (error) => done(`(error: ${error.message})`));
    socket.on('data', (chunk) => {
      reply += String(chunk);
      if (reply.endsWith('\r\n')) done(reply.trim());
    });
    socket.on('connect', () => socket.write(`${command}\r\n`));
  });
}

interface Fault {
  readonly at: number;
  readonly name: string;
  run(): Promise<void>;
}

function faultPlan(): Fault[] {
  const victim = WORKERS - 1;
  const port = (redis as NonNullable<typeof redis>).port;
  return [
    {
      at: 0.1,
      name: `worker ${victim} SIGKILLed, started again 2 s later`,
      async run() {
        const worker = workers.filter((w) => w.index === victim && !w.gone).at(-1);
        if (!worker) return;
        worker.child.kill('SIGKILL');
        await sleep(2000);
        // Not awaited: a worker started on a loaded machine takes tens of seconds to be ready, and the
        // faults after this one must still meet a crawl under way.
        startWorker(victim).catch((error: unknown) => say(`worker ${victim} did not start again: ${error}`));
      },
    },
    {
      at: 0.25,
      name: 'Redis SIGKILLed, started again (empty) 3 s later',
      async run() {
        const outage = { name: 'Redis killed', from: Date.now() } as (typeof outages)[number];
        outages.push(outage);
        await redis?.kill();
        await sleep(3000);
        await redis?.restart();
        outage.to = Date.now();
      },
    },
    {
      at: 0.4,
      name: 'DEBUG SLEEP 2 (a slow Redis)',
      async run() {
        const outage = { name: 'DEBUG SLEEP 2', from: Date.now() } as (typeof outages)[number];
        outages.push(outage);
        await redisCommand(port, 'DEBUG SLEEP 2', 10_000);
        outage.to = Date.now();
      },
    },
    {
      at: 0.55,
      name: 'SCRIPT FLUSH',
      async run() {
        say(`  SCRIPT FLUSH: ${await redisCommand(port, 'SCRIPT FLUSH', 5000)}`);
      },
    },
  ];
}

/**
 * Resolves once every process that fell back since `from` has said Redis is back (at most a minute):
 * the next fault then meets a fleet on Redis again, not one still riding out the last.
 */
async function backOnRedis(from: number): Promise<void> {
  const lifted = Date.now();
  for (const giveUpAt = lifted + 60_000; Date.now() < giveUpAt; await sleep(250)) {
    const fell = new Set(
      schedulerEvents.filter((e) => e.type === 'scheduler-fallback' && e.at >= from).map((e) => e.pid),
    );
    const back = new Set(
      schedulerEvents.filter((e) => e.type === 'scheduler-recovered' && e.at >= from).map((e) => e.pid),
    );
    const alive = new Set(workers.filter((w) => !w.gone).map((w) => w.child.pid));
    if ([...fell].every((pid) => back.has(pid) || !alive.has(pid))) return;
  }
  say('  (some worker did not report Redis back within 60 s)');
}

// --- the run --------------------------------------------------------------------------------------

/** A time as seconds into the run. */
const rel = (at: number) => `${((at - t0) / 1000).toFixed(1)} s`;
const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;
let exitCode = 0;
try {
  redis = await startPrivateRedis(['--enable-debug-command', 'yes']);
  const web = fork(here('./web.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.push(web);
  const fromWeb = (want: FromWeb['t']) =>
    new Promise<FromWeb>((resolve, reject) => {
      const onMessage = (message: FromWeb) => {
        if (message.t === 'error') reject(new Error(`the soak web: ${message.message}`));
        else if (message.t === want) {
          web.off('message', onMessage);
          resolve(message);
        }
      };
      web.on('message', onMessage);
      web.once('exit', (code) => reject(new Error(`the soak web exited (${code})`)));
    });
  const webReady = fromWeb('ready');
  web.send({ t: 'start', hosts } satisfies ToWeb);
  const { port } = (await webReady) as Extract<FromWeb, { t: 'ready' }>;
  for (const host of hosts) {
    const queue: HostQueue = {
      host,
      origin: `http://${host.ip}:${port}`,
      pending: [],
      known: new Set(),
      fetched: new Set(),
      refused: new Set(),
      out: 0,
    };
    queues.set(host.ip, queue);
    queueList.push(queue);
    enqueue(queue, '/p/0');
  }
  const delays = [...askedMs.values()];
  const rate = hosts.reduce((sum, h) => sum + 1000 / (askedMs.get(h.ip) ?? MIN_DELAY_MS), 0);
  console.log(
    `politely fleet soak: ${WORKERS} workers, ${HOSTS} hosts (${NET}.x.y, port ${port}), ${MINUTES} min, ` +
      `delays ${Math.min(...delays)}-${Math.max(...delays)} ms (about ${rate.toFixed(1)} pages/s in all), ` +
      `${totalPages} pages, Redis on ${redis.url}, faults ${args.faults ? 'on' : 'off'}; load ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
  );

  const wireReason = wireUnavailableReason();
  if (wireReason)
    console.log(
      `\n!!! ${wireReason}: gaps are judged from the web process's own clock, NOT at the wire (less exact) !!!\n`,
    );
  const capture = wireReason
    ? undefined
    : await startWireCapture([], { filter: `tcp dst port ${port} and dst net ${NET}.0.0/16` });

  slots = Math.max(4, Math.ceil((HOSTS * PER_HOST_OUT) / WORKERS));
  setup = {
    redisUrl: redis.url,
    namespace: `politely-soak:${process.pid}`,
    minDelayMs: MIN_DELAY_MS,
    maxWaitMs: MAX_WAIT_MS,
    slots,
  };
  await Promise.all(Array.from({ length: WORKERS }, (_, i) => startWorker(i)));
  const crawlFrom = Date.now();
  say(`${WORKERS} workers ready (${slots} pages at once each); crawling`);

  // Leases held past the visibility timeout go back in the queue (a worker that hangs, not one that died).
  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const [id, lease] of leases)
      if (now - lease.at > VISIBILITY_TIMEOUT_MS) {
        redeliveredOnTimeout++;
        reclaim(id);
      }
    pump();
  }, 5000);
  const progress = setInterval(
    () => {
      const fetched = queueList.reduce((sum, q) => sum + q.fetched.size, 0);
      say(
        `${fetched}/${totalPages} pages fetched, ${leases.size} handed out; load ${loadavg()[0]?.toFixed(1)}`,
      );
    },
    Math.max(10_000, Math.min(60_000, RUN_MS / 10)),
  );

  const complete = () => queueList.every((q) => q.pending.length === 0 && q.out === 0);
  // Faults that came once the crawl was over tested nothing: the run says so and fails.
  let faultsAfterCrawl = 0;
  let faultsSeen = 0;
  // One fault at a time, each at its planned time or once the one before is over (a worker restarted
  // under load takes seconds to be ready): two faults at once would judge neither.
  const faultRuns: Promise<void>[] = [];
  if (args.faults)
    faultRuns.push(
      (async () => {
        for (const fault of faultPlan()) {
          await sleep(crawlFrom + fault.at * RUN_MS - Date.now());
          faultsSeen++;
          if (complete()) faultsAfterCrawl++;
          say(`FAULT: ${fault.name}${complete() ? ' (AFTER the crawl ended: it tests nothing)' : ''}`);
          faultTimes.push({ name: fault.name.split(/[,(]/)[0]?.trim() ?? fault.name, at: Date.now() });
          const from = Date.now();
          await fault.run();
          await backOnRedis(from);
          say(`fault over: ${fault.name}`);
        }
      })(),
    );

  // The crawl ends when every page is fetched, or at a hard limit: what is left then counts as lost.
  const hardStop = crawlFrom + RUN_MS * 2 + 60_000;
  while (!complete() && Date.now() < hardStop) await sleep(250);
  const crawlMs = Date.now() - crawlFrom;
  await Promise.all(faultRuns);
  draining = true;
  clearInterval(sweeper);
  clearInterval(progress);
  say(
    complete()
      ? `crawl complete in ${(crawlMs / 1000).toFixed(0)} s`
      : 'HARD STOP: the crawl did not finish in time',
  );

  await Promise.all(
    workers
      .filter((w) => !w.gone)
      .map(
        (w) =>
          new Promise<void>((resolve) => {
            w.stopped = resolve;
            w.child.send({ t: 'stop' } satisfies ToWorker);
          }),
      ),
  );
  const logFile = join(workDir, 'web.log');
  const dumped = fromWeb('dumped');
  web.send({ t: 'dump', file: logFile } satisfies ToWeb);
  await dumped;
  const requests = capture
    ? await capture.stop()
    : readFileSync(logFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const [at, ip, method, path] = line.split(' ');
          return { at: Number(at), ip: ip ?? '', port, method: method ?? '', path: path ?? '' };
        });

  // --- judging ------------------------------------------------------------------------------------

  // Outage windows: from a fault until the last worker that fell back says Redis is back, plus the
  // slots handed out in the fallback that may still be ahead when Redis returns.
  const maxDelay = Math.max(...delays);
  const windows = outages.map((o) => {
    const fellBack = schedulerEvents.some(
      (e) => e.type === 'scheduler-fallback' && e.at >= o.from && e.at <= (o.to ?? o.from) + 10_000,
    );
    // Each worker that fell back is back at its first recovery after the fault lifted; the window
    // lasts until the last of them.
    const lifted = o.to ?? o.from;
    const backAt = new Map<number, number>();
    for (const e of schedulerEvents)
      if (e.type === 'scheduler-recovered' && e.at >= lifted && !backAt.has(e.pid)) backAt.set(e.pid, e.at);
    const end = Math.max(lifted, ...(fellBack ? backAt.values() : []));
    // Plus the slots a process handed out alone before it was back: with PER_HOST_OUT items of a host
    // out at once, up to that many delays ahead.
    return { ...o, lifted, back: end, until: end + PER_HOST_OUT * maxDelay, fellBack };
  });
  const inOutage = (at: number) => windows.some((w) => at >= w.from && at <= w.until);

  const pageTimes = new Map<string, number[]>();
  const robots = new Map<string, number>();
  const robotsTimes = new Map<string, number[]>();
  const seen = new Map<string, number>();
  let disallowed = 0;
  let pageRequests = 0;
  for (const r of requests) {
    if (!queues.has(r.ip)) continue;
    if (r.path === '/robots.txt') {
      robots.set(r.ip, (robots.get(r.ip) ?? 0) + 1);
      robotsTimes.set(r.ip, [...(robotsTimes.get(r.ip) ?? []), r.at]);
      continue;
    }
    if (/^\/(private|tmp)\//.test(r.path)) disallowed++;
    pageRequests++;
    const times = pageTimes.get(r.ip) ?? [];
    times.push(r.at);
    pageTimes.set(r.ip, times);
    const key = `${r.ip}${r.path}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  // Every gap counts, outages included: while Redis is out each host is paced by one process only,
  // its owner (docs/fleet.md "When Redis fails"). The windows are kept to say where a gap fell.
  const gaps: { ip: string; gap: number; asked: number; at: number }[] = [];
  const gapCount = new Map<string, number>();
  let smallestRatio = Number.POSITIVE_INFINITY;
  for (const [ip, times] of pageTimes) {
    times.sort((a, b) => a - b);
    const asked = askedMs.get(ip) ?? MIN_DELAY_MS;
    for (let i = 1; i < times.length; i++) {
      const at = times[i] as number;
      const gap = at - (times[i - 1] as number);
      smallestRatio = Math.min(smallestRatio, gap / asked);
      if (gap < asked) gaps.push({ ip, gap, asked, at });
      if (gap < asked) gapCount.set(ip, (gapCount.get(ip) ?? 0) + 1);
    }
  }
  const gapsInOutage = gaps.filter((g) => inOutage(g.at));

  let lost = 0;
  let lostNotOnWire = 0;
  const lostExamples: string[] = [];
  for (const queue of queueList)
    for (let n = 0; n < queue.host.pages; n++) {
      const path = `/p/${n}`;
      if (!queue.fetched.has(path)) {
        lost++;
        if (lostExamples.length < 5)
          lostExamples.push(
            `${queue.origin}${path}${failures.has(`${queue.host.ip}${path}`) ? ` (${failures.get(`${queue.host.ip}${path}`)})` : ''}`,
          );
      }
      if (!seen.has(`${queue.host.ip}${path}`)) lostNotOnWire++;
    }
  const twice = [...seen.values()].filter((count) => count > 1).length;
  const refused = queueList.reduce((sum, q) => sum + q.refused.size, 0);
  const robotsCounts = queueList.map((q) => robots.get(q.host.ip) ?? 0);
  const distribution = new Map<number, number>();
  for (const count of robotsCounts) distribution.set(count, (distribution.get(count) ?? 0) + 1);

  const lines: { ok: boolean | undefined; text: string }[] = [];
  const line = (ok: boolean | undefined, text: string) => lines.push({ ok, text });
  const source = capture ? 'at the wire (tcpdump)' : "from the web process's clock (NO tcpdump)";
  if (args.faults)
    line(
      faultsAfterCrawl === 0 && faultsSeen === 4,
      `faults injected during the crawl: ${faultsSeen - faultsAfterCrawl} of 4 (${faultTimes.map((f) => `${f.name} at ${rel(f.at)}`).join(', ')})`,
    );
  line(
    gaps.length === 0,
    `gaps under the delay: ${gaps.length} (${pageRequests} page requests judged ${source}, Redis outages included; smallest gap ${(smallestRatio * 100).toFixed(1)}% of its host's delay)`,
  );
  const outagePages = requests.filter((r) => queues.has(r.ip) && r.path !== '/robots.txt' && inOutage(r.at));
  line(
    undefined,
    `Redis outages: ${gapsInOutage.length} of the gaps above fell in one, ${outagePages.length} page requests did (each host paced by its owner alone meanwhile, the others waiting); windows ${windows.map((w) => `${w.name} from ${rel(w.from)}, lifted ${rel(w.lifted)}, ${w.fellBack ? `last worker back on Redis ${rel(w.back)}` : 'no fallback'}, to ${rel(w.until)}`).join('; ') || 'none'}`,
  );
  line(
    lost === 0 && lostNotOnWire === 0,
    `pages lost: ${lost} of ${totalPages} (never fetched; ${lostNotOnWire} never seen ${capture ? 'at the wire' : 'by the web'})${lostExamples.length ? `, e.g. ${lostExamples.join(', ')}` : ''}`,
  );
  line(
    undefined,
    `pages fetched twice: ${twice} (handed out again: ${redeliveredOnDeath} from a killed worker, ${redeliveredOnTimeout} on timeout; ${retries} retries)`,
  );
  // Whose fetches they were (each worker reports its robots-fetch events): a second fetch of an origin
  // is the known cost of a lost store when it came from a process that never had the origin, after
  // Redis was restarted empty (the fleet's copy and its lock went with it). Any other is a failure:
  // one process fetching an origin twice, or two fetching it while the store held it.
  const storeLostAt = faultTimes.find((f) => f.name.startsWith('Redis'))?.at ?? Number.POSITIVE_INFINITY;
  const fetchedBy = new Map<string, { pid: number; worker: number; at: number }[]>();
  for (const e of schedulerEvents)
    if (e.type === 'robots-fetch' && e.origin !== undefined)
      fetchedBy.set(e.origin, [
        ...(fetchedBy.get(e.origin) ?? []),
        { pid: e.pid, worker: e.worker, at: e.at },
      ]);
  let storeLossRefetches = 0;
  const unexplained: string[] = [];
  for (const queue of queueList) {
    const atWire = robots.get(queue.host.ip) ?? 0;
    const by = (fetchedBy.get(queue.origin) ?? []).sort((x, y) => x.at - y.at);
    const lossCost = by
      .slice(1)
      .filter(
        (f, i) => f.at >= storeLostAt && !by.slice(0, i + 1).some((earlier) => earlier.pid === f.pid),
      ).length;
    storeLossRefetches += Math.min(lossCost, Math.max(0, atWire - 1));
    if (atWire === 0 || atWire - 1 > lossCost)
      unexplained.push(
        `${queue.origin}: ${atWire} at the wire, by ${by.map((f) => `worker ${f.worker} (pid ${f.pid}) at ${((f.at - t0) / 1000).toFixed(0)} s`).join(', ') || 'none reported'}`,
      );
  }
  line(
    unexplained.length === 0,
    `robots.txt per origin: max ${Math.max(...robotsCounts)}, distribution ${[...distribution.entries()]
      .sort((x, y) => x[0] - y[0])
      .map(([count, origins]) => `${count} fetch${count === 1 ? '' : 'es'}: ${origins} origins`)
      .join(
        ', ',
      )}; ${unexplained.length} origins fetched other than once${unexplained.length ? `, e.g. ${unexplained.slice(0, 3).join('; ')}` : ''}`,
  );
  line(
    undefined,
    `robots.txt fetched again after Redis was restarted empty (known cost: the fleet's copy was lost, and a process that never had the origin fetches it): ${storeLossRefetches}`,
  );
  line(
    disallowed === 0,
    `disallowed requests: ${disallowed} (${refused} disallowed links refused before sending)`,
  );
  const warmUpMs = Math.min(maxDelay + 15_000, RUN_MS / 4);
  for (const worker of workers) {
    const samples = worker.memory.filter((s) => s.at >= worker.startedAt + warmUpMs);
    const first = samples[0];
    const last = samples.at(-1);
    const label = `worker ${worker.index} (pid ${worker.child.pid}${worker.child.signalCode === 'SIGKILL' ? ', SIGKILLed' : ''})`;
    if (!first || !last || first === last || worker.child.signalCode === 'SIGKILL') {
      line(undefined, `memory ${label}: too short a life to judge (${worker.memory.length} samples)`);
      continue;
    }
    // Flat: the heap after a full collection grew by at most a quarter or 16 MB since warm-up.
    const heapGrowth = last.heapUsed - first.heapUsed;
    const flat = heapGrowth <= Math.max(16 * 1048576, first.heapUsed * 0.25);
    line(
      flat,
      `memory ${label}: RSS ${mb(first.rss)} -> ${mb(last.rss)}, heap ${mb(first.heapUsed)} -> ${mb(last.heapUsed)} (${((last.at - first.at) / 1000).toFixed(0)} s apart, after ${(warmUpMs / 1000).toFixed(0)} s warm-up)`,
    );
  }
  console.log(
    `\nfleet soak result (${(crawlMs / 1000).toFixed(0)} s crawl, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}):`,
  );
  for (const { ok, text } of lines)
    console.log(`  ${ok === undefined ? 'INFO' : ok ? 'PASS' : 'FAIL'}  ${text}`);
  if (gaps.length)
    console.log(
      `    ${gaps.length} gaps at ${gapCount.size} hosts, from ${rel(Math.min(...gaps.map((g) => g.at)))} to ${rel(Math.max(...gaps.map((g) => g.at)))}:`,
    );
  for (const g of gaps.slice(0, 10))
    console.log(
      `    gap ${g.gap.toFixed(1)} ms < ${g.asked} ms at ${g.ip}, ${rel(g.at)} into the run${inOutage(g.at) ? ' (in a Redis outage)' : ''}`,
    );
  if (!capture)
    console.log(
      '\n!!! judged from server-side timestamps, not at the wire: install tcpdump and run as root !!!',
    );
  exitCode = lines.some((l) => l.ok === false) ? 1 : 0;
  console.log(exitCode === 0 ? '\nsoak PASSED' : '\nsoak FAILED');
} catch (error) {
  console.error('soak: the run itself failed:', error);
  exitCode = 1;
} finally {
  await cleanUp();
}
process.exit(exitCode);
