/**
 * ParseOptions, checked once: wrong types and unknown values are TypeErrors that echo the bad value.
 */
import { DEFAULT_MAX_BYTES } from './body.js';
import type { ParseOptions } from './types.js';

/** The options a parsed file keeps for matching (and its JSON form stores). */
export type MatchingOptions = Pick<
  ResolvedParseOptions,
  'precedence' | 'wildcards' | 'agentMatching' | 'percentEncoding'
>;

export interface ResolvedParseOptions {
  readonly maxBytes: number;
  readonly charset: string | undefined;
  readonly precedence: 'longest' | 'first';
  readonly wildcards: boolean;
  readonly agentMatching: 'exact' | 'substring';
  readonly percentEncoding: 'rfc' | 'google';
}

const KNOWN_KEYS = new Set([
  'maxBytes',
  'charset',
  'precedence',
  'wildcards',
  'agentMatching',
  'percentEncoding',
]);

function describe(value: unknown): string {
  return typeof value === 'string' ? `"${value}" (string)` : `${String(value)} (${typeof value})`;
}

export function resolveParseOptions(options: ParseOptions | undefined, caller: string): ResolvedParseOptions {
  if (options === undefined) return DEFAULTS;
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`${caller}: options must be an object, got ${describe(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (!KNOWN_KEYS.has(key)) throw new TypeError(`${caller}: unknown option "${key}"`);
  }
  const { maxBytes, charset, precedence, wildcards, agentMatching, percentEncoding } = options;
  if (percentEncoding !== undefined && percentEncoding !== 'rfc' && percentEncoding !== 'google') {
    throw new TypeError(
      `${caller}: percentEncoding must be "rfc" or "google", got ${describe(percentEncoding)}`,
    );
  }
  if (maxBytes !== undefined && !(typeof maxBytes === 'number' && maxBytes >= 0 && !Number.isNaN(maxBytes))) {
    throw new TypeError(`${caller}: maxBytes must be a number >= 0, got ${describe(maxBytes)}`);
  }
  if (charset !== undefined && typeof charset !== 'string') {
    throw new TypeError(`${caller}: charset must be a string, got ${describe(charset)}`);
  }
  if (precedence !== undefined && precedence !== 'longest' && precedence !== 'first') {
    throw new TypeError(`${caller}: precedence must be "longest" or "first", got ${describe(precedence)}`);
  }
  if (wildcards !== undefined && typeof wildcards !== 'boolean') {
    throw new TypeError(`${caller}: wildcards must be a boolean, got ${describe(wildcards)}`);
  }
  if (agentMatching !== undefined && agentMatching !== 'exact' && agentMatching !== 'substring') {
    throw new TypeError(
      `${caller}: agentMatching must be "exact" or "substring", got ${describe(agentMatching)}`,
    );
  }
  return {
    maxBytes: maxBytes === undefined ? DEFAULT_MAX_BYTES : Math.floor(maxBytes),
    charset,
    precedence: precedence ?? 'longest',
    wildcards: wildcards ?? true,
    agentMatching: agentMatching ?? 'exact',
    percentEncoding: percentEncoding ?? 'rfc',
  };
}

export const DEFAULTS: ResolvedParseOptions = Object.freeze({
  maxBytes: DEFAULT_MAX_BYTES,
  charset: undefined,
  precedence: 'longest',
  wildcards: true,
  agentMatching: 'exact',
  percentEncoding: 'rfc',
});
