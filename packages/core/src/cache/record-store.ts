/**
 * The store tier: origin states written as plain records and read back only when they can be trusted
 * (stored-record.ts says why a record is not). A rejected record is reported, then treated as absent.
 */
import { maxLifetimeMs } from '../fetch/freshness.js';
import {
  type FileEntry,
  type OriginState,
  type StateRules,
  stateFromStored,
  storedFromState,
} from './origin-state.js';
import type { SafeStore } from './safe-store.js';
import { decodeStored, type StoreRecordRejection, storeKey } from './stored-record.js';

export interface RecordStoreConfig<R, E extends FileEntry> {
  readonly store: SafeStore;
  readonly rules: StateRules<R, E>;
  readonly now: () => number;
  /** How long the store keeps a record, in ms: the stale-if-error horizon. */
  readonly ttlMs: number;
  readonly onReject: (origin: string, reason: StoreRecordRejection) => void;
}

export interface RecordStore<R, E extends FileEntry> {
  /** The stored state of the origin; undefined when absent, unreadable or not trusted. */
  read(origin: string): Promise<OriginState<R, E> | undefined>;
  write(state: OriginState<R, E>): Promise<void>;
  delete(origin: string): Promise<void>;
}

export function createRecordStore<R, E extends FileEntry>(
  config: RecordStoreConfig<R, E>,
): RecordStore<R, E> {
  const { store, rules, now } = config;
  const key = (origin: string) => storeKey(origin, rules.file.storePrefix);
  /** The state a stored value describes, or undefined (absent or not trusted: reported, then a miss). */
  function trustedState(origin: string, value: unknown): OriginState<R, E> | undefined {
    const at = now();
    const decoded = decodeStored(value, origin, rules.file, {
      now: at,
      maxLifetimeMs: (outcome) => maxLifetimeMs(outcome, rules.limits),
    });
    if (decoded === undefined) return undefined;
    const state = decoded.record ? stateFromStored(decoded.record, at, rules) : undefined;
    if (state === undefined) config.onReject(origin, decoded.rejected ?? 'rules');
    return state;
  }
  return {
    async read(origin) {
      return trustedState(origin, await store.get(key(origin)));
    },
    async write(state) {
      await store.set(key(state.entry.origin), storedFromState(state, rules), config.ttlMs);
    },
    async delete(origin) {
      await store.delete(key(origin));
    },
  };
}
