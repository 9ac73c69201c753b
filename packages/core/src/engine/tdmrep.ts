/**
 * The TDMRep file, `/.well-known/tdmrep.json` (W3C TDM Reservation Protocol, Community Group Final
 * Report, 2024, "TDM File on the Origin Server"): a JSON array of rules
 * `{ "location": <path pattern>, "tdm-reservation": 0 | 1, "tdm-policy"?: <URL> }`, read here into
 * checked rules, and which rule speaks for a URL. Pure: text in, rules out; no I/O, no clock.
 *
 * What the spec says, as implemented:
 * - `location` is a path pattern with robots.txt's two special chars, `*` (any run of chars) and a
 *   final `$` (the end of the path); a literal `$` is written `%24`. It matches as a prefix,
 *   case-sensitively, after the octets of the unreserved set written as `%XX` are decoded on both
 *   sides (RFC 3986 2.3; engine/percent.ts, as robots.txt paths are compared under RFC 9309 2.2.2).
 * - The first rule in array order that matches decides; no rule matching leaves the URL unset.
 * - `location` and `tdm-reservation` are required. A file that is not JSON, not an array, or holds a
 *   rule we cannot read is malformed as a whole: it is reported and leaves every URL unset (a partial
 *   reading could unset a reservation a later rule would have refused, or the other way round).
 */
import { shown } from '../kernel/shown.js';
import { compileMatcher, type PathMatcher } from './matcher.js';
import { canonicalPath } from './percent.js';
import { getPathParamsQuery } from './url.js';

/** One rule of a tdmrep.json file, as read. */
export interface TdmRepRule {
  /** The `location` pattern as written. */
  readonly location: string;
  /** `tdm-reservation`: 1, TDM rights are reserved; 0, they are not. */
  readonly reservation: 0 | 1;
  /** `tdm-policy`, an absolute URL (a relative one is resolved against the file's URL). */
  readonly policy?: string;
}

/** What a tdmrep.json text reads as: its rules, or why none is used. */
export type TdmRepParse =
  | { readonly ok: true; readonly rules: readonly TdmRepRule[] }
  | { readonly ok: false; readonly error: string };

/** Rules read at most from one file; more is no file a site writes by hand, and is refused as malformed. */
export const MAX_TDMREP_RULES = 10_000;

/**
 * Reads a tdmrep.json body. `fileUrl` resolves a relative `tdm-policy`. Never throws: a file that is
 * not what the spec describes is `{ ok: false, error }`, the error naming the first problem.
 */
export function parseTdmRep(text: string, fileUrl?: string): TdmRepParse {
  let json: unknown;
  try {
    // A UTF-8 BOM is no JSON, but editors write one.
    json = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    return { ok: false, error: `not JSON (${(error as Error).message})` };
  }
  return tdmRepRules(json, fileUrl);
}

/**
 * The rules of an already parsed JSON value (also how a stored copy is checked on its way back in).
 */
export function tdmRepRules(json: unknown, fileUrl?: string): TdmRepParse {
  if (!Array.isArray(json)) return { ok: false, error: `not a JSON array (${shown(json)})` };
  if (json.length > MAX_TDMREP_RULES)
    return { ok: false, error: `${json.length} rules, more than ${MAX_TDMREP_RULES}` };
  const rules: TdmRepRule[] = [];
  for (let i = 0; i < json.length; i++) {
    const rule = ruleOf(json[i], fileUrl);
    if (typeof rule === 'string') return { ok: false, error: `rule ${i}: ${rule}` };
    rules.push(rule);
  }
  return { ok: true, rules };
}

function ruleOf(value: unknown, fileUrl: string | undefined): TdmRepRule | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return `not an object (${shown(value)})`;
  const entry = value as Record<string, unknown>;
  const location = entry.location;
  if (typeof location !== 'string' || location === '') return '"location" is missing or not a string';
  // A path pattern: robots.txt's, so it starts with `/` or a wildcard.
  if (location[0] !== '/' && location[0] !== '*')
    return `"location" ${JSON.stringify(location.slice(0, 80))} is not a path pattern`;
  const reservation = entry['tdm-reservation'];
  if (reservation !== 0 && reservation !== 1) return `"tdm-reservation" is ${shown(reservation)}, not 0 or 1`;
  const policy = entry['tdm-policy'];
  if (policy === undefined || policy === null) return { location, reservation };
  if (typeof policy !== 'string') return `"tdm-policy" is ${shown(policy)}, not a URL`;
  const resolved = absoluteUrl(policy, fileUrl);
  if (resolved === undefined) return `"tdm-policy" ${JSON.stringify(policy.slice(0, 80))} is not a URL`;
  return { location, reservation, policy: resolved };
}

function absoluteUrl(text: string, base: string | undefined): string | undefined {
  try {
    return new URL(text, base).href;
  } catch {
    return undefined;
  }
}

/**
 * The rule that speaks for `url` (its path, parameters and query): the first in array order whose
 * `location` matches, or undefined (the URL is unset by the file).
 */
export function matchTdmRep(rules: readonly TdmRepRule[], url: string | URL): TdmRepRule | undefined {
  if (rules.length === 0) return undefined;
  const path = comparable(getPathParamsQuery(String(url)));
  const verdict = compiled(rules).decide(path, 0, path.length);
  // Each rule's "line" is its place in the array, from 1 (see compiled).
  return verdict.rule === undefined ? undefined : rules[verdict.rule.line - 1];
}

/**
 * The rules compiled once, on first use, into robots.txt's matcher (matcher.ts) with `first`
 * precedence: the same `*` and `$` semantics and worst-case bounds as a robots.txt rule, the prefix
 * index for large files, no per-check split of the patterns. Kept beside the rules array (a cached
 * file keeps its array), and gone with it.
 */
const COMPILED = new WeakMap<readonly TdmRepRule[], PathMatcher>();

function compiled(rules: readonly TdmRepRule[]): PathMatcher {
  let matcher = COMPILED.get(rules);
  if (matcher === undefined) {
    const patterns = rules.map(({ location }) => {
      const anchored = location.endsWith('$');
      // A run of `*` matches what one does: collapsed, a hostile run costs nothing per check.
      const body = comparable(anchored ? location.slice(0, -1) : location).replace(/\*{2,}/g, '*');
      return body + (anchored ? '$' : '');
    });
    const lines = Int32Array.from(rules, (_, i) => i + 1);
    matcher = compileMatcher([{ lines, patterns }], { wildcards: true, precedence: 'first' });
    COMPILED.set(rules, matcher);
  }
  return matcher;
}

/**
 * Both sides in one form: unreserved octets decoded, other escapes upper-case (percent.ts), and a `$`
 * written in the path as `%24` (in a pattern a bare `$` is the end anchor, a literal one is `%24`).
 */
function comparable(path: string): string {
  const canonical = canonicalPath(path, 0, path.length) ?? path;
  return canonical.includes('$') ? canonical.replaceAll('$', '%24') : canonical;
}
