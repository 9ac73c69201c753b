/**
 * lint checks for the AI usage preference lines (usage.ts): a value that says nothing, and a line
 * outside any group. Kept beside usage.ts; lint-checks.ts lists them with the others.
 */

import type { FileState, LintCode, LintLine, LintSeverity } from './lint-types.js';
import { isKnownValue, PURPOSE_TERMS, type UsageLineKind, usageLine } from './usage.js';

interface UsageCheck {
  readonly code: LintCode;
  readonly severity: LintSeverity;
  readonly check: (line: LintLine, file: FileState) => string | undefined;
}

const KEY_NAME: Record<UsageLineKind, string> = {
  'content-usage': 'Content-Usage',
  'content-signal': 'Content-Signal',
};

/** The labels each vocabulary defines today; other labels are kept and said nothing of. */
const KNOWN_LABELS: Record<UsageLineKind, ReadonlySet<string>> = {
  'content-usage': new Set(Object.values(PURPOSE_TERMS).flatMap((terms) => terms.contentUsage ?? [])),
  'content-signal': new Set(Object.values(PURPOSE_TERMS).map((terms) => terms.contentSignal)),
};

function usageKind({ record }: LintLine): UsageLineKind | undefined {
  if (!record.hasDirective) return undefined;
  return record.kind === 'content-usage' || record.kind === 'content-signal' ? record.kind : undefined;
}

const invalidUsagePreference: UsageCheck = {
  code: 'invalid-usage-preference',
  severity: 'warning',
  check: (line) => {
    const kind = usageKind(line);
    if (kind === undefined) return undefined;
    const { record } = line;
    const parsed = usageLine(
      kind,
      record.line,
      record.text.slice(record.valueStart, record.valueEnd),
      (p) => p,
    );
    const name = KEY_NAME[kind];
    if (parsed.prefs === undefined) {
      return kind === 'content-usage'
        ? `${name} "${line.value}" is not an RFC 9651 dictionary (e.g. train-ai=n, search=y); the line says nothing`
        : `${name} "${line.value}" is not a list of name=value signals (e.g. search=yes, ai-train=no); the line says nothing`;
    }
    const expected = kind === 'content-usage' ? 'y or n' : 'yes or no';
    for (const [label, value] of Object.entries(parsed.prefs)) {
      if (KNOWN_LABELS[kind].has(label) && !isKnownValue(kind, value)) {
        return `${name} ${label}=${value}: expected ${expected}; no preference is read for ${label}`;
      }
    }
    return undefined;
  },
};

/** A check for a line of `kind` before any User-agent line. */
function outsideGroup(
  code: LintCode,
  severity: LintSeverity,
  kind: UsageLineKind,
  message: string,
): UsageCheck {
  return {
    code,
    severity,
    check: (line, file) => (!file.inGroup && usageKind(line) === kind ? message : undefined),
  };
}

const usageOutsideGroup = outsideGroup(
  'usage-outside-group',
  'warning',
  'content-usage',
  'Content-Usage before any User-agent line belongs to no group (draft-ietf-aipref-attach makes it a group rule); ignored',
);

const signalOutsideGroup = outsideGroup(
  'signal-outside-group',
  'info',
  'content-signal',
  'Content-Signal before any User-agent line is read as applying to every crawler; Cloudflare places it inside a group (User-agent: *)',
);

export const USAGE_CHECKS: readonly UsageCheck[] = [
  usageOutsideGroup,
  signalOutsideGroup,
  invalidUsagePreference,
];
