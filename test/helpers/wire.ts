/**
 * Pacing judged at the wire: the kernel's capture time of the packet that carries each request line,
 * read with tcpdump on loopback (recipe: /work/shared/notes/wire.md). A JavaScript server's own clock
 * stalls under load and can both invent and hide violations; the capture time is what a site sees.
 * It lives with the tests it judges for; the benchmarks and the demo capture import it from here.
 *
 * Needs tcpdump and root. Without them, CI fails (it must judge at the wire); elsewhere a capture
 * falls back to the test servers' own logs and says so loudly. A server logs a request only when its
 * event loop gets to it, late by as much as that loop lagged (a loaded machine, the client's own work
 * in the same process): the fallback marks each time with how late it can be, and the judge calls a
 * gap short only when it is short by more (so it invents no violation, and may miss one smaller than
 * that: only the wire judges exactly).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { availableParallelism, loadavg } from 'node:os';

export interface WireTarget {
  readonly ip: string;
  readonly port: number;
  /** Server-side log, used only by the fallback when tcpdump cannot run. */
  readonly log?: readonly { readonly method: string; readonly path: string; readonly at: number }[];
}

export interface WireRequest {
  /** Kernel capture time, epoch ms with microsecond precision. */
  readonly at: number;
  /** Destination address: the simulated host. */
  readonly ip: string;
  readonly port: number;
  readonly method: string;
  /** Request target as written on the request line (path and query, or an absolute URL via a proxy). */
  readonly path: string;
  /**
   * Server-log fallback only: how much later than its arrival this time can be (the server's event
   * loop may have been busy), ms. Absent for kernel capture times.
   */
  readonly lateByUpToMs?: number;
}

export interface WireCapture {
  /** 'tcpdump' when judged at the wire, 'server-log' in the loud fallback. */
  readonly source: 'tcpdump' | 'server-log';
  /**
   * Stops the capture (after a short grace so the last packets are flushed) and returns every request
   * line seen. Rejects when the kernel dropped packets: a missing request would make a gap look wider
   * than it was and hide a violation, so an incomplete capture is never judged.
   */
  stop(): Promise<WireRequest[]>;
}

const REQUEST_LINE = /(GET|HEAD|POST|PUT|DELETE|OPTIONS|PATCH) (\S+) HTTP\/1\.[01]/;
// `1763825000.123456 IP 127.0.0.1.51234 > 127.0.0.2.18080: Flags [P.], ...`
const PACKET_HEADER = /^(\d+\.\d+) IP6? (\S+) > (\S+): /;

/** The longest a capture may run (a whole benchmark scenario fits well within it). */
const MAX_CAPTURE_SECONDS = Number(process.env.POLITELY_MAX_CAPTURE_SECONDS ?? 1800);

let availability: string | undefined;

/** Why tcpdump cannot be used here, or undefined when it can. */
export function wireUnavailableReason(): string | undefined {
  if (availability !== undefined) return availability || undefined;
  const probe = spawnSync('tcpdump', ['--version'], { encoding: 'utf8' });
  if (probe.error) availability = 'tcpdump is not installed (Debian: apt-get install -y tcpdump)';
  else if (typeof process.getuid === 'function' && process.getuid() !== 0)
    availability = 'capturing on lo needs root';
  else availability = '';
  return availability || undefined;
}

/** Longest wait for tcpdump to print a canary (well inside a test's 60 s limit). */
const CANARY_WAIT_MS = 30_000;

/**
 * Starts capturing request lines sent to the given hosts; resolves once the capture is armed.
 * `options.filter` replaces the per-target clauses with one pcap filter (e.g. `tcp dst port 20080 and
 * dst net 127.77.0.0/16`): a clause per host for hundreds of hosts (the fleet soak's 500) makes a BPF
 * program far longer than one net and port test, for the kernel to run on every loopback packet.
 */
