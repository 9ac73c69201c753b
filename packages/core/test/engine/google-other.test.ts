/**
 * The other expectations of Google's robots_test.cc and reporting_robots_test.cc (85 entries), run
 * from the in-repo copy in ./conformance: user-agent validity, URL -> path, pattern escaping, and the
 * parser's per-line reports, expressed through readRobotsTxtLines.
 */
import { describe, expect, it } from 'vitest';
import {
  escapePattern,
  getPathParamsQuery,
  isValidProductToken,
  parseRobotsTxt,
  type RobotsTxtLine,
  readRobotsTxtLines,
} from '../../src/engine/index.js';
import { locatePath } from '../../src/engine/url.js';
import { type GoogleOther, readConformanceJson } from './shared-data.js';

const entries = readConformanceJson<GoogleOther[]>('google-robotstxt-other.json');
const byFunction = (name: GoogleOther['function']) => entries.filter((entry) => entry.function === name);

function bodyOf(entry: GoogleOther): string | Uint8Array {
  const { robotstxt, robotstxt_base64 } = entry.input;
  if (robotstxt_base64 !== undefined) return new Uint8Array(Buffer.from(robotstxt_base64, 'base64'));
  return robotstxt ?? '';
}

/** Google's tag names (reporting_robots.h) for our line kinds. */
function tagName(kind: RobotsTxtLine['kind']): string {
  switch (kind) {
    case 'user-agent':
      return 'UserAgent';
    case 'allow':
      return 'Allow';
    case 'disallow':
      return 'Disallow';
    case 'sitemap':
      return 'Sitemap';
    case 'crawl-delay':
    case 'unused':
      return 'Unused';
    default:
      return 'Unknown';
  }
}

const VALID_KINDS = new Set(['user-agent', 'allow', 'disallow', 'sitemap']);

/** What Google's RobotsStatsReporter (robots_test.cc) would count: it only hears key/value lines. */
function stats(lines: readonly RobotsTxtLine[]) {
  const directives = lines.filter((line) => line.hasDirective);
  return {
    valid_directives: directives.filter((line) => VALID_KINDS.has(line.kind)).length,
    unknown_directives: directives.filter((line) => !VALID_KINDS.has(line.kind)).length,
    last_line_seen: directives.at(-1)?.line ?? 0,
    sitemap: directives
      .filter((line) => line.kind === 'sitemap')
      .map((line) => line.value)
      .join(''),
  };
}

/** What Google's RobotsParsingReporter (reporting_robots.cc) reports: every physical line. */
function parsingReport(lines: readonly RobotsTxtLine[]) {
  return {
    valid_directives: lines.filter((line) => VALID_KINDS.has(line.kind)).length,
    last_line_seen: lines.at(-1)?.line ?? 0,
    parse_results_size: lines.length,
  };
}

describe('Google robotstxt conformance: robots_test.cc other contracts', () => {
  it('has all 85 entries', () => {
    expect(entries).toHaveLength(85);
  });

  it.each(byFunction('IsValidUserAgentToObey').map((e) => [e.id, e] as const))('%s', (_id, entry) => {
    expect(isValidProductToken(entry.input.useragent), entry.note).toBe(entry.expected);
  });

  it.each(byFunction('GetPathParamsQuery').map((e) => [e.id, e] as const))('%s', (_id, entry) => {
    expect(getPathParamsQuery(entry.input.url ?? ''), entry.note).toBe(entry.expected);
  });

  // A compiled agent locates every path through one range, which keeps the first origin it saw
  // (url.ts): each URL, read after any other as the first, must give Google's path.
  it('GetPathParamsQuery through one range that remembers an origin', () => {
    const urls = [
      ...byFunction('GetPathParamsQuery').map((entry) => entry.input.url ?? ''),
      'https://example.com/a',
      'https://example.com?x/y',
      'https://example.com;p/y',
      'https://example.com#f/y',
      'https://example.comx/y',
      'https://example.co/m/y',
      'HTTPS://example.com/y',
      'https://example.com/a#b',
      'https://example.com',
      'https://a.example.com/https://example.com/',
      `https://${'a'.repeat(600)}.example/long`,
    ];
    for (const first of urls) {
      const range = { text: '', start: 0, end: 0, origin: '' };
      for (const url of [first, ...urls]) {
        locatePath(url, range);
        expect(range.text.slice(range.start, range.end), `${url} after ${first}`).toBe(
          getPathParamsQuery(url),
        );
      }
    }
  });

  it.each(byFunction('MaybeEscapePattern').map((e) => [e.id, e] as const))('%s', (_id, entry) => {
    expect(escapePattern(entry.input.pattern ?? ''), entry.note).toBe(entry.expected);
  });

  it.each(byFunction('ParseRobotsTxt').map((e) => [e.id, e] as const))('%s', (_id, entry) => {
    const lines = readRobotsTxtLines(bodyOf(entry));
    const expected = entry.expected as Record<string, unknown>;
    const [key] = Object.keys(expected) as [string];
    if (entry.input.line_num !== undefined) {
      const line = lines[entry.input.line_num - 1] as RobotsTxtLine;
      expect(line.line).toBe(entry.input.line_num);
      expect(
        {
          tag_name: tagName(line.kind),
          is_typo: line.isAcceptableTypo,
          metadata: {
            is_empty: line.isEmpty,
            has_comment: line.hasComment,
            is_comment: line.isComment,
            has_directive: line.hasDirective,
            is_acceptable_typo: line.isAcceptableTypo,
            is_line_too_long: line.isLineTooLong,
            is_missing_colon_separator: line.isMissingColonSeparator,
          },
        },
        entry.note,
      ).toEqual(expected);
    } else if (entry.input.handler === 'RobotsParsingReporter') {
      expect(
        { [key]: parsingReport(lines)[key as keyof ReturnType<typeof parsingReport>] },
        entry.note,
      ).toEqual(expected);
    } else {
      expect({ [key]: stats(lines)[key as keyof ReturnType<typeof stats>] }, entry.note).toEqual(expected);
    }
    // The sitemap the stats handler hears is also what RobotsTxt reports.
    if (key === 'sitemap') expect(parseRobotsTxt(bodyOf(entry)).sitemaps.join('')).toBe(expected.sitemap);
  });
});
