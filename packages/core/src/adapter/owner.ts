/**
 * Where the Politeness behind an adapter's object is kept, so one `politenessOf` (facade/politeness-of.ts)
 * answers for every adapter: a got instance, a polite fetch, a Crawlee crawler, a frontier, a page
 * guard. An adapter attaches the Politeness to what it returns with `attachPoliteness`; the key is
 * registered (`Symbol.for`), so an object made with another copy of the package is found too, and
 * non-enumerable, so option validators that walk an object (got's) never see it.
 */

/** The key an adapter's object carries its Politeness under. */
export const POLITENESS_OF: unique symbol = Symbol.for('politely.politeness-of');

/**
 * Attaches `politeness` to `owner` (an object or a function an adapter returns) for `politenessOf`.
 * Returns `owner`. Attaching twice to the same owner keeps the first (an owner has one Politeness).
 */
export function attachPoliteness<T extends object>(owner: T, politeness: object): T {
  if (!Object.hasOwn(owner, POLITENESS_OF)) {
    Object.defineProperty(owner, POLITENESS_OF, { value: politeness, enumerable: false });
  }
  return owner;
}

/** The Politeness attached to `value` itself, if any (own or inherited). */
export function attachedPoliteness(value: unknown): unknown {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return undefined;
  return (value as { readonly [POLITENESS_OF]?: unknown })[POLITENESS_OF];
}
