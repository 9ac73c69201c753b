/**
 * diffRobotsTxt: what changed between two versions of a robots.txt for one crawler. Pure.
 *
 * Rules are compared as RFC 9309's longest match reads them: by directive and (normalised) pattern,
 * whatever their line or order, so moving a line or repeating one is no change. The lines reported
 * are those of the version the rule is in.
 */
import { parseRobotsTxt } from './parse.js';
import { RobotsTxt } from './robots-txt.js';
import type { MatchedRule } from './types.js';

export interface RobotsTxtDiff {
  readonly productToken: string;
  /** The rules or the Crawl-delay of the product token differ (sitemaps do not count). */
  readonly changed: boolean;
  /** Rules of the token in `after` and not in `before`, in file order, with their line in `after`. */
  readonly added: readonly MatchedRule[];
  /** Rules of the token in `before` and not in `after`, in file order, with their line in `before`. */
  readonly removed: readonly MatchedRule[];
  /** Crawl-delay in seconds for the token, before and after (absent: none or invalid). */
  readonly crawlDelay: { readonly before?: number; readonly after?: number };
  /** Sitemap URLs (the whole file's, not the token's) added and removed. */
  readonly sitemaps: { readonly added: readonly string[]; readonly removed: readonly string[] };
}

function ruleKey(rule: MatchedRule): string {
  return `${rule.directive} ${rule.pattern}`;
}

function robotsOf(value: RobotsTxt | string | Uint8Array, which: string): RobotsTxt {
  if (value instanceof RobotsTxt) return value;
  if (typeof value === 'string' || value instanceof Uint8Array) return parseRobotsTxt(value);
  throw new TypeError(
    `diffRobotsTxt: ${which} must be a RobotsTxt, a string or a Uint8Array, got ${value === null ? 'null' : typeof value}`,
  );
}

/** Items of `list` not in `other`, each key once, in the order of `list`. */
function missingFrom<T>(list: readonly T[], other: readonly T[], key: (item: T) => string): T[] {
  const present = new Set(other.map(key));
  const seen = new Set<string>();
  return list.filter((item) => {
    const k = key(item);
    if (present.has(k) || seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/**
 * What changed for `productToken` from `before` to `after`: each a parsed RobotsTxt (the cache's) or a
 * body, parsed with the default options. TypeError for arguments of the wrong type.
 */
export function diffRobotsTxt(
  before: RobotsTxt | string | Uint8Array,
  after: RobotsTxt | string | Uint8Array,
  productToken: string,
): RobotsTxtDiff {
  if (typeof productToken !== 'string') {
    throw new TypeError(`diffRobotsTxt: productToken must be a string, got ${typeof productToken}`);
  }
  const beforeRobots = robotsOf(before, 'before');
  const afterRobots = robotsOf(after, 'after');
  const old = beforeRobots.forAgent(productToken);
  const now = afterRobots.forAgent(productToken);
  const added = missingFrom(now.rules, old.rules, ruleKey);
  const removed = missingFrom(old.rules, now.rules, ruleKey);
  const url = (sitemap: string) => sitemap;
  return {
    productToken,
    changed: added.length > 0 || removed.length > 0 || old.crawlDelay !== now.crawlDelay,
    added,
    removed,
    crawlDelay: {
      ...(old.crawlDelay !== undefined ? { before: old.crawlDelay } : {}),
      ...(now.crawlDelay !== undefined ? { after: now.crawlDelay } : {}),
    },
    sitemaps: {
      added: missingFrom(afterRobots.sitemaps, beforeRobots.sitemaps, url),
      removed: missingFrom(beforeRobots.sitemaps, afterRobots.sitemaps, url),
    },
  };
}
