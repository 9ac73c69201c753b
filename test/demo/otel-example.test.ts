/**
 * `npm run example:otel` (examples/otel-prometheus): run as a user runs it, in a child process, on a
 * demo web of its own (loopback 127.0.0.193-199). What Prometheus would scrape must carry the crawl:
 * decisions by reason, robots.txt fetches by outcome, the wait histogram with a count per slot.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

it('example:otel serves politely metrics to Prometheus and prints them', { timeout: 120_000 }, async () => {
  const { stdout } = await run(
    process.execPath,
    [
      '--import',
      fileURLToPath(new URL('../../node_modules/tsx/dist/esm/index.mjs', import.meta.url)),
      'examples/otel-prometheus/main.ts',
    ],
    { cwd: ROOT, timeout: 100_000, env: { ...process.env, POLITELY_EXAMPLE_FIRST_OCTET: '193' } },
  );
  expect(stdout).toMatch(/^Prometheus metrics at http:\/\/127\.0\.0\.1:\d+\/metrics$/m);
  const value = (pattern: RegExp) => Number(pattern.exec(stdout)?.[1] ?? Number.NaN);
  const allowed = value(/^politely_decisions_total\{politely_decision_reason="allowed"[^}]*\} (\d+)$/m);
  expect(allowed).toBeGreaterThan(0);
  expect(
    value(/^politely_decisions_total\{politely_decision_reason="disallowed"[^}]*\} (\d+)$/m),
  ).toBeGreaterThan(0);
  expect(
    value(/^politely_robots_fetches_total\{politely_robots_outcome="ok"[^}]*\} (\d+)$/m),
  ).toBeGreaterThan(0);
  expect(value(/^politely_robots_fetches_total\{politely_robots_outcome="unavailable"[^}]*\} (\d+)$/m)).toBe(
    1,
  );
  // Every page fetched took one pacing slot: as many waits timed as pages allowed.
  expect(value(/^politely_pacing_wait_time_count\{[^}]*\} (\d+)$/m)).toBe(allowed);
  expect(stdout).toMatch(/^politely_hosts_waiting\{[^}]*\} 0$/m);
});
