import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import type { TestSpecification } from 'vitest/node';
import { BaseSequencer } from 'vitest/node';

/**
 * Files that spend a long stretch waiting (a browser, a real Crawl-delay judged at the wire, Redis
 * failover, the corpus): started first, so the run does not end on one of them alone. Vitest's own
 * order (longest first from its cache) still decides among the rest, and among these when it has a cache.
 */
const SLOW_FIRST = /browser|playwright|puppeteer|corpus|fleet|wire|pacing|pack\.test|proxy|in-flight/;

/**
 * The longest of the other files, longest first (a full run's durations, issue 42.4): started before
 * the rest of the slow ones. Vitest's own order sorts by project name first (core, crawlee, cross...),
 * so on a fresh clone (no cache) the two browser behaviour tables, in 'cross', started 150 s in and
 * were among the last files running.
 */
const LONGEST = [
  'test/fleet/soak.test.ts',
  'packages/core/test/browser/by-hand.test.ts',
  'packages/crawlee-plugin/test/browser-in-flight.test.ts',
  'packages/crawlee-plugin/test/pacing-at-the-wire.test.ts',
  'test/behaviour/playwright.test.ts',
  'test/behaviour/puppeteer.test.ts',
  'packages/crawlee-plugin/test/browser-pacing.test.ts',
  'packages/crawlee-plugin/test/browser.test.ts',
  'packages/crawlee-plugin/test/browser-slow-page.test.ts',
  'packages/core/test/browser/favicon.test.ts',
  'packages/got-hook/test/wire-pacing.test.ts',
  'packages/crawlee-plugin/test/crawler.test.ts',
  'test/fleet/redis-failover.test.ts',
] as const;

/** A file's place in `list`, or the list's length when it is not in it (after those listed). */
const rank = (list: readonly string[], spec: TestSpecification) => {
  const at = list.findIndex((file) => spec.moduleId.endsWith(`/${file}`));
  return at === -1 ? list.length : at;
};

class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const slow = (spec: TestSpecification) => (SLOW_FIRST.test(spec.moduleId) ? 0 : 1);
    // The ALONE files in the order listed there, whatever vitest's cache says: it decides which run
    // side by side. (They run in a later group of their own: their place among the others is moot.)
    const alone = (spec: TestSpecification) => ALONE.findIndex((file) => spec.moduleId.endsWith(`/${file}`));
    const longest = (spec: TestSpecification) => rank(LONGEST, spec);
    // Array.prototype.sort is stable: within each group the base order stays.
    return sorted.sort((a, b) => alone(a) - alone(b) || longest(a) - longest(b) || slow(a) - slow(b));
  }
}

/**
 * Files that run two at a time, after the others (project 'alone'), longest first so that the two
 * slots end together. Beside four other files under load 30-58 (other jobs on the machine) they
 * failed, where one at a time they pass: callers that reserve slots side by side and must keep a
 * delay between their sends while each is starved of CPU for seconds (a caller stalled between taking
 * its slot and sending lets the next one's send come too close: Redis Cluster, whose callers take no
 * place in flight so that concurrent reservations stay under test; a fleet process that must refresh
 * its lease in time), and a wall-clock bound (the e2e fast-host finish: eight pages within three
 * Crawl-delays). Each is a defect to fix at its source; until then they are kept out of the crowd
 * rather than given longer limits.
 *
 * A file leaves this list once nothing it asserts depends on how fast the machine is: logic on a
 * fake clock, real time only where the wire is the point with the asked delay as the floor, and
 * counts derived from what the client and the server saw rather than from which calls a loaded
 * machine lets through in time. Then it passes three runs in a row beside two CPU burners. Those
 * that left: the fleet and robots single-flight tests (their processes hold the host's place in
 * flight until the send is reported, test/fleet/polite-send.ts, so a stalled process holds the others
 * back instead of letting one through early); the give-back wire test (it counts the pages at the
 * wire against the requests the client handed to its transport, and reads the host's next start
 * against when it read it, so a request sent and timed out before its answer counts as what it is);
 * fetch's pacing file (the next start counted from the response is judged on a fake clock, the
 * wire cases by their floor). The pack test left it too: its steps' limits are for a hang (minutes),
 * and its build and installs overlap the browser files' waits instead of adding to the time after
 * them. So did the soak, the Redis failover file (both started first among the rest, LONGEST) and the
 * Redis fallback share files: mostly waiting (a crawl, a Redis outage), they overlap the others
 * instead of adding their length after them. The soak counts its crawl from when its workers are
 * ready and runs its faults one at a time, so slow start-ups lengthen it without judging less; the
 * failover file runs two CPU burners beside itself unless the machine is that busy already; the
 * share cases are files of their own, each with a redis-server of its own.
 */
