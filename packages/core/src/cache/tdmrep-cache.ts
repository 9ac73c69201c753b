/**
 * The TDMRep file: each origin's `/.well-known/tdmrep.json` (W3C TDM Reservation Protocol, "TDM File
 * on the Origin Server") as a well-known file of the one file cache (file-cache.ts), so it is kept,
 * stored, refreshed (conditionally when it can), single-flighted across a fleet and bounded by
 * `memory.budgetBytes` as robots.txt is. Only a crawl whose `purpose` is text and data mining asks
 * for it.
 *
 * Outcomes, and what each means for the origin's URLs (the verdict itself is the facade's):
 * - `ok`: a 2xx body that reads as the spec's array of rules; its rules apply.
 * - `absent`: 4xx (404 above all), an empty 2xx body or an HTML page (a site that answers every
 *   unknown path with its home page or an error page, with a 200), or redirects past the limit: no
 *   file, every URL unset by it, and nothing reported (most sites have none).
 * - `malformed`: a 2xx body that is not JSON, not an array, holds a rule we cannot read, or was cut
 *   at the byte limit: reported (`tdmrep-malformed`, and the operator's log), then unset.
 * - `unreachable`: 429, 5xx, no answer or a timeout: the last good copy while `robots.staleTtlMs`
 *   allows, else unset for now, and fetched again with robots.txt's backoff. TDMRep is an opt-out a
 *   site states; a site whose file cannot be read has stated nothing we can see, and its headers and
 *   meta tags still speak on each response. Refusing every page of an origin because one file is
 *   down would stall a crawl for a signal most sites never send.
 *
 * A file's rules may hold at most its share of the budget, `memory.budgetBytes / FILE_SHARE`: the
 * rules past it are ignored, as robots.txt's past `robots.maxBytes` are (RFC 9309 2.5), so one
 * origin's file never takes the room of hundreds and a crawl the budget was sized for is never
 * fetched again for it. The first rule that matches decides, so the rules kept decide every URL they
 * match as the whole file would.
 */
import { parseTdmRep, type TdmRepRule, tdmRepRules } from '../engine/tdmrep.js';
import { createFileCache, type FileCache, type FileCacheDeps, type FileCacheOptions } from './file-cache.js';
import type { WellKnownFile } from './origin-state.js';
import { MAX_STORED_ERROR } from './stored-record.js';

export const TDMREP_PATH = '/.well-known/tdmrep.json';
/** v2: the one record layout of every well-known file (stored-record.ts); v1 records are not read. */
export const TDMREP_KEY_PREFIX = 'politely:tdmrep:v2:';
/** One file's rules hold at most this fraction of `memory.budgetBytes` (256 MiB: 512 KiB, ~1,500 rules). */
export const FILE_SHARE = 512;

export type TdmRepOutcome = 'ok' | 'absent' | 'malformed' | 'unreachable';

/** What the cache knows about one origin's tdmrep.json. */
export interface TdmRepEntry {
  readonly origin: string;
  /** `https://example.com/.well-known/tdmrep.json`. */
  readonly fileUrl: string;
  readonly outcome: TdmRepOutcome;
  /** HTTP status of the fetch (0: no answer). */
  readonly status: number;
  /** The file's rules (`ok`, or a good copy standing in while unreachable; empty otherwise). */
  readonly rules: readonly TdmRepRule[];
  readonly fetchedAt: number;
  readonly freshUntil: number;
  /** Why the file is malformed, cut, or could not be fetched. */
  readonly error?: string;
}

/** A 2xx body, read: its rules, and how many it had when they did not all fit (`of`). */
interface TdmRepFile {
  readonly outcome: 'ok' | 'absent' | 'malformed';
  readonly rules: readonly TdmRepRule[];
  readonly error?: string;
  readonly of?: number;
}

export interface TdmRepCacheStats {
  /** Fetches of tdmrep.json by outcome. */
  readonly fetches: Readonly<Record<TdmRepOutcome, number>>;
}

export interface TdmRepCache extends Omit<FileCache<TdmRepEntry>, 'stats'> {
  stats(): TdmRepCacheStats;
}

/** A tdmrep.json is a few rules; robots.txt's byte limit (500 KiB by default) bounds it too. */
const ACCEPT = 'application/json, */*;q=0.1';

