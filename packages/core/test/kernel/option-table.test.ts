import { describe, expect, it } from 'vitest';
import {
  booleanOption,
  checkOptions,
  defaultsOf,
  functionOption,
  methodsOption,
  nestedOption,
  numberOption,
  type OptionTable,
  oneOf,
} from '../../src/kernel/option-table.js';
import { shown } from '../../src/kernel/shown.js';

interface WidgetOptions {
  readonly spacing?: 'response' | 'start';
  readonly maxParked?: number;
  readonly onSkip?: () => void;
  readonly render: (text: string) => string;
  readonly clock?: { now(): number; sleep(ms: number): Promise<void> };
  readonly parse?: { readonly strict?: boolean; readonly depth?: number };
}

const TABLE = {
  spacing: oneOf(['response', 'start'], { default: 'response' }),
  maxParked: numberOption({ min: 1, integer: true, infinity: true, default: 1000 }),
  onSkip: functionOption<() => void>(),
  render: functionOption<(text: string) => string>('a function (text) => string', { required: true }),
  clock: methodsOption<WidgetOptions['clock']>('a clock', ['now', 'sleep'], { internal: true }),
  parse: nestedOption({
    strict: booleanOption({ default: false }),
    depth: numberOption({ above: 0, default: 1 }),
  }),
} as const satisfies OptionTable<WidgetOptions>;

const render = (text: string) => text;
const check = (options: unknown) => () => checkOptions('widget', TABLE, options);

describe('checkOptions', () => {
  it('resolves every option, filling the defaults from the table, frozen', () => {
    const resolved = checkOptions('widget', TABLE, { render, maxParked: Number.POSITIVE_INFINITY });
    expect(resolved).toEqual({
      spacing: 'response',
      maxParked: Number.POSITIVE_INFINITY,
      onSkip: undefined,
      render,
      clock: undefined,
      parse: { strict: false, depth: 1 },
    });
    expect(Object.isFrozen(resolved)).toBe(true);
    // An undefined value is a value left out: the default applies.
    expect(checkOptions('widget', TABLE, { render, spacing: undefined }).spacing).toBe('response');
    // The resolved type is read off the table: a default makes the option always there.
    const spacing: 'response' | 'start' = resolved.spacing;
    expect(spacing).toBe('response');
    expect(defaultsOf(TABLE)).toEqual({ spacing: 'response', maxParked: 1000 });
  });

  it('rejects what is not an object, saying which options it needs at least', () => {
    expect(check(null)).toThrow(
      new TypeError('Expected widget options to be an object with at least `render`, got `null` (null)'),
    );
    expect(check('fast')).toThrow(/got `"fast"` \(string\)$/);
  });

  it('says a required option is missing, and what it should be', () => {
    expect(check({})).toThrow(new TypeError('Option `render` is required (a function (text) => string)'));
  });

  it('names an unknown key, its value, the closest known key and every public one', () => {
    expect(check({ render, maxParkd: 5 })).toThrow(
      new TypeError(
        'Unknown widget option `maxParkd` (value `5` (number)); did you mean `maxParked`?; known options: spacing, maxParked, onSkip, render, parse',
      ),
    );
    // No suggestion when nothing is close, an internal option is never suggested, and a prototype key
    // is as unknown as any other.
    expect(check({ render, zzz: 1 })).toThrow(
      /^Unknown widget option `zzz` \(value `1` \(number\)\); known options: spacing/,
    );
    expect(check({ render, clok: 1 })).toThrow(/^(?!.*did you mean)/);
    expect(check(JSON.parse('{"__proto__": 1}'))).toThrow(/Unknown widget option `__proto__`/);
    expect(check({ render, toString: 'x' })).toThrow(/Unknown widget option `toString`/);
  });

  it('says where an option of another argument belongs', () => {
    const elsewhere = { spaceing: 'widget(options, { spaceing })' };
    expect(() => checkOptions('', TABLE, { render, spaceing: 1 }, { elsewhere })).toThrow(
      'Unknown option `spaceing` (value `1` (number)): `spaceing` is an option of another argument: widget(options, { spaceing })',
    );
  });

  it('names a bad value, what it should be, and echoes the value with its type', () => {
    expect(check({ render, spacing: 'end' })).toThrow(
      new TypeError(`Expected option \`spacing\` to be 'response' or 'start', got \`"end"\` (string)`),
    );
    expect(check({ render, maxParked: 0 })).toThrow(
      new TypeError('Expected option `maxParked` to be an integer >= 1, or Infinity, got `0` (number)'),
    );
    expect(check({ render, maxParked: 1.5 })).toThrow(/`maxParked`/);
    expect(check({ render, onSkip: null })).toThrow(
      new TypeError('Expected option `onSkip` to be a function, got `null` (null)'),
    );
    expect(check({ render, clock: { now: () => 0 } })).toThrow(
      /`clock` to be a clock, got `\{ now: \[function\] \}` \(object\)$/,
    );
    // A long value is cut, so the message stays one line a person can read.
    expect(check({ render, spacing: 'x'.repeat(200) })).toThrow(/got `"x{76}\.\.\.` \(string\)$/);
  });

  it('checks nested options by their own table, naming them by their full path', () => {
    expect(check({ render, parse: { strict: 'yes' } })).toThrow(
      'Expected option `parse.strict` to be a boolean, got `"yes"` (string)',
    );
    expect(check({ render, parse: { depth: 0 } })).toThrow(
      'Expected option `parse.depth` to be a finite number > 0, got `0` (number)',
    );
    expect(check({ render, parse: { strikt: true } })).toThrow(
      'Unknown option `parse.strikt` (value `true` (boolean)); did you mean `parse.strict`?; known parse options: strict, depth',
    );
    expect(check({ render, parse: 5 })).toThrow('Expected option `parse` to be an object, got `5` (number)');
  });
});

