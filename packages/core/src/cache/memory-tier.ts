/**
 * The in-process tier: compiled rules per origin and file (keyed by the file's URL: robots.txt and
 * tdmrep.json of every origin in one LRU), bounded by bytes, `memory.budgetBytes` for all of them. A
 * hostile robots.txt of 500 KB compiles to megabytes, and anyone with wildcard subdomains can serve one
 * per origin, so a count alone would not bound memory; and a count is no bound a broad crawl should
 * meet: an origin pushed out by it is fetched again on its next page, so a round-robin over more
 * origins than the count makes every check a fetch. Without a user store this tier is the only place
 * an origin's state lives in the process; the least recently used origin goes when the byte budget is
 * full, and only that origin is fetched again.
 */
import { LRUCache } from 'lru-cache';
import type { FileEntry, OriginState, WellKnownFile } from './origin-state.js';

// biome-ignore lint/suspicious/noExplicitAny: one tier holds every file's states; each cache reads back its own keys.
type AnyState = OriginState<any, FileEntry>;
export type MemoryTier = LRUCache<string, AnyState>;

/**
 * `maxEntries`: an optional extra bound (the `memoryCacheSize` option: files, so an origin whose
 * tdmrep.json is read counts twice); undefined: bytes alone. Each `set` passes its size (stateBytes).
 */
export function createMemoryTier(maxBytes: number, maxEntries?: number): MemoryTier {
  return new LRUCache<string, AnyState>({
    ...(maxEntries !== undefined ? { max: maxEntries } : {}),
    maxSize: Math.max(1, maxBytes),
  });
}

/** Bytes an origin's state holds: its rules (compiled or about to be), plus the entry itself. */
export function stateBytes<R, E extends FileEntry>(
  state: OriginState<R, E>,
  file: WellKnownFile<R, E>,
): number {
  let bytes = ENTRY_BYTES;
  // The entry shows the good copy's rules, or none: counted once.
  if (state.good) bytes += file.estimateBytes(state.good.rules);
  // A site chooses these strings' length (up to a few KB): counted, two bytes a character.
  const kept = state.good?.revalidation;
  if (kept) {
    for (const value of Object.values(kept)) if (typeof value === 'string') bytes += 2 * value.length;
  }
  return Math.max(1, Math.ceil(bytes));
}

/**
 * The state, its entry, their strings, the body the rules slice and the LRU's slot for the key.
 * Measured (bench/cache.ts, breadth rows): origins of a 36-byte robots.txt held 2,250-2,340 bytes each
 * on the heap after GC (100k and 1M origins), where 600 here plus the rules' own estimate said 1,750;
 * small entries are most of a broad crawl, so the budget must count them right.
 */
const ENTRY_BYTES = 1200;
