/**
 * The versioned JSON form of a RobotsTxt, for caches: groups and escaped rules, never the raw body.
 *
 * `{ v: 1, b: byteLength, g: [{ a: agents, r: [line, pattern, ...], d?: crawlDelay }], s?: sitemaps,
 * t?: true, o?: options }`. Agents are lower-cased tokens, `*` marks the global group; a negative line
 * number marks a Disallow rule. Usage lines (usage.ts) are `u: [line, value, ...]` on a group and at the
 * top level (file-level ones), a negative line marking a Content-Signal, the value as written after
 * the path pattern, with the escaped pattern before it for a Content-Usage line that has one
 * (`[line, value, pattern]` triples: `''` for none); they are parsed again on reading.
 */
import type { Group } from './groups.js';
import type { MatchingOptions } from './options.js';
import { canonicalPath } from './percent.js';
import type { RuleList } from './rules.js';
import { type UsageLine, usageLine } from './usage.js';

/** What a RobotsTxt is made of; produced by parseRobotsTxt or RobotsTxt.fromJSON. */
export interface RobotsTxtData {
  readonly groups: readonly Group[];
  readonly sitemaps: readonly string[];
  /** Content-Signal / Content-Usage lines before any group (usage.ts). */
  readonly usage?: readonly UsageLine[];
  readonly truncated: boolean;
  readonly byteLength: number;
  readonly options: MatchingOptions;
}

export interface SerializedGroup {
  readonly a: readonly string[];
  readonly r: readonly (number | string)[];
  readonly d?: number;
  readonly u?: readonly (number | string)[];
}

export interface SerializedRobotsTxt {
  readonly v: 1;
  readonly b: number;
  readonly g: readonly SerializedGroup[];
  readonly s?: readonly string[];
  readonly t?: true;
  readonly u?: readonly (number | string)[];
  readonly o?: { readonly p?: 'first'; readonly w?: false; readonly m?: 'substring'; readonly e?: 'google' };
}

export function encodeSerialized(
  groups: readonly Group[],
  sitemaps: readonly string[],
  truncated: boolean,
  byteLength: number,
  options: MatchingOptions,
  usage: readonly UsageLine[] = [],
): SerializedRobotsTxt {
  const g = groups.map((group): SerializedGroup => {
    const r = flatRules(group.rules);
    const a = group.global ? ['*', ...group.agents] : group.agents;
    const u = group.usage && group.usage.length > 0 ? { u: flatUsage(group.usage) } : {};
    return group.crawlDelay === undefined ? { a, r, ...u } : { a, r, d: group.crawlDelay, ...u };
  });
  const o: { p?: 'first'; w?: false; m?: 'substring'; e?: 'google' } = {};
  if (options.precedence === 'first') o.p = 'first';
  if (!options.wildcards) o.w = false;
  if (options.agentMatching === 'substring') o.m = 'substring';
  if (options.percentEncoding === 'google') o.e = 'google';
  return {
    v: 1,
    b: byteLength,
    g,
    ...(sitemaps.length > 0 ? { s: [...sitemaps] } : {}),
    ...(truncated ? { t: true as const } : {}),
    ...(usage.length > 0 ? { u: flatUsage(usage) } : {}),
    ...(Object.keys(o).length > 0 ? { o } : {}),
  };
}

/** The JSON form of a rule list: `[line, pattern, line, pattern, ...]`. */
function flatRules(rules: RuleList): (number | string)[] {
  const { lines, patterns } = rules;
  const flat = new Array<number | string>(lines.length * 2);
  for (let i = 0; i < lines.length; i++) {
    flat[2 * i] = lines[i] as number;
    flat[2 * i + 1] = patterns[i] ?? '';
  }
  return flat;
}

function flatUsage(lines: readonly UsageLine[]): (number | string)[] {
  return lines.flatMap(({ kind, line, value, pattern }) => [
    kind === 'content-signal' ? -line : line,
    value,
    pattern ?? '',
  ]);
}

