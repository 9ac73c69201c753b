/**
 * The Node a cell runs on: the machine's own when it has the cell's major version, else the `node`
 * package of the npm registry (`node@22` installs the official binary for this platform; it lands in
 * node_modules/node/bin/node), in its own folder beside the cells.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MatrixSetupError } from './cell-folder.js';
import { capture, run, tail } from './processes.js';

export interface NodeBinary {
  readonly major: string;
  readonly path: string;
  /** `machine` or `npm node@<major>` */
  readonly source: string;
}

export async function nodeBinary(root: string, major: string, fresh: boolean): Promise<NodeBinary> {
  if (process.versions.node.split('.')[0] === major) {
    return { major, path: process.execPath, source: 'machine' };
  }
  const dir = join(root, `node-${major}`);
  const binary = join(dir, 'node_modules', 'node', 'bin', 'node');
  if (fresh || !existsSync(binary)) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{ "private": true }\n');
    const logFile = `${dir}.install.log`;
    const code = await run('npm', ['install', '--no-audit', '--no-fund', `node@${major}`], {
      cwd: dir,
      logFile,
    });
    if (code !== 0 || !existsSync(binary)) {
      throw new MatrixSetupError(`npm could not install node@${major} (exit ${code}):\n${tail(logFile)}`);
    }
  }
  const version = await capture(binary, ['--version'], { cwd: dir });
  if (version.code !== 0 || !version.stdout.startsWith(`v${major}.`)) {
    throw new MatrixSetupError(
      `${binary} is not Node ${major}: ${version.stdout.trim()} ${version.stderr.trim()}`,
    );
  }
  return { major, path: binary, source: `npm node@${major}` };
}

/** The folder to put first on PATH so that a bare `node` is this one. */
export function binDir(binary: NodeBinary): string {
  return dirname(binary.path);
}