export async function startWireCapture(
  targets: readonly WireTarget[],
  options: { readonly filter?: string } = {},
): Promise<WireCapture> {
  const unavailable = wireUnavailableReason();
  if (unavailable) {
    if (process.env.CI) throw new Error(`pacing must be judged at the wire in CI: ${unavailable}`);
    console.warn(
      `\n[wire] ${unavailable}: judging pacing from the test servers' own logs instead (less exact: a gap is short only when short by more than the servers' event loop lagged). To judge at the wire, install tcpdump and run as root\n`,
    );
    return serverLogCapture(targets);
  }
  // A UDP canary proves the capture is really armed: tcpdump says "listening" a little before the
  // first packets are seen, and a request sent in that window would be missed.
  const canary = createSocket('udp4');
  await new Promise<void>((resolve) => canary.bind(0, '127.0.0.1', resolve));
  // Open until stop(), and never what keeps a test process alive when a test fails before it.
  canary.unref();
  const canaryPort = canary.address().port;
  const filter = [
    `(udp and dst host 127.0.0.1 and dst port ${canaryPort})`,
    ...(options.filter
      ? [`(${options.filter})`]
      : targets.map((t) => `(dst host ${t.ip} and tcp dst port ${t.port})`)),
  ].join(' or ');
  // -B: a 64 MiB kernel buffer (the default is 2 MiB), so a capture starved of CPU by a loaded machine
  // catches up instead of dropping packets.
  // Bounded in time by coreutils' timeout (SIGINT, as stop() sends, so tcpdump still prints its
  // statistics): a test that fails before stop() must not leave a capture running after its run.
  const child = spawn(
    'timeout',
    [
      ...['-s', 'INT', '-k', '5', String(MAX_CAPTURE_SECONDS)],
      ...[
        'tcpdump',
        '-i',
        'lo',
        '-n',
        '-tt',
        '-l',
        '-A',
        '-s',
        '1024',
        '-B',
        '65536',
        '--immediate-mode',
        filter,
      ],
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('latin1').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`tcpdump did not start within 10 s: ${stderr}`)), 10_000);
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
      if (stderr.includes('listening on')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`tcpdump exited (${code}) before capturing: ${stderr}`));
    });
  });
  const armed = `127.0.0.1.${canaryPort}: UDP`;
  // Bounded in time for a capture that never arms, not as a judgement: a loaded matrix cell once kept
  // tcpdump from printing a canary for 10 s.
  const armedBy = Date.now() + CANARY_WAIT_MS;
  for (let tries = 0; !stdout.includes(armed); tries++) {
    if (Date.now() > armedBy)
      throw new Error(`tcpdump did not capture its canary within ${CANARY_WAIT_MS / 1000} s`);
    if (tries % 5 === 0) canary.send('politely-wire-canary', canaryPort, '127.0.0.1');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    source: 'tcpdump',
    async stop() {
      // Caught up, not a fixed grace: a second canary, sent after every request of the test, is in
      // the output only once tcpdump has read all that came before it. A capture starved of CPU by a
      // loaded machine (load 19) still held a host's last request 300 ms after it was sent, and SIGINT
      // then lost it: the host showed 3 pages of 4.
      const end = `politely-wire-end-${canaryPort}`;
      try {
        const caughtUpBy = Date.now() + CANARY_WAIT_MS;
        for (let tries = 0; !stdout.includes(end); tries++) {
          if (Date.now() > caughtUpBy)
            throw new Error(`tcpdump did not capture its closing canary within ${CANARY_WAIT_MS / 1000} s`);
          if (tries % 25 === 0) canary.send(end, canaryPort, '127.0.0.1');
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      } finally {
        canary.close();
      }
      await stopChild(child, closed);
      const dropped = droppedPackets(stderr);
      if (dropped > 0) {
        throw new Error(
          `the wire capture is incomplete: the kernel dropped ${dropped} packets (tcpdump: ${stderr.trim().split('\n').join('; ')}), so gaps cannot be judged`,
        );
      }
      return parseCapture(stdout);
    },
  };
}

