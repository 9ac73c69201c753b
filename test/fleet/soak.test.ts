/**
 * `npm run soak` in small: three crawler processes on the soak's own Redis, four loopback hosts
 * (127.79.1.x), half a minute of pages, every fault (a worker SIGKILLed and started again, Redis
 * killed and restarted empty, DEBUG SLEEP, SCRIPT FLUSH). What a user sees is the soak's report and
 * its exit code: no gap below a host's delay at the wire (Redis outages included), no page lost, no
 * disallowed request, and exit code 0.
 */
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { wireUnavailableReason } from '../helpers/wire.js';

const missing = spawnSync('redis-server', ['--version']).error
  ? 'redis-server is not installed'
  : wireUnavailableReason();
if (missing)
  console.warn(
    `\n!!! ${missing}: SKIPPING the fleet soak test (it starts its own redis-server and judges at the wire). Install redis-server and tcpdump and run as root to run it; \`npm run soak\` runs the longer soak. !!!\n`,
  );

const main = fileURLToPath(new URL('../../scripts/soak/main.ts', import.meta.url));
const root = fileURLToPath(new URL('../..', import.meta.url));

/** The soak's output and exit code; killed (a test failure, not a hang) after `limitMs`. */
function soak(args: readonly string[], limitMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', main, ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += String(chunk);
    });
    child.stderr.on('data', (chunk) => {
      output += String(chunk);
    });
    // SIGINT: the soak then kills its Redis, web and workers before it exits.
    const timer = setTimeout(() => child.kill('SIGINT'), limitMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

// Most of the time limit is three tsx processes starting on a loaded 2-core machine (30 s at load 30).
it.skipIf(missing)(
  'a short fleet soak with every fault: 0 gaps under the delay, 0 pages lost',
  { timeout: 200_000 },
  async () => {
    const { code, output } = await soak(
      [
        '--minutes',
        '0.75',
        '--hosts',
        '4',
        '--workers',
        '3',
        '--min-delay-ms',
        '1000',
        '--crawl-delay',
        '1-2',
        '--net',
        '127.79',
      ],
      180_000,
    );
    console.info(output);
    expect(output).toMatch(/FAULT: worker \d SIGKILLed/);
    expect(output).toMatch(/FAULT: Redis SIGKILLed/);
    expect(output).toMatch(/FAULT: DEBUG SLEEP 2/);
    expect(output).toMatch(/FAULT: SCRIPT FLUSH/);
    expect(output).toMatch(/PASS {2}gaps under the delay: 0 \(\d+ page requests judged at the wire/);
    expect(output).toMatch(/PASS {2}pages lost: 0 of \d+/);
    expect(output).toMatch(/PASS {2}disallowed requests: 0/);
    expect(code).toBe(0);
  },
);