export function createTdmRepCache(options: FileCacheOptions, deps: FileCacheDeps): TdmRepCache {
  const fetches: Record<TdmRepOutcome, number> = { ok: 0, absent: 0, malformed: 0, unreachable: 0 };
  const share = Math.floor(options.memoryBudgetBytes / FILE_SHARE);
  const file: WellKnownFile<TdmRepFile, TdmRepEntry> = {
    path: TDMREP_PATH,
    storePrefix: TDMREP_KEY_PREFIX,
    lockName: (origin) => `tdmrep:${origin}`,
    accept: ACCEPT,
    parseKey: 'tdmrep',
    read(result) {
      const text = new TextDecoder('utf-8').decode(result.body ?? new Uint8Array());
      // A 2xx that is no file at all: empty, or a page of markup (no JSON starts with `<`). Judged by
      // the body, not the Content-Type: a real file served as text/html is still read.
      const body = text.trimStart();
      if (body === '' || body.startsWith('<')) return { outcome: 'absent', rules: [] };
      const cut = (result.body?.byteLength ?? 0) > options.robotsMaxBytes;
      const parsed = cut ? rulesBeforeCut(text, result.finalUrl) : parseTdmRep(text, result.finalUrl);
      if (!parsed.ok) {
        const error = cut ? `larger than ${options.robotsMaxBytes} bytes, and ${parsed.error}` : parsed.error;
        return { outcome: 'malformed', rules: [], error: error.slice(0, MAX_STORED_ERROR) };
      }
      return withinShare(parsed.rules, share, cut ? parsed.rules.length + 1 : undefined);
    },
    toJSON: ({ rules, ...file }) => ({
      ...file,
      rules: rules.map((rule) => ({
        location: rule.location,
        'tdm-reservation': rule.reservation,
        ...(rule.policy !== undefined ? { 'tdm-policy': rule.policy } : {}),
      })),
    }),
    fromJSON(json, url) {
      const { outcome, rules, error, of } = json as Record<string, unknown>;
      const read = tdmRepRules(rules, url);
      const fine =
        read.ok &&
        (outcome === 'ok' || read.rules.length === 0) &&
        (outcome === 'ok' || outcome === 'absent' || outcome === 'malformed') &&
        (error === undefined || (typeof error === 'string' && error.length <= MAX_STORED_ERROR)) &&
        (of === undefined || (Number.isSafeInteger(of) && (of as number) > read.rules.length));
      if (!fine) throw new TypeError('stored tdmrep.json rules');
      // Written by a process with a larger budget: cut to this one's share.
      if (outcome === 'ok') return withinShare(read.rules, share, of as number | undefined);
      return { outcome, rules: [], ...(error !== undefined ? { error: error as string } : {}) };
    },
    estimateBytes: ({ rules }) => rules.reduce((bytes, rule) => bytes + ruleBytes(rule), 0),
    entry: ({ url, source, rules, origin, status, fetchedAt, freshUntil, error }) => ({
      origin,
      fileUrl: url,
      outcome:
        source === 'unavailable'
          ? 'absent'
          : source === 'unreachable'
            ? 'unreachable'
            : (rules?.outcome ?? 'absent'),
      status,
      rules: rules?.rules ?? [],
      fetchedAt,
      freshUntil,
      ...(error !== undefined ? { error } : rules?.error !== undefined ? { error: rules.error } : {}),
    }),
    fetched(report, state) {
      // A 304 renewed the copy (nothing fetched), or renewed nothing (the next request counts).
      if (report.outcome === 'not-modified' || state === undefined) return undefined;
      const { outcome, error } = state.entry;
      fetches[outcome]++;
      const { origin, robotsUrl: url } = report;
      const file = report.outcome === 'ok' ? state.good?.rules : undefined;
      if (outcome === 'malformed')
        return { type: 'tdmrep-malformed', origin, url, error: error ?? 'malformed' };
      if (file?.of === undefined) return undefined;
      return { type: 'tdmrep-truncated', origin, url, rules: file.of, kept: file.rules.length };
    },
  };
  const cache = createFileCache(file, { onUnauthorized: 'allow', unreachablePolicy: 'rfc' }, options, deps);
  return { ...cache, stats: () => ({ fetches: { ...fetches } }) };
}

/**
 * The rules, or the first of them that fit `share` bytes, the rest ignored (`of`: how many the file
 * had, at least, when some were left out: `given` when the file itself was cut).
 */
function withinShare(rules: readonly TdmRepRule[], share: number, given?: number): TdmRepFile {
  let bytes = 0;
  let kept = 0;
  for (; kept < rules.length; kept++) {
    bytes += ruleBytes(rules[kept] as TdmRepRule);
    if (bytes > share) break;
  }
  const of = kept < rules.length ? Math.max(rules.length, given ?? 0) : given;
  if (of === undefined) return { outcome: 'ok', rules };
  const error = `the first ${kept} of ${of} rules are used: the rest are past robots.maxBytes or this file's share of memory.budgetBytes`;
  return { outcome: 'ok', rules: kept < rules.length ? rules.slice(0, kept) : rules, error, of };
}

/**
 * The whole rules of a file cut at the byte limit: the array up to the last rule that ended before
 * the cut, as robots.txt's lines past the limit are ignored. A `}` inside a string may end a try too
 * early or in the middle; a few are tried, then the file is malformed.
 */
function rulesBeforeCut(text: string, fileUrl: string) {
  let end = text.lastIndexOf('}');
  let parsed = parseTdmRep('');
  for (let tries = 0; tries < 8 && end > 0; tries++) {
    parsed = parseTdmRep(`${text.slice(0, end + 1)}]`, fileUrl);
    if (parsed.ok) return parsed;
    end = text.lastIndexOf('}', end - 1);
  }
  return parsed;
}

/**
 * A rule's bytes once compiled: the rule object, its strings (two bytes a character, the location
 * twice: as written and as the matcher's pattern) and its slots in the matcher.
 */
function ruleBytes(rule: TdmRepRule): number {
  return 120 + 4 * rule.location.length + 2 * (rule.policy?.length ?? 0);
}
