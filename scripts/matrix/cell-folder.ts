/**
 * A cell's own folder, outside the repository: a copy of the repository's files (what git tracks or
 * would track; no node_modules, no dist, no lock file) under a generated package.json that pins the
 * cell's versions, installed from the npm registry. The suites' imports then resolve from the cell's
 * node_modules by plain directory walking: there is no alias to get wrong and no way back to the
 * repository's own packages, which is why the folder must not sit under any other node_modules.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { type Cell, peerDependencies } from './cells.js';

/** What the suites need besides the peers, pinned to the versions the repository itself uses. */
const TOOLS = ['vitest', 'tsx', 'typescript', '@types/node'] as const;

/** Kept when a cell's sources are refreshed: what `npm install` produced. */
const INSTALL_STATE = new Set(['node_modules', 'package-lock.json', '.matrix-stamp']);

export class MatrixSetupError extends Error {
  override readonly name = 'MatrixSetupError';
}

/** The matrix folder: `POLITELY_MATRIX_DIR`, else `${TMPDIR:-/tmp}/politely-matrix`; never inside `repo`. */
export function matrixRoot(repo: string): string {
  const root = resolve(
    process.env.POLITELY_MATRIX_DIR ?? join(process.env.TMPDIR ?? '/tmp', 'politely-matrix'),
  );
  if (root === repo || root.startsWith(`${repo}${sep}`)) {
    throw new MatrixSetupError(`the matrix folder ${root} is inside the repository; set POLITELY_MATRIX_DIR`);
  }
  // A node_modules above the cells would let a package the cell forgot resolve from there instead.
  for (let dir = dirname(root); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules'))) {
      throw new MatrixSetupError(`${join(dir, 'node_modules')} sits above the matrix folder; move it`);
    }
    if (dirname(dir) === dir) break;
  }
  return root;
}

/** Replaces the cell's copy of the repository with the repository's current files. */
export async function copySources(repo: string, cellDir: string): Promise<number> {
  mkdirSync(cellDir, { recursive: true });
  for (const entry of readdirSync(cellDir)) {
    if (!INSTALL_STATE.has(entry)) removeSources(join(cellDir, entry));
  }
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: repo,
    encoding: 'utf8',
  });
  const files = listed.split('\0').filter((file) => file !== '' && file !== 'package-lock.json');
  let copied = 0;
  for (const file of files) {
    const from = join(repo, file);
    if (!existsSync(from)) continue; // deleted in the working tree but not yet in the index
    const to = join(cellDir, file);
    await mkdir(dirname(to), { recursive: true });
    await copyFile(from, to);
    copied++;
  }
  return copied;
}

/** Deletes a copied file or folder, but never a node_modules folder npm installed inside it. */
function removeSources(path: string): void {
  if (!lstatSync(path).isDirectory()) {
    rmSync(path, { force: true });
    return;
  }
  for (const entry of readdirSync(path)) {
    if (entry !== 'node_modules') removeSources(join(path, entry));
  }
  if (readdirSync(path).length === 0) rmSync(path, { recursive: true });
}

/**
 * Writes the cell's package.json: the repository's workspaces (so `@politely/*` link to the copied
 * packages and their own dependencies install), the repository's devDependencies with the cell's
 * peer versions in place of its own, the repository's overrides, plus a tsconfig that type-checks
 * the packages' sources (what users compile against) with the cell's peers; `npm test` type-checks
 * the suites with the repository's own versions. Returns a stamp that changes whenever what
 * `npm install` would do changes.
 */
export function writeCellManifest(repo: string, cell: Cell, cellDir: string): string {
  const root = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
    type?: string;
    workspaces: string[];
    overrides?: Record<string, unknown>;
    devDependencies?: Record<string, string>;
    scripts?: Record<string, string>;
  };
  const tools = Object.fromEntries(
    TOOLS.map((name) => {
      const json = JSON.parse(readFileSync(join(repo, 'node_modules', name, 'package.json'), 'utf8')) as {
        version: string;
      };
      return [name, json.version];
    }),
  );
  // Everything the repository installs for its tests (e.g. @crawlee/impit-client), with the cell's
  // peers and the exact tool versions in place of the repository's own.
  const devDependencies: Record<string, string> = {
    ...root.devDependencies,
    ...peerDependencies(cell.versions),
    ...tools,
  };
  // The repository's overrides pin transitive packages that would not install otherwise; never one the
  // cell pins itself (npm refuses an override that contradicts a direct dependency).
  const overrides = Object.fromEntries(
    Object.entries(root.overrides ?? {}).filter(([name]) => !(name in devDependencies)),
  );
  const manifest = {
    name: `politely-matrix-${cell.name}`,
    private: true,
    type: root.type ?? 'module',
    workspaces: root.workspaces,
    // The package test (test/package) runs `npm run build` before `npm pack`; `prepare` stays out, so
    // that `npm install` does not compile.
    ...(root.scripts?.build === undefined ? {} : { scripts: { build: root.scripts.build } }),
    devDependencies,
    ...(Object.keys(overrides).length > 0 ? { overrides } : {}),
  };
  const text = `${JSON.stringify(manifest, null, 2)}\n`;
  // Unlinked first, in case the folder is a hard-linked copy of another cell's (copyInstall).
  rmSync(join(cellDir, 'package.json'), { force: true });
  writeFileSync(join(cellDir, 'package.json'), text);
  rmSync(join(cellDir, 'tsconfig.matrix.json'), { force: true });
  writeFileSync(
    join(cellDir, 'tsconfig.matrix.json'),
    `${JSON.stringify(
      {
        extends: './tsconfig.base.json',
        compilerOptions: { noEmit: true },
        include: ['packages/*/src'],
      },
      null,
      2,
    )}\n`,
  );
  const stamp = createHash('sha256').update(text);
  for (const workspace of root.workspaces) stamp.update(readFileSync(join(repo, workspace, 'package.json')));
  return stamp.digest('hex');
}

/** True when the cell's node_modules was installed from the same manifest. */
export function installIsCurrent(cellDir: string, stamp: string): boolean {
  const stampFile = join(cellDir, '.matrix-stamp');
  return (
    existsSync(join(cellDir, 'node_modules')) &&
    existsSync(stampFile) &&
    readFileSync(stampFile, 'utf8') === stamp
  );
}

export function markInstalled(cellDir: string, stamp: string): void {
  // Unlinked first: in a cell copied with hard links (copyInstall) the file is shared with the other.
  rmSync(join(cellDir, '.matrix-stamp'), { force: true });
  writeFileSync(join(cellDir, '.matrix-stamp'), stamp);
}

/**
 * Gives `toDir` the install of `fromDir`, a cell with the same versions: `cp -al` makes hard links, so
 * neither a download nor an extraction is repeated and both cells load the very same files. Nothing
 * writes into an installed file afterwards: the sources are unlinked before they are copied again
 * (copySources), package.json and the stamp likewise; vitest and tsx create their caches as new files.
 */
export function copyInstall(fromDir: string, toDir: string): void {
  rmSync(toDir, { recursive: true, force: true });
  execFileSync('cp', ['-al', fromDir, toDir]);
}

/** A path shown relative to the matrix folder, for short messages. */
export function shortPath(root: string, path: string): string {
  return relative(root, path) || '.';
}
