/**
 * The checks of lintRobotsTxt, one named check per diagnostic code, in the order their findings are
 * reported on a line. A check returns its message, or undefined when it has nothing to say.
 */
import { isGlobalValue, tokenOfValue } from './agent.js';
import { isUtf8Octets, textOfOctets } from './bytes.js';
import { MAX_CRAWL_DELAY_SECONDS, parseCrawlDelay } from './groups.js';
import { type LineRecord, MAX_LINE_BYTES } from './lexer.js';
import type { FileCheck, FileState, LineCheck } from './lint-types.js';
import { sitemapUrl } from './url.js';
import { USAGE_CHECKS } from './usage-lint.js';

export {
  type FileCheck,
  type FileState,
  LINT_CODES,
  type LineCheck,
  type LintCode,
  type LintLine,
  type LintSeverity,
} from './lint-types.js';

function shorten(value: string, limit = 80): string {
  return value.length > limit ? `${value.slice(0, limit)}...` : value;
}

/** record.text[start, end) as text for a message: decoded when the line was read as bytes, shortened. */
export function shown(record: LineRecord, start: number, end: number): string {
  const value = record.text.slice(start, end);
  return shorten(record.binary ? textOfOctets(value) : value);
}

/** Moves the group state past a line, as the parser groups lines (groups.ts). */
export function followGroups(file: FileState, record: LineRecord): void {
  if (!record.hasDirective) return;
  if (record.kind === 'user-agent') {
    if (!file.inAgentRun) file.inGroup = true;
    file.inAgentRun = true;
  } else if (record.kind === 'allow' || record.kind === 'disallow') {
    file.inAgentRun = false;
  }
}

const KEY_NAMES: Partial<Record<LineRecord['kind'], string>> = {
  'user-agent': 'User-agent',
  disallow: 'Disallow',
  sitemap: 'Sitemap',
};

/** Markup served as robots.txt (an error page, a soft 404): its lines are not rules. */
function looksLikeHtml(text: string): boolean {
  const head = text
    .slice(0, 1024)
    .replace(/^[\s\ufeff]+/, '')
    .toLowerCase();
  if (head.startsWith('<!doctype html') || head.startsWith('<html')) return true;
  return head.startsWith('<') && (head.includes('<html') || head.includes('<head') || head.includes('<body'));
}

const unknownCharset: FileCheck = {
  code: 'unknown-charset',
  severity: 'warning',
  check: (file) =>
    file.body.unknownCharset ? `Unknown charset "${file.charset}"; read as UTF-8` : undefined,
};

const htmlBody: FileCheck = {
  code: 'html-body',
  severity: 'error',
  check: (file) =>
    looksLikeHtml(file.body.text)
      ? 'The body is an HTML document, not robots.txt (an error page served with 200?)'
      : undefined,
};

const fileTruncated: FileCheck = {
  code: 'file-truncated',
  severity: 'warning',
  check: (file) =>
    file.body.truncated
      ? `Body cut at ${file.body.byteLength} bytes (maxBytes); the rest is ignored`
      : undefined,
};

/** Octets that are not valid in the body's encoding (kept as octets in patterns all the same). */
const invalidEncoding: LineCheck = {
  code: 'invalid-encoding',
  severity: 'error',
  check: ({ record }, { body: { encoding } }) => {
    const text = record.text.slice(record.start, record.end);
    const invalid =
      encoding === 'binary'
        ? record.binary && !isUtf8Octets(text)
        : encoding !== 'utf-8' && text.includes('\ufffd');
    if (!invalid) return undefined;
    return `Bytes that are not valid ${encoding === 'binary' ? 'utf-8' : encoding}; patterns keep their octets`;
  },
};

const lineTooLong: LineCheck = {
  code: 'line-too-long',
  severity: 'warning',
  check: ({ record }) =>
    record.tooLong ? `Line longer than ${MAX_LINE_BYTES} bytes; the rest is ignored` : undefined,
};

const unparsableLine: LineCheck = {
  code: 'unparsable-line',
  severity: 'warning',
  check: ({ record }) =>
    !record.hasDirective && !record.isEmpty && !record.isComment
      ? `Not a "key: value" line: "${shown(record, record.start, record.end)}"`
      : undefined,
};

const acceptedTypo: LineCheck = {
  code: 'accepted-typo',
  severity: 'warning',
  check: ({ record, key }) => {
    if (!record.hasDirective || !record.typo) return undefined;
    const name = KEY_NAMES[record.kind] ?? record.kind;
    return `"${key}" is a misspelling of "${name}"; read as ${name}`;
  },
};

const missingColon: LineCheck = {
  code: 'missing-colon',
  severity: 'warning',
  check: ({ record, key, value }) =>
    record.hasDirective && record.missingColon
      ? `No ":" after "${key}"; read as "${key}: ${value}"`
      : undefined,
};

