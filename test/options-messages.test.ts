/**
 * Option messages across the packages: an option given to the wrong argument of an adapter is named
 * with the argument it belongs in, and the core's list of such options follows the adapters' tables.
 */
import { createPoliteness } from '@politely/core';
import { withPoliteness } from '@politely/crawlee';
import { politeFetch } from '@politely/fetch';
import { politeGot } from '@politely/got';
import { describe, expect, it } from 'vitest';
import { OPTIONS_OF_OTHER_ARGUMENTS } from '../packages/core/src/facade/options.js';

/** The names an options table knows, as its "unknown option" error lists them. */
function knownNames(call: () => unknown): string[] {
  try {
    call();
  } catch (error) {
    const list = /known options: (.*)$/.exec((error as Error).message)?.[1];
    if (list) return list.split(', ');
  }
  throw new Error('expected an unknown-option error');
}

describe('an option in the wrong argument', () => {
  it('politeGot({ userAgent, spacing }) says spacing goes in the second argument', () => {
    expect(() => politeGot({ userAgent: 'Bot', logger: false, spacing: 'start' } as never)).toThrow(
      /`spacing` is an option of another argument: politeGot\(options, \{ spacing \}\)/,
    );
  });

  it('withPoliteness({}, { userAgent, maxParked }) says maxParked goes in the plugin options', () => {
    expect(() => withPoliteness({}, { userAgent: 'Bot', logger: false, maxParked: 5 } as never)).toThrow(
      /`maxParked` is an option of another argument: withPoliteness\(crawlerOptions, politenessOptions, \{ maxParked \}\)/,
    );
  });

  it("the core's list holds every option of the adapters' own arguments", () => {
    const politeness = createPoliteness({ userAgent: 'Bot', logger: false });
    const adapterOptions = [
      ...knownNames(() => politeGot(politeness, { zzz: 1 } as never)),
      ...knownNames(() => withPoliteness({}, politeness, { zzz: 1 } as never)),
      ...knownNames(() => politeFetch(politeness, { zzz: 1 } as never)),
    ].filter((name) => name !== 'fetch'); // also an option of createPoliteness: not misplaced there
    expect(adapterOptions.length).toBeGreaterThan(5);
    for (const name of adapterOptions) expect(OPTIONS_OF_OTHER_ARGUMENTS).toHaveProperty(name);
  });
});
