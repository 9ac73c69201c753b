/**
 * Options checked once, from one table of `[test, 'what it should be']` per key: every factory of
 * politely (the page guard, the frontier, politeFetch, politeGot, the Crawlee plugin) takes an options
 * object and rejects unknown keys and bad values up front, with the same errors as createPoliteness's
 * (whose richer resolver, with defaults, shares the messages below, as the schedulers' do for keys). In the manner of ky and p-queue:
 * a typo fails at start-up, echoing the value and its type, instead of being ignored.
 */
import { closestName } from './suggest.js';

/** A test of an option's value, and what the error says the value should be (`'a boolean'`). */
export type OptionCheck = readonly [test: (value: unknown) => boolean, expected: string];

/** One check per option: typed on the options, so the compiler keeps the table in step with them. */
export type OptionTable<Options> = { readonly [K in keyof Options]-?: OptionCheck };

/**
 * Checks `options` against `table`: not an object, an unknown key (with the closest known one) or a
 * value its test refuses is a TypeError; `undefined` is left for the default. `name` is what the errors
 * call the options (`'frontier'`: "Unknown frontier option ..."). Returns `options` as given.
 */
export function checkOptions<Options extends object>(
  name: string,
  table: OptionTable<NoInfer<Options>>,
  options: Options,
): Options {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`Expected ${name} options to be an object, got ${shown(options)}`);
  }
  const checks = table as Readonly<Record<string, OptionCheck>>;
  for (const [key, value] of Object.entries(options)) {
    const check = Object.hasOwn(checks, key) ? checks[key] : undefined;
    if (!check) throw unknownOption(`${name} option`, key, value, Object.keys(checks));
    if (value !== undefined && !check[0](value)) throw badOption(key, check[1], value);
  }
  return options;
}

/** The check for a value among a few strings: `oneOf('check', 'allow')` says "'check' or 'allow'". */
export function oneOf(...values: readonly string[]): OptionCheck {
  const quoted = values.map((value) => `'${value}'`);
  const expected =
    quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}` : `${quoted[0]}`;
  return [(value) => values.includes(value as string), expected];
}

export const FUNCTION: OptionCheck = [(value) => typeof value === 'function', 'a function'];
export const BOOLEAN: OptionCheck = [(value) => typeof value === 'boolean', 'a boolean'];
export const LOGGER: OptionCheck = [
  (value) => value === false || (typeof value === 'object' && value !== null && 'warn' in value),
  'a logger ({ debug?, info?, warn }) or false',
];

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

/** Where an option that is unknown here is taken instead, for the hint in its error. */
export interface UnknownOptionContext {
  /** The object the key was found in, when nested: `'parse'` names `parse.wildcard`. */
  readonly path?: string;
  /** Options of another argument, by name: where each belongs (`"politeGot(options, { spacing })"`). */
  readonly elsewhere?: Readonly<Record<string, string>>;
}

/**
 * "Unknown option `minDelay` (value `500` (number)); did you mean `minDelayMs`?; known options: ...",
 * or, for an option of another argument, "... `spacing` belongs in the next argument: politeGot(options,
 * { spacing })". Keys are named by their full path (`parse.wildcard`), suggestions too.
 */
export function unknownOption(
  what: string,
  key: string,
  value: unknown,
  known: readonly string[],
  context: UnknownOptionContext = {},
): TypeError {
  const full = (name: string) => (context.path ? `${context.path}.${name}` : name);
  const start = `Unknown ${what} \`${full(key)}\` (value ${shown(value)})`;
  const belongs =
    context.elsewhere && Object.hasOwn(context.elsewhere, key) ? context.elsewhere[key] : undefined;
  if (belongs !== undefined) {
    return new TypeError(`${start}: \`${key}\` is an option of another argument: ${belongs}`);
  }
  const suggestion = closestName(key, known);
  return new TypeError(
    `${start}${suggestion ? `; did you mean \`${full(suggestion)}\`?` : ''}; known ${context.path ? `${context.path} ` : ''}options: ${known.join(', ')}`,
  );
}

/** "Expected option `minDelayMs` to be a finite number >= 0, got `-1` (number)" */
export function badOption(key: string, expected: string, value: unknown): TypeError {
  return new TypeError(`Expected option \`${key}\` to be ${expected}, got ${shown(value)}`);
}

/** `-1` (number), `"x"` (string): the offending value and its type, as error messages show it. */
export function shown(value: unknown): string {
  let text: string;
  try {
    text =
      typeof value === 'string'
        ? JSON.stringify(value)
        : typeof value === 'function'
          ? '[function]'
          : String(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  if (text.length > 80) text = `${text.slice(0, 77)}...`;
  return `\`${text}\` (${value === null ? 'null' : typeof value})`;
}
