/**
 * Line records -> groups (RFC 9309 2.1, 2.2.1), with Google's grouping rules: a user-agent line starts a
 * new group only when an allow/disallow line came after the previous user-agent line; blank, comment,
 * sitemap, crawl-delay and unknown lines never end a run of user-agent lines; rules before the first
 * user-agent line belong to no group and are ignored.
 */
import { isGlobalValue, tokenOfValue } from './agent.js';
import { escapeValue } from './escape.js';
import type { LineRecord } from './lines.js';
import type { RuleList } from './matcher.js';

export interface Group {
  /** Lower-cased product tokens named by the group's user-agent lines (`Googlebot/2.1` gives `googlebot`). */
  readonly agents: string[];
  /** A `User-agent: *` line is in the group. */
  global: boolean;
  /** `[line, pattern, ...]` in file order, the line negated for a Disallow (the JSON form, see serialize.ts). */
  readonly rules: RuleList;
  /** The group's first valid Crawl-delay, in seconds. */
  crawlDelay: number | undefined;
}

/** Crawl-delays above one day are capped to one day: still a request for slowness, never a crash. */
export const MAX_CRAWL_DELAY_SECONDS = 86_400;

/**
 * A Crawl-delay value in seconds: a plain decimal (`10`, `0.5`, `.5`, `10.0`), capped at one day.
 * Anything else (`-1`, `[5]`, `1e80`, `10s`, `NaN`) is undefined: ignored.
 */
export function parseCrawlDelay(value: string): number | undefined {
  if (!/^(?:\d+(?:\.\d*)?|\.\d+)$/.test(value)) return undefined;
  const seconds = Number(value);
  if (!Number.isFinite(seconds)) return MAX_CRAWL_DELAY_SECONDS;
  return Math.min(seconds, MAX_CRAWL_DELAY_SECONDS);
}

const decoder = new TextDecoder();

/** A value as text: binary strings (one char per byte) are decoded as UTF-8. */
export function valueText(record: LineRecord): string {
  const value = record.text.slice(record.valueStart, record.valueEnd);
  if (!record.binary) return value;
  return decoder.decode(Uint8Array.from(value, (char) => char.charCodeAt(0)));
}

export interface GroupsResult {
  readonly groups: Group[];
  readonly sitemaps: string[];
}

/** Google-only: an Allow ending in `/index.htm` or `/index.html` also allows its directory (`<dir>/$`). */
function indexDirectoryPattern(pattern: string): string | undefined {
  // Most patterns name no index page: one native forward search rules them out.
  if (pattern.indexOf('/index.htm') === -1) return undefined;
  const slash = pattern.lastIndexOf('/');
  if (!pattern.startsWith('/index.htm', slash)) return undefined;
  return `${pattern.slice(0, slash + 1)}$`;
}

/**
 * Values are slices of the body, and V8 keeps a whole string alive while any slice of it lives. When
 * little of a large body is kept (an HTML page with two rules), the kept strings are copied out so that
 * a cached RobotsTxt does not hold the body; otherwise the slices cost less than copies.
 */
const DETACH_ABOVE = 16_384;

function detach(value: string): string {
  // Concatenation then slicing makes V8 flatten into a new string that no longer points at the body.
  return ` ${value}`.slice(1);
}

function detachGroup(group: Group): Group {
  const rules = group.rules.slice();
  for (let i = 1; i < rules.length; i += 2) rules[i] = detach(rules[i] as string);
  return { agents: group.agents.map(detach), global: group.global, rules, crawlDelay: group.crawlDelay };
}

function keptLength(groups: readonly Group[], sitemaps: readonly string[]): number {
  let length = 0;
  for (const group of groups) {
    const rules = group.rules;
    for (let i = 1; i < rules.length; i += 2) length += (rules[i] as string).length;
  }
  for (const sitemap of sitemaps) length += sitemap.length;
  return length;
}

/** Builds groups from records; call `add` for each record, then `finish`. */
export class GroupBuilder {
  readonly #groups: Group[] = [];
  readonly #sitemaps: string[] = [];
  readonly #wildcards: boolean;
  #current: Group | undefined;
  #inAgentRun = false;

  constructor(wildcards: boolean) {
    this.#wildcards = wildcards;
  }

  add(record: LineRecord): void {
    const { text } = record;
    switch (record.kind) {
      case 'user-agent': {
        if (this.#current === undefined || !this.#inAgentRun) {
          this.#current = { agents: [], global: false, rules: [], crawlDelay: undefined };
          this.#groups.push(this.#current);
        }
        this.#inAgentRun = true;
        const { valueStart, valueEnd } = record;
        if (isGlobalValue(text, valueStart, valueEnd)) this.#current.global = true;
        else {
          const token = tokenOfValue(text, valueStart, valueEnd);
          if (token.length > 0 && !this.#current.agents.includes(token)) this.#current.agents.push(token);
        }
        return;
      }
      case 'allow':
      case 'disallow': {
        const group = this.#current;
        if (group === undefined) return;
        this.#inAgentRun = false;
        const { valueStart, valueEnd, line } = record;
        // An empty value is no rule (it would match everything with priority 0 and decide nothing).
        if (valueStart === valueEnd) return;
        const pattern = escapeValue(text.slice(valueStart, valueEnd), record.binary, record.ascii);
        const rules = group.rules;
        if (record.kind === 'disallow') {
          rules.push(-line, pattern);
        } else {
          rules.push(line, pattern);
          if (this.#wildcards) {
            const directory = indexDirectoryPattern(pattern);
            if (directory !== undefined) rules.push(line, directory);
          }
        }
        return;
      }
      case 'crawl-delay': {
        const group = this.#current;
        if (group === undefined || group.crawlDelay !== undefined) return;
        group.crawlDelay = parseCrawlDelay(text.slice(record.valueStart, record.valueEnd));
        return;
      }
      case 'sitemap': {
        const url = valueText(record);
        if (url.length > 0) this.#sitemaps.push(url);
        return;
      }
      default:
        return;
    }
  }

  /** `bodyLength`: length of the lexed text, to decide whether kept strings should be detached from it. */
  finish(bodyLength: number): GroupsResult {
    // A group that names no valid token and not `*` applies to nobody.
    const groups = this.#groups.filter((group) => group.global || group.agents.length > 0);
    if (bodyLength > DETACH_ABOVE && keptLength(groups, this.#sitemaps) * 4 < bodyLength) {
      return { groups: groups.map(detachGroup), sitemaps: this.#sitemaps.map(detach) };
    }
    return { groups, sitemaps: this.#sitemaps };
  }
}
