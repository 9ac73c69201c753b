/**
 * Issue 25 point 6: a store that hangs without holding a handle must still time out. The check runs
 * in a child process, as a crawler would: with the store timeout's timer unref'd nothing kept the
 * process alive, `await check()` never settled and Node exited with code 13 (unsettled top-level
 * await) instead of answering.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

describe('a store that hangs without holding a handle', () => {
  it('times out and the check answers, instead of the process exiting with code 13', async () => {
    const child = fileURLToPath(new URL('./hanging-store-child.ts', import.meta.url));
    const { stdout } = await run(process.execPath, ['--import', 'tsx', child], { timeout: 60_000 });
    // Disallowed by the robots.txt fetched once the store gave up (its default timeout, 2 s).
    expect(stdout.trim()).toBe('disallowed');
  }, 90_000);
});
