/**
 * What each CLI command computes, as plain data (printed as text or JSON by the caller).
 */
import {
  diffRobotsTxt,
  lintRobotsTxt,
  parseRobotsTxt,
  type RobotsTxt,
  type RobotsTxtDiff,
} from '../engine/index.js';
import type { LintDiagnostic } from '../engine/lint.js';
import { matchTdmRep, type TdmRepRule } from '../engine/tdmrep.js';
import type { MatchedRule } from '../engine/types.js';
import { refusalOf, type UsagePreferences, type UsagePurpose, type UsageRefusal } from '../engine/usage.js';
import { createPoliteness } from '../facade/politeness.js';
import type { DecisionReason, RulesSource } from '../facade/types.js';
import { fetchRobotsTxt } from '../fetch/fetcher.js';
import { charsetOf, type RobotsPolicy, robotsPolicy } from '../fetch/policy.js';
import { robotsLocation } from '../fetch/robots-url.js';
import type { TdmReservation } from '../kernel/decision.js';
import { withoutCredentials } from '../kernel/redact.js';
import { isTdmPurpose } from '../kernel/tdm-reservation.js';

export interface CheckResult {
  readonly url: string;
  readonly allowed: boolean;
  readonly reason: DecisionReason;
  readonly source: RulesSource;
  readonly robotsUrl: string;
  /** HTTP status robots.txt answered with (0: network error or timeout). */
  readonly robotsStatus?: number;
  /** Why robots.txt could not be reached (`HTTP 503`, `fetch failed: getaddrinfo ENOTFOUND ...`). */
  readonly robotsError?: string;
  readonly rule?: MatchedRule;
  readonly crawlDelayMs?: number;
  /** AI usage preferences robots.txt gives for the URL (Content-Usage, Content-Signal). */
  readonly usage?: UsagePreferences;
  /** With --purpose: the line that said no to it. */
  readonly usageRefusal?: UsageRefusal;
  /** With a TDM --purpose (ai-train, ai-input): the origin's tdmrep.json rule for the URL, if any. */
  readonly tdm?: TdmReservation;
}

