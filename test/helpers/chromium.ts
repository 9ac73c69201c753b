/**
 * Chromium for browser tests, driven by playwright-core or puppeteer-core, headless, with background
 * networking off so the only requests a test host sees are the page's. Browsers are never downloaded:
 * the first of these that exists is used:
 *  - CHROMIUM_PATH, or Debian's /usr/bin/chromium when it is unset (`apt-get install -y chromium`;
 *    what CI uses, .ci/run installs it);
 *  - the headless Chromium shipped inside the @sparticuz/chromium npm package (a devDependency, so
 *    `npm ci` brings it from the npm registry like any package): its brotli-compressed binary is
 *    unpacked once per checkout into node_modules/.cache by the test run's global setup
 *    (chromium-setup.ts, `preparePackagedChromium`). 147.0.0 is its last release for Node 20.
 * Without either, CI fails and other runs skip the browser suites loudly, saying how to run them.
 * Shared by the core's page guard tests (by hand, no Crawlee) and the Crawlee plugin's (browser.ts).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The Chromium asked for: CHROMIUM_PATH, else Debian's. */
const SYSTEM_CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PACKAGE_JSON = join(ROOT, 'node_modules/@sparticuz/chromium/package.json');
const CACHE = join(ROOT, 'node_modules/.cache/politely-chromium');

function packagedVersion(): string | undefined {
  if (!existsSync(PACKAGE_JSON)) return undefined;
  return (JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { version?: string }).version;
}

/** Where the packaged Chromium is unpacked: a folder per package version, so an upgrade unpacks anew. */
const PACKAGED_DIR = join(CACHE, packagedVersion() ?? 'absent');
const PACKAGED_CHROMIUM = join(PACKAGED_DIR, 'chromium');

/** The Chromium the browser tests launch. */
export const CHROMIUM_PATH = existsSync(SYSTEM_CHROMIUM) ? SYSTEM_CHROMIUM : PACKAGED_CHROMIUM;

/** Whether the browser tests run on @sparticuz/chromium's build rather than the Chromium asked for. */
export const ON_PACKAGED_CHROMIUM = CHROMIUM_PATH === PACKAGED_CHROMIUM;

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export type BrowserKind = 'playwright' | 'puppeteer';
export const BROWSER_KINDS: readonly BrowserKind[] = ['playwright', 'puppeteer'];

/**
 * Unpacks @sparticuz/chromium's binary when the asked-for Chromium is absent; for the test run's
 * global setup, once before any test file starts. Never throws: a failure is a reason to skip,
 * returned here and found again by `browserUnavailable` in each file.
 */
export async function preparePackagedChromium(): Promise<string | undefined> {
  if (existsSync(SYSTEM_CHROMIUM) || existsSync(PACKAGED_CHROMIUM)) return undefined;
  if (packagedVersion() === undefined) return 'the @sparticuz/chromium package is not installed (npm ci)';
  mkdirSync(CACHE, { recursive: true });
  // Unpacked into a folder of its own and renamed into place when whole: the package skips the work
  // when it finds a `chromium` file in its folder, so a run stopped halfway, or two runs at once,
  // must never leave a partial binary where the next run looks.
  const staging = mkdtempSync(join(CACHE, 'staging-'));
  // The package unpacks into os.tmpdir() (it was made for AWS Lambda's /tmp), which reads TMPDIR at
  // each call: pointed at the staging folder for the unpacking, with nothing else running beside it.
  const tmpdir = process.env.TMPDIR;
  process.env.TMPDIR = staging;
  try {
    const { default: chromium } = await import('@sparticuz/chromium');
    await chromium.executablePath();
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    return `@sparticuz/chromium could not be unpacked: ${(error as Error).message}`;
  } finally {
    if (tmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmpdir;
  }
  try {
    renameSync(staging, PACKAGED_DIR);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    // Another run unpacked it first: theirs is whole, so it is used.
    if (!existsSync(PACKAGED_CHROMIUM))
      return `@sparticuz/chromium could not be unpacked: ${(error as Error).message}`;
  }
  return undefined;
}

let runs: string | undefined;

/**
 * Why the packaged Chromium cannot run here ('' when it can): it brings its own fonts and GL but
 * links against the system's NSS (Debian: libnss3), which a bare machine may lack.
 */
function packagedRunsReason(): string {
  runs ??= (() => {
    const probe = spawnSync(PACKAGED_CHROMIUM, ['--version'], { encoding: 'utf8', timeout: 30_000 });
    if (probe.status === 0) return '';
    const said = `${probe.error?.message ?? ''}${probe.stderr ?? ''}`.trim().split('\n')[0];
    return `the Chromium of @sparticuz/chromium at ${PACKAGED_CHROMIUM} does not run: ${said}`;
  })();
  return runs;
}

/** Why browser tests cannot run here; throws under CI=true, where they must. */
export function browserUnavailable(): string | undefined {
  let reason: string;
  if (CHROMIUM_PATH === SYSTEM_CHROMIUM) return undefined;
  if (existsSync(PACKAGED_CHROMIUM)) {
    reason = packagedRunsReason();
    if (reason === '') return undefined;
  } else {
    reason = `Chromium not found at ${SYSTEM_CHROMIUM}, and ${
      packagedVersion() === undefined
        ? 'the @sparticuz/chromium package is not installed'
        : `@sparticuz/chromium is not unpacked at ${PACKAGED_DIR} (vitest's global setup does it)`
    }`;
  }
  if (process.env.CI) throw new Error(`browser crawler tests must run in CI: ${reason}`);
  console.warn(
    `\n[browser] ${reason}: SKIPPING the browser crawler tests. To run them, install Chromium (Debian: apt-get install -y chromium) or set CHROMIUM_PATH to one, or run npm ci and vitest (which unpacks @sparticuz/chromium)\n`,
  );
  return reason;
}
