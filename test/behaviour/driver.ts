/**
 * Runs the behaviour table (table.ts) against an adapter through a small driver, in the style of
 * keyv's and unstorage's shared store suites.
 *
 * Plugging in a driver (e.g. Crawlee):
 *   1. Write `test/behaviour/<name>-driver.ts` exporting a `BehaviourDriver`. `run` gets the options
 *      to hand to the adapter as they are (`politeGot(options)`, `withPoliteness(crawlerOptions, options)`),
 *      the absolute URLs to visit and whether to visit them in order or all at once. It resolves with
 *      one Outcome per URL, in any order, keyed by the URL it was given (not a redirect target):
 *      `fetched` when an HTTP response came back (whatever its status), `skipped` with the reason
 *      from the adapter's decision when politely stopped it. It must not retry HTTP errors itself
 *      (retries would add requests the table does not expect), and must release what it opened.
 *   2. Write `test/behaviour/<name>.test.ts`: `describeBehaviour(myDriver)`; pass `{ skip: { 'scenario
 *      name': 'why' } }` for a row the adapter cannot honour yet, so the gap stays visible.
 */
import type { PageDirectives, PolitenessOptions } from '@politely/core';
import { describe, expect, it } from 'vitest';
import { html, type Route, startHost, type TestHost, text } from '../helpers/hosts.js';
import { mergeOptions } from '../helpers/options.js';
import { judgePacing, startWireCapture, type WireRequest } from '../helpers/wire.js';
import type {
  ExpectedOutcome,
  HostName,
  HostSpec,
  Outcome,
  RobotsSpec,
  Scenario,
  ServerExpectation,
  UrlRef,
} from './table.js';
import { scenarios } from './table.js';

export interface DriverRun {
  readonly scenario: Scenario;
  /** Give these to the adapter as they are. */
  readonly options: PolitenessOptions;
  /** Absolute URLs, distinct, in visit order. */
  readonly urls: readonly string[];
  readonly order: 'sequential' | 'concurrent';
}

export interface BehaviourDriver {
  readonly name: string;
  run(run: DriverRun): Promise<Outcome[]>;
}

export const USER_AGENT = 'PoliteBot/1.0 (+http://127.0.0.1/bot)';

/** An outcome, and for `pageRules` scenarios the links of the page to follow. */
export type VisitOutcome = Outcome & { readonly follow?: readonly string[] };

/**
 * Visits the run's URLs one after another or all at once, as the scenario asks; then, one after
 * another, the links the visits asked to follow (`pageRules` scenarios), once each; for drivers.
 */
export async function visitAll(
  run: DriverRun,
  visit: (url: string) => Promise<VisitOutcome>,
): Promise<Outcome[]> {
  const visited =
    run.order === 'concurrent' ? await Promise.all(run.urls.map(visit)) : await inOrder(run.urls, visit);
  const seen = new Set(run.urls);
  const follow = visited
    .flatMap((outcome) => outcome.follow ?? [])
    .filter((url) => !seen.has(url) && seen.add(url));
  return [...visited, ...(await inOrder(follow, visit))].map(({ follow: _links, ...outcome }) => outcome);
}

async function inOrder(urls: readonly string[], visit: (url: string) => Promise<VisitOutcome>) {
  const outcomes: VisitOutcome[] = [];
  for (const url of urls) outcomes.push(await visit(url));
  return outcomes;
}

/** The names of the rules a page's directives hold (`nofollow`, `noindex`, ...), sorted: `Outcome.directives`. */
export function directiveNames(directives: PageDirectives): string[] {
  return Object.entries(directives)
    .filter(([, value]) => value === true)
    .map(([name]) => name)
    .sort();
}

/** The `href`s of a page's links, absolute: what got and fetch users follow by hand. */
export function linksOf(html: string, base: string): string[] {
  return [...html.matchAll(/<a\s[^>]*href="([^"]+)"/gi)].map(
    (match) => new URL(match[1] as string, base).href,
  );
}

/** For `pageRules` scenarios: the outcome of a fetched page with its directives, and its links unless it says nofollow. */
export function readPage(url: string, directives: PageDirectives, html: string): VisitOutcome {
  return {
    url,
    result: 'fetched',
    directives: directiveNames(directives),
    ...(directives.nofollow ? {} : { follow: linksOf(html, url) }),
  };
}

/**
 * Gaps are judged at the wire (the kernel's time of each request line, test/helpers/wire.ts) with the
 * asked delay as the floor and no tolerance. They count the crawl's pages: robots.txt is apart, and so
 * is the favicon a browser fetches on its own after a page (a subresource: checked, not paced).
 */
const NOT_A_PAGE = /^\/(robots\.txt|favicon\.ico)(\?|$)/;

/** One loopback IP per host name, so the adapter sees distinct hosts (and paces them apart). */
const HOST_IPS: Record<HostName, string> = { a: '127.0.0.21', b: '127.0.0.22' };

export interface DescribeOptions {
  /** Scenario names the driver cannot honour yet, with the reason (reported as skipped tests). */
  readonly skip?: Readonly<Record<string, string>>;
  /**
   * Why no scenario can run here (no browser, say): each is still registered, as a skipped test
   * whose title says why, so a run shows what it left out rather than "No test suite found".
   */
  readonly skipAll?: string | undefined;
  /**
   * Per-scenario time limit, ms (default: vitest's). A browser's start and navigations outlast 30 s on
   * a busy 2-core machine; the limit is there to catch a hang, not to measure speed.
   */
  readonly timeoutMs?: number;
}

