/**
 * Run inside a matrix cell, with the cell's Node: resolves every peer package the way the suites'
 * imports do (from the cell's copy of the repository) and asserts that each is the version the cell
 * asked for, installed inside the cell, and that all installed `@crawlee/*` packages share one
 * `@crawlee/core`.
 * Prints one JSON line `{ node, versions }`; exits 1 with the reasons otherwise.
 *
 * argv: JSON `{ "node": "22", "packages": { "got": "16", ... } }`
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { versionMatches } from './cells.js';

interface Expected {
  readonly node: string;
  readonly packages: Record<string, string>;
}

const expected = JSON.parse(process.argv[2] ?? '{}') as Expected;
const cellRoot = process.cwd();
const problems: string[] = [];

/** The package.json of the package that `file` belongs to. */
function packageJsonOf(file: string, name: string): { path: string; version: string } {
  let dir = dirname(file);
  for (;;) {
    try {
      const path = join(dir, 'package.json');
      const json = JSON.parse(readFileSync(path, 'utf8')) as { name?: string; version?: string };
      if (json.name === name && json.version !== undefined) return { path, version: json.version };
    } catch {
      // no package.json here: keep walking up
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json named ${name} above ${file}`);
    dir = parent;
  }
}

const nodeMajor = process.versions.node.split('.')[0];
if (nodeMajor !== expected.node) problems.push(`node ${process.version}, expected ${expected.node}.x`);

const versions: Record<string, string> = { node: process.versions.node };
for (const [name, spec] of Object.entries(expected.packages)) {
  try {
    // Resolved as an ESM import from the cell root, as the test files' imports are.
    const file = fileURLToPath(import.meta.resolve(name));
    const { path, version } = packageJsonOf(file, name);
    versions[name] = version;
    if (!path.startsWith(`${cellRoot}${sep}node_modules${sep}`)) {
      problems.push(`${name} resolves outside the cell: ${path}`);
    }
    if (!versionMatches(version, spec)) problems.push(`${name} is ${version}, expected ${spec}`);
  } catch (error) {
    problems.push(`${name} does not resolve: ${(error as Error).message}`);
  }
}

// Two copies of @crawlee/core would make the plugin's errors and classes foreign to the crawler's.
const crawleeCores = new Set<string>();
const crawleeDir = join(cellRoot, 'node_modules', '@crawlee');
const installedCrawlee = existsSync(crawleeDir)
  ? readdirSync(crawleeDir).map((name) => `@crawlee/${name}`)
  : [];
for (const name of installedCrawlee) {
  try {
    const requireFromPackage = createRequire(join(cellRoot, 'node_modules', name, 'package.json'));
    crawleeCores.add(requireFromPackage.resolve('@crawlee/core'));
  } catch (error) {
    problems.push(`@crawlee/core does not resolve from ${name}: ${(error as Error).message}`);
  }
}
if (crawleeCores.size > 1) problems.push(`several @crawlee/core copies: ${[...crawleeCores].join(', ')}`);

if (problems.length > 0) {
  process.stderr.write(`matrix: this cell does not load what it asked for:\n  ${problems.join('\n  ')}\n`);
  process.exit(1);
}
process.stdout.write(`${JSON.stringify({ versions })}\n`);
