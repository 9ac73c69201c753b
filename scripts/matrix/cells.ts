/**
 * The version matrix: which Node and which peer versions each cell installs. Which test files it runs
 * is read from the imports (select.ts), not listed here.
 *
 * A version is written as an npm range that is also a prefix of the versions it accepts: `14.0` installs
 * the newest 14.0.x and the cell then asserts that the version it resolved starts with `14.0.`; `3`
 * installs the newest 3.x. An exact version (`6.0.0-rc.1`) is accepted as itself.
 */

/** The peer packages a cell pins; `crawlee` stands for every `@crawlee/*` package the suites import. */
export interface CellVersions {
  readonly got: string;
  readonly keyv: string;
  readonly '@keyv/redis': string;
  readonly redis: string;
  readonly ioredis: string;
  readonly crawlee: string;
}

export interface Cell {
  readonly name: string;
  /** Node major version; the machine's own node when it has that major, else `node@<major>` from npm. */
  readonly node: string;
  readonly versions: CellVersions;
  /** Why these versions, shown with `--list`. */
  readonly why: string;
}

/** The `@crawlee/*` packages the adapters' suites import; a cell installs them all at one version. */
export const CRAWLEE_PACKAGES = [
  '@crawlee/core',
  '@crawlee/basic',
  '@crawlee/http',
  '@crawlee/cheerio',
  '@crawlee/browser',
  '@crawlee/playwright',
  '@crawlee/puppeteer',
] as const;

export const CELLS: readonly Cell[] = [
  {
    name: 'node20-oldest',
    node: '20',
    // keyv 5 with its newest @keyv/redis 5. @keyv/redis 5.0 (beside keyv 5.4, the oldest it accepts)
    // fails to connect at once and Keyv swallows the error: a dead Redis reads as misses that politely
    // cannot report as `store-error`. Newer ones queue commands, and politely's store timeout sees it.
    versions: { got: '14.0', keyv: '5', '@keyv/redis': '5', redis: '5.0', ioredis: '5.0', crawlee: '3.13' },
    why:
      'the oldest end of the peer ranges: got 14.0, Crawlee 3.13, node-redis 5.0, ioredis 5.0; ' +
      'keyv 5 with @keyv/redis 5',
  },
  {
    name: 'node22-latest',
    node: '22',
    // @keyv/redis 5 declares keyv ^5.6 (npm refuses it beside keyv 6); 6.0.0-rc.1 is the only release
    // for keyv 6 so far. Move to `6` when 6.0.0 is out.
    versions: { got: '16', keyv: '6', '@keyv/redis': '6.0.0-rc.1', redis: '5', ioredis: '5', crawlee: '3' },
    why: 'what users run today: Node 22, got 16, keyv 6, the newest node-redis 5, ioredis 5 and Crawlee 3.x',
  },
  {
    name: 'node24-latest',
    node: '24',
    versions: { got: '16', keyv: '6', '@keyv/redis': '6.0.0-rc.1', redis: '5', ioredis: '5', crawlee: '3' },
    why: 'the same on Node 24',
  },
];

/** The npm dependencies a cell installs for the peer packages, by package name. */
export function peerDependencies(versions: CellVersions): Record<string, string> {
  const { crawlee, ...rest } = versions;
  return { ...rest, ...Object.fromEntries(CRAWLEE_PACKAGES.map((name) => [name, crawlee])) };
}

/** True when `version` is one `spec` (a prefix range such as `14.0` or `3`, or an exact version) accepts. */
export function versionMatches(version: string, spec: string): boolean {
  return version === spec || version.startsWith(`${spec}.`);
}
