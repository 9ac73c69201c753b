/**
 * Public types of the rules engine (pure: no I/O, no clock, no node:*).
 */
import type { UsageLine, UsagePreferences } from './usage.js';

export type Directive = 'allow' | 'disallow';

/** The robots.txt line that decided a verdict. `line` is 1-based, as an editor shows it. */
export interface MatchedRule {
  readonly directive: Directive;
  /** The pattern as normalised for matching (non-ASCII and %xx escaped as Google does). */
  readonly pattern: string;
  readonly line: number;
}

/** A verdict. `rule` is absent when no rule matched (or there were no rules): then `allowed` is true. */
export interface Verdict {
  readonly allowed: boolean;
  readonly rule?: MatchedRule;
}

export interface ParseOptions {
  /** Bytes parsed at most; the rest is cut and reported (`RobotsTxt.truncated`). Default 512,000 (RFC 9309 2.5). */
  readonly maxBytes?: number;
  /** Charset from a Content-Type header (e.g. `iso-8859-1`). A BOM wins over it. Default UTF-8. */
  readonly charset?: string;
  /** `longest` (RFC 9309, default) or `first` (first matching rule in file order, as older Ruby/Java parsers). */
  readonly precedence?: 'longest' | 'first';
  /** `true` (default): `*` and a final `$` are wildcards. `false`: both are literal (MK1996 syntax). */
  readonly wildcards?: boolean;
  /** `exact` (default, RFC 9309): the caller's token equals the line's token. `substring`: the line's token may appear anywhere in the caller's agent string. */
  readonly agentMatching?: 'exact' | 'substring';
  /**
   * `rfc` (default, RFC 9309 2.2.2): `%XX` of an unreserved octet (`A-Z a-z 0-9 - . _ ~`) is decoded in
   * both the URL path and the patterns, other `%xx` compared as upper-case hex, so `/%70rivate` is
   * `/private`. `google`: compared as written, as Google's robotstxt does (hex case aside).
   */
  readonly percentEncoding?: 'rfc' | 'google';
}

/** Compiled rules of one product token, for repeated checks without re-selecting groups. */
export interface AgentRules {
  readonly productToken: string;
  check(url: string): Verdict;
  isAllowed(url: string): boolean;
  /** Crawl-delay in seconds for this agent's group(s), fractional values kept; undefined when absent or invalid. */
  readonly crawlDelay: number | undefined;
  /** The rules of this agent's group(s), in file order, as the file writes them (patterns normalised). */
  readonly rules: readonly MatchedRule[];
  /**
   * AI usage preferences (Content-Usage, Content-Signal) that apply to the URL for this agent;
   * undefined when none do, or when the URL is disallowed (preferences apply only to fetchable paths).
   */
  usage(url: string): UsagePreferences | undefined;
  /** This agent's Content-Usage / Content-Signal lines, file-level ones included, in file order. */
  readonly usageLines: readonly UsageLine[];
}
