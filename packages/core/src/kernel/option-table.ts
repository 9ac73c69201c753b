/**
 * The one way politely checks options. Every factory (createPoliteness, the schedulers, the frontier,
 * the page guard, the sitemap follower, the robots.txt parser, the adapters) declares one table: per
 * option, a spec saying what the value must be, how it resolves and its default. `checkOptions` walks
 * it once, at creation: not an object, an unknown key (with "did you mean", or the argument it
 * belongs in) and a bad value are TypeErrors that name the option by its full path (`parse.wildcards`)
 * and echo the value and its type, in the manner of ky and p-queue. The table is checked with
 * `satisfies OptionTable<Options>` against the options interface, so a forgotten entry (or an entry
 * that is no option) does not compile, and the resolved type is read off it (`ResolvedOf<typeof T>`).
 *
 * Adding an option: a field in the options interface, one entry in its table (a builder below, or an
 * inline `{ expected, resolve }`), and the code that reads the resolved value.
 */
import type { Clock } from './clock.js';
import { shown } from './shown.js';
import { closestName } from './suggest.js';

/** One option: what its value must be, how a given value (undefined when left out) resolves. */
export interface OptionSpec<T> {
  /** What the value should be, as errors say it: `'a boolean'`, `"'check' or 'allow'"`. */
  readonly expected: string;
  /**
   * The resolved value, or a TypeError naming the option by `path` (`badOption`). `value` is the
   * user's, or `default` when they left the option out. `input` is the whole options object, for an
   * option whose default depends on another (the table is walked in order).
   */
  readonly resolve: (value: unknown, path: string, input: Readonly<Record<string, unknown>>) => T;
  /** The value when the option is left out. */
  readonly default?: T;
  /** Left out is an error: "Option `download` is required (a function)". */
  readonly required?: true;
  /** Accepted but internal (tests inject a clock): never listed or suggested to users. */
  readonly internal?: true;
}

/** A table for `Options`: one spec per option, resolving to a value the option allows. */
export type OptionTable<Options> = { readonly [K in keyof Options]-?: OptionSpec<Options[K]> };

/** What `checkOptions` returns for a table: every option resolved, defaults filled in. */
export type ResolvedOf<Table> = {
  readonly [K in keyof Table]: Table[K] extends { readonly resolve: (...args: never[]) => infer T }
    ? T
    : never;
};

/** Whether an option may be left out, and what it is then. */
export interface Presence<T> {
  /** The value when the option is left out. */
  readonly default?: T;
  /** Left out is an error. */
  readonly required?: true;
  /** Accepted, never listed or suggested. */
  readonly internal?: true;
  /** What to pass instead, said after the error for a value it knows (`store: 'redis://…'`). */
  readonly hint?: (value: unknown) => string | undefined;
}

/** A presence that always gives a value: with a default, or required. The builders' overloads resolve to `T` for it. */
export type Given<T> = Presence<T> & ({ readonly default: T } | { readonly required: true });

/** Where a table is used, for its errors. */
export interface CheckContext {
  /** The object the table checks, when nested: `'parse'` names `parse.wildcards`. */
  readonly path?: string;
  /** Options of another argument, by name: where each belongs (`"politeGot(options, { spacing })"`). */
  readonly elsewhere?: Readonly<Record<string, string>>;
  /**
   * Names that are no option here but one elsewhere in the same options, by name: where each lives
   * (`minDelayMs` is `pacing.minDelayMs` since the options were grouped). Refused with that place.
   */
  readonly moved?: Readonly<Record<string, string>>;
}

/**
 * Checks `options` against `table` and returns every option resolved, defaults filled in, frozen.
 * `what` is what the errors call the options (`'frontier'`: "Unknown frontier option ..."; `''` for
 * createPoliteness's: "Unknown option ...").
 */
