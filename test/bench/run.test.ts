/**
 * `npm run bench` argument handling: --help prints usage and starts nothing; an unknown benchmark name
 * or option is a clear error (exit 2). The benchmarks themselves are never run by the tests.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

async function bench(...args: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'bench/run.ts', ...args],
      { cwd: ROOT, timeout: 60_000 },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe('npm run bench', () => {
  it('--help prints the usage and one line per benchmark, and runs nothing', async () => {
    const result = await bench('--help');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: npm run bench');
    const known = (await bench('nope')).stderr.match(/Known: (.+)/)?.[1]?.split(', ') ?? [];
    expect(known).toEqual(expect.arrayContaining(['engine', 'cache', 'scheduler', 'got', 'crawlee']));
    for (const name of known) expect(result.stdout).toMatch(new RegExp(`\\n  ${name} +\\S`));
    expect(result.stdout).not.toContain('politely benchmarks on Node');
    expect(result.stdout).not.toContain('===');
  });

  it.each([
    [['nope'], /Unknown benchmark\(s\): nope\. Known: engine, engine-ab, cache, /],
    [['engine', '--fast'], /Unknown option\(s\): --fast/],
    // --base is a known option (engine-ab and cache read it), so the unknown name is what is reported.
    [['--base=main', 'nope'], /^Unknown benchmark\(s\): nope\./],
  ])('%j is a clear error with exit code 2', async (args, message) => {
    const result = await bench(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain('Usage: npm run bench');
    expect(result.stdout).not.toContain('politely benchmarks on Node');
  });
});
