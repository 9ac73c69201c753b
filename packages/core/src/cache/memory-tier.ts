/**
 * The in-process tier: compiled rules per origin, bounded by count and by bytes. A hostile robots.txt
 * of 500 KB compiles to megabytes, and anyone with wildcard subdomains can serve one per origin, so a
 * count alone would not bound memory.
 */
import { LRUCache } from 'lru-cache';
import type { OriginState } from './origin-state.js';

export type MemoryTier = LRUCache<string, OriginState>;

export function createMemoryTier(maxEntries: number, maxBytes: number): MemoryTier {
  return new LRUCache<string, OriginState>({
    max: maxEntries,
    maxSize: Math.max(1, maxBytes),
    sizeCalculation: stateBytes,
  });
}

/** Bytes an origin's state holds: its rules (compiled or about to be), plus the entry itself. */
function stateBytes(state: OriginState): number {
  const robots = state.entry.robots;
  const good = state.good?.robots;
  let bytes = 600;
  if (robots) bytes += robots.estimateBytes();
  if (good && good !== robots) bytes += good.estimateBytes();
  return Math.max(1, Math.ceil(bytes));
}
