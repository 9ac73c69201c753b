/**
 * Which test files a matrix cell runs, read from the code rather than listed by hand, so that a test
 * file added tomorrow is in the matrix the day it starts to load a peer.
 *
 * A cell changes two things against `npm test`: the peer packages (got, Keyv and its Redis store,
 * node-redis, ioredis, Crawlee) and the Node binary. Everything else it installs is the repository's
 * own range of the same packages, and the test files and sources are copies. So a test file's outcome
 * can differ in a cell only if
 * - it loads a peer: its static import closure (imports, re-exports, `import()`, `vi.mock()`, and the
 *   worker scripts it spawns, named as `new URL('./worker.ts', import.meta.url)`; followed through test
 *   helpers and through the packages' sources, which is how the adapters reach got and Crawlee) reaches
 *   a package that is not on the short NOT_PEERS list below. An unknown package counts as a peer: a
 *   mistake here runs a file too many, never one too few. Or
 * - it runs on another Node than `npm test` did. How a file then qualifies is `nodeReason`.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * Packages a cell installs at the repository's own ranges, that no peer version changes and whose
 * version the matrix does not vary: the test tools and the packages' own dependencies. Everything else
 * an import reaches (got, keyv, @keyv/redis, redis, ioredis, every @crawlee/* and whatever is new)
 * makes the file a peer file.
 */
export const NOT_PEERS: ReadonlySet<string> = new Set([
  'vitest',
  'fast-check',
  'tinybench',
  'typescript',
  'tsx',
  'robots-parser',
  'playwright-core',
  'puppeteer-core',
  'lru-cache',
  'structured-headers',
  'tldts',
  // OpenTelemetry: the core's optional peer and the SDK its tests record with, installed at the
  // repository's ranges in every cell; no cell varies them.
  '@opentelemetry/api',
  '@opentelemetry/sdk-metrics',
  '@opentelemetry/exporter-prometheus',
]);

/**
 * Node's network stack and processes. A test file whose own code (the file and the test helpers it
 * loads, not the packages' sources) uses one of these drives the packages against the running Node's
 * sockets: Node's own fetch (undici, which politely uses by default for robots.txt and which
 * `@politely/fetch` wraps, and whose errors it classifies), its HTTP client (got), DNS, timers against
 * real servers, Redis over TCP, worker processes. Those are what differ between Node 20, 22 and 24.
 * A file without any of them runs the packages on injected fetch functions, fake clocks and in-memory
 * stores: plain ECMAScript, the same on every Node the engines range accepts, and run on one of them
 * by `npm test`.
 */
const NODE_IO: ReadonlySet<string> = new Set([
  'http',
  'https',
  'http2',
  'net',
  'tls',
  'dgram',
  'dns',
  'child_process',
  'worker_threads',
  'cluster',
]);

/** Why a test file runs in a cell: the peers its imports reach, and whether it uses Node's I/O. */
export interface TestFileDeps {
  /** From the repository root, with `/`. */
  readonly file: string;
  /** Peer packages the file's import closure reaches, sorted. */
  readonly peers: readonly string[];
  /** The first place (test-side module and what it uses) where the file reaches Node's I/O, if any. */
  readonly nodeIo: string | undefined;
}

/** `@politely/*` names and subpaths mapped to the sources, as vitest.config.ts's aliases do. */
function workspaceSources(repo: string): Map<string, string> {
  const root = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { workspaces: string[] };
  const map = new Map<string, string>();
  for (const workspace of root.workspaces) {
    const json = JSON.parse(readFileSync(join(repo, workspace, 'package.json'), 'utf8')) as {
      name: string;
      exports?: Record<string, string | { default?: string }>;
    };
    for (const [subpath, target] of Object.entries(json.exports ?? {})) {
      const built = typeof target === 'string' ? target : target.default;
      if (built === undefined || !built.startsWith('./dist/') || !built.endsWith('.js')) continue;
      const source = join(repo, workspace, `src/${built.slice('./dist/'.length, -'.js'.length)}.ts`);
      map.set(subpath === '.' ? json.name : `${json.name}/${subpath.slice(2)}`, source);
    }
  }
  return map;
}