/** Usage lines from their JSON form, parsed again (a stored value is never trusted as parsed). */
function decodeUsage(u: unknown, where: string): UsageLine[] | undefined {
  if (u === undefined) return undefined;
  if (!Array.isArray(u) || u.length % 3 !== 0)
    fail(`${where} must be an array of [line, value, pattern] triples`);
  const lines: UsageLine[] = [];
  for (let i = 0; i < u.length; i += 3) {
    const [line, value, pattern] = [u[i], u[i + 1], u[i + 2]];
    if (typeof line !== 'number' || !Number.isInteger(line) || line === 0) {
      fail(`${where}[${i}] must be a non-zero integer line number`);
    }
    if (typeof value !== 'string' || typeof pattern !== 'string') fail(`${where}[${i + 1}] must be strings`);
    const kind = line > 0 ? 'content-usage' : 'content-signal';
    const text = pattern === '' ? value : `${pattern} ${value}`;
    // The stored pattern is already escaped.
    lines.push(usageLine(kind, Math.abs(line), text, (escaped) => escaped));
  }
  return lines;
}

function fail(problem: string): never {
  throw new TypeError(`RobotsTxt.fromJSON: ${problem}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `rfc`: patterns are brought to the canonical percent form (percent.ts) whatever wrote them (an older
 * version, another tool), so a stored `%70rivate` still blocks `/private`.
 */
function decodeGroup(value: unknown, index: number, rfc: boolean): Group {
  if (!isRecord(value)) fail(`g[${index}] must be an object`);
  const { a, r, d, u } = value;
  if (!Array.isArray(a) || !a.every((agent) => typeof agent === 'string')) {
    fail(`g[${index}].a must be an array of strings`);
  }
  if (!Array.isArray(r) || r.length % 2 !== 0)
    fail(`g[${index}].r must be an array of [line, pattern] pairs`);
  if (d !== undefined && !(typeof d === 'number' && d >= 0 && Number.isFinite(d))) {
    fail(`g[${index}].d must be a number >= 0`);
  }
  const lines: number[] = [];
  const patterns: string[] = [];
  for (let i = 0; i < r.length; i += 2) {
    const line: unknown = r[i];
    const pattern: unknown = r[i + 1];
    if (typeof line !== 'number' || !Number.isInteger(line) || line === 0) {
      fail(`g[${index}].r[${i}] must be a non-zero integer line number`);
    }
    if (typeof pattern !== 'string') fail(`g[${index}].r[${i + 1}] must be a pattern string`);
    lines.push(line);
    patterns.push(rfc ? (canonicalPath(pattern, 0, pattern.length) ?? pattern) : pattern);
  }
  // Int32Array, 4 bytes a rule, as from a parse (rules.ts), when every line fits one.
  const rules: RuleList = {
    lines: lines.every((line) => line === (line | 0)) ? Int32Array.from(lines) : lines,
    patterns,
  };
  const agents = (a as string[]).filter((agent) => agent !== '*');
  const usage = decodeUsage(u, `g[${index}].u`);
  return {
    agents,
    global: agents.length !== a.length,
    rules,
    crawlDelay: d as number | undefined,
    ...(usage ? { usage } : {}),
  };
}

export function decodeSerialized(value: unknown): RobotsTxtData {
  if (!isRecord(value))
    fail(`expected an object from RobotsTxt#toJSON(), got ${value === null ? 'null' : typeof value}`);
  if (value.v !== 1) fail(`unsupported version ${JSON.stringify(value.v)} (this version reads v: 1)`);
  const { b, g, s, t, o, u } = value;
  if (typeof b !== 'number' || !(b >= 0)) fail('b (byteLength) must be a number >= 0');
  if (!Array.isArray(g)) fail('g (groups) must be an array');
  if (s !== undefined && !(Array.isArray(s) && s.every((url) => typeof url === 'string'))) {
    fail('s (sitemaps) must be an array of strings');
  }
  if (t !== undefined && t !== true) fail('t (truncated) must be true or absent');
  if (o !== undefined && !isRecord(o)) fail('o (options) must be an object');
  const options = o ?? {};
  if (options.p !== undefined && options.p !== 'first') fail('o.p must be "first" or absent');
  if (options.w !== undefined && options.w !== false) fail('o.w must be false or absent');
  if (options.m !== undefined && options.m !== 'substring') fail('o.m must be "substring" or absent');
  if (options.e !== undefined && options.e !== 'google') fail('o.e must be "google" or absent');
  const rfc = options.e !== 'google';
  return {
    groups: g.map((group, index) => decodeGroup(group, index, rfc)),
    sitemaps: (s as string[] | undefined) ?? [],
    usage: decodeUsage(u, 'u') ?? [],
    truncated: t === true,
    byteLength: b,
    options: {
      precedence: options.p === 'first' ? 'first' : 'longest',
      wildcards: options.w !== false,
      agentMatching: options.m === 'substring' ? 'substring' : 'exact',
      percentEncoding: rfc ? 'rfc' : 'google',
    },
  };
}
