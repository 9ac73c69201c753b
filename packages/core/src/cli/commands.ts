/**
 * What each CLI command computes, as plain data (printed as text or JSON by the caller).
 */
import { lintRobotsTxt, parseRobotsTxt } from '../engine/index.js';
import type { MatchedRule } from '../engine/types.js';
import { fetchRobotsTxt } from '../fetch/fetcher.js';
import { robotsLocation } from '../fetch/robots-url.js';
import { createPoliteness } from '../politeness.js';
import { withoutCredentials } from '../redact.js';
import type { DecisionReason, RulesSource } from '../types.js';

export interface CheckResult {
  readonly url: string;
  readonly allowed: boolean;
  readonly reason: DecisionReason;
  readonly source: RulesSource;
  readonly robotsUrl: string;
  /** HTTP status robots.txt answered with (0: network error or timeout). */
  readonly robotsStatus?: number;
  readonly rule?: MatchedRule;
  readonly crawlDelayMs?: number;
}

export async function runCheck(
  urls: readonly string[],
  options: { productToken: string; userAgent: string; timeoutMs?: number },
): Promise<CheckResult[]> {
  const politeness = createPoliteness({
    userAgent: options.userAgent,
    productToken: options.productToken,
    minDelayMs: 0,
    scheduler: 'memory',
    logger: false,
    ...(options.timeoutMs ? { robotsTimeoutMs: options.timeoutMs } : {}),
  });
  const statuses = new Map<string, number>();
  politeness.subscribe((event) => {
    if (event.type === 'robots-fetch') statuses.set(event.robotsUrl, event.status);
  });
  try {
    const results: CheckResult[] = [];
    for (const url of urls) {
      const decision = await politeness.check(url);
      const robotsStatus = statuses.get(decision.robotsUrl);
      results.push({
        url: decision.url,
        allowed: decision.allowed,
        reason: decision.reason,
        source: decision.source,
        robotsUrl: decision.robotsUrl,
        ...(robotsStatus !== undefined ? { robotsStatus } : {}),
        ...(decision.rule ? { rule: decision.rule } : {}),
        ...(decision.crawlDelayMs !== undefined ? { crawlDelayMs: decision.crawlDelayMs } : {}),
      });
    }
    return results;
  } finally {
    await politeness.close();
  }
}

export interface ExplainResult {
  readonly target: string;
  readonly allowed: boolean;
  readonly rule?: MatchedRule;
  /** The deciding line as written in the file. */
  readonly lineText?: string;
}

export interface ExplainReport {
  readonly productToken: string;
  readonly crawlDelaySeconds?: number;
  readonly sitemaps: readonly string[];
  readonly truncated: boolean;
  readonly results: readonly ExplainResult[];
}

export function runExplain(
  body: Uint8Array,
  targets: readonly string[],
  productToken: string,
): ExplainReport {
  const robots = parseRobotsTxt(body);
  const lines = new TextDecoder().decode(body).split(/\r\n|\r|\n/);
  const crawlDelaySeconds = robots.crawlDelay(productToken);
  return {
    productToken,
    ...(crawlDelaySeconds !== undefined ? { crawlDelaySeconds } : {}),
    sitemaps: robots.sitemaps,
    truncated: robots.truncated,
    results: targets.map((target) => {
      const verdict = robots.check(target, productToken);
      const lineText = verdict.rule ? lines[verdict.rule.line - 1]?.trim() : undefined;
      return {
        target: withoutCredentials(target),
        allowed: verdict.allowed,
        ...(verdict.rule ? { rule: verdict.rule } : {}),
        ...(lineText !== undefined ? { lineText } : {}),
      };
    }),
  };
}

export interface LintReport {
  readonly source: string;
  /** For a URL: how robots.txt answered. */
  readonly fetch?: { readonly url: string; readonly status: number; readonly error?: string };
  readonly diagnostics: ReturnType<typeof lintRobotsTxt>;
}

export async function runLint(
  target: string,
  options: { userAgent: string; timeoutMs?: number; readFile: (path: string) => Promise<Uint8Array> },
): Promise<LintReport> {
  if (!/^https?:\/\//i.test(target)) {
    return { source: target, diagnostics: lintRobotsTxt(await options.readFile(target)) };
  }
  const { robotsUrl } = robotsLocation(target);
  const result = await fetchRobotsTxt(robotsUrl, {
    userAgent: options.userAgent,
    timeoutMs: options.timeoutMs ?? 10_000,
    maxBytes: 512_000,
    maxRedirects: 5,
  });
  const fetch = {
    url: withoutCredentials(result.finalUrl),
    status: result.status,
    ...(result.error ? { error: result.error } : {}),
  };
  if (!result.body) return { source: robotsUrl, fetch, diagnostics: [] };
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(result.contentType ?? '')?.[1];
  return {
    source: robotsUrl,
    fetch,
    diagnostics: lintRobotsTxt(result.body, charset ? { charset } : {}),
  };
}