export async function runCheck(
  urls: readonly string[],
  options: { productToken: string; userAgent: string; timeoutMs?: number; purpose?: UsagePurpose },
): Promise<CheckResult[]> {
  const politeness = createPoliteness({
    userAgent: options.userAgent,
    productToken: options.productToken,
    pacing: { minDelayMs: 0 },
    scheduler: 'memory',
    logger: false,
    ...(options.timeoutMs ? { robots: { timeoutMs: options.timeoutMs } } : {}),
    ...(options.purpose ? { purpose: options.purpose } : {}),
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
        ...(decision.robots ? { robotsError: decision.robots.error } : {}),
        ...(decision.rule ? { rule: decision.rule } : {}),
        ...(decision.crawlDelayMs !== undefined ? { crawlDelayMs: decision.crawlDelayMs } : {}),
        ...(decision.usage ? { usage: decision.usage } : {}),
        ...(!decision.allowed && decision.usageRefusal ? { usageRefusal: decision.usageRefusal } : {}),
        ...(decision.tdm ? { tdm: decision.tdm } : {}),
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
  /** AI usage preferences for the target (Content-Usage, Content-Signal), when any apply. */
  readonly usage?: UsagePreferences;
  /** With a purpose: the line that said no to it (the target is then not allowed). */
  readonly usageRefusal?: UsageRefusal;
  /**
   * With a TDM purpose and a tdmrep.json (`--tdmrep`): the first rule whose location matches the
   * target; a reservation makes the target not allowed, beside robots.txt's verdict.
   */
  readonly tdm?: { readonly reserved: boolean; readonly location: string; readonly policy?: string };
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
  purpose?: UsagePurpose,
  tdmrep?: readonly TdmRepRule[],
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
      const usage = robots.usage(target, productToken);
      const usageRefusal = purpose === undefined ? undefined : refusalOf(usage, purpose);
      // TDMRep beside robots.txt: only for a TDM purpose, as a crawl with that purpose applies it.
      const rule = tdmrep && isTdmPurpose(purpose) ? matchTdmRep(tdmrep, target) : undefined;
      const tdm = rule && {
        reserved: rule.reservation === 1,
        location: rule.location,
        ...(rule.policy !== undefined ? { policy: rule.policy } : {}),
      };
      return {
        target: withoutCredentials(target),
        allowed: verdict.allowed && usageRefusal === undefined && !tdm?.reserved,
        ...(tdm ? { tdm } : {}),
        ...(verdict.rule ? { rule: verdict.rule } : {}),
        ...(lineText !== undefined ? { lineText } : {}),
        ...(usage ? { usage } : {}),
        ...(usageRefusal ? { usageRefusal } : {}),
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
  readonly fetch?: FetchReport;
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

/** How a robots.txt URL answered, as `lint` and `diff` report it. */
export interface FetchReport {
  readonly url: string;
  readonly status: number;
  readonly error?: string;
  readonly outcome: RobotsPolicy['outcome'];
}

interface FetchedRobots {
  readonly robotsUrl: string;
  readonly fetch: FetchReport;
  readonly policy: RobotsPolicy;
  readonly body?: Uint8Array;
  /** The charset of the Content-Type header, when it names one. */
  readonly charset?: string;
}

/** How `lint` and `diff` read a file, and fetch a URL's robots.txt. */
interface SourceOptions {
  readonly userAgent: string;
  readonly timeoutMs?: number;
  readonly readFile: (path: string) => Promise<Uint8Array>;
}

/** The robots.txt of a URL's origin, fetched as the crawler would (redirects, limits, timeout). */
async function fetchRobots(target: string, options: SourceOptions): Promise<FetchedRobots> {
  const { robotsUrl } = robotsLocation(target);
  const result = await fetchRobotsTxt(robotsUrl, {
    userAgent: options.userAgent,
    timeoutMs: options.timeoutMs ?? 10_000,
    maxBytes: 512_000,
    maxRedirects: 5,
  });
  const policy = robotsPolicy(result);
  const charset = charsetOf(result.contentType);
  return {
    robotsUrl,
    fetch: {
      url: withoutCredentials(result.finalUrl),
      status: result.status,
      ...(result.error ? { error: result.error } : {}),
      outcome: policy.outcome,
    },
    policy,
    ...(result.body ? { body: result.body } : {}),
    ...(charset ? { charset } : {}),
  };
}

const isUrl = (target: string) => /^https?:\/\//i.test(target);

export async function runLint(target: string, options: SourceOptions): Promise<LintReport> {
  if (!isUrl(target)) {
    return { source: target, diagnostics: lintRobotsTxt(await options.readFile(target)) };
  }
  const { robotsUrl, fetch, policy, body, charset } = await fetchRobots(target, options);
  const problem = fetchDiagnostic(fetch.status, policy, fetch.error);
  if (problem || !body) return { source: robotsUrl, fetch, diagnostics: problem ? [problem] : [] };
  return {
    source: robotsUrl,
    fetch,
    diagnostics: lintRobotsTxt(body, charset ? { charset } : {}),
  };
}

/** One side of a diff: a file, or a URL's robots.txt and how it answered. */
export interface DiffSide {
  readonly source: string;
  readonly fetch?: FetchReport;
}

export interface DiffReport {
  readonly a: DiffSide;
  readonly b: DiffSide;
  /** Absent when a side's robots.txt was unreachable: its rules are unknown (crawlers fetch nothing). */
  readonly diff?: RobotsTxtDiff;
}

/**
 * The rules of one side: a file's, or for a URL what a crawler would follow: the body of a 2xx, no
 * rules for an unavailable robots.txt (4xx: allow all), undefined when unreachable (5xx, 429, error).
 */
async function diffSide(
  target: string,
  options: SourceOptions,
): Promise<{ side: DiffSide; robots: RobotsTxt | undefined }> {
  if (!isUrl(target)) {
    return { side: { source: target }, robots: parseRobotsTxt(await options.readFile(target)) };
  }
  const { robotsUrl, fetch, policy, body, charset } = await fetchRobots(target, options);
  const side = { source: robotsUrl, fetch };
  if (policy.outcome === 'unreachable') return { side, robots: undefined };
  const rules = policy.outcome === 'ok' && body ? body : new Uint8Array();
  return { side, robots: parseRobotsTxt(rules, charset ? { charset } : {}) };
}

export async function runDiff(
  a: string,
  b: string,
  options: SourceOptions & { readonly productToken: string },
): Promise<DiffReport> {
  const [before, after] = await Promise.all([diffSide(a, options), diffSide(b, options)]);
  if (before.robots === undefined || after.robots === undefined) return { a: before.side, b: after.side };
  return {
    a: before.side,
    b: after.side,
    diff: diffRobotsTxt(before.robots, after.robots, options.productToken),
  };
}