/** Registers one test per scenario for the driver. */
export function describeBehaviour(driver: BehaviourDriver, options: DescribeOptions = {}): void {
  describe(`behaviour table: ${driver.name}`, () => {
    for (const scenario of scenarios) {
      const skipReason = options.skipAll ?? options.skip?.[scenario.name];
      const title = skipReason ? `${scenario.name} (skipped: ${skipReason})` : scenario.name;
      it.skipIf(skipReason !== undefined)(title, () => runScenario(driver, scenario), options.timeoutMs);
    }
  });
}

/** Starts the scenario's hosts, runs the driver, asserts outcomes and server logs, stops the hosts. */
export async function runScenario(driver: BehaviourDriver, scenario: Scenario): Promise<void> {
  let wire: WireRequest[] = [];
  const hosts = await startScenarioHosts(scenario);
  try {
    const urlOf = (ref: UrlRef) => hostOf(hosts, ref.host).url(ref.path);
    const judgesGaps = scenario.server.some((expectation) => expectation.kind !== 'requests');
    const capture = judgesGaps ? await startWireCapture([...hosts.values()]) : undefined;
    let outcomes: Outcome[];
    try {
      outcomes = await driver.run({
        scenario,
        options: mergeOptions({ userAgent: USER_AGENT, pacing: { minDelayMs: 0 } }, scenario.options),
        urls: scenario.visit.map(urlOf),
        order: scenario.order,
      });
    } finally {
      wire = capture ? await capture.stop() : [];
    }
    const expected = scenario.outcomes.map(
      (outcome: ExpectedOutcome): Outcome => ({ ...outcome, url: urlOf(outcome.url) }),
    );
    expect(sortByUrl(outcomes)).toEqual(sortByUrl(expected));
    for (const expectation of scenario.server) assertServer(hosts, wire, expectation);
  } finally {
    await Promise.all([...hosts.values()].map((host) => host.close()));
  }
}

async function startScenarioHosts(scenario: Scenario): Promise<Map<HostName, TestHost>> {
  const hosts = new Map<HostName, TestHost>();
  // Redirects name other hosts, so every host starts first and routes are added once all addresses are known.
  for (const name of Object.keys(scenario.hosts) as HostName[]) {
    hosts.set(name, await startHost({ ip: HOST_IPS[name], fallback: html('<p>ok</p>') }));
  }
  for (const [name, spec] of Object.entries(scenario.hosts) as [HostName, HostSpec][]) {
    const host = hostOf(hosts, name);
    host.route('/robots.txt', robotsRoute(spec.robots));
    for (const [path, page] of Object.entries(spec.pages ?? {})) {
      host.route(
        path,
        'redirectTo' in page
          ? {
              status: 301,
              headers: { location: hostOf(hosts, page.redirectTo.host).url(page.redirectTo.path) },
            }
          : {
              status: page.status,
              headers: {
                ...(page.body ? { 'content-type': 'text/html; charset=utf-8' } : {}),
                ...page.headers,
              },
              body: page.body ?? `status ${page.status}`,
            },
      );
    }
  }
  return hosts;
}

function robotsRoute(robots: RobotsSpec): Route {
  if ('hang' in robots) return () => {};
  if ('body' in robots) return text(robots.body);
  return text(`status ${robots.status}`, robots.status);
}

function assertServer(
  hosts: Map<HostName, TestHost>,
  wire: readonly WireRequest[],
  expectation: ServerExpectation,
): void {
  switch (expectation.kind) {
    case 'requests': {
      const { host, path } = expectation.url;
      const seen = hostOf(hosts, host).log.filter((request) => request.path === path);
      expect(seen, `requests to ${host}${path}`).toHaveLength(expectation.count);
      return;
    }
    case 'smallest-gap': {
      const { ip } = hostOf(hosts, expectation.host);
      const pages = wire.filter((request) => request.ip === ip && !NOT_A_PAGE.test(request.path));
      const judged = judgePacing(pages, expectation.atLeastMs).get(ip);
      expect(pages.length, `page requests to ${expectation.host} at the wire`).toBeGreaterThan(1);
      expect(judged?.violations, `gaps under ${expectation.atLeastMs} ms on ${expectation.host}`).toEqual([]);
      return;
    }
    case 'gap-between': {
      const from = firstOnWire(hosts, wire, expectation.from);
      const to = firstOnWire(hosts, wire, expectation.to);
      expect(
        to.at - from.at,
        `gap ${expectation.from.path} -> ${expectation.to.path}`,
      ).toBeGreaterThanOrEqual(expectation.atLeastMs);
      return;
    }
  }
}

function firstOnWire(hosts: Map<HostName, TestHost>, wire: readonly WireRequest[], ref: UrlRef): WireRequest {
  const { ip } = hostOf(hosts, ref.host);
  const request = wire.find((seen) => seen.ip === ip && seen.path === ref.path);
  if (!request) throw new Error(`expected a request to ${ref.host}${ref.path}, the wire saw none`);
  return request;
}

function hostOf(hosts: Map<HostName, TestHost>, name: HostName): TestHost {
  const host = hosts.get(name);
  if (!host) throw new Error(`scenario refers to host "${name}", which it does not define`);
  return host;
}

function sortByUrl(outcomes: readonly Outcome[]): Outcome[] {
  return [...outcomes].sort((left, right) => left.url.localeCompare(right.url));
}
