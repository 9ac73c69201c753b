/**
 * `npm run bench [-- name...]`: every benchmark, peers side by side in the same run, ratios printed.
 * Benchmarks are never part of `npm test`: timings on a shared machine are figures, not assertions.
 */
const suites = {
  engine: async () => (await import('./engine.js')).runEngineBench(),
  cache: async () => (await import('./cache.js')).runCacheBench(),
  scheduler: async () => (await import('./scheduler.js')).runSchedulerBench(),
  got: async () => (await import('./got.js')).runGotBench(),
  fetch: async () => (await import('./fetch.js')).runFetchBench(),
  crawlee: async () => (await import('./crawlee.js')).runCrawleeComparison(),
  'crawlee-pacing': async () => (await import('./crawlee-pacing.js')).runCrawleePacingBench(),
  pacing: async () => {
    await (await import('./pacing.js')).runPacingBench();
  },
  memory: async () => (await import('./memory.js')).runMemoryBench(),
} as const;

type SuiteName = keyof typeof suites;

const requested = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
const unknown = requested.filter((name) => !(name in suites));
if (unknown.length > 0) {
  console.error(`Unknown benchmark(s): ${unknown.join(', ')}. Known: ${Object.keys(suites).join(', ')}`);
  process.exit(2);
}
const names = (requested.length > 0 ? requested : Object.keys(suites)) as SuiteName[];

console.log(`politely benchmarks on Node ${process.version}, ${new Date().toISOString()}\n`);
let failed = 0;
for (const name of names) {
  console.log(`\n=== ${name} ${'='.repeat(60 - name.length)}\n`);
  try {
    await suites[name]();
  } catch (error) {
    failed++;
    console.error(`benchmark "${name}" failed:`, error);
  }
}
process.exitCode = failed > 0 ? 1 : 0;