/** The specifiers a module loads at run time (type-only imports are erased and left out). */
export function specifiers(text: string): string[] {
  const found: string[] = [];
  const patterns = [
    // import x from 'a'; import { b } from 'a'; export * from 'a'; export { c } from 'a' (multi-line too)
    /(?:^|[\s;])(?:import|export)(?!\s+type[\s{])\s[^'"`;]*?\sfrom\s*['"]([^'"]+)['"]/g,
    // import 'a' (side effects)
    /(?:^|[\s;])import\s*['"]([^'"]+)['"]/g,
    // import('a'), vi.mock('a'), require('a')
    /\b(?:import|vi\.mock|vi\.doMock|require|require\.resolve)\(\s*['"]([^'"]+)['"]/g,
    // new URL('./worker.ts', import.meta.url): scripts spawned as processes or workers
    /new URL\(\s*['"](\.{1,2}\/[^'"]+\.(?:ts|mts|js|mjs))['"]\s*,\s*import\.meta\.url/g,
  ];
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) if (match[1] !== undefined) found.push(match[1]);
  }
  return found;
}

function localModule(from: string, spec: string): string | undefined {
  const base = resolve(dirname(from), spec);
  const candidates = /\.[cm]?js$/.test(base)
    ? [base.replace(/\.([cm]?)js$/, '.$1ts'), base]
    : [base, `${base}.ts`, join(base, 'index.ts')];
  return candidates.find((path) => existsSync(path) && statSync(path).isFile() && /\.[cm]?[jt]s$/.test(path));
}

function packageName(spec: string): string {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? spec);
}

const BUILTINS = new Set(builtinModules);

/** True when a node_modules folder at or above `module`'s folder holds package `name`. */
function installedFrom(module: string, name: string): boolean {
  for (let dir = dirname(module); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules', name, 'package.json'))) return true;
    if (dirname(dir) === dir) return false;
  }
}

/** Reads every test file's import closure. `testFiles` are paths from the repository root. */
export function testFileDeps(repo: string, testFiles: readonly string[]): TestFileDeps[] {
  const aliases = workspaceSources(repo);
  const sourcesDir = `${join(repo, 'packages')}${sep}`;
  const isSource = (path: string) => path.startsWith(sourcesDir) && path.includes(`${sep}src${sep}`);
  /** Per module: the modules it loads, the bare packages, the Node builtins. */
  const edges = new Map<string, { local: string[]; packages: string[]; builtins: string[] }>();
  const read = (module: string) => {
    let known = edges.get(module);
    if (known !== undefined) return known;
    known = { local: [], packages: [], builtins: [] };
    edges.set(module, known);
    for (const spec of specifiers(readFileSync(module, 'utf8'))) {
      if (spec.startsWith('.')) {
        const local = localModule(module, spec);
        if (local !== undefined) known.local.push(local);
      } else if (aliases.has(spec)) {
        known.local.push(aliases.get(spec) as string);
      } else if (spec.startsWith('node:') || BUILTINS.has(packageName(spec))) {
        known.builtins.push(packageName(spec.replace(/^node:/, '')));
      } else if (!spec.startsWith('@politely/')) {
        // A name no node_modules above the module holds is not loaded by a passing run (test data
        // such as a layering rule's `from 'x'`); npm installs the same names in the cells.
        if (installedFrom(module, packageName(spec))) known.packages.push(packageName(spec));
      } else {
        throw new Error(`${relative(repo, module)} imports ${spec}, which no workspace exports`);
      }
    }
    return known;
  };

  return testFiles.map((file) => {
    const start = join(repo, file);
    const peers = new Set<string>();
    let nodeIo: string | undefined;
    const seen = new Set([start]);
    const queue = [start];
    for (let module = queue.shift(); module !== undefined; module = queue.shift()) {
      const { local, packages, builtins } = read(module);
      for (const name of packages) if (!NOT_PEERS.has(name)) peers.add(name);
      if (nodeIo === undefined && !isSource(module)) {
        const io = builtins.find((name) => NODE_IO.has(name.split('/')[0] ?? name));
        if (io !== undefined) nodeIo = `${relative(repo, module).split(sep).join('/')} uses node:${io}`;
      }
      for (const next of local) {
        if (!seen.has(next)) {
          seen.add(next);
          queue.push(next);
        }
      }
    }
    return { file, peers: [...peers].sort(), nodeIo };
  });
}

/** Test files vitest would run, from the repository root: every `*.test.ts` outside node_modules and dist. */
export function allTestFiles(listed: readonly string[]): string[] {
  return listed.filter(
    (file) =>
      file.endsWith('.test.ts') &&
      !file.split('/').some((part) => part === 'node_modules' || part === 'dist'),
  );
}