/** The product token a User-agent line names; undefined for `*` and for other lines. */
function agentToken(record: LineRecord): string | undefined {
  if (!record.hasDirective || record.kind !== 'user-agent') return undefined;
  if (isGlobalValue(record.text, record.valueStart, record.valueEnd)) return undefined;
  return tokenOfValue(record.text, record.valueStart, record.valueEnd);
}

const invalidUserAgent: LineCheck = {
  code: 'invalid-user-agent',
  severity: 'warning',
  check: ({ record, value }) =>
    agentToken(record) === ''
      ? `"${value}" names no product token (A-Z a-z _ -); matches no crawler`
      : undefined,
};

const userAgentShortened: LineCheck = {
  code: 'user-agent-shortened',
  severity: 'info',
  check: ({ record, value }) => {
    const token = agentToken(record);
    if (token === undefined || token.length === 0) return undefined;
    return token.length < record.valueEnd - record.valueStart
      ? `"${value}" is read as the product token "${token}"`
      : undefined;
  },
};

const ruleOutsideGroup: LineCheck = {
  code: 'rule-outside-group',
  severity: 'warning',
  check: ({ record, key }, file) => {
    const rule = record.kind === 'allow' || record.kind === 'disallow' || record.kind === 'crawl-delay';
    return record.hasDirective && rule && !file.inGroup
      ? `"${key}" before any User-agent line is ignored`
      : undefined;
  },
};

const invalidPatternStart: LineCheck = {
  code: 'invalid-pattern-start',
  severity: 'warning',
  check: ({ record, value }) => {
    if (!record.hasDirective || (record.kind !== 'allow' && record.kind !== 'disallow')) return undefined;
    const first = record.text.charCodeAt(record.valueStart);
    return record.valueEnd > record.valueStart && first !== 0x2f && first !== 0x2a
      ? `Pattern "${value}" does not start with "/" or "*"; it matches no path`
      : undefined;
  },
};

const invalidCrawlDelay: LineCheck = {
  code: 'invalid-crawl-delay',
  severity: 'warning',
  check: ({ record, value }) => {
    if (!record.hasDirective || record.kind !== 'crawl-delay') return undefined;
    const raw = record.text.slice(record.valueStart, record.valueEnd);
    const seconds = parseCrawlDelay(raw);
    if (seconds === undefined) return `Crawl-delay "${value}" is not a number of seconds; ignored`;
    if (seconds === MAX_CRAWL_DELAY_SECONDS && Number(raw) > MAX_CRAWL_DELAY_SECONDS) {
      return `Crawl-delay "${value}" is capped to ${MAX_CRAWL_DELAY_SECONDS} s`;
    }
    return undefined;
  },
};

/** A Sitemap line crawlers cannot use: sitemaps.org asks for the complete URL, Google a fully qualified one. */
const sitemapNotAbsolute: LineCheck = {
  code: 'sitemap-not-absolute',
  severity: 'warning',
  check: ({ record, value }) => {
    if (!record.hasDirective || record.kind !== 'sitemap' || record.valueEnd === record.valueStart) {
      return undefined;
    }
    const raw = record.text.slice(record.valueStart, record.valueEnd);
    return sitemapUrl(record.binary ? textOfOctets(raw) : raw) === undefined
      ? `Sitemap "${value}" is not a full http(s) URL; crawlers ignore it (sitemaps.org: the complete URL, as https://example.com/sitemap.xml; RFC 9309 2.2.4 leaves Sitemap to that protocol)`
      : undefined;
  },
};

const ignoredDirective: LineCheck = {
  code: 'ignored-directive',
  severity: 'info',
  check: ({ record, key }) =>
    record.hasDirective && record.kind === 'unused'
      ? `"${key}" is a known directive this engine does not use`
      : undefined,
};

const unknownDirective: LineCheck = {
  code: 'unknown-directive',
  severity: 'warning',
  check: ({ record, key }) =>
    record.hasDirective && record.kind === 'unknown' ? `Unknown directive "${key}"; ignored` : undefined,
};

/** Whole-file checks reported on line 1, before any line's. */
export const FILE_CHECKS: readonly FileCheck[] = [unknownCharset, htmlBody];

/** Per line, in the order their findings are listed for that line. */
export const LINE_CHECKS: readonly LineCheck[] = [
  invalidEncoding,
  lineTooLong,
  unparsableLine,
  acceptedTypo,
  missingColon,
  invalidUserAgent,
  userAgentShortened,
  ruleOutsideGroup,
  invalidPatternStart,
  invalidCrawlDelay,
  sitemapNotAbsolute,
  ...USAGE_CHECKS,
  ignoredDirective,
  unknownDirective,
];

/** Whole-file checks reported on the last line, after every line's. */
export const END_CHECKS: readonly FileCheck[] = [fileTruncated];
