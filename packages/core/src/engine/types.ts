/**
 * Public types of the rules engine (pure: no I/O, no clock, no node:*).
 */
import type { UsageLabels } from '../kernel/content-usage.js';

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

// The usage lines' types (usage.ts) live here so that this file needs nothing of the engine's.

/** Which of the two lines a usage line is. */
export type UsageLineKind = 'content-usage' | 'content-signal';

/** One Content-Usage or Content-Signal line as parsed. */
export interface UsageLine {
  readonly kind: UsageLineKind;
  /** 1-based line number. */
  readonly line: number;
  /** Content-Usage only: the path pattern, escaped as Allow/Disallow patterns are; absent: every path. */
  readonly pattern?: string;
  /** The preference text as written (after the path pattern), kept for serialising and showing. */
  readonly value: string;
  /** Label -> value (`y`, `n`, `yes`, `no`, or an unknown item as written); undefined when malformed. */
  readonly prefs: Readonly<Record<string, string>> | undefined;
}

/** The preferences that apply to one URL for one agent; only present keys say anything. */
export interface UsagePreferences extends UsageLabels {
  /** The robots.txt lines they come from, in file order. */
  readonly lines: readonly number[];
}
