/**
 * Change awareness: when a refresh replaces the rules an origin had, what changed for our product
 * token. Pure.
 */
import { diffRobotsTxt, parseRobotsTxt, type RobotsTxt } from '../engine/index.js';
import type { PolitelyEvent } from '../kernel/events.js';
import type { OriginState as FileState } from './origin-state.js';
import type { RobotsEntry } from './types.js';

type OriginState = FileState<RobotsTxt, RobotsEntry>;

/** The rules a state has crawlers follow: a good copy's, none (an empty file: allow all) when unavailable. */
function rulesOf(state: OriginState): RobotsTxt | undefined {
  if (state.outcome === 'unavailable') return parseRobotsTxt('');
  return state.good?.rules;
}

/**
 * The `robots-changed` event for a refresh from `before` to `after`, or undefined: when nothing was
 * known before, when there were no rules before (an origin we had no rules for), when the new state
 * has no rules of its own (unreachable: the old copy stands in), or when the rules and Crawl-delay for
 * `productToken` are the same. Never throws: a failure of ours only means no event.
 */
export function robotsChangedEvent(
  before: OriginState | undefined,
  after: OriginState,
  productToken: string,
): PolitelyEvent | undefined {
  const old = before?.good?.rules;
  const now = after.outcome === 'unreachable' ? undefined : rulesOf(after);
  if (old === undefined || now === undefined || old === now) return undefined;
  try {
    const diff = diffRobotsTxt(old, now, productToken);
    if (!diff.changed) return undefined;
    return { type: 'robots-changed', origin: after.entry.origin, robotsUrl: after.entry.robotsUrl, diff };
  } catch {
    return undefined;
  }
}
