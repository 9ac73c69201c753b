/**
 * `@politely/core/cache`: the robots.txt store contract and the bounded in-memory store politely uses
 * when no `store` option is given (a Keyv-shaped LRU, bounded by entries and bytes).
 */
export { createMemoryStore, type MemoryStore } from '../cache/memory-store.js';
export type { StoreRecordRejection } from '../cache/stored-record.js';
export type { KeyvLike, RobotsEntry } from '../cache/types.js';
export type { Outage, UnreachablePhase, UnreachablePolicy } from '../cache/unreachable-timeline.js';