export function checkOptions<const Table extends Readonly<Record<string, OptionSpec<unknown>>>>(
  what: string,
  table: Table,
  options: unknown,
  context: CheckContext = {},
): ResolvedOf<Table> {
  const specs = table as Readonly<Record<string, OptionSpec<unknown>>>;
  const full = (name: string) => (context.path ? `${context.path}.${name}` : name);
  if (options === null || typeof options !== 'object') {
    if (context.path) throw badOption(context.path, 'an object', options);
    const required = Object.keys(specs).filter((name) => specs[name]?.required);
    const atLeast = required.length > 0 ? ` with at least ${required.map((n) => `\`${n}\``).join(', ')}` : '';
    throw new TypeError(
      `Expected ${what ? `${what} ` : ''}options to be an object${atLeast}, got ${shown(options)}`,
    );
  }
  const input = options as Readonly<Record<string, unknown>>;
  for (const key of Object.keys(input)) {
    if (!Object.hasOwn(specs, key)) {
      // Listed for the error only: parseRobotsTxt checks its options at every parse.
      const known = Object.keys(specs).filter((name) => !specs[name]?.internal);
      throw unknownOption(what ? `${what} option` : 'option', key, input[key], known, context);
    }
  }
  const resolved: Record<string, unknown> = {};
  // Entries listed once per table: parseRobotsTxt checks its options at every parse.
  for (const [name, spec] of entriesOf(specs)) {
    const given = input[name];
    const path = full(name);
    if (given === undefined && spec.required) {
      throw new TypeError(`Option \`${path}\` is required (${spec.expected})`);
    }
    resolved[name] = spec.resolve(given === undefined ? spec.default : given, path, input);
  }
  return Object.freeze(resolved) as ResolvedOf<Table>;
}

const ENTRIES = new WeakMap<object, readonly (readonly [string, OptionSpec<unknown>])[]>();

/** A table's entries, listed on first use (tables are constants). */
function entriesOf(
  specs: Readonly<Record<string, OptionSpec<unknown>>>,
): readonly (readonly [string, OptionSpec<unknown>])[] {
  let entries = ENTRIES.get(specs);
  if (entries === undefined) {
    entries = Object.entries(specs);
    ENTRIES.set(specs, entries);
  }
  return entries;
}

/** The defaults of a table: every option that has one, when it is left out. */
export function defaultsOf<Table extends Readonly<Record<string, OptionSpec<unknown>>>>(
  table: Table,
): Readonly<Record<string, unknown>> {
  return Object.freeze(
    Object.fromEntries(
      Object.entries(table).flatMap(([name, spec]) => ('default' in spec ? [[name, spec.default]] : [])),
    ),
  );
}

// The builders: one per common kind, each resolving to `T` when given a default (or required) and to
// `T | undefined` without. An option of its own kind writes `{ expected, resolve }` inline.

/** An option whose value passes `test`; undefined (left out) stays undefined unless a default is set. */
export function option<T>(
  expected: string,
  test: (value: unknown) => boolean,
  presence: Given<T>,
): OptionSpec<T>;
export function option<T>(
  expected: string,
  test: (value: unknown) => boolean,
  presence?: Presence<T>,
): OptionSpec<T | undefined>;
export function option<T>(
  expected: string,
  test: (value: unknown) => boolean,
  presence: Presence<T> = {},
): OptionSpec<T | undefined> {
  return {
    ...('default' in presence ? { default: presence.default } : {}),
    ...(presence.required ? { required: true as const } : {}),
    ...(presence.internal ? { internal: true as const } : {}),
    expected,
    resolve: (value, path) => {
      if (value !== undefined && !test(value)) throw badOption(path, expected, value, presence.hint?.(value));
      return value as T | undefined;
    },
  };
}

/** The rules of a number option: `>= min` (default 0) or `> above`, `<= max`, an integer, Infinity allowed. */
export interface NumberRules {
  readonly min?: number;
  readonly above?: number;
  readonly max?: number;
  readonly integer?: boolean;
  /** Infinity is accepted too (`maxConcurrentPerHost`: no cap). */
  readonly infinity?: boolean;
}

