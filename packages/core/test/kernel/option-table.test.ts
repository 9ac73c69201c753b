import { describe, expect, it } from 'vitest';
import { checkOptions, type OptionTable, oneOf } from '../../src/kernel/option-table.js';

interface WidgetOptions {
  readonly spacing?: 'response' | 'start';
  readonly maxParked?: number;
  readonly onSkip?: () => void;
}

const TABLE: OptionTable<WidgetOptions> = {
  spacing: oneOf('response', 'start'),
  maxParked: [(value) => Number.isInteger(value) && (value as number) >= 1, 'an integer >= 1'],
  onSkip: [(value) => typeof value === 'function', 'a function'],
};

const check = (options: unknown) => () => checkOptions('widget', TABLE, options as WidgetOptions);

describe('checkOptions', () => {
  it('returns the options as given when every key is known and every value passes', () => {
    const options = { spacing: 'start', maxParked: 3, onSkip: () => {} } as const;
    expect(checkOptions('widget', TABLE, options)).toBe(options);
    expect(checkOptions('widget', TABLE, {})).toEqual({});
  });

  it('leaves an undefined value for the default', () => {
    expect(check({ spacing: undefined, maxParked: undefined })).not.toThrow();
  });

  it('rejects what is not an object, echoing it and its type', () => {
    expect(check(null)).toThrow(new TypeError('Expected widget options to be an object, got `null` (null)'));
    expect(check('fast')).toThrow(
      new TypeError('Expected widget options to be an object, got `"fast"` (string)'),
    );
  });

  it('names an unknown key, its value, the closest known key and every known one', () => {
    expect(check({ maxParkd: 5 })).toThrow(
      new TypeError(
        'Unknown widget option `maxParkd` (value `5` (number)); did you mean `maxParked`?; known options: spacing, maxParked, onSkip',
      ),
    );
    // No suggestion when nothing is close, and a prototype key is as unknown as any other.
    expect(check({ zzz: 1 })).toThrow(
      /^Unknown widget option `zzz` \(value `1` \(number\)\); known options: spacing/,
    );
    expect(check(JSON.parse('{"__proto__": 1}'))).toThrow(/Unknown widget option `__proto__`/);
    expect(check({ toString: 'x' })).toThrow(/Unknown widget option `toString`/);
  });

  it('names a bad value, what it should be, and echoes the value with its type', () => {
    expect(check({ spacing: 'end' })).toThrow(
      new TypeError(`Expected option \`spacing\` to be 'response' or 'start', got \`"end"\` (string)`),
    );
    expect(check({ maxParked: 0 })).toThrow(
      new TypeError('Expected option `maxParked` to be an integer >= 1, got `0` (number)'),
    );
    expect(check({ onSkip: null })).toThrow(
      new TypeError('Expected option `onSkip` to be a function, got `null` (null)'),
    );
    // A long value is cut, so the message stays one line a person can read.
    expect(check({ spacing: 'x'.repeat(200) })).toThrow(/got `"x{76}\.\.\.` \(string\)$/);
  });
});

describe('oneOf', () => {
  it('accepts only the values it lists, and says them as a person would', () => {
    const [test, expected] = oneOf('check', 'allow', 'skip');
    expect(expected).toBe("'check', 'allow' or 'skip'");
    expect(['check', 'allow', 'skip'].map(test)).toEqual([true, true, true]);
    expect(['Check', '', 1, null, undefined].map(test)).toEqual([false, false, false, false, false]);
    expect(oneOf('only')[1]).toBe("'only'");
  });
});