/** The kernel's count of packets dropped, from tcpdump's closing statistics on stderr (0 when absent). */
export function droppedPackets(stderr: string): number {
  const match = /(\d+) packets? dropped by kernel/.exec(stderr);
  return match ? Number(match[1]) : 0;
}

/** Request lines from tcpdump `-tt -A` output, one per packet that carries one. */
export function parseCapture(output: string): WireRequest[] {
  const requests: WireRequest[] = [];
  let packet: { at: number; ip: string; port: number } | undefined;
  let found = false;
  for (const line of output.split('\n')) {
    const header = PACKET_HEADER.exec(line);
    if (header) {
      const destination = splitAddress(header[3] ?? '');
      packet = destination && { at: Number(header[1]) * 1000, ...destination };
      found = false;
      continue;
    }
    if (!packet || found) continue;
    const request = REQUEST_LINE.exec(line);
    if (request) {
      requests.push({ ...packet, method: request[1] ?? '', path: request[2] ?? '' });
      found = true;
    }
  }
  return requests.sort((a, b) => a.at - b.at);
}

/** `127.0.0.2.18080` -> ip and port (the last dot separates the port in tcpdump's notation). */
function splitAddress(address: string): { ip: string; port: number } | undefined {
  const cut = address.lastIndexOf('.');
  if (cut < 0) return undefined;
  return { ip: address.slice(0, cut), port: Number(address.slice(cut + 1)) };
}

/** The period of the event loop's heartbeat in the server-log fallback, ms. */
const HEARTBEAT_MS = 10;

const nowMs = () => performance.timeOrigin + performance.now();

/**
 * The loud fallback: the test servers' own logs (they run in this process), each time marked with how
 * late it can be. A heartbeat timer notes when the event loop runs. Each loop turn runs its due timers,
 * then handles every socket that is ready; a request on a new connection is accepted in one turn and
 * read in the next. So a request that arrived before a heartbeat is logged by the end of the turn after
 * it: a request logged at L arrived after the third-last heartbeat before L. On a free loop that is
 * 20-30 ms; a stalled loop or a descheduled process widens it by the stall. (The largest lag alone,
 * as a histogram gives it, is no bound: stalls in a row add up.)
 */
export function serverLogCapture(targets: readonly WireTarget[]): WireCapture {
  const marks = targets.map((t) => t.log?.length ?? 0);
  const startedAt = nowMs();
  const beats: number[] = [];
  const heartbeat = setInterval(() => beats.push(nowMs()), HEARTBEAT_MS);
  heartbeat.unref();
  /** How much later than its arrival a request logged at `at` can have been logged. */
  const lateByUpTo = (at: number) => {
    let before = beats.length;
    while (before > 0 && (beats[before - 1] ?? 0) > at) before--;
    // Fewer than three beats before it: it came after the capture started (tests send only then).
    return at - (beats[before - 3] ?? startedAt);
  };
  return {
    source: 'server-log',
    async stop() {
      clearInterval(heartbeat);
      return targets
        .flatMap((t, i) =>
          (t.log ?? []).slice(marks[i]).map((r) => ({
            at: r.at,
            ip: t.ip,
            port: t.port,
            method: r.method,
            path: r.path,
            lateByUpToMs: lateByUpTo(r.at),
          })),
        )
        .sort((a, b) => a.at - b.at);
    },
  };
}

/**
 * SIGINT (tcpdump then flushes and prints its statistics); resolves once its output is all read
 * (`closed`: its 'close' event, which unlike 'exit' comes after the last of stdout and stderr).
 */
function stopChild(child: ChildProcess, closed: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return closed;
  const hard = setTimeout(() => child.kill('SIGKILL'), 3_000);
  child.kill('SIGINT');
  return closed.finally(() => clearTimeout(hard));
}

export interface HostPacing {
  readonly ip: string;
  /** Page request times at the wire, sorted (robots.txt excluded unless asked). */
  readonly times: readonly number[];
  /** Gaps between consecutive page requests, ms. */
  readonly gaps: readonly number[];
  readonly smallestGapMs: number | undefined;
  /**
   * Gaps below the asked delay: zero tolerance at the wire. From server logs, a gap that the earlier
   * request's lateness could account for is not one (the later request can only have come later).
   */
  readonly violations: readonly number[];
  /** (pages - 1) x delay / (last - first): 1 is as fast as politeness allows. */
  readonly efficiency: number | undefined;
}