/** A finite number (`>= min`, default 0, or `> above`, and `<= max`), an integer when asked, Infinity when allowed. */
export function numberOption(rules: NumberRules & Given<number>): OptionSpec<number>;
export function numberOption(rules?: NumberRules & Presence<number>): OptionSpec<number | undefined>;
export function numberOption(rules: NumberRules & Presence<number> = {}): OptionSpec<number | undefined> {
  const { min = 0, above, max = Number.POSITIVE_INFINITY, integer = false, infinity = false } = rules;
  const bound = `${above === undefined ? `>= ${min}` : `> ${above}`}${max < Number.POSITIVE_INFINITY ? ` and <= ${max}` : ''}`;
  const expected = `${integer ? 'an integer' : 'a finite number'} ${bound}${infinity ? ', or Infinity' : ''}`;
  return option<number>(
    expected,
    (value) =>
      (infinity && value === Number.POSITIVE_INFINITY) ||
      (typeof value === 'number' &&
        Number.isFinite(value) &&
        (above === undefined ? value >= min : value > above) &&
        value <= max &&
        (!integer || Number.isInteger(value))),
    rules,
  );
}

/** One of a few strings: `oneOf(['check', 'allow'])` says "'check' or 'allow'". */
export function oneOf<const V extends string>(
  values: readonly V[],
  presence: Given<NoInfer<V>>,
): OptionSpec<V>;
export function oneOf<const V extends string>(
  values: readonly V[],
  presence?: Presence<NoInfer<V>>,
): OptionSpec<V | undefined>;
export function oneOf<const V extends string>(
  values: readonly V[],
  presence?: Presence<NoInfer<V>>,
): OptionSpec<V | undefined> {
  const quoted = values.map((value) => `'${value}'`);
  const expected =
    quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}` : `${quoted[0]}`;
  return option<V>(expected, (value) => values.includes(value as V), presence);
}

export function booleanOption(presence: Given<boolean>): OptionSpec<boolean>;
export function booleanOption(presence?: Presence<boolean>): OptionSpec<boolean | undefined>;
export function booleanOption(presence?: Presence<boolean>): OptionSpec<boolean | undefined> {
  return option<boolean>('a boolean', (value) => typeof value === 'boolean', presence);
}

export function stringOption(presence: Given<string>): OptionSpec<string>;
export function stringOption(presence?: Presence<string>): OptionSpec<string | undefined>;
export function stringOption(presence?: Presence<string>): OptionSpec<string | undefined> {
  return option<string>('a string', (value) => typeof value === 'string', presence);
}

/** A function; `expected` says which (`'a fetch-compatible function'`). */
export function functionOption<F>(expected: string, presence: Given<F>): OptionSpec<F>;
export function functionOption<F>(expected?: string, presence?: Presence<F>): OptionSpec<F | undefined>;
export function functionOption<F>(
  expected = 'a function',
  presence?: Presence<F>,
): OptionSpec<F | undefined> {
  return option<F>(expected, (value) => typeof value === 'function', presence);
}

/** An object with these methods (a store, a clock); `expected` says what it is. */
export function methodsOption<T>(
  expected: string,
  methods: readonly string[],
  presence: Given<T>,
): OptionSpec<T>;
export function methodsOption<T>(
  expected: string,
  methods: readonly string[],
  presence?: Presence<T>,
): OptionSpec<T | undefined>;
export function methodsOption<T>(
  expected: string,
  methods: readonly string[],
  presence?: Presence<T>,
): OptionSpec<T | undefined> {
  return option<T>(expected, (value) => hasMethods(value, methods), presence);
}

/** An injected clock (`now` and `sleep`): the schedulers' and the facade's. */
export function clockOption(presence: Given<Clock>): OptionSpec<Clock>;
export function clockOption(presence?: Presence<Clock>): OptionSpec<Clock | undefined>;
export function clockOption(presence?: Presence<Clock>): OptionSpec<Clock | undefined> {
  return methodsOption<Clock>('an object with now and sleep methods', ['now', 'sleep'], presence);
}

/** The default of a `logger` option that warns: console.warn, for warnings only. */
export const CONSOLE_LOGGER = {
  warn: (message: string, data?: Record<string, unknown>): void =>
    console.warn(`[politely] ${message}`, ...(data ? [data] : [])),
};

/** `false` (silent) or a logger with at least `warn`. */
export function loggerOption<L>(presence: Given<L | false>): OptionSpec<L | false>;
export function loggerOption<L>(presence?: Presence<L | false>): OptionSpec<L | false | undefined>;
export function loggerOption<L>(presence?: Presence<L | false>): OptionSpec<L | false | undefined> {
  return option<L | false>(
    'false or a logger ({ debug?, info?, warn })',
    (value) => value === false || hasMethods(value, ['warn']),
    presence,
  );
}

/**
 * Options nested in one option (`parse: { wildcards }`), checked by their own table: errors name
 * them by their full path (`parse.wildcards`). Left out, the nested defaults apply.
 */
export function nestedOption<const Table extends Readonly<Record<string, OptionSpec<unknown>>>>(
  table: Table,
  context: Omit<CheckContext, 'path'> = {},
): OptionSpec<ResolvedOf<Table>> {
  return {
    expected: 'an object',
    resolve: (value, path) => checkOptions('', table, value === undefined ? {} : value, { ...context, path }),
  };
}

/** The entries of `table` named in `names`, for options that take part of another table. */
export function pickOptions<
  Table extends Readonly<Record<string, OptionSpec<unknown>>>,
  const K extends keyof Table,
>(table: Table, names: readonly K[]): Pick<Table, K> {
  return Object.fromEntries(names.map((name) => [name, table[name]])) as Pick<Table, K>;
}

function hasMethods(value: unknown, methods: readonly string[]): boolean {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    methods.every((m) => typeof (value as Record<string, unknown>)[m] === 'function')
  );
}

/**
 * The factories that drive a Politeness they are handed (the page guard, the frontier) take it first:
 * a TypeError names the methods it lacks, so another object fails at creation, not mid-crawl.
 */
export function assertPoliteness<P>(value: unknown, methods: readonly string[]): asserts value is P {
  const candidate = value as Record<string, unknown> | null | undefined;
  const missing = methods.filter((name) => typeof candidate?.[name] !== 'function');
  if (candidate === null || typeof candidate !== 'object' || missing.length > 0) {
    throw new TypeError(
      `Expected a Politeness from createPoliteness() as the first argument${missing.length > 0 ? ` (missing ${missing.join(', ')})` : ''}`,
    );
  }
}

/**
 * "Unknown option `minDelay` (value `500` (number)); did you mean `minDelayMs`?; known options: ...",
 * or, for an option of another argument, "... `spacing` belongs in the next argument: politeGot(options,
 * { spacing })", or, for a name that moved, "... `minDelayMs` moved to `pacing.minDelayMs`". Keys are named by their full path (`parse.wildcard`), suggestions too.
 */
export function unknownOption(
  what: string,
  key: string,
  value: unknown,
  known: readonly string[],
  context: CheckContext = {},
): TypeError {
  const full = (name: string) => (context.path ? `${context.path}.${name}` : name);
  const start = `Unknown ${what} \`${full(key)}\` (value ${shown(value)})`;
  const belongs =
    context.elsewhere && Object.hasOwn(context.elsewhere, key) ? context.elsewhere[key] : undefined;
  if (belongs !== undefined) {
    return new TypeError(`${start}: \`${key}\` is an option of another argument: ${belongs}`);
  }
  const moved = context.moved && Object.hasOwn(context.moved, key) ? context.moved[key] : undefined;
  if (moved !== undefined) {
    // At the top level, an old flat name (the options were grouped); in a group, another group's option.
    return new TypeError(
      `${start}: \`${full(key)}\` ${context.path ? 'belongs in' : 'moved to'} \`${moved}\``,
    );
  }
  // A name that moved is a candidate too: `minDelay` at the top level means `pacing.minDelayMs`.
  const movedNames = context.moved ? Object.keys(context.moved) : [];
  const suggestion = closestName(key, [...known, ...movedNames]);
  const suggested =
    suggestion === undefined
      ? undefined
      : known.includes(suggestion)
        ? full(suggestion)
        : context.moved?.[suggestion];
  return new TypeError(
    `${start}${suggested ? `; did you mean \`${suggested}\`?` : ''}; known ${context.path ? `${context.path} ` : ''}options: ${known.join(', ')}`,
  );
}

/** "Expected option `minDelayMs` to be a finite number >= 0, got `-1` (number)", and a hint: "; ..." */
export function badOption(path: string, expected: string, value: unknown, hint?: string): TypeError {
  return new TypeError(
    `Expected option \`${path}\` to be ${expected}, got ${shown(value)}${hint ? `; ${hint}` : ''}`,
  );
}
