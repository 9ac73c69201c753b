/**
 * lintRobotsTxt: diagnostics for robots.txt authors, read from the same line records the parser uses.
 */
import { isGlobalValue, tokenOfValue } from './agent.js';
import { readBody } from './body.js';
import { MAX_CRAWL_DELAY_SECONDS, parseCrawlDelay } from './groups.js';
import { type LineRecord, MAX_LINE_BYTES, scanLines } from './lines.js';
import { resolveParseOptions } from './options.js';
import type { ParseOptions } from './types.js';

/** Every diagnostic code; stable across versions (new codes may be added). */
export const LINT_CODES = [
  'unknown-directive',
  'ignored-directive',
  'accepted-typo',
  'missing-colon',
  'unparsable-line',
  'rule-outside-group',
  'invalid-pattern-start',
  'invalid-crawl-delay',
  'invalid-user-agent',
  'user-agent-shortened',
  'line-too-long',
  'file-truncated',
  'html-body',
  'invalid-encoding',
  'unknown-charset',
] as const;

export type LintCode = (typeof LINT_CODES)[number];
export type LintSeverity = 'error' | 'warning' | 'info';

export interface LintDiagnostic {
  /** 1-based line number (1 for whole-file findings). */
  readonly line: number;
  readonly severity: LintSeverity;
  readonly code: LintCode;
  readonly message: string;
}

export type LintOptions = Pick<ParseOptions, 'maxBytes' | 'charset'>;

const strictDecoder = new TextDecoder('utf-8', { fatal: true });

function shorten(value: string, limit = 80): string {
  return value.length > limit ? `${value.slice(0, limit)}...` : value;
}

function octets(value: string): Uint8Array {
  return Uint8Array.from(value, (char) => char.charCodeAt(0));
}

function isValidUtf8(value: string): boolean {
  try {
    strictDecoder.decode(octets(value));
    return true;
  } catch {
    return false;
  }
}

/** Markup served as robots.txt (an error page, a soft 404): its lines are not rules. */
function looksLikeHtml(text: string): boolean {
  const head = text
    .slice(0, 1024)
    .replace(/^[\s\ufeff]+/, '')
    .toLowerCase();
  if (head.startsWith('<!doctype html') || head.startsWith('<html')) return true;
  return head.startsWith('<') && (head.includes('<html') || head.includes('<head') || head.includes('<body'));
}

const KEY_NAMES: Partial<Record<LineRecord['kind'], string>> = {
  'user-agent': 'User-agent',
  disallow: 'Disallow',
  sitemap: 'Sitemap',
};

/**
 * Diagnostics for a robots.txt body, in line order (whole-file findings first). Never throws on
 * content; TypeError only for arguments of the wrong type.
 */
