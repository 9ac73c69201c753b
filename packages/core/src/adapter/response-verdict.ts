/**
 * The one verdict on a response, for every adapter and every path (got's promise and stream, fetch,
 * Crawlee's HTTP and browser crawlers, the page guard, `sendHop`): what its status, headers and,
 * when the adapter has read the page, its meta tags say about the content for the crawl's `purpose`.
 * A redirect's body is no content: its headers are not read.
 */
import { contentUsageRefusal } from '../kernel/content-usage-refusal.js';
import type { Decision, DisallowedDecision } from '../kernel/decision.js';
import { headerOf, type ResponseHeaders } from '../kernel/headers.js';
import { isRedirectStatus } from '../kernel/redirect-rule.js';
import { type TdmDeclaration, tdmRefusal } from '../kernel/tdm-reservation.js';

/** A response's headers as a client hands them over: a record (lower-case names, Node's) or a `get`. */
export type ResponseHeadersLike = ResponseHeaders;

export interface ResponseToJudge {
  /** The status; a redirect (3xx with a Location to follow) is never judged. */
  readonly status?: number;
  readonly headers?: ResponseHeadersLike | null;
  /** The page's TDMRep meta tags, when the adapter read the body (`readTdmDeclarations`). */
  readonly meta?: TdmDeclaration;
}

/**
 * The refusal for a response the `decision` let through, or undefined: its `Content-Usage` header
 * says no for the purpose (kernel/content-usage-refusal.ts), or its TDMRep header or meta tags
 * reserve TDM rights for a TDM purpose (kernel/tdm-reservation.ts). The content was fetched; the
 * adapter withholds it (rejects, errors the stream before any byte, skips the handler) and reports
 * the refusal with stage 'response'. Never throws on what a site sends.
 */
export function responseVerdict(
  decision: Decision,
  response: ResponseToJudge,
): DisallowedDecision | undefined {
  if (decision.purpose === undefined) return undefined;
  if (response.status !== undefined && isRedirectStatus(response.status)) return undefined;
  const read = (name: string) => headerOf(response.headers, name);
  return (
    contentUsageRefusal(decision, read('content-usage')) ??
    tdmRefusal(decision, { reservation: read('tdm-reservation'), policy: read('tdm-policy') }, response.meta)
  );
}
