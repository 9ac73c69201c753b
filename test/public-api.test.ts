/**
 * The public API of each package and of each entry point of the core, as names: adding or removing an
 * export is a deliberate change that shows up here (and in the package README), never an accident of a
 * refactor. Runtime values are read from the modules; type names from the entry files' export lists
 * (TypeScript's parser), since types leave no trace at runtime.
 */

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as core from '@politely/core';
import * as coreAdapter from '@politely/core/adapter';
import * as coreBrowser from '@politely/core/browser';
import * as coreCache from '@politely/core/cache';
import * as coreEngine from '@politely/core/engine';
import * as coreFetch from '@politely/core/fetch';
import * as coreFrontier from '@politely/core/frontier';
import * as coreScheduler from '@politely/core/scheduler';
import * as crawlee from '@politely/crawlee';
import * as fetch from '@politely/fetch';
import * as got from '@politely/got';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const exportsOf = (module: object) => Object.keys(module).sort();

/** Every name an entry file exports, types included (entry files are lists of re-exports); `path` from packages/. */
function exportedNames(path: string): string[] {
  const file = fileURLToPath(new URL(`../packages/${path}`, import.meta.url));
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const names: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isExportDeclaration(statement) || !statement.exportClause) continue;
    if (!ts.isNamedExports(statement.exportClause)) continue;
    for (const element of statement.exportClause.elements) names.push(element.name.text);
  }
  return names.sort();
}

