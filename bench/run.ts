/**
 * `npm run bench [-- name...]`: every benchmark, peers side by side in the same run, ratios printed.
 * Benchmarks are never part of `npm test`: timings on a shared machine are figures, not assertions.
 * What each prints is also written to bench/RESULTS.md (with date, Node, CPU and load), the one file
 * that carries measured figures: the READMEs and docs link to it.
 */
import { capturingOutput, RESULTS_FILE, section, startContext, writeResults } from './results.js';

const suites = {
  engine: async () => (await import('./engine.js')).runEngineBench(),
  'engine-ab': async () => (await import('./engine-ab.js')).runEngineAbBench(),
  cache: async () => (await import('./cache.js')).runCacheBench(),
  revalidation: async () => (await import('./revalidation.js')).runRevalidationBench(),
  scheduler: async () => (await import('./scheduler.js')).runSchedulerBench(),
  got: async () => (await import('./got.js')).runGotBench(),
  fetch: async () => (await import('./fetch.js')).runFetchBench(),
  crawlee: async () => (await import('./crawlee.js')).runCrawleeComparison(),
  'crawlee-pacing': async () => (await import('./crawlee-pacing.js')).runCrawleePacingBench(),
  'crawlee-browser': async () => (await import('./crawlee-browser.js')).runCrawleeBrowserBench(),
  pacing: async () => {
    await (await import('./pacing.js')).runPacingBench();
  },
  memory: async () => (await import('./memory.js')).runMemoryBench(),
  signals: async () => (await import('./signals.js')).runSignalsBench(),
  frontier: async () => (await import('./frontier.js')).runFrontierBench(),
  'page-directives': async () => (await import('./page-directives.js')).runPageDirectivesBench(),
  metrics: async () => (await import('./metrics.js')).runMetricsBench(),
  tdmrep: async () => (await import('./tdmrep.js')).runTdmRepBench(),
  'tdmrep-files': async () => (await import('./tdmrep-files.js')).runTdmRepFilesBench(),
} as const;

type SuiteName = keyof typeof suites;

/** One line per benchmark for --help; a suite without one does not compile. */
const ABOUT = {
  engine: 'robots.txt parse and match over the real-world corpus (needs ../shared/corpus; skipped without)',
  'engine-ab':
    'the engine against itself at --base=<git-ref> (default 34d4a37), same corpus, same run, ratios (needs ../shared/corpus)',
  cache:
    'warm-cache check cost against the bare engine check; breadth (10k-1M origins: fetches per origin, heap, check cost) and 12 new origins with Redis refused, before (--base) and after',
  revalidation:
    'requests and bytes a re-crawl of 1,000 origins costs the sites once robots.txt expired: conditional requests (after) against --base (before), servers counting',
  scheduler:
    "spacing (by the scheduler's own clock: no HTTP) and throughput of the memory and Redis schedulers (Redis optional)",
  got: 'overhead per request of got with and without the politely hooks, same local server (no pacing)',
  fetch: 'overhead per request of fetch bare, behind a no-op wrapper and politeFetch (no pacing)',
  crawlee:
    "the Crawlee plugin against Crawlee's respectRobotsTxtFile: URLs by server logs, pacing at the wire (tcpdump)",
  'crawlee-pacing':
    "CheerioCrawler as fast as politeness allows on Crawlee's defaults (disk storage, links found), plain Crawlee beside it, judged at the wire (tcpdump)",
  'crawlee-browser':
    "PlaywrightCrawler and PuppeteerCrawler on Crawlee's defaults, 3 hosts x 8 pages at 2 s, links found, plain Crawlee beside (tcpdump, Chromium)",
  pacing:
    'got, politeFetch and CheerioCrawler judged at the wire per scenario (violations, efficiency), with CPU burners (tcpdump)',
  memory: 'heap after GC at internet scale: many origins with hostile robots.txt files, through check',
  signals:
    'latency-aware vs fixed-delay pacing, req/s per second: latency 20 -> 500 -> 20 ms, and 503s then recovery (tcpdump)',
  frontier:
    'the frontier at 10k-1M parked hosts, its per-host counters, and a 20-worker pool over 8,000 hosts, before (/tmp/frontier-before) and after',
  'page-directives':
    "readPageDirectives (X-Robots-Tag + head scan) per page, small and 200 KB pages, against cheerio.load + $('head meta')",
  metrics:
    "OpenTelemetry metrics' cost: check + admit per second with metrics off, the API's no-op meter, an SDK MeterProvider (and with the host attribute)",
  tdmrep:
    'tdmrep.json matching: µs per check of a cached origin (a 500 KB file, a 500,000-star location), before (--base) and after',
  'tdmrep-files':
    '300 origins of a distinct 500 KB tdmrep.json under memory.budgetBytes 16 MiB, two passes: files fetched per pass (server count), heap, verdicts, µs per check, before (--base) and after',
} as const satisfies Record<SuiteName, string>;

