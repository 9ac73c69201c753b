/**
 * ParseOptions, checked once from one table (the kernel's options mechanism): wrong types, unknown
 * keys and unknown values are TypeErrors that echo the bad value. The facade's `parse` option takes
 * the part of this table a Politeness lets users set, so the rules are written once.
 */
import {
  booleanOption,
  checkOptions,
  numberOption,
  type OptionTable,
  oneOf,
  type ResolvedOf,
  stringOption,
} from '../kernel/option-table.js';
import { shown } from '../kernel/shown.js';
import { DEFAULT_MAX_BYTES, readBody } from './body.js';
import type { ParseOptions } from './types.js';

export const PARSE_OPTIONS = {
  // Infinity: no limit. A fraction is floored where it is read.
  maxBytes: numberOption({ infinity: true, default: DEFAULT_MAX_BYTES }),
  charset: stringOption(),
  precedence: oneOf(['longest', 'first'], { default: 'longest' }),
  wildcards: booleanOption({ default: true }),
  agentMatching: oneOf(['exact', 'substring'], { default: 'exact' }),
  percentEncoding: oneOf(['rfc', 'google'], { default: 'rfc' }),
} as const satisfies OptionTable<ParseOptions>;

export type ResolvedParseOptions = ResolvedOf<typeof PARSE_OPTIONS>;

/** The options a parsed file keeps for matching (and its JSON form stores). */
export type MatchingOptions = Pick<
  ResolvedParseOptions,
  'precedence' | 'wildcards' | 'agentMatching' | 'percentEncoding'
>;

export const DEFAULTS: ResolvedParseOptions = checkOptions('', PARSE_OPTIONS, {});

/** `caller` names the entry point in errors: "Unknown parseRobotsTxt option `bogus` ...". */
export function resolveParseOptions(options: ParseOptions | undefined, caller: string): ResolvedParseOptions {
  if (options === undefined) return DEFAULTS;
  const resolved = checkOptions(caller, PARSE_OPTIONS, options);
  return { ...resolved, maxBytes: Math.floor(resolved.maxBytes) };
}

/** An entry point's body and options, checked (TypeErrors naming `caller`), and the body read by them. */
export function readInput(body: string | Uint8Array, options: ParseOptions | undefined, caller: string) {
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) {
    throw new TypeError(`${caller}: body must be a string or a Uint8Array, got ${shown(body)}`);
  }
  const resolved = resolveParseOptions(options, caller);
  return { resolved, source: readBody(body, resolved.maxBytes, resolved.charset) };
}