describe('public API', () => {
  it('@politely/core: what a crawler author needs: the facade, politenessOf, the errors and guards', () => {
    expect(exportsOf(core)).toEqual([
      'ClosedError',
      'DeadlineExceededError',
      'PolitelyError',
      'RobotsDisallowedError',
      'WaitTooLongError',
      'createPoliteness',
      'getDisallowedDecision',
      'getRetryAfterMs',
      'getWaitTooLongError',
      'isClosedError',
      'isDeadlineExceededError',
      'isRobotsDisallowedError',
      'isUsageRefusedError',
      'isWaitTooLongError',
      'politenessOf',
      'readPageDirectives',
    ]);
    expect(exportedNames('core/src/index.ts')).toEqual([
      'AdmitOptions',
      'AllowedDecision',
      'CheckOptions',
      'ClosedError',
      'DeadlineExceededError',
      'Decision',
      'DecisionReason',
      'DisallowedDecision',
      'FetchLike',
      'HostKeyOption',
      'KeyvLike',
      'Logger',
      'LookupFunction',
      'PageDirectives',
      'PolitelyError',
      'PolitelyErrorCode',
      'PolitelyEvent',
      'Politeness',
      'PolitenessOptions',
      'PolitenessStats',
      'RedisClientLike',
      'ResponseDetails',
      'RobotsDisallowedError',
      'SkipStage',
      'UnreachablePolicy',
      'UsagePurpose',
      'WaitTooLongError',
      'createPoliteness',
      'getDisallowedDecision',
      'getRetryAfterMs',
      'getWaitTooLongError',
      'isClosedError',
      'isDeadlineExceededError',
      'isRobotsDisallowedError',
      'isUsageRefusedError',
      'isWaitTooLongError',
      'politenessOf',
      'readPageDirectives',
    ]);
  });

  it('@politely/core/engine: the whole rules engine and the page-directive rules, for tools', () => {
    expect(exportsOf(coreEngine)).toEqual([
      'LINT_CODES',
      'MAX_CRAWL_DELAY_SECONDS',
      'MAX_LINE_BYTES',
      'MAX_TDMREP_RULES',
      'RobotsTxt',
      'diffRobotsTxt',
      'escapePattern',
      'getPathParamsQuery',
      'isValidProductToken',
      'lintRobotsTxt',
      'matchTdmRep',
      'parseContentUsageHeader',
      'parseRobotsTxt',
      'parseTdmRep',
      'productTokenOf',
      'readPageDirectives',
      'readRobotsTxtLines',
      'readTdmDeclarations',
    ]);
    expect(exportedNames('core/src/public/engine.ts')).toEqual([
      'AgentRules',
      'Directive',
      'DirectivesAgent',
      'HeadersInput',
      'LINT_CODES',
      'LineKind',
      'LintCode',
      'LintDiagnostic',
      'LintOptions',
      'LintSeverity',
      'MAX_CRAWL_DELAY_SECONDS',
      'MAX_LINE_BYTES',
      'MAX_TDMREP_RULES',
      'MatchedRule',
      'MetaTag',
      'PageDirectives',
      'PageDirectivesSource',
      'PageRule',
      'ParseOptions',
      'RobotsTxt',
      'RobotsTxtDiff',
      'RobotsTxtLine',
      'SerializedGroup',
      'SerializedRobotsTxt',
      'TdmDeclarationText',
      'TdmRepParse',
      'TdmRepRule',
      'UsageLine',
      'UsageLineKind',
      'UsagePreferences',
      'UsagePurpose',
      'UsageRefusal',
      'Verdict',
      'diffRobotsTxt',
      'escapePattern',
      'getPathParamsQuery',
      'isValidProductToken',
      'lintRobotsTxt',
      'matchTdmRep',
      'parseContentUsageHeader',
      'parseRobotsTxt',
      'parseTdmRep',
      'productTokenOf',
      'readPageDirectives',
      'readRobotsTxtLines',
      'readTdmDeclarations',
    ]);
  });

  it('@politely/core/fetch: the robots.txt fetch policy and the sitemap follower', () => {
    expect(exportsOf(coreFetch)).toEqual([
      'createSitemapFollower',
      'fetchRobotsTxt',
      'isRobotsTxtUrl',
      'retryAfterMs',
      'robotsLocation',
      'robotsPolicy',
    ]);
    expect(exportedNames('core/src/public/fetch.ts')).toEqual([
      'FetchLike',
      'FetchLikeResponse',
      'FetchOutcome',
      'FetchRobotsOptions',
      'RobotsFetchResult',
      'RobotsLocation',
      'RobotsPolicy',
      'RulesSource',
      'SitemapEntry',
      'SitemapFollower',
      'SitemapFollowerOptions',
      'SitemapPages',
      'createSitemapFollower',
      'fetchRobotsTxt',
      'isRobotsTxtUrl',
      'retryAfterMs',
      'robotsLocation',
      'robotsPolicy',
    ]);
  });

  it('@politely/core/scheduler: the schedulers on their own, and their contract', () => {
    expect(exportsOf(coreScheduler)).toEqual([
      'DEFAULT_REDIS_PREFIX',
      'createMemoryScheduler',
      'createRedisScheduler',
      'isRedisClient',
      'redisClientFromStore',
      'systemClock',
    ]);
    expect(exportedNames('core/src/public/scheduler.ts')).toEqual([
      'Clock',
      'DEFAULT_REDIS_PREFIX',
      'InFlightLease',
      'InFlightOptions',
      'MemoryScheduler',
      'MemorySchedulerOptions',
      'RedisClientLike',
      'RedisScheduler',
      'RedisSchedulerOptions',
      'Reservation',
      'ReserveOptions',
      'Scheduler',
      'TryReservation',
      'createMemoryScheduler',
      'createRedisScheduler',
      'isRedisClient',
      'redisClientFromStore',
      'systemClock',
    ]);
  });

  it('@politely/core/cache: the store contract and the in-memory store', () => {
    expect(exportsOf(coreCache)).toEqual(['createMemoryStore']);
    expect(exportedNames('core/src/public/cache.ts')).toEqual([
      'KeyvLike',
      'MemoryStore',
      'Outage',
      'RobotsEntry',
      'StoreRecordRejection',
      'UnreachablePhase',
      'UnreachablePolicy',
      'createMemoryStore',
    ]);
  });

  it('@politely/core/browser: robots.txt and pacing for Playwright and Puppeteer pages', () => {
    expect(exportsOf(coreBrowser)).toEqual(['createPageGuard', 'pageRequestFetch']);
    expect(exportedNames('core/src/public/browser.ts')).toEqual([
      'InterceptionMode',
      'PageGuard',
      'PageGuardOptions',
      'PageRequestLike',
      'PageResponseLike',
      'PageSkip',
      'SubresourcePolicy',
      'createPageGuard',
      'pageRequestFetch',
    ]);
  });

  it('@politely/core/frontier: which URL may go next, for a worker pool of your own', () => {
    expect(exportsOf(coreFrontier)).toEqual(['createFrontier']);
    expect(exportedNames('core/src/public/frontier.ts')).toEqual([
      'Frontier',
      'FrontierHost',
      'FrontierItem',
      'FrontierNextOptions',
      'FrontierOptions',
      'FrontierPull',
      'FrontierWaitOptions',
      'ParkedItem',
      'createFrontier',
    ]);
  });

  it('@politely/core/adapter: the adapter kit, attachPoliteness, hops, the redirect rule, option tables', () => {
    expect(exportsOf(coreAdapter)).toEqual([
      'ADAPTER_KIT',
      'PACE_KEY_PREFIX',
      'ROBOTS_KEY_PREFIX',
      'SPACING_OPTION',
      'adapterKit',
      'attachPoliteness',
      'booleanOption',
      'checkOptions',
      'emptyStats',
      'functionOption',
      'isHttpUrl',
      'isPoliteness',
      'isRedirectStatus',
      'isServerTroubleError',
      'methodsOption',
      'numberOption',
      'oneOf',
      'openHop',
      'option',
      'redirectChange',
      'responseVerdict',
      'robotsTransportError',
      'sendHop',
      'withoutSafetyMargin',
    ]);
    expect(exportedNames('core/src/public/adapter.ts')).toEqual([
      'ADAPTER_KIT',
      'AdapterKit',
      'CheckCachedOptions',
      'Hop',
      'HopAnswer',
      'HopBody',
      'HopPoliteness',
      'OptionSpec',
      'OptionTable',
      'PACE_KEY_PREFIX',
      'ROBOTS_KEY_PREFIX',
      'RedirectChange',
      'ResolvedOf',
      'ResponseHeaders',
      'ResponseHeadersLike',
      'ResponseToJudge',
      'RobotsTransportError',
      'SPACING_OPTION',
      'SendHopOptions',
      'SendPass',
      'SendPassOptions',
      'Spacing',
      'SpacingOptions',
      'TdmDeclaration',
      'TryReservation',
      'adapterKit',
      'attachPoliteness',
      'booleanOption',
      'checkOptions',
      'emptyStats',
      'functionOption',
      'isHttpUrl',
      'isPoliteness',
      'isRedirectStatus',
      'isServerTroubleError',
      'methodsOption',
      'numberOption',
      'oneOf',
      'openHop',
      'option',
      'redirectChange',
      'responseVerdict',
      'robotsTransportError',
      'sendHop',
      'withoutSafetyMargin',
    ]);
  });

  it('every subpath of package.json `exports` is pinned here', () => {
    const manifest = JSON.parse(
      readFileSync(fileURLToPath(new URL('../packages/core/package.json', import.meta.url)), 'utf8'),
    ) as { exports: Record<string, unknown> };
    expect(Object.keys(manifest.exports)).toEqual([
      '.',
      './engine',
      './fetch',
      './scheduler',
      './cache',
      './browser',
      './frontier',
      './adapter',
      './package.json',
    ]);
  });

  it('@politely/got: politeGot, its options, what its callers catch and read', () => {
    expect(exportsOf(got)).toEqual([
      'getDisallowedDecision',
      'getRetryAfterMs',
      'isClosedError',
      'isRobotsDisallowedError',
      'isWaitTooLongError',
      'politeGot',
      'politenessOf',
    ]);
    expect(exportedNames('got-hook/src/index.ts')).toEqual([
      'Decision',
      'GotPacingOptions',
      'PoliteGotOptions',
      'PolitenessOptions',
      'getDisallowedDecision',
      'getRetryAfterMs',
      'isClosedError',
      'isRobotsDisallowedError',
      'isWaitTooLongError',
      'politeGot',
      'politenessOf',
    ]);
  });

  it('@politely/fetch: politeFetch, its options, what its callers catch and read', () => {
    expect(exportsOf(fetch)).toEqual([
      'getDisallowedDecision',
      'getRetryAfterMs',
      'isClosedError',
      'isRobotsDisallowedError',
      'isWaitTooLongError',
      'politeFetch',
      'politenessOf',
    ]);
    expect(exportedNames('fetch/src/index.ts')).toEqual([
      'Decision',
      'PoliteFetchOptions',
      'PoliteFetchWrapOptions',
      'PolitenessOptions',
      'getDisallowedDecision',
      'getRetryAfterMs',
      'isClosedError',
      'isRobotsDisallowedError',
      'isWaitTooLongError',
      'politeFetch',
      'politenessOf',
    ]);
  });

  it('@politely/crawlee: withPoliteness, its options, pageDirectives, crawlStats, what its callers catch and read', () => {
    expect(exportsOf(crawlee)).toEqual([
      'crawlStats',
      'getDisallowedDecision',
      'getRetryAfterMs',
      'isClosedError',
      'isRobotsDisallowedError',
      'isWaitTooLongError',
      'pageDirectives',
      'politenessOf',
      'withPoliteness',
    ]);
    expect(exportedNames('crawlee-plugin/src/index.ts')).toEqual([
      'CrawleePolitenessOptions',
      'Decision',
      'PolitenessOptions',
      'crawlStats',
      'getDisallowedDecision',
      'getRetryAfterMs',
      'isClosedError',
      'isRobotsDisallowedError',
      'isWaitTooLongError',
      'pageDirectives',
      'politenessOf',
      'withPoliteness',
    ]);
  });

  it('the core root has at most 40 names and each adapter at most 12, types included', () => {
    expect(exportedNames('core/src/index.ts').length).toBeLessThanOrEqual(40);
    for (const entry of ['got-hook/src/index.ts', 'fetch/src/index.ts', 'crawlee-plugin/src/index.ts']) {
      expect(exportedNames(entry).length, entry).toBeLessThanOrEqual(12);
    }
  });

  it('the error guards are one implementation, whichever package they are imported from', () => {
    expect(got.isRobotsDisallowedError).toBe(core.isRobotsDisallowedError);
    expect(crawlee.getDisallowedDecision).toBe(core.getDisallowedDecision);
    expect(coreEngine.readPageDirectives).toBe(core.readPageDirectives);
  });

  it("one politenessOf: every adapter re-exports core's, so two adapters imported together agree", () => {
    expect(got.politenessOf).toBe(core.politenessOf);
    expect(fetch.politenessOf).toBe(core.politenessOf);
    expect(crawlee.politenessOf).toBe(core.politenessOf);
  });

  it('every adapter re-exports the same helpers of core, the same objects', () => {
    const fromCore = (module: object) => exportsOf(module).filter((name) => name in core);
    expect(fromCore(got)).toEqual(fromCore(fetch));
    expect(fromCore(crawlee)).toEqual(fromCore(fetch));
    for (const name of fromCore(fetch)) {
      expect((got as Record<string, unknown>)[name]).toBe((core as Record<string, unknown>)[name]);
      expect((fetch as Record<string, unknown>)[name]).toBe((core as Record<string, unknown>)[name]);
      expect((crawlee as Record<string, unknown>)[name]).toBe((core as Record<string, unknown>)[name]);
    }
  });
});
