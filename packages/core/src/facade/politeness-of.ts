/**
 * `politenessOf(x)`: the Politeness behind anything politely made, for `stats()`, `subscribe()`,
 * `close()`. One function for every adapter, so importing two adapters brings no clash.
 */
import { attachedPoliteness } from '../adapter/owner.js';
import { isPoliteness } from './politeness.js';
import type { Politeness } from './types.js';

/**
 * Where a library keeps what an adapter handed it, when the object the user holds is the library's
 * own, not the adapter's: a got instance keeps the handlers of the options it was extended with
 * (`got.extend(politeGot(...))`: `instance.defaults.handlers`), a Crawlee crawler keeps the request
 * manager `withPoliteness` put in its options (`requestManager` on Crawlee 4, `requestQueue` on 3).
 * Read by shape: neither library is imported.
 */
function partsKeptBy(value: object): unknown[] {
  const held = value as {
    readonly defaults?: { readonly handlers?: unknown };
    readonly requestManager?: unknown;
    readonly requestQueue?: unknown;
  };
  const handlers = held.defaults?.handlers;
  return [...(Array.isArray(handlers) ? handlers : []), held.requestManager, held.requestQueue];
}

/**
 * The Politeness behind what a politely adapter made: got extend-options from `politeGot` or a got
 * instance extended with them, a function from `politeFetch`, a Crawlee crawler (or its options) from
 * `withPoliteness`, a frontier, a page guard, or a Politeness itself. TypeError for anything else.
 */
export function politenessOf(value: object): Politeness {
  if (isPoliteness(value)) return value;
  // What an adapter attached is trusted as it is: a stand-in carrying a kit of its own is one too.
  const own = attachedPoliteness(value);
  if (own !== undefined) return own as Politeness;
  if ((typeof value === 'object' || typeof value === 'function') && value !== null) {
    for (const part of partsKeptBy(value)) {
      const found = attachedPoliteness(part);
      if (found !== undefined) return found as Politeness;
    }
  }
  const given =
    value === null
      ? 'null'
      : typeof value === 'object'
        ? 'an object without a Politeness'
        : typeof value === 'function'
          ? 'a function without a Politeness'
          : typeof value;
  throw new TypeError(
    `politenessOf() expects what a politely adapter made (politeGot's options or a got instance extended with them, a politeFetch function, a crawler or options from withPoliteness, a frontier, a page guard), got ${given}`,
  );
}
