/**
 * Line records -> groups (RFC 9309 2.1, 2.2.1), with Google's grouping rules: a user-agent line starts a
 * new group only when an allow/disallow line came after the previous user-agent line; blank, comment,
 * sitemap, crawl-delay and unknown lines never end a run of user-agent lines; rules before the first
 * user-agent line belong to no group and are ignored.
 */
import { isGlobalValue, tokenOfValue } from './agent.js';
import { textOfOctets } from './bytes.js';
import { escapeValue } from './escape.js';
import type { LineRecord, Source } from './lexer.js';
import { type Group, ParsedGroup, RuleValues } from './parsed-group.js';
import { type UsageLine, usageLine } from './usage.js';

export type { Group } from './parsed-group.js';

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

/** text[start, end) as text: a binary string (one char per byte) is decoded as UTF-8. */
function valueText(text: string, start: number, end: number, binary: boolean): string {
  const value = text.slice(start, end);
  return binary ? textOfOctets(value) : value;
}

export interface GroupsResult {
  readonly groups: Group[];
  readonly sitemaps: string[];
  /** Content-Signal / Content-Usage lines before any group (usage.ts). */
  readonly usage: UsageLine[];
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
  const { lines, patterns } = group.rules;
  const rules = { lines, patterns: patterns.map(detach) };
  const { agents, global, crawlDelay, usage } = group;
  return { agents: agents.map(detach), global, rules, crawlDelay, ...(usage ? { usage } : {}) };
}

function keptLength(groups: readonly ParsedGroup[], sitemaps: readonly string[]): number {
  let length = 0;
  for (const group of groups) length += group.valueLength;
  for (const sitemap of sitemaps) length += sitemap.length;
  return length;
}

/** Builds groups from the directive lines of one lexed text (scanDirectives), then `finish`. */
export class GroupBuilder {
  readonly #groups: ParsedGroup[] = [];
  readonly #sitemaps: string[] = [];
  readonly #usage: UsageLine[] = [];
  readonly #values: RuleValues;
  #current: ParsedGroup | undefined;
  #inAgentRun = false;

  readonly #decodeUnreserved: boolean;

  constructor(source: Source, wildcards: boolean, decodeUnreserved = false) {
    this.#values = new RuleValues(source, wildcards, decodeUnreserved);
    this.#decodeUnreserved = decodeUnreserved;
  }

  /** A directive line of the lexed text (scanDirectives); its value may be in a copy of the line. */
  take(record: LineRecord): void {
    const { kind, line, text, valueStart, valueEnd, binary } = record;
    switch (kind) {
      case 'user-agent': {
        if (this.#current === undefined || !this.#inAgentRun) {
          this.#current?.close();
          this.#current = new ParsedGroup(this.#values);
          this.#groups.push(this.#current);
        }
        this.#inAgentRun = true;
        if (isGlobalValue(text, valueStart, valueEnd)) this.#current.global = true;
        else {
          const token = tokenOfValue(text, valueStart, valueEnd);
          if (token.length > 0 && !this.#current.agents.includes(token)) this.#current.agents.push(token);
        }
        return;
      }
      case 'allow':
      case 'disallow': {
        if (this.#current === undefined) return;
        this.#inAgentRun = false;
        // An empty value is no rule (it would match everything with priority 0 and decide nothing).
        if (valueStart === valueEnd) return;
        const signedLine = kind === 'allow' ? line : -line;
        if (text === this.#values.text) this.#values.add(signedLine, valueStart, valueEnd);
        else
          this.#values.addEscaped(
            signedLine,
            escapeValue(text.slice(valueStart, valueEnd), binary, record.ascii, this.#decodeUnreserved),
          );
        return;
      }
      case 'crawl-delay': {
        const group = this.#current;
        if (group === undefined || group.crawlDelay !== undefined) return;
        group.crawlDelay = parseCrawlDelay(text.slice(valueStart, valueEnd));
        return;
      }
      case 'content-usage':
      case 'content-signal':
        this.#usageLine(kind, line, text.slice(valueStart, valueEnd), binary, record.ascii);
        return;
      case 'sitemap': {
        const url = valueText(text, valueStart, valueEnd, binary);
        if (url.length > 0) this.#sitemaps.push(url);
        return;
      }
      default:
        return;
    }
  }

  /**
   * A Content-Usage / Content-Signal line (usage.ts), out of #take so the hot switch stays small. Its
   * value is copied out of the body (a few short lines), its path pattern escaped as Allow/Disallow
   * patterns are. Before any group a Content-Signal applies to every crawler (found so in the wild); a
   * Content-Usage is a group rule (draft-ietf-aipref-attach), ignored there like Allow/Disallow.
   */
  #usageLine(
    kind: 'content-usage' | 'content-signal',
    line: number,
    raw: string,
    binary: boolean,
    ascii: boolean,
  ) {
    const decode = this.#decodeUnreserved;
    const entry = usageLine(kind, line, detach(raw), (p) => escapeValue(p, binary, ascii, decode));
    const group = this.#current;
    if (group === undefined) {
      if (kind === 'content-signal') this.#usage.push(entry);
    } else if (group.usage === undefined) group.usage = [entry];
    else group.usage.push(entry);
  }

  finish(): GroupsResult {
    this.#current?.close();
    this.#values.seal();
    // A group that names no valid token and not `*` applies to nobody.
    const groups = this.#groups.filter((group) => group.global || group.agents.length > 0);
    const bodyLength = this.#values.text.length;
    if (bodyLength > DETACH_ABOVE && keptLength(groups, this.#sitemaps) * 4 < bodyLength) {
      return { groups: groups.map(detachGroup), sitemaps: this.#sitemaps.map(detach), usage: this.#usage };
    }
    return { groups, sitemaps: this.#sitemaps, usage: this.#usage };
  }
}
