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

/** Every name an entry file exports, types included (entry files are lists of re-exports). */
function exportedNames(path: string): string[] {
  const file = fileURLToPath(new URL(`../packages/core/src/${path}`, import.meta.url));
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
  it('@politely/core: what a crawler needs: the facade, the engine entry points, the errors', () => {
    expect(exportsOf(core)).toEqual([
      'ClosedError',
      'DeadlineExceededError',
      'LINT_CODES',
      'PolitelyError',
      'RobotsDisallowedError',
      'RobotsTxt',
      'WaitTooLongError',
      'createPoliteness',
      'createSitemapFollower',
      'diffRobotsTxt',
      'getDisallowedDecision',
      'getWaitTooLongError',
      'isClosedError',
      'isDeadlineExceededError',
      'isPoliteness',
      'isRobotsDisallowedError',
      'isUsageRefusedError',
      'isWaitTooLongError',
      'lintRobotsTxt',
      'parseRobotsTxt',
      'readPageDirectives',
    ]);
    expect(exportedNames('index.ts')).toEqual([
      'AdmitOptions',
      'AgentRules',
      'AllowedDecision',
      'CheckOptions',
      'Clock',
      'ClosedError',
      'DeadlineExceededError',
      'Decision',
      'DecisionReason',
      'Directive',
      'DirectivesAgent',
      'DisallowedDecision',
      'FetchLike',
      'FetchLikeResponse',
      'HeadersInput',
      'HostKeyOption',
      'KeyvLike',
      'LINT_CODES',
      'LintCode',
      'LintDiagnostic',
      'LintOptions',
      'LintSeverity',
      'Logger',
      'LookupFunction',
      'MatchedRule',
      'MetaTag',
      'Outage',
      'PageDirectives',
      'PageDirectivesSource',
      'PageRule',
      'ParseOptions',
      'PolitelyError',
      'PolitelyErrorCode',
      'PolitelyEvent',
      'Politeness',
      'PolitenessOptions',
      'PolitenessStats',
      'RedisClientLike',
      'ResponseDetails',
      'ResponseHeaders',
      'RobotsDisallowedError',
      'RobotsTxt',
      'RobotsTxtDiff',
      'RulesSource',
      'SitemapEntry',
      'SitemapFollower',
      'SitemapFollowerOptions',
      'SitemapPages',
      'SkipStage',
      'UnreachablePhase',
      'UnreachablePolicy',
      'UsagePreferences',
      'UsagePurpose',
      'UsageRefusal',
      'Verdict',
      'WaitTooLongError',
      'createPoliteness',
      'createSitemapFollower',
      'diffRobotsTxt',
      'getDisallowedDecision',
      'getWaitTooLongError',
      'isClosedError',
      'isDeadlineExceededError',
      'isPoliteness',
      'isRobotsDisallowedError',
      'isUsageRefusedError',
      'isWaitTooLongError',
      'lintRobotsTxt',
      'parseRobotsTxt',
      'readPageDirectives',
    ]);
  });

  it('@politely/core/engine: the whole rules engine, for tools', () => {
    expect(exportsOf(coreEngine)).toEqual([
      'LINT_CODES',
      'MAX_CRAWL_DELAY_SECONDS',
      'MAX_LINE_BYTES',
      'RobotsTxt',
      'diffRobotsTxt',
      'escapePattern',
      'getPathParamsQuery',
      'isValidProductToken',
      'lintRobotsTxt',
      'parseContentUsageHeader',
      'parseRobotsTxt',
      'productTokenOf',
      'readRobotsTxtLines',
    ]);
    expect(exportedNames('public/engine.ts')).toEqual([
      'AgentRules',
      'Directive',
      'LINT_CODES',
      'LineKind',
      'LintCode',
      'LintDiagnostic',
      'LintOptions',
      'LintSeverity',
      'MAX_CRAWL_DELAY_SECONDS',
      'MAX_LINE_BYTES',
      'MatchedRule',
      'ParseOptions',
      'RobotsTxt',
      'RobotsTxtDiff',
      'RobotsTxtLine',
      'SerializedGroup',
      'SerializedRobotsTxt',
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
      'parseContentUsageHeader',
      'parseRobotsTxt',
      'productTokenOf',
      'readRobotsTxtLines',
    ]);
  });

  it('@politely/core/fetch: the robots.txt fetch policy', () => {
    expect(exportsOf(coreFetch)).toEqual([
      'fetchRobotsTxt',
      'isRobotsTxtUrl',
      'retryAfterMs',
      'robotsLocation',
      'robotsPolicy',
    ]);
    expect(exportedNames('public/fetch.ts')).toEqual([
      'FetchLike',
      'FetchLikeResponse',
      'FetchOutcome',
      'FetchRobotsOptions',
      'RobotsFetchResult',
      'RobotsLocation',
      'RobotsPolicy',
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
    expect(exportedNames('public/scheduler.ts')).toEqual([
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
    expect(exportedNames('public/cache.ts')).toEqual([
      'KeyvLike',
      'MemoryStore',
      'Outage',
      'RobotsEntry',
      'StoreRecordRejection',
      'createMemoryStore',
    ]);
  });

  it('@politely/core/browser: robots.txt and pacing for Playwright and Puppeteer pages', () => {
    expect(exportsOf(coreBrowser)).toEqual(['createPageGuard', 'pageRequestFetch']);
    expect(exportedNames('public/browser.ts')).toEqual([
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
    expect(exportedNames('public/frontier.ts')).toEqual([
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

  it('@politely/core/adapter: the adapter kit, hops, the redirect rule, option tables', () => {
    expect(exportsOf(coreAdapter)).toEqual([
      'ADAPTER_KIT',
      'SPACING_OPTION',
      'adapterKit',
      'booleanOption',
      'checkOptions',
      'contentUsageRefusal',
      'functionOption',
      'isHttpUrl',
      'isRedirectStatus',
      'isServerTroubleError',
      'methodsOption',
      'numberOption',
      'oneOf',
      'openHop',
      'option',
      'redirectChange',
      'sendHop',
      'withoutSafetyMargin',
    ]);
    expect(exportedNames('public/adapter.ts')).toEqual([
      'ADAPTER_KIT',
      'AdapterKit',
      'CheckCachedOptions',
      'Hop',
      'HopAnswer',
      'HopBody',
      'HopPoliteness',
      'OptionSpec',
      'OptionTable',
      'RedirectChange',
      'ResolvedOf',
      'SPACING_OPTION',
      'SendHopOptions',
      'SendPass',
      'SendPassOptions',
      'Spacing',
      'SpacingOptions',
      'TryReservation',
      'adapterKit',
      'booleanOption',
      'checkOptions',
      'contentUsageRefusal',
      'functionOption',
      'isHttpUrl',
      'isRedirectStatus',
      'isServerTroubleError',
      'methodsOption',
      'numberOption',
      'oneOf',
      'openHop',
      'option',
      'redirectChange',
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

  it('@politely/got', () => {
    expect(exportsOf(got)).toEqual([
      'ClosedError',
      'RobotsDisallowedError',
      'WaitTooLongError',
      'createPoliteness',
      'getDisallowedDecision',
      'getRetryAfterMs',
      'getWaitTooLongError',
      'isClosedError',
      'isRobotsDisallowedError',
      'isUsageRefusedError',
      'isWaitTooLongError',
      'politeGot',
      'politenessOf',
      'readPageDirectives',
    ]);
  });

  it('@politely/fetch', () => {
    expect(exportsOf(fetch)).toEqual([
      'ClosedError',
      'RobotsDisallowedError',
      'WaitTooLongError',
      'createPoliteness',
      'getDisallowedDecision',
      'getWaitTooLongError',
      'isClosedError',
      'isRobotsDisallowedError',
      'isUsageRefusedError',
      'isWaitTooLongError',
      'politeFetch',
      'politenessOf',
      'readPageDirectives',
    ]);
  });

  it('@politely/crawlee', () => {
    expect(exportsOf(crawlee)).toEqual([
      'ClosedError',
      'PoliteRequestManager',
      'RobotsDisallowedError',
      'RobotsRedirectError',
      'WaitTooLongError',
      'createPoliteness',
      'findRobotsRedirectError',
      'getDisallowedDecision',
      'getWaitTooLongError',
      'isClosedError',
      'isRobotsDisallowedError',
      'isUsageRefusedError',
      'isWaitTooLongError',
      'pageDirectives',
      'politenessOf',
      'readPageDirectives',
      'withPoliteness',
    ]);
  });

  it('the error guards are one implementation, whichever package they are imported from', () => {
    expect(got.isRobotsDisallowedError).toBe(core.isRobotsDisallowedError);
    expect(crawlee.getDisallowedDecision).toBe(core.getDisallowedDecision);
    expect(crawlee.createPoliteness).toBe(core.createPoliteness);
    expect(got.readPageDirectives).toBe(core.readPageDirectives);
    expect(fetch.readPageDirectives).toBe(core.readPageDirectives);
    expect(crawlee.readPageDirectives).toBe(core.readPageDirectives);
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