describe('the builders', () => {
  it('oneOf says its values as a person would', () => {
    expect(oneOf(['check', 'allow', 'skip']).expected).toBe("'check', 'allow' or 'skip'");
    expect(oneOf(['only']).expected).toBe("'only'");
    const spec = oneOf(['check', 'allow']);
    for (const bad of ['Check', '', 1, null]) expect(() => spec.resolve(bad, 'x', {})).toThrow(TypeError);
    expect(spec.resolve(undefined, 'x', {})).toBeUndefined();
  });

  it('numberOption says its bounds', () => {
    expect(numberOption().expected).toBe('a finite number >= 0');
    expect(numberOption({ above: 0 }).expected).toBe('a finite number > 0');
    expect(numberOption({ min: 1, integer: true }).expected).toBe('an integer >= 1');
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, -1, '1']) {
      expect(() => numberOption().resolve(bad, 'n', {})).toThrow(TypeError);
    }
  });
});

describe('shown', () => {
  it('shows a value with its type, the one way every error message does', () => {
    expect(shown(-1)).toBe('`-1` (number)');
    expect(shown('x')).toBe('`"x"` (string)');
    expect(shown(null)).toBe('`null` (null)');
    expect(shown(undefined)).toBe('`undefined` (undefined)');
    expect(shown(() => 1)).toBe('`[function]` (function)');
    expect(shown(new Map())).toBe('`[object Map]` (object)');
    expect(shown(Object.create(null))).toBe('`{}` (object)');
  });

  it('shows a plain object or array by its entries, as code writes it, not as `[object Object]`', () => {
    expect(shown({ request: 5000 })).toBe('`{ request: 5000 }` (object)');
    expect(shown({ a: { b: { c: 1 } }, list: ['x', 2] })).toBe(
      '`{ a: { b: {...} }, list: ["x", 2] }` (object)',
    );
    expect(shown([1, [2, [3]]])).toBe('`[1, [2, [...]]]` (object)');
  });

  it("never shows a URL's userinfo", () => {
    expect(shown('redis://:secret@cache.internal:6379')).toBe('`"redis://cache.internal:6379"` (string)');
    expect(shown({ url: 'https://user:pw@a.test/' })).toBe('`{ url: "https://a.test/" }` (object)');
  });
});