export function lintRobotsTxt(body: string | Uint8Array, options?: LintOptions): LintDiagnostic[] {
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) {
    throw new TypeError(`lintRobotsTxt: body must be a string or a Uint8Array, got ${typeof body}`);
  }
  const resolved = resolveParseOptions(options, 'lintRobotsTxt');
  const source = readBody(body, resolved.maxBytes, resolved.charset);
  const { truncated, encoding, unknownCharset, byteLength } = source;
  const found: LintDiagnostic[] = [];
  const report = (line: number, severity: LintSeverity, code: LintCode, message: string): void => {
    found.push({ line, severity, code, message });
  };

  if (unknownCharset) {
    report(1, 'warning', 'unknown-charset', `Unknown charset "${resolved.charset}"; read as UTF-8`);
  }
  if (looksLikeHtml(source.text)) {
    report(
      1,
      'error',
      'html-body',
      'The body is an HTML document, not robots.txt (an error page served with 200?)',
    );
  }

  let inGroup = false;
  let inAgentRun = false;
  let lastLine = 0;
  const declared = encoding === 'binary' ? 'utf-8' : encoding;
  scanLines(source, (record) => {
    const { line, text: lineText, binary } = record;
    lastLine = line;
    const slice = (start: number, end: number): string => {
      const value = lineText.slice(start, end);
      return shorten(binary ? new TextDecoder().decode(octets(value)) : value);
    };
    const invalid =
      encoding === 'binary'
        ? binary && !isValidUtf8(lineText.slice(record.start, record.end))
        : encoding !== 'utf-8' && lineText.slice(record.start, record.end).includes('\ufffd');
    if (invalid) {
      report(
        line,
        'error',
        'invalid-encoding',
        `Bytes that are not valid ${declared}; patterns keep their octets`,
      );
    }
    if (record.tooLong) {
      report(
        line,
        'warning',
        'line-too-long',
        `Line longer than ${MAX_LINE_BYTES} bytes; the rest is ignored`,
      );
    }
    if (!record.hasDirective) {
      if (!record.isEmpty && !record.isComment) {
        report(
          line,
          'warning',
          'unparsable-line',
          `Not a "key: value" line: "${slice(record.start, record.end)}"`,
        );
      }
      return;
    }
    const key = slice(record.keyStart, record.keyEnd);
    const value = slice(record.valueStart, record.valueEnd);
    if (record.typo) {
      const name = KEY_NAMES[record.kind] ?? record.kind;
      report(line, 'warning', 'accepted-typo', `"${key}" is a misspelling of "${name}"; read as ${name}`);
    }
    if (record.missingColon) {
      report(line, 'warning', 'missing-colon', `No ":" after "${key}"; read as "${key}: ${value}"`);
    }
    switch (record.kind) {
      case 'user-agent': {
        if (!inAgentRun) inGroup = true;
        inAgentRun = true;
        if (isGlobalValue(lineText, record.valueStart, record.valueEnd)) break;
        const token = tokenOfValue(lineText, record.valueStart, record.valueEnd);
        if (token.length === 0) {
          report(
            line,
            'warning',
            'invalid-user-agent',
            `"${value}" names no product token (A-Z a-z _ -); matches no crawler`,
          );
        } else if (token.length < record.valueEnd - record.valueStart) {
          report(line, 'info', 'user-agent-shortened', `"${value}" is read as the product token "${token}"`);
        }
        break;
      }
      case 'allow':
      case 'disallow': {
        if (!inGroup) {
          report(line, 'warning', 'rule-outside-group', `"${key}" before any User-agent line is ignored`);
        }
        inAgentRun = false;
        const first = lineText.charCodeAt(record.valueStart);
        if (record.valueEnd > record.valueStart && first !== 0x2f && first !== 0x2a) {
          report(
            line,
            'warning',
            'invalid-pattern-start',
            `Pattern "${value}" does not start with "/" or "*"; it matches no path`,
          );
        }
        break;
      }
      case 'crawl-delay': {
        if (!inGroup) {
          report(line, 'warning', 'rule-outside-group', `"${key}" before any User-agent line is ignored`);
        }
        const raw = lineText.slice(record.valueStart, record.valueEnd);
        const seconds = parseCrawlDelay(raw);
        if (seconds === undefined) {
          report(
            line,
            'warning',
            'invalid-crawl-delay',
            `Crawl-delay "${value}" is not a number of seconds; ignored`,
          );
        } else if (seconds === MAX_CRAWL_DELAY_SECONDS && Number(raw) > MAX_CRAWL_DELAY_SECONDS) {
          report(
            line,
            'warning',
            'invalid-crawl-delay',
            `Crawl-delay "${value}" is capped to ${MAX_CRAWL_DELAY_SECONDS} s`,
          );
        }
        break;
      }
      case 'unused':
        report(line, 'info', 'ignored-directive', `"${key}" is a known directive this engine does not use`);
        break;
      case 'unknown':
        report(line, 'warning', 'unknown-directive', `Unknown directive "${key}"; ignored`);
        break;
      default:
        break;
    }
  });
  if (truncated) {
    report(
      lastLine,
      'warning',
      'file-truncated',
      `Body cut at ${byteLength} bytes (maxBytes); the rest is ignored`,
    );
  }
  return found;
}
