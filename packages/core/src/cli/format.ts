/**
 * Human-readable output of the CLI commands (the JSON output is the data itself).
 */
import type { UsagePreferences } from '../engine/usage.js';
import type { CheckResult, DiffReport, DiffSide, ExplainReport, LintReport } from './commands.js';

const verdictWord = (allowed: boolean) => (allowed ? 'ALLOWED   ' : 'DISALLOWED');

function ruleText(rule: { directive: string; pattern: string; line: number } | undefined): string {
  if (!rule) return 'no rule matched';
  const directive = rule.directive === 'allow' ? 'Allow' : 'Disallow';
  return `line ${rule.line}: ${directive}: ${rule.pattern}`;
}

function dictionaryText(values: Readonly<Record<string, string>>): string {
  return Object.entries(values)
    .map(([key, value]) => `${key}=${value}`)
    .join(', ');
}

type TdmRule = { readonly reserved: boolean; readonly location?: string; readonly policy?: string };

/** What tdmrep.json's matching rule says: `tdmrep.json reserves TDM rights: ... (location "/books/*")`. */
function tdmVerdict(tdm: TdmRule): string {
  const policy = tdm.policy ? `, policy ${tdm.policy}` : '';
  const verdict = tdm.reserved
    ? 'reserves TDM rights: refused for this purpose'
    : 'does not reserve TDM rights';
  return `tdmrep.json ${verdict} (location "${tdm.location ?? '?'}"${policy})`;
}

/** The TDMRep line under a verdict (tdmrep.json's matching rule), or nothing. */
function tdmText(tdm: TdmRule | undefined): string {
  return tdm ? `            ${tdmVerdict(tdm)}\n` : '';
}

/** The usage preferences line under a verdict, or nothing. */
function usageText(usage: UsagePreferences | undefined): string {
  if (!usage) return '';
  const parts = [
    usage.contentUsage ? `Content-Usage ${dictionaryText(usage.contentUsage)}` : undefined,
    usage.contentSignal ? `Content-Signal ${dictionaryText(usage.contentSignal)}` : undefined,
  ].filter((part) => part !== undefined);
  return `            usage: ${parts.join('; ')} (line ${usage.lines.join(', ')})\n`;
}

export function formatCheck(results: readonly CheckResult[]): string {
  return results
    .map((r) => {
      const why =
        r.reason === 'unreachable'
          ? `robots.txt unreachable (${r.robotsError ?? (r.robotsStatus ? `HTTP ${r.robotsStatus}` : 'network error or timeout')}): disallow all`
          : r.reason === 'crawl-delay-too-long'
            ? `Crawl-delay ${r.crawlDelayMs} ms is above the maximum`
            : r.reason === 'rate-limited'
              ? "the host's rate-limit headers ask for more time between requests than the maximum"
              : r.reason === 'usage-refused'
                ? `usage preferences say no for purpose ${r.usageRefusal?.purpose}: ${r.usageRefusal?.by} ${r.usageRefusal?.label}`
                : r.reason === 'tdm-reserved' && r.tdm
                  ? tdmVerdict(r.tdm)
                  : r.source === 'unavailable'
                    ? `no robots.txt (HTTP ${r.robotsStatus ?? '4xx'}): allow all`
                    : r.source === 'robots.txt-itself'
                      ? 'robots.txt itself is always allowed'
                      : ruleText(r.rule);
      const delay = r.crawlDelayMs !== undefined ? ` [Crawl-delay ${r.crawlDelayMs / 1000} s]` : '';
      // A TDM reservation is tdmrep.json's verdict, not robots.txt's: that file is named as its source.
      const reserved = r.reason === 'tdm-reserved' && r.tdm !== undefined;
      const source = reserved ? (r.tdm?.file ?? 'tdmrep.json') : r.robotsUrl;
      return `${verdictWord(r.allowed)}  ${r.url}\n            ${why} (${source})${delay}\n${usageText(r.usage)}${reserved ? '' : tdmText(r.tdm)}`;
    })
    .join('');
}

export function formatExplain(report: ExplainReport): string {
  const head = [
    `agent: ${report.productToken}`,
    report.crawlDelaySeconds !== undefined ? `crawl-delay: ${report.crawlDelaySeconds} s` : undefined,
    report.sitemaps.length > 0 ? `sitemaps: ${report.sitemaps.join(', ')}` : undefined,
    report.truncated
      ? 'note: the file was cut at the byte limit; rules after the cut are ignored'
      : undefined,
  ].filter((line) => line !== undefined);
  const rows = report.results.map((r) => {
    const decided = r.usageRefusal
      ? `usage preferences say no for purpose ${r.usageRefusal.purpose}: ${r.usageRefusal.by} ${r.usageRefusal.label}`
      : r.rule
        ? `line ${r.rule.line}: ${r.lineText ?? ruleText(r.rule)}`
        : 'no rule matched';
    return `${verdictWord(r.allowed)}  ${r.target}\n            ${decided}\n${usageText(r.usage)}${tdmText(r.tdm)}`;
  });
  return `${head.join('\n')}\n${rows.join('')}`;
}

export function formatLint(report: LintReport): string {
  const lines: string[] = [];
  if (report.fetch) {
    lines.push(
      `${report.fetch.url}: HTTP ${report.fetch.status || 'no answer'}${report.fetch.error ? ` (${report.fetch.error})` : ''}`,
    );
  }
  for (const d of report.diagnostics) {
    lines.push(`${report.source}:${d.line}  ${d.severity.padEnd(7)}  ${d.code}  ${d.message}`);
  }
  const errors = report.diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = report.diagnostics.filter((d) => d.severity === 'warning').length;
  lines.push(
    `${errors} error(s), ${warnings} warning(s), ${report.diagnostics.length - errors - warnings} note(s)`,
  );
  return `${lines.join('\n')}\n`;
}

function sideText(name: string, side: DiffSide): string {
  if (!side.fetch) return `${name}: ${side.source}`;
  const { status, error, outcome } = side.fetch;
  const answer = status > 0 ? `HTTP ${status}` : `no answer${error ? ` (${error})` : ''}`;
  const meaning =
    outcome === 'unreachable'
      ? ': unreachable, crawlers fetch nothing'
      : outcome === 'unavailable'
        ? ': no robots.txt, allow all'
        : '';
  return `${name}: ${side.source} (${answer}${meaning})`;
}

const seconds = (value: number | undefined) => (value === undefined ? 'none' : `${value} s`);

export function formatDiff(report: DiffReport, productToken: string): string {
  const lines = [`agent: ${productToken}`, sideText('a', report.a), sideText('b', report.b)];
  const { diff } = report;
  if (diff === undefined) {
    lines.push('rules unknown: a robots.txt was unreachable');
    return `${lines.join('\n')}\n`;
  }
  for (const rule of diff.removed) lines.push(`- ${ruleText(rule)}`);
  for (const rule of diff.added) lines.push(`+ ${ruleText(rule)}`);
  const { before, after } = diff.crawlDelay;
  if (before !== after) lines.push(`crawl-delay: ${seconds(before)} -> ${seconds(after)}`);
  for (const url of diff.sitemaps.removed) lines.push(`- sitemap: ${url}`);
  for (const url of diff.sitemaps.added) lines.push(`+ sitemap: ${url}`);
  lines.push(
    diff.changed
      ? `rules differ for ${productToken}: ${diff.added.length} added, ${diff.removed.length} removed`
      : `same rules for ${productToken}`,
  );
  return `${lines.join('\n')}\n`;
}
