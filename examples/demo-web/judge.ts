/**
 * Judges a crawl of the demo web from the servers' request logs: what was fetched, what was never
 * requested, how often robots.txt was read; and how close together requests were per host, at the
 * wire (the kernel's capture times, `wire`) when given, else as the servers logged them.
 */
import type { WireRequest } from '../../test/helpers/wire.js';
import type { DemoHost, DemoWeb } from './index.js';
import { robotsPaths } from './site.js';

export interface JudgeOptions {
  /** The smallest start-to-start gap the crawler was asked to keep on every host (its minDelayMs). */
  readonly minDelayMs: number;
  /** Crawlers that each crawled the whole web independently (a fleet): pages are fetched once by each. Default 1. */
  readonly crawlers?: number;
  /** robots.txt requests allowed per robots path across all crawlers. Default 1. */
  readonly maxRobotsFetchesPerPath?: number;
  /**
   * The requests as captured at the wire during the crawl (`captureDemoWeb`): gaps are then judged
   * from their kernel times with no slack at all.
   */
  readonly wire?: readonly WireRequest[];
  /**
   * Slack for the gap check from server logs only, in ms: a server's own clock stalls under load and
   * can show two arrivals closer than they were sent. Default 15; ignored when `wire` is given.
   */
  readonly gapToleranceMs?: number;
}

export interface HostVerdict {
  readonly key: DemoHost['key'];
  readonly origin: string;
  readonly demonstrates: string;
  readonly expected: string;
  /** Distinct pages the server served (robots.txt and redirects excluded). */
  readonly pagesFetched: number;
  /** Pages that must never be requested and indeed were not, by why. */
  readonly skippedAsExpected: {
    readonly disallowed: number;
    readonly unreachable: number;
    readonly redirect: number;
  };
  /** Requests for robots.txt (and the path it redirects to). */
  readonly robotsFetches: number;
  /** Smallest gap between two page requests, server-side, in ms (Infinity with fewer than two). */
  readonly smallestGapMs: number;
  /** The gap asked for: max(minDelayMs, Crawl-delay). */
  readonly askedDelayMs: number;
  /** Empty when every expectation held. */
  readonly problems: readonly string[];
}

export interface DemoVerdict {
  readonly ok: boolean;
  readonly hosts: readonly HostVerdict[];
}

const pathOf = (request: { readonly path: string }) => request.path.split('?')[0] ?? request.path;

export function smallestGapMs(requests: readonly { readonly at: number }[]): number {
  let smallest = Number.POSITIVE_INFINITY;
  for (let i = 1; i < requests.length; i++) {
    const gap = (requests[i] as { at: number }).at - (requests[i - 1] as { at: number }).at;
    smallest = Math.min(smallest, gap);
  }
  return smallest;
}

export function judgeHost(host: DemoHost, options: JudgeOptions): HostVerdict {
  const crawlers = options.crawlers ?? 1;
  const maxRobotsFetches = options.maxRobotsFetchesPerPath ?? 1;
  const tolerance = options.wire ? 0 : (options.gapToleranceMs ?? 15);
  const blueprint = host.blueprint;
  const robots = new Set(robotsPaths(blueprint));
  const problems: string[] = [];
  const count = (path: string) => host.log.filter((request) => pathOf(request) === path).length;

  const skipped = { disallowed: 0, unreachable: 0, redirect: 0 };
  const known = new Set([...robots, ...(blueprint.forbiddenTargets ?? [])]);
  for (const page of blueprint.pages) {
    known.add(page.path);
    const requests = count(page.path);
    const expect = page.expect;
    switch (expect.outcome) {
      case 'fetched':
        if (requests !== crawlers)
          problems.push(`${page.path} requested ${requests}x, expected ${crawlers}x`);
        break;
      case 'skipped':
        if (requests === 0) skipped[expect.reason] += 1;
        else problems.push(`${page.path} requested ${requests}x although robots.txt is ${expect.reason}`);
        break;
      case 'redirect-blocked': {
        const targetRequests = count(expect.target);
        if (targetRequests === 0) skipped.redirect += 1;
        else
          problems.push(
            `${page.path} redirected into ${expect.target}, which was requested ${targetRequests}x`,
          );
        if (requests > crawlers)
          problems.push(`${page.path} requested ${requests}x, expected at most ${crawlers}x`);
        break;
      }
    }
  }
  for (const target of blueprint.forbiddenTargets ?? []) {
    const requests = count(target);
    if (requests > 0 && !problems.some((problem) => problem.includes(target))) {
      problems.push(`${target} requested ${requests}x although robots.txt disallows it`);
    }
  }
  const unknown = [...new Set(host.log.map(pathOf).filter((path) => !known.has(path)))];
  if (unknown.length > 0) problems.push(`unexpected requests: ${unknown.join(', ')}`);

  let robotsFetches = 0;
  for (const path of robots) {
    const requests = count(path);
    robotsFetches += requests;
    if (requests === 0) problems.push(`${path} never fetched`);
    if (requests > maxRobotsFetches)
      problems.push(`${path} fetched ${requests}x, expected at most ${maxRobotsFetches}x`);
  }

  const redirects = new Set(
    blueprint.pages.filter((page) => page.expect.outcome === 'redirect-blocked').map((page) => page.path),
  );
  const pageRequests = host.log.filter((request) => !robots.has(pathOf(request)));
  const port = Number(new URL(host.origin).port);
  const timed = options.wire
    ? options.wire.filter((r) => r.ip === host.hostname && r.port === port && !robots.has(pathOf(r)))
    : pageRequests;
  const gap = smallestGapMs(timed);
  const askedDelayMs = Math.max(options.minDelayMs, blueprint.crawlDelayMs ?? 0);
  if (gap < askedDelayMs - tolerance) {
    problems.push(`two requests ${gap.toFixed(1)} ms apart, asked for ${askedDelayMs} ms`);
  }

  return {
    key: host.key,
    origin: host.origin,
    demonstrates: blueprint.demonstrates,
    expected: blueprint.expected,
    pagesFetched: new Set(pageRequests.map(pathOf).filter((path) => !redirects.has(path))).size,
    skippedAsExpected: skipped,
    robotsFetches,
    smallestGapMs: gap,
    askedDelayMs,
    problems,
  };
}

/** Every host judged; `ok` when no host has a problem. */
export function judgeDemoWeb(web: DemoWeb, options: JudgeOptions): DemoVerdict {
  const hosts = web.hosts.map((host) => judgeHost(host, options));
  return { ok: hosts.every((host) => host.problems.length === 0), hosts };
}