/**
 * Gaps between consecutive requests (in time order), each as long as it can have been at the wire:
 * exact from tcpdump. A server-logged time trails the arrival by 0 to `lateByUpToMs`, so the gap at
 * the wire was at most the logged gap plus the earlier request's bound: a gap is surely shorter than
 * asked only if that is still shorter.
 */
export function longestGaps(requests: readonly WireRequest[]): number[] {
  return requests.slice(1).map((request, i) => {
    const earlier = requests[i] ?? request;
    return request.at - earlier.at + (earlier.lateByUpToMs ?? 0);
  });
}

/** Per-host spacing of the captured requests against the asked delay (no tolerance). */
export function judgePacing(
  requests: readonly WireRequest[],
  delayMs: number | ((ip: string) => number),
  options: { readonly includeRobotsTxt?: boolean } = {},
): Map<string, HostPacing> {
  const byHost = new Map<string, WireRequest[]>();
  for (const r of requests) {
    if (!options.includeRobotsTxt && /(^|\/)robots\.txt(\?|$)/.test(r.path)) continue;
    const seen = byHost.get(r.ip) ?? [];
    seen.push(r);
    byHost.set(r.ip, seen);
  }
  const result = new Map<string, HostPacing>();
  for (const [ip, unsorted] of byHost) {
    const sorted = unsorted.sort((a, b) => a.at - b.at);
    const times = sorted.map((r) => r.at);
    const asked = typeof delayMs === 'function' ? delayMs(ip) : delayMs;
    const gaps = times.slice(1).map((t, i) => t - (times[i] ?? t));
    // A gap is reported as logged, and is a violation only if short even at its longest.
    const longest = longestGaps(sorted);
    const span = (times.at(-1) ?? 0) - (times[0] ?? 0);
    result.set(ip, {
      ip,
      times,
      gaps,
      smallestGapMs: gaps.length ? Math.min(...gaps) : undefined,
      violations: gaps.filter((_, i) => (longest[i] ?? gaps[i] ?? 0) < asked),
      efficiency: gaps.length && span > 0 ? (gaps.length * asked) / span : undefined,
    });
  }
  return result;
}

/**
 * Busy processes beside a run (two on these 2-core machines), each bounded in time; stop() kills them.
 * They make the judged run share its CPU. In tests, a machine already that busy (1-minute load average
 * at least the cores plus `count`: other test files beside this one, other jobs) gets none, said on
 * the log: the run shares its CPU anyway, and burners would only take it from the files beside it.
 * `always`: burn whatever the load (a benchmark that reports its burners).
 */
export function burnCpu(
  count = 2,
  maxMs = 120_000,
  options: { readonly always?: boolean } = {},
): { stop(): void } {
  const load = loadavg()[0] ?? 0;
  const cores = availableParallelism();
  if (!options.always && load >= cores + count) {
    console.info(
      `[wire] load average ${load.toFixed(1)} on ${cores} cores: busy already, no CPU burners started`,
    );
    return { stop() {} };
  }
  const children = Array.from({ length: count }, () =>
    spawn(process.execPath, ['-e', `const end = Date.now() + ${maxMs}; while (Date.now() < end) {}`], {
      stdio: 'ignore',
    }),
  );
  return {
    stop() {
      for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

/**
 * For a test that means something only at the wire: true (the test is skipped, and why is said
 * loudly) where tcpdump cannot run, except under CI, where the test runs and its capture fails.
 */
export function skipWithoutWire(what: string): boolean {
  const reason = wireUnavailableReason();
  if (reason === undefined || process.env.CI) return false;
  console.warn(`\n!!! [wire] ${reason}: SKIPPING ${what} (judged at the wire only) !!!\n`);
  return true;
}
