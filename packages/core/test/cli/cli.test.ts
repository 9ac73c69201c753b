import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type TestHost, text } from '../../../../test/helpers/hosts.js';
import { type CliIo, EXIT, main } from '../../src/cli/main.js';

const ROBOTS =
  'User-agent: *\nDisallow: /private # keep out\nAllow: /private/open\nCrawl-delay: 2\nSitemap: https://example.test/sitemap.xml\n';

let dir: string;
let file: string;
let site: TestHost;
let broken: TestHost;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'politely-cli-'));
  file = join(dir, 'robots.txt');
  await writeFile(file, ROBOTS);
  site = await startHost({ ip: '127.0.0.41', routes: { '/robots.txt': text(ROBOTS) } });
  broken = await startHost({ ip: '127.0.0.42', routes: { '/robots.txt': text('down', 503) } });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await site.close();
  await broken.close();
});

async function run(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    readFile: async (path) =>
      new Uint8Array(await import('node:fs/promises').then((fs) => fs.readFile(path))),
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

describe('politely check', () => {
  it('prints each verdict with the deciding line and exits 1 when something is disallowed', async () => {
    const result = await run(
      'check',
      site.url('/private/x'),
      site.url('/private/open/y'),
      '--agent',
      'MyBot',
    );
    expect(result.code).toBe(EXIT.negative);
    expect(result.stdout).toContain(`DISALLOWED  ${site.url('/private/x')}`);
    expect(result.stdout).toContain('line 2: Disallow: /private');
    expect(result.stdout).toContain(`ALLOWED     ${site.url('/private/open/y')}`);
    expect(result.stdout).toContain('line 3: Allow: /private/open');
    expect(site.requests('/robots.txt')[0]?.headers['user-agent']).toBe('MyBot/1.0 (politely-cli)');
  });

  it('exits 0 when all are allowed, and --json gives the decisions as data', async () => {
    const result = await run('check', site.url('/public'), '--agent', 'MyBot', '--json');
    expect(result.code).toBe(EXIT.ok);
    const [decision] = JSON.parse(result.stdout);
    expect(decision).toMatchObject({
      allowed: true,
      reason: 'allowed',
      source: 'robots.txt',
      crawlDelayMs: 2000,
    });
  });

  it('reports an unreachable robots.txt as disallow-all', async () => {
    const result = await run('check', broken.url('/x'), '--agent', 'MyBot');
    expect(result.code).toBe(EXIT.negative);
    expect(result.stdout).toContain('robots.txt unreachable (HTTP 503): disallow all');
  });
});

describe('politely explain', () => {
  it('explains paths against a local file, quoting the deciding line', async () => {
    const result = await run('explain', file, '/private/x', '/public', '--agent', 'MyBot');
    expect(result.code).toBe(EXIT.negative);
    expect(result.stdout).toContain('crawl-delay: 2 s');
    expect(result.stdout).toContain('sitemaps: https://example.test/sitemap.xml');
    expect(result.stdout).toContain('line 2: Disallow: /private # keep out');
    expect(result.stdout).toMatch(/ALLOWED {5}\/public\n {12}no rule matched/);
  });

  it('exits 3 for a file it cannot read', async () => {
    const result = await run('explain', join(dir, 'missing.txt'), '/x', '--agent', 'MyBot');
    expect(result.code).toBe(EXIT.input);
    expect(result.stderr).toContain('ENOENT');
  });
});

describe('politely lint', () => {
  it('lists diagnostics with line, severity and code', async () => {
    const bad = join(dir, 'bad.txt');
    await writeFile(
      bad,
      'Disallow: /before-group\nUser-agent: *\nDissallow: /typo\nCrawl-delay: soon\nFoo: bar\n',
    );
    const result = await run('lint', bad, '--json');
    const report = JSON.parse(result.stdout);
    const codes = report.diagnostics.map((d: { code: string }) => d.code);
    expect(codes.length).toBeGreaterThanOrEqual(4);
    expect(report.diagnostics.map((d: { line: number }) => d.line)).toEqual(
      expect.arrayContaining([1, 3, 4, 5]),
    );
    expect(result.code).toBe(
      report.diagnostics.some((d: { severity: string }) => d.severity === 'error') ? 1 : 0,
    );
  });

  it('lints a live robots.txt by URL', async () => {
    const result = await run('lint', site.url('/'));
    expect(result.stdout).toContain(`${site.url('/robots.txt')}: HTTP 200`);
    expect(result.code).toBe(EXIT.ok);
  });
});

describe('usage errors', () => {
  it.each([
    [['check', 'https://example.test/']],
    [['check', '--agent', 'My Bot', 'https://example.test/']],
    [['explain', '--agent', 'MyBot']],
    [['frobnicate']],
    [['check', '--bogus']],
    [[]],
  ])('%j exits 2 with usage', async (argv) => {
    const result = await run(...argv);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toContain('Usage:');
  });
});
