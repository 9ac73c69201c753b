/**
 * A response's own `Content-Usage` header against the decision it was sent by (kept apart from the
 * vocabulary in content-usage.ts, which decision.ts names: this needs the Decision).
 */
import { parseContentUsageHeader, refusalOf } from './content-usage.js';
import type { Decision, DisallowedDecision } from './decision.js';

/**
 * The refusal for a response whose `Content-Usage` header says no for the decision's purpose, or
 * undefined (no purpose, no header, a malformed one, or no no). With a purpose, the response has been
 * fetched already (the header comes with the content), so what is left to do is to keep the content
 * from the caller: got and fetch reject as they would for a robots.txt refusal, Crawlee skips the
 * request handler and reports the request as skipped, a page guard answers it from
 * `blockedNavigation`. That is what a crawler author who set a purpose asks for: the content does not
 * reach the code that would use it for that purpose, and the refusal is counted and reported like any
 * other, not dropped silently. The refusal carries the header's preferences as `usage.contentUsage`
 * (robots.txt's Content-Signal, if any, kept).
 */
export function contentUsageRefusal(
  decision: Decision,
  header: string | readonly string[] | null | undefined,
): DisallowedDecision | undefined {
  const purpose = decision.purpose;
  if (purpose === undefined || header === undefined || header === null) return undefined;
  const contentUsage = parseContentUsageHeader(header);
  if (contentUsage === undefined) return undefined;
  const refusal = refusalOf({ contentUsage }, purpose, 'header');
  if (refusal === undefined) return undefined;
  const usage = { ...decision.usage, contentUsage, lines: decision.usage?.lines ?? [] };
  return { ...decision, usage, allowed: false, reason: 'usage-refused', usageRefusal: refusal };
}
