/**
 * `@opentelemetry/api` is an optional peer: a project without it must get a Politeness that works as
 * before. Run for real: the core's sources are copied to a scratch folder in the OS temp folder whose
 * node_modules hold the core's own dependencies and nothing else, and a child process (tsx) crawls a
 * loopback server from there with metrics asked for.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const CORE = join(ROOT, 'packages/core');
/** The core's runtime dependencies (package.json `dependencies`), which the copy needs beside it. */
const DEPENDENCIES = ['lru-cache', 'structured-headers', 'tldts', 'tldts-core'];

/**
 * Where the core's own copy of a dependency is, as Node would find it from packages/core: its own
 * node_modules first (an install that hoists another version to the root, e.g. an old lru-cache another
 * package needs, nests the core's there), then the root's.
 */
function dependencyOf(name: string): string {
  const own = join(CORE, 'node_modules', name);
  return existsSync(own) ? own : join(ROOT, 'node_modules', name);
}

const scratch: string[] = [];
afterAll(async () => {
  await Promise.all(scratch.map((dir) => rm(dir, { recursive: true, force: true })));
});

const CHILD = `
import { createRequire } from 'node:module';
import { createServer } from 'node:http';
import { createPoliteness } from './core/src/index.ts';

let apiFound = true;
try {
  createRequire(import.meta.url).resolve('@opentelemetry/api');
} catch {
  apiFound = false;
}
const seen = [];
const server = createServer((req, res) => {
  seen.push(req.url);
  res.end(req.url === '/robots.txt' ? 'User-agent: *\\nDisallow: /private\\n' : 'page');
});
await new Promise((resolve) => server.listen(0, '127.0.0.248', resolve));
const origin = 'http://127.0.0.248:' + server.address().port;
const p = createPoliteness({
  userAgent: 'MeterBot/1.0',
  pacing: { minDelayMs: 0 },
  logger: false,
  metrics: { hostAttribute: true },
});
const allowed = await p.admit(origin + '/page');
const refused = await p.admit(origin + '/private/x').catch((error) => error.code);
await p.close();
server.close();
console.log(JSON.stringify({ apiFound, allowed: allowed.allowed, refused, seen, decisions: p.stats().decisions }));
`;

it('works unchanged without @opentelemetry/api installed', { timeout: 60_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'politely-no-otel-'));
  scratch.push(dir);
  await cp(join(CORE, 'src'), join(dir, 'core/src'), { recursive: true });
  await cp(join(CORE, 'package.json'), join(dir, 'core/package.json'));
  await mkdir(join(dir, 'node_modules'));
  for (const name of DEPENDENCIES) {
    await symlink(dependencyOf(name), join(dir, 'node_modules', name), 'dir');
  }
  await writeFile(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  await writeFile(join(dir, 'main.ts'), CHILD);
  const tsx = join(ROOT, 'node_modules/tsx/dist/esm/index.mjs');
  const { stdout } = await run(process.execPath, ['--import', tsx, 'main.ts'], {
    cwd: dir,
    timeout: 50_000,
  });
  const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');
  expect(result).toEqual({
    apiFound: false,
    allowed: true,
    refused: 'ERR_ROBOTS_DISALLOWED',
    seen: ['/robots.txt'],
    decisions: expect.objectContaining({ allowed: 1, disallowed: 1 }),
  });
});
