/**
 * TypeScript 7 (the Go compiler, `typescript@7` on the npm registry) for tests that type-check as a user
 * on today's `npm i -D typescript` would, beside the repository's own TypeScript 5.9. It is not a
 * devDependency: its `tsc` binary would take the place of 5.9's in node_modules/.bin (npm links one
 * `tsc`), and the repository's build and typecheck would run under 7. So it is installed once, from
 * the npm registry, into node_modules/.cache/politely-typescript-7/ (kept, so later runs start at once;
 * `npm ci` empties it with the rest of node_modules). Without the registry the tests that need it are
 * skipped with the reason (thrown under CI, which must run them).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const CACHE = join(ROOT, 'node_modules/.cache');
const HOME = join(CACHE, 'politely-typescript-7');
/** The range asked for: what `npm i -D typescript` installs now. */
const RANGE = '^7.0.2';

/** The installed TypeScript 7's version, or undefined when it is not (fully) there. */
async function installedVersion(): Promise<string | undefined> {
  try {
    const manifest = JSON.parse(await readFile(join(HOME, 'node_modules/typescript/package.json'), 'utf8'));
    const version = String(manifest.version);
    return version.startsWith('7.') && existsSync(join(HOME, 'node_modules/typescript/bin/tsc'))
      ? version
      : undefined;
  } catch {
    return undefined;
  }
}

let found: Promise<string | undefined> | undefined;

/**
 * The path of TypeScript 7's `tsc` (a Node script: run it with process.execPath), or undefined with the
 * reason printed; throws under CI. Installs it on first use (a minute at most on a slow registry).
 */
export function typescript7(suite: string): Promise<string | undefined> {
  found ??= find(suite);
  return found;
}

async function find(suite: string): Promise<string | undefined> {
  if ((await installedVersion()) === undefined) {
    // Installed beside and then renamed into place, so two test files installing at once never see
    // half a folder: the second rename fails and that file uses the first one's.
    await rm(HOME, { recursive: true, force: true }); // half an install, from a run that was stopped
    await mkdir(CACHE, { recursive: true });
    const scratch = await mkdtemp(join(CACHE, 'politely-typescript-7-'));
    try {
      await writeFile(
        join(scratch, 'package.json'),
        JSON.stringify({ private: true, dependencies: { typescript: RANGE } }),
      );
      await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {
        cwd: scratch,
        timeout: 180_000,
        env: { ...process.env, NODE_OPTIONS: '' },
      });
      await rename(scratch, HOME).catch(() => undefined);
    } catch (error) {
      const reason = `TypeScript 7 (typescript@${RANGE}) could not be installed from the npm registry: ${(error as Error).message.split('\n')[0]}`;
      if (process.env.CI) throw new Error(`the "${suite}" tests must run in CI: ${reason}`);
      console.warn(`\n!!! ${reason}. SKIPPING the "${suite}" tests under TypeScript 7. !!!\n`);
      return undefined;
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }
  if ((await installedVersion()) === undefined) throw new Error(`TypeScript 7 is not complete in ${HOME}`);
  return join(HOME, 'node_modules/typescript/bin/tsc');
}
