/**
 * TDMRep (W3C TDM Reservation Protocol, Community Group Final Report, 2024) as the adapters and page
 * guards apply it after a response: its `tdm-reservation` / `tdm-policy` headers and meta tags over
 * what the origin's `/.well-known/tdmrep.json` said (engine/tdmrep.ts reads the file). Pure; in the
 * kernel because adapters and browser pages, which may not run engine code, need it.
 *
 * Which purposes it concerns: TDMRep is the machine-readable form of the EU DSM Directive's Art. 4
 * opt-out from text and data mining, "any automated analytical technique aimed at analysing text and
 * data in digital form in order to generate information" (Art. 2(2)). Training a model on the
 * content (`ai-train`) is that. So is `ai-input`: feeding pages to a model that analyses them to
 * generate an answer (retrieval, grounding, summaries) is an automated analysis of the text to
 * generate information, and the site that reserved TDM rights did not carve it out. `search`
 * (indexing pages so people find and visit them) is not mining in that sense, and TDMRep does not
 * apply to it: no tdmrep.json is fetched for it, no header read.
 */
import type { UsagePurpose } from './content-usage.js';
import type { Decision, DisallowedDecision, TdmReservation } from './decision.js';
import { headerLines } from './headers.js';
import { httpHref } from './http-url.js';

export type { TdmReservation, TdmSource } from './decision.js';

/** The purposes TDMRep's reservation concerns (see the file comment for why `ai-input` is one). */
export const TDM_PURPOSES: ReadonlySet<UsagePurpose> = new Set<UsagePurpose>(['ai-train', 'ai-input']);

/** True when `purpose` is text and data mining, so TDMRep applies. */
export function isTdmPurpose(purpose: UsagePurpose | undefined): boolean {
  return purpose !== undefined && TDM_PURPOSES.has(purpose);
}

/**
 * A `tdm-reservation` value (header or meta content): 1 or 0 after trimming; anything else, several
 * values included, is unset (the spec: "any other value ... MUST be ignored"). Several header lines
 * (a list, or joined with `, ` or a line break) count only when they agree.
 */
export function readTdmReservation(value: string | readonly string[] | null | undefined): 0 | 1 | undefined {
  const lines = headerLines(value)
    .flatMap((line) => line.split(','))
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const [first] = lines;
  if (first !== '0' && first !== '1') return undefined;
  return lines.every((line) => line === first) ? (first === '1' ? 1 : 0) : undefined;
}

/** A `tdm-policy` value: an absolute http(s) URL (relative ones resolved against `base`), else undefined. */
export function readTdmPolicy(
  value: string | readonly string[] | null | undefined,
  base?: string,
): string | undefined {
  const first = headerLines(value)[0]?.trim() ?? '';
  return first === '' ? undefined : httpHref(first, base);
}

/** One declaration a response gives: its reservation value and policy as the client hands them over. */
export interface TdmDeclaration {
  readonly reservation?: string | readonly string[] | null | undefined;
  readonly policy?: string | readonly string[] | null | undefined;
}

/**
 * The TDMRep verdict after a response: the file's (on the decision), then the response's headers,
 * then the page's meta tags, each overriding the one before when it says 0 or 1 (the spec's order).
 * A declaration's policy goes with its own reservation. Undefined when nothing says anything.
 */
export function tdmAfterResponse(
  decision: Decision,
  header: TdmDeclaration | undefined,
  meta?: TdmDeclaration,
): TdmReservation | undefined {
  let verdict = decision.tdm;
  for (const [source, declared] of [
    ['header', header],
    ['meta', meta],
  ] as const) {
    const value = readTdmReservation(declared?.reservation);
    if (value === undefined) continue;
    const policy = readTdmPolicy(declared?.policy, decision.url);
    verdict = { reserved: value === 1, source, ...(policy !== undefined ? { policy } : {}) };
  }
  return verdict;
}

/**
 * The refusal for a fetched response whose TDMRep declarations reserve TDM rights for a crawl whose
 * `purpose` is TDM (reason 'tdm-reserved', `decision.tdm` saying by which declaration, with its
 * policy), or undefined: no TDM purpose, nothing reserved, or a `0` that overrides the file's `1`.
 * The content is then withheld from the caller as for a Content-Usage refusal
 * (content-usage-refusal.ts).
 */
export function tdmRefusal(
  decision: Decision,
  header: TdmDeclaration | undefined,
  meta?: TdmDeclaration,
): DisallowedDecision | undefined {
  if (!isTdmPurpose(decision.purpose)) return undefined;
  const verdict = tdmAfterResponse(decision, header, meta);
  if (!verdict?.reserved) return undefined;
  return { ...decision, tdm: verdict, allowed: false, reason: 'tdm-reserved' };
}