/** Options a benchmark reads from process.argv itself. */
const FLAGS = {
  '--base':
    'engine-ab, cache, revalidation, tdmrep, tdmrep-files: --base=<git-ref>, the commit whose engine (engine-ab) or robots.txt cache (cache, revalidation) the working tree is raced against',
  '--rows':
    'engine, engine-ab: --rows=check,parseText,... races only those rows (parseText, parseBytes, parseFirst, parseUsage, check; engine also checkCompiled and scale, the rules-growth table)',
  '--label':
    'every benchmark: --label=before writes its section as <name>-before, kept beside the unlabelled one (a baseline measured at an earlier commit)',
} as const;

const USAGE = `Usage: npm run bench [-- <name...>] [-- --help]

Runs the named benchmarks (all when none is named), politely and its peers side by side:
${Object.entries(ABOUT)
  .map(([name, about]) => `  ${name.padEnd(10)} ${about}`)
  .join('\n')}

Options:
${Object.entries(FLAGS)
  .map(([flag, about]) => `  ${flag.padEnd(10)} ${about}`)
  .join('\n')}

Examples: npm run bench -- engine        npm run bench -- got crawlee
          npm run bench -- engine-ab --base=main
Figures are printed, never asserted: timings on a shared machine are not test results.
Each benchmark run replaces its section of bench/RESULTS.md (date, Node, CPU, load before and after).
`;

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}
/** A flag may carry its value after `=` (`--base=main`). */
const flagName = (arg: string) => arg.split('=', 1)[0] as string;
const flags = args.filter((arg) => arg.startsWith('-') && !(flagName(arg) in FLAGS));
if (flags.length > 0) {
  console.error(`Unknown option(s): ${flags.join(', ')}\n\n${USAGE}`);
  process.exit(2);
}
const requested = args.filter((arg) => !arg.startsWith('-'));
const unknown = requested.filter((name) => !(name in suites));
if (unknown.length > 0) {
  console.error(
    `Unknown benchmark(s): ${unknown.join(', ')}. Known: ${Object.keys(suites).join(', ')}\n\n${USAGE}`,
  );
  process.exit(2);
}
const names = (requested.length > 0 ? requested : Object.keys(suites)) as SuiteName[];
const label = args.find((arg) => flagName(arg) === '--label')?.slice('--label='.length);

console.log(`politely benchmarks on Node ${process.version}, ${new Date().toISOString()}\n`);
let failed = 0;
const sections = new Map<string, string>();
for (const name of names) {
  console.log(`\n=== ${name} ${'='.repeat(60 - name.length)}\n`);
  const context = startContext();
  let failure: unknown;
  const output = await capturingOutput(async () => {
    try {
      await suites[name]();
    } catch (error) {
      failed++;
      failure = error;
      console.error(`benchmark "${name}" failed:`, error);
    }
  });
  const heading = label ? `${name}-${label}` : name;
  sections.set(heading, section(heading, context, output, failure));
  // Written after each benchmark, so a long run interrupted keeps what it measured.
  writeResults(sections, Object.keys(suites));
}
console.log(`\nresults: ${RESULTS_FILE.pathname}`);
process.exitCode = failed > 0 ? 1 : 0;