const ALONE = [
  // Two Crawlee processes on disk storage, one SIGKILLed mid-crawl: a write-ahead that a loaded disk
  // holds longer than the margin, or a start-up slower than the kill's window, is what it judges.
  'test/restart/crawlee-restart.test.ts',
  'test/fleet/redis-cluster.test.ts',
  'test/fleet/in-flight.test.ts',
  'test/e2e/crawlee.e2e.test.ts',
] as const;

/**
 * Files of pure logic (project 'shared'): no vi.mock, no loopback host, Redis, browser or child
 * process, fake timers put back after each test. They run with `isolate: false`: a worker imports
 * the core once for all of them instead of once per file.
 */
const SHARED = [
  'packages/core/test/engine/*.test.ts',
  'packages/core/test/kernel/*.test.ts',
  'packages/core/test/cache/{breadth,memory-store,safe-store}.test.ts',
  'packages/core/test/facade/{close,decision-policy,identification,in-flight,send-hop,send-pass,usage}.test.ts',
  'packages/core/test/fetch/{freshness,policy,robots-url}.test.ts',
  'packages/core/test/frontier/bounds.test.ts',
  'packages/core/test/schedule/memory-scheduler.test.ts',
  'packages/core/test/signals/{facade-rate-limit,facade-signals,host-key,host-signal,rate-limit-headers}.test.ts',
  'packages/core/test/sitemap-follower.test.ts',
  'test/options-messages.test.ts',
  'test/layering/layering.test.ts',
] as const;

/** A package's (or the cross-package) project: its test files but the ALONE and SHARED ones. */
function home(name: string, include: string) {
  return {
    extends: true as const,
    test: { name, include: [include], exclude: [...configDefaults.exclude, ...ALONE, ...SHARED] },
  };
}

const src = (pkg: string) => fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url));
/** `@politely/core/engine` and the other subpaths of the core (package.json `exports`). */
const coreSubpaths = fileURLToPath(new URL('./packages/core/src/public/', import.meta.url));

export default defineConfig({
  // Tests run against source: the workspace packages resolve to their src/ entry points.
  resolve: {
    // Exact matches: a plain '@politely/core' key would also catch '@politely/core/engine'.
    alias: [
      { find: /^@politely\/core$/, replacement: src('core') },
      {
        find: /^@politely\/core\/(engine|fetch|scheduler|cache|browser|frontier|adapter)$/,
        replacement: `${coreSubpaths}$1.ts`,
      },
      { find: /^@politely\/got$/, replacement: src('got-hook') },
      { find: /^@politely\/fetch$/, replacement: src('fetch') },
      { find: /^@politely\/crawlee$/, replacement: src('crawlee-plugin') },
    ],
  },
  test: {
    // `extends: true`: every project inherits the aliases and time limits set here.
    projects: [
      home('core', 'packages/core/test/**/*.test.ts'),
      home('got', 'packages/got-hook/test/**/*.test.ts'),
      home('fetch', 'packages/fetch/test/**/*.test.ts'),
      home('crawlee', 'packages/crawlee-plugin/test/**/*.test.ts'),
      home('cross', 'test/**/*.test.ts'),
      { extends: true, test: { name: 'shared', include: [...SHARED], isolate: false } },
      // After the rest, two files at a time (vitest runs a later `groupOrder` once the earlier is done).
      {
        extends: true,
        test: { name: 'alone', include: [...ALONE], maxWorkers: 2, sequence: { groupOrder: 1 } },
      },
    ],
    // Deletes the Redis keys each test file made (test/helpers/redis.ts, uniquePrefix), and stops the
    // redis-server a file started when none was running.
    setupFiles: ['test/helpers/redis-cleanup.ts'],
    // Once per run, before any file: where no system Chromium exists, unpacks @sparticuz/chromium's.
    globalSetup: ['test/helpers/chromium-setup.ts', 'test/helpers/storage-setup.ts'],
    // Most files wait (a browser, a Crawl-delay judged at the wire, Redis failover) far more than they
    // compute: with vitest's default of one worker on 2 cores the suite used 42% of the CPU. Four files
    // run side by side. What made that unsafe is fixed at the source: browser-in-flight's host waits for
    // its two pages instead of hoping a loaded machine opens the second tab within 1.5 s; the corpus
    // differential's reference costs half the CPU, in slices; CPU burners stand down on a machine
    // already busy (test/helpers/wire.ts). Every file has its own loopback hosts on ports of its own,
    // captures filtered by address and port, Redis keys under a prefix of its own, temp folders from
    // mkdtemp. The ALONE files still run one at a time, after the rest.
    maxWorkers: 4,
    sequence: { sequencer: SlowFirstSequencer },
    // Generous for a browser launch while four other files run beside it on 2 cores; a time limit,
    // not an assertion.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
