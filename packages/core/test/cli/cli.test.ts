import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
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
let throttled: TestHost;
let missing: TestHost;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'politely-cli-'));
  file = join(dir, 'robots.txt');
  await writeFile(file, ROBOTS);
  site = await startHost({ ip: '127.0.0.41', routes: { '/robots.txt': text(ROBOTS) } });
  broken = await startHost({ ip: '127.0.0.42', routes: { '/robots.txt': text('down', 503) } });
  throttled = await startHost({ ip: '127.0.0.43', routes: { '/robots.txt': text('slow down', 429) } });
  missing = await startHost({ ip: '127.0.0.44', routes: {} });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await site.close();
  await broken.close();
  await throttled.close();
  await missing.close();
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

  it('reports an unreachable robots.txt as disallow-all, with its own exit code 4', async () => {
    const result = await run('check', broken.url('/x'), '--agent', 'MyBot');
    expect(result.code).toBe(EXIT.unreachable);
    expect(EXIT.unreachable).toBe(4);
    expect(result.stdout).toContain('robots.txt unreachable (HTTP 503): disallow all');
  });

  it('names why robots.txt could not be reached: a name that does not resolve', async () => {
    const result = await run('check', 'http://nowhere.internal/x', '--agent', 'MyBot', '--json');
    expect(result.code).toBe(EXIT.unreachable);
    const [decision] = JSON.parse(result.stdout);
    expect(decision.robotsError).toContain('ENOTFOUND nowhere.internal');
    const text = await run('check', 'http://nowhere.internal/x', '--agent', 'MyBot');
    expect(text.stdout).toMatch(
      /robots\.txt unreachable \(fetch failed: getaddrinfo ENOTFOUND nowhere\.internal\)/,
    );
  });

  it('--purpose ai-train names tdmrep.json, not robots.txt, as the source of a TDM reservation', async () => {
    const reserving = await startHost({
      ip: '127.0.0.48',
      routes: {
        '/robots.txt': text('User-agent: *\nAllow: /\n'),
        '/.well-known/tdmrep.json': {
          headers: { 'content-type': 'application/json' },
          body: '[{"location": "/books/*", "tdm-reservation": 1, "tdm-policy": "https://p.test/policy"}]',
        },
      },
    });
    try {
      const books = reserving.url('/books/1');
      const result = await run(
        'check',
        books,
        reserving.url('/news/1'),
        '--agent',
        'MyBot',
        '--purpose',
        'ai-train',
      );
      expect(result.code).toBe(EXIT.negative);
      const [reserved = '', allowed = ''] = result.stdout.split(/\n(?=ALLOWED|DISALLOWED)/);
      expect(reserved).toBe(
        `DISALLOWED  ${books}\n            tdmrep.json reserves TDM rights: refused for this purpose ` +
          `(location "/books/*", policy https://p.test/policy) (${reserving.url('/.well-known/tdmrep.json')})`,
      );
      expect(allowed).toContain(`line 2: Allow: / (${reserving.url('/robots.txt')})`);
    } finally {
      await reserving.close();
    }
  });

  it('exits 4, not 1, when one URL is disallowed and another site is unreachable', async () => {
    const disallowed = await run('check', site.url('/private/x'), '--agent', 'MyBot');
    const both = await run('check', site.url('/private/x'), broken.url('/x'), '--agent', 'MyBot');
    expect([disallowed.code, both.code]).toEqual([EXIT.negative, EXIT.unreachable]);
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

  it('refuses a path without its leading slash instead of answering "no rule matched"', async () => {
    const result = await run('explain', file, 'private/x', '--agent', 'MyBot');
    expect(result.code).toBe(EXIT.usage);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('did you mean "/private/x"?');
    const urlAndPath = await run(
      'explain',
      file,
      '/private/x',
      'https://example.test/private/x',
      '--agent',
      'MyBot',
    );
    expect(urlAndPath.stdout.match(/DISALLOWED/g)).toHaveLength(2);
  });

  it('shows AI usage preferences, and refuses by them with --purpose', async () => {
    const usageFile = join(dir, 'usage.txt');
    await writeFile(
      usageFile,
      'Content-Signal: search=yes\nUser-agent: *\nAllow: /\nContent-Usage: /nt/ train-ai=n\n',
    );
    const plain = await run('explain', usageFile, '/nt/x', '--agent', 'MyBot');
    expect(plain.code).toBe(EXIT.ok);
    expect(plain.stdout).toContain('usage: Content-Usage train-ai=n; Content-Signal search=yes (line 1, 4)');
    const refused = await run(
      'explain',
      usageFile,
      '/nt/x',
      '/other',
      '--agent',
      'MyBot',
      '--purpose',
      'ai-train',
    );
    expect(refused.code).toBe(EXIT.negative);
    expect(refused.stdout).toMatch(
      /DISALLOWED {2}\/nt\/x\n {12}usage preferences say no for purpose ai-train: Content-Usage train-ai/,
    );
    expect(refused.stdout).toMatch(/ALLOWED {5}\/other/);
    const bad = await run('explain', usageFile, '/x', '--agent', 'MyBot', '--purpose', 'training');
    expect(bad.code).toBe(EXIT.usage);
    expect(bad.stderr).toContain('--purpose must be one of search, ai-input, ai-train');
  });

  it('explain --tdmrep shows the TDMRep verdict beside robots.txt for a TDM purpose (W3C TDMRep)', async () => {
    const robots = join(dir, 'tdm-robots.txt');
    const tdmrep = join(dir, 'tdmrep.json');
    await writeFile(robots, 'User-agent: *\nAllow: /\n');
    await writeFile(
      tdmrep,
      JSON.stringify([{ location: '/books/*', 'tdm-reservation': 1, 'tdm-policy': 'https://p.test/policy' }]),
    );
    const args = [robots, '/books/1', '/news/1', '--agent', 'MyBot', '--tdmrep', tdmrep];
    const trained = await run('explain', ...args, '--purpose', 'ai-train');
    expect(trained.code).toBe(EXIT.negative);
    expect(trained.stdout).toMatch(
      /DISALLOWED {2}\/books\/1\n {12}line 2: Allow: \/\n {12}tdmrep.json reserves TDM rights: refused for this purpose \(location "\/books\/\*", policy https:\/\/p.test\/policy\)/,
    );
    expect(trained.stdout).toMatch(/ALLOWED {5}\/news\/1\n {12}line 2: Allow: \/\n(?! {12}tdmrep)/);
    const json = JSON.parse((await run('explain', ...args, '--purpose', 'ai-input', '--json')).stdout);
    expect(json.results[0]).toMatchObject({ allowed: false, tdm: { reserved: true, location: '/books/*' } });
    // Search is no text and data mining: the file is not applied.
    expect((await run('explain', ...args, '--purpose', 'search')).code).toBe(EXIT.ok);
    await writeFile(tdmrep, '{"location": "/"}');
    const malformed = await run('explain', ...args, '--purpose', 'ai-train');
    expect(malformed.code).toBe(EXIT.input);
    expect(malformed.stderr).toContain('is not a tdmrep.json: not a JSON array');
  });

  it('with --purpose, path-scoped Content-Usage lines decide in a group without Allow/Disallow rules (issue 35.4)', async () => {
    const cases: [string, string, RegExp][] = [
      [
        'User-agent: *\nContent-Usage: /nope/ train-ai=n\n',
        '/nope/secret',
        /^DISALLOWED {2}\/nope\/secret$/m,
      ],
      [
        'User-agent: *\nDisallow:\nContent-Usage: /nope/ train-ai=n\n',
        '/nope/secret',
        /^DISALLOWED {2}\/nope\/secret$/m,
      ],
      [
        'User-agent: *\nContent-Usage: train-ai=n\nContent-Usage: /open/ train-ai=y\n',
        '/open/x',
        /^ALLOWED {5}\/open\/x$/m,
      ],
    ];
    for (const [index, [body, path, verdict]] of cases.entries()) {
      const scoped = join(dir, `scoped-${index}.txt`);
      await writeFile(scoped, body);
      const result = await run('explain', scoped, path, '--agent', 'MyBot', '--purpose', 'ai-train');
      expect(result.stdout).toMatch(verdict);
      expect(result.code).toBe(verdict.source.startsWith('^DIS') ? EXIT.negative : EXIT.ok);
    }
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

  it('flags a relative Sitemap URL, naming the rule (sitemaps.org, RFC 9309 2.2.4)', async () => {
    const relative = join(dir, 'relative-sitemap.txt');
    await writeFile(
      relative,
      'User-agent: *\nDisallow: /x\nSitemap: /sitemap.xml\nSitemap: https://a.test/s.xml\n',
    );
    const result = await run('lint', relative);
    expect(result.stdout).toBe(
      `${relative}:3  warning  sitemap-not-absolute  Sitemap "/sitemap.xml" is not a full http(s) URL; crawlers ` +
        'ignore it (sitemaps.org: the complete URL, as https://example.com/sitemap.xml; RFC 9309 2.2.4 leaves ' +
        'Sitemap to that protocol)\n0 error(s), 1 warning(s), 0 note(s)\n',
    );
  });

  it('lints a live robots.txt by URL', async () => {
    const result = await run('lint', site.url('/'));
    expect(result.stdout).toContain(`${site.url('/robots.txt')}: HTTP 200`);
    expect(result.code).toBe(EXIT.ok);
  });

  it.each([
    ['503', () => broken, 'answered HTTP 503'],
    ['429', () => throttled, 'answered HTTP 429'],
  ])(
    'reports a %s robots.txt as an error with its consequence and exits 4',
    async (_status, target, answered) => {
      const result = await run('lint', target().url('/'));
      expect(result.code).toBe(EXIT.unreachable);
      expect(result.stdout).toContain(`error    robots-txt-unreachable  robots.txt ${answered}`);
      expect(result.stdout).toContain('crawlers will not fetch anything from this site');
      expect(result.stdout).toContain('1 error(s)');
      const json = JSON.parse((await run('lint', target().url('/'), '--json')).stdout);
      expect(json.fetch.outcome).toBe('unreachable');
      expect(json.diagnostics).toEqual([
        expect.objectContaining({ severity: 'error', code: 'robots-txt-unreachable' }),
      ]);
    },
  );

  it('reports an unreachable host (connection refused) the same way', async () => {
    const gone = await startHost({ ip: '127.0.0.45', routes: {} });
    const url = gone.url('/');
    await gone.close();
    const result = await run('lint', url, '--timeout', '5000');
    expect(result.code).toBe(EXIT.unreachable);
    expect(result.stdout).toMatch(
      /robots\.txt could not be fetched \(.+\): crawlers will not fetch anything/,
    );
  });

  it('warns, and exits 0, for a missing robots.txt (crawlers may fetch everything)', async () => {
    const result = await run('lint', missing.url('/'));
    expect(result.code).toBe(EXIT.ok);
    expect(result.stdout).toContain('warning  robots-txt-unavailable  robots.txt answered HTTP 404');
  });
});

describe('politely diff', () => {
  const CHANGED =
    'User-agent: *\nDisallow: /private\nDisallow: /drafts\nCrawl-delay: 5\nSitemap: https://example.test/sitemap.xml\n';

  it('exits 0 when a file and a live robots.txt give the agent the same rules', async () => {
    const reordered = join(dir, 'reordered.txt');
    await writeFile(
      reordered,
      'Sitemap: https://example.test/sitemap.xml\nUser-agent: *\nCrawl-delay: 2\nAllow: /private/open\nDisallow: /private\n',
    );
    const result = await run('diff', reordered, site.url('/'), '--agent', 'MyBot');
    expect(result.code).toBe(EXIT.ok);
    expect(result.stdout).toContain(`b: ${site.url('/robots.txt')} (HTTP 200)`);
    expect(result.stdout).toContain('same rules for MyBot');
    expect(site.requests('/robots.txt').at(-1)?.headers['user-agent']).toBe('MyBot/1.0 (politely-cli)');
  });

  it('lists removed and added rules and the Crawl-delay change, and exits 1', async () => {
    const changed = join(dir, 'changed.txt');
    await writeFile(changed, CHANGED);
    const result = await run('diff', file, changed, '--agent', 'MyBot');
    expect(result.code).toBe(EXIT.negative);
    expect(result.stdout).toContain('- line 3: Allow: /private/open');
    expect(result.stdout).toContain('+ line 3: Disallow: /drafts');
    expect(result.stdout).toContain('crawl-delay: 2 s -> 5 s');
    expect(result.stdout).toContain('rules differ for MyBot: 1 added, 1 removed');
    const json = JSON.parse((await run('diff', file, changed, '--agent', 'MyBot', '--json')).stdout);
    expect(json.diff).toMatchObject({
      changed: true,
      added: [{ directive: 'disallow', pattern: '/drafts', line: 3 }],
      removed: [{ directive: 'allow', pattern: '/private/open', line: 3 }],
      crawlDelay: { before: 2, after: 5 },
    });
  });

  it('reads a missing robots.txt (404) as no rules: every rule of the other side is removed', async () => {
    const result = await run('diff', file, missing.url('/'), '--agent', 'MyBot', '--json');
    expect(result.code).toBe(EXIT.negative);
    const report = JSON.parse(result.stdout);
    expect(report.b.fetch).toMatchObject({ status: 404, outcome: 'unavailable' });
    expect(report.diff.removed).toHaveLength(2);
    expect(report.diff.added).toEqual([]);
  });

  it('exits 4 when a side is unreachable: its rules are unknown', async () => {
    const result = await run('diff', broken.url('/'), file, '--agent', 'MyBot');
    expect(result.code).toBe(EXIT.unreachable);
    expect(result.stdout).toContain('(HTTP 503: unreachable, crawlers fetch nothing)');
    expect(result.stdout).toContain('rules unknown');
  });

  it('exits 3 for a file it cannot read, 2 without two inputs or an agent', async () => {
    expect((await run('diff', join(dir, 'nope.txt'), file, '--agent', 'MyBot')).code).toBe(EXIT.input);
    expect((await run('diff', file, '--agent', 'MyBot')).code).toBe(EXIT.usage);
    expect((await run('diff', file, file)).code).toBe(EXIT.usage);
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
  ])('%j exits 2 with what was wrong in one line and a pointer to --help', async (argv) => {
    const result = await run(...argv);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toMatch(/^politely: [^\n]+\nRun "politely --help" for usage\.\n$/);
    expect(result.stdout).toBe('');
  });

  it('--json makes errors JSON too, on stdout, with the same exit codes', async () => {
    const usage = await run('check', '--agnet', 'MyBot', 'https://a.test/', '--json');
    expect(usage.code).toBe(EXIT.usage);
    expect(JSON.parse(usage.stdout)).toEqual({
      error: { exit: EXIT.usage, message: 'unknown option --agnet (did you mean --agent?)' },
    });
    expect(usage.stderr).toBe('');
    const missingAgent = await run('explain', file, '/x', '--json');
    expect(JSON.parse(missingAgent.stdout).error.message).toContain('--agent');
    const unreadable = await run('explain', join(dir, 'nope.txt'), '/x', '--agent', 'MyBot', '--json');
    expect(unreadable.code).toBe(EXIT.input);
    expect(JSON.parse(unreadable.stdout)).toEqual({
      error: { exit: EXIT.input, message: `cannot read ${join(dir, 'nope.txt')}: ENOENT` },
    });
  });

  it('--version prints the package and its version', async () => {
    const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));
    for (const flag of ['--version', '-v']) {
      const result = await run(flag);
      expect(result.code).toBe(EXIT.ok);
      expect(result.stdout).toBe(`@politely/core ${version}\n`);
    }
  });

  it.each([
    [['check', '--agnet', 'MyBot', 'https://a.test/'], 'unknown option --agnet (did you mean --agent?)'],
    [['lint', 'robots.txt', '--jsn'], 'unknown option --jsn (did you mean --json?)'],
    [
      ['check', '--useragent=X', 'https://a.test/'],
      'unknown option --useragent (did you mean --user-agent?)',
    ],
    [['check', '--frobnicate'], 'unknown option --frobnicate\n'],
    [['check', '-x'], 'unknown option -x\n'],
  ])('%j names the unknown option plainly, with a suggestion when one is close', async (argv, message) => {
    const result = await run(...argv);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr.startsWith(`politely: ${message}`)).toBe(true);
    expect(result.stderr).not.toContain('as in');
  });

  it('takes a value that looks like an option name as a value, and stops at --', async () => {
    // After `--`, `--json` is a target (refused: not a path), not the option (no JSON error).
    const result = await run('explain', file, '--agent', 'MyBot', '--', '--json');
    expect(result.code).toBe(EXIT.usage);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('"--json" is neither an http(s) URL nor a path');
  });

  it('documents every exit code in --help', async () => {
    const result = await run('--help');
    expect(result.code).toBe(EXIT.ok);
    for (const code of Object.values(EXIT)) expect(result.stdout).toMatch(new RegExp(`\\n  ${code}  `));
  });
});
