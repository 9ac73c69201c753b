/**
 * What each CLI command computes, as plain data (printed as text or JSON by the caller).
 */
import { lintRobotsTxt, parseRobotsTxt } from '../engine/index.js';
import type { LintDiagnostic } from '../engine/lint.js';
import type { MatchedRule } from '../engine/types.js';
import { fetchRobotsTxt } from '../fetch/fetcher.js';
import { type RobotsPolicy, robotsPolicy } from '../fetch/policy.js';
import { robotsLocation } from '../fetch/robots-url.js';
import { withoutCredentials } from '../kernel/redact.js';
import { createPoliteness } from '../politeness.js';
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

/**
 * A finding about how robots.txt answered rather than what it says: an unreachable file (5xx, 429,
 * network error, timeout) makes crawlers fetch nothing at all (RFC 9309 2.3.1.4), so it is an error.
 */
export interface FetchDiagnostic {
  /** Always 1: the finding is about the whole file. */
  readonly line: 1;
  readonly severity: 'error' | 'warning';
  readonly code: 'robots-txt-unreachable' | 'robots-txt-unavailable';
  readonly message: string;
}

export interface LintReport {
  readonly source: string;
  /** For a URL: how robots.txt answered, and what that means for crawlers. */
  readonly fetch?: {
    readonly url: string;
    readonly status: number;
    readonly error?: string;
    readonly outcome: RobotsPolicy['outcome'];
  };
  readonly diagnostics: readonly (LintDiagnostic | FetchDiagnostic)[];
}

/** The finding for a robots.txt that did not answer 2xx; undefined when it did. */
function fetchDiagnostic(
  status: number,
  policy: RobotsPolicy,
  error: string | undefined,
): FetchDiagnostic | undefined {
  const answered =
    status > 0 ? `answered HTTP ${status}` : `could not be fetched (${error ?? 'network error'})`;
  if (policy.outcome === 'unreachable') {
    return {
      line: 1,
      severity: 'error',
      code: 'robots-txt-unreachable',
      message: `robots.txt ${answered}: crawlers will not fetch anything from this site while it does (${policy.basis}: unreachable means disallow all)`,
    };
  }
  if (policy.outcome === 'unavailable') {
    return {
      line: 1,
      severity: 'warning',
      code: 'robots-txt-unavailable',
      message: `robots.txt ${answered}: crawlers treat the site as having no rules and may fetch everything (${policy.basis})`,
    };
  }
  return undefined;
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
  const policy = robotsPolicy(result);
  const fetch = {
    url: withoutCredentials(result.finalUrl),
    status: result.status,
    ...(result.error ? { error: result.error } : {}),
    outcome: policy.outcome,
  };
  const problem = fetchDiagnostic(result.status, policy, result.error);
  if (problem || !result.body) return { source: robotsUrl, fetch, diagnostics: problem ? [problem] : [] };
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(result.contentType ?? '')?.[1];
  return {
    source: robotsUrl,
    fetch,
    diagnostics: lintRobotsTxt(result.body, charset ? { charset } : {}),
  };
}
