/**
 * Guards the user's store: every call is caught and bounded in time, failures are reported as events,
 * and after one the store is skipped for a while (a circuit breaker), so a dead Redis costs one timeout
 * per break rather than one per check. The user's Keyv is never mutated (no namespace change, no listeners).
 * `closableStore` is the one view of it a Politeness's parts share, so `close()` ends their use of it.
 */
import { withDeadline } from '../kernel/deadline.js';
import type { PolitelyEvent } from '../kernel/events.js';
import type { KeyvLike } from './types.js';

export type StoreOperation = 'get' | 'set' | 'delete';

/** One write of a batch (Keyv 5's KeyvEntry shape). */
export interface StoreEntry {
  readonly key: string;
  readonly value: unknown;
  readonly ttl: number;
}

export interface SafeStoreOptions {
  /** A call slower than this counts as failed, in ms. Default 2000. */
  readonly timeoutMs?: number;
  /** How long the store is skipped after a failure, in ms. Default 10000. */
  readonly breakMs?: number;
  /** Clock for the breaker. */
  readonly now: () => number;
  /** Receives `store-error` events. */
  readonly emit: (event: Extract<PolitelyEvent, { type: 'store-error' }>) => void;
}

export interface SafeStore {
  /** The stored value; undefined when absent, failed, or skipped. */
  get(key: string): Promise<unknown>;
  /** True when the store acknowledged the write. */
  set(key: string, value: unknown, ttlMs: number): Promise<boolean>;
  delete(key: string): Promise<boolean>;
  /**
   * Writes a batch: one `setMany` call when the store has one (Keyv 5), else the writes side by side.
   * True when the store acknowledged every write.
   */
  setMany(entries: readonly StoreEntry[]): Promise<boolean>;
  /** True while the breaker skips the store. */
  readonly broken: boolean;
}

export const DEFAULT_STORE_TIMEOUT_MS = 2000;
export const DEFAULT_STORE_BREAK_MS = 10_000;

class StoreTimeout extends Error {
  constructor(operation: StoreOperation, ms: number) {
    super(`store ${operation} took longer than ${ms} ms`);
    this.name = 'StoreTimeout';
  }
}

export function createSafeStore(store: KeyvLike, options: SafeStoreOptions): SafeStore {
  const timeoutMs = options.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
  const breakMs = options.breakMs ?? DEFAULT_STORE_BREAK_MS;
  let skipUntil = Number.NEGATIVE_INFINITY;

  async function call<T>(
    operation: StoreOperation,
    key: string,
    run: () => unknown,
    fallback: T,
  ): Promise<unknown | T> {
    if (options.now() < skipUntil) return fallback;
    try {
      return await withTimeout(operation, run, timeoutMs);
    } catch (error) {
      skipUntil = options.now() + breakMs;
      try {
        options.emit({ type: 'store-error', operation, key, error });
      } catch {
        // A throwing listener must not turn a store failure into a crawl failure.
      }
      return fallback;
    }
  }

  return {
    get: (key) => call('get', key, () => store.get(key), undefined),
    set: async (key, value, ttlMs) =>
      (await call('set', key, () => store.set(key, value, ttlMs), false)) !== false,
    delete: async (key) => (await call('delete', key, () => store.delete(key), false)) !== false,
    async setMany(entries) {
      if (entries.length === 0) return true;
      const many = (store as { setMany?: (entries: StoreEntry[]) => unknown }).setMany;
      const result = await call(
        'set',
        entries[0]?.key ?? '',
        () =>
          typeof many === 'function'
            ? many.call(store, [...entries])
            : Promise.all(entries.map((entry) => store.set(entry.key, entry.value, entry.ttl))),
        false,
      );
      // Keyv's setMany answers one boolean per entry; a plain set answers anything but false.
      return Array.isArray(result) ? result.every((ok) => ok !== false) : result !== false;
    },
    get broken() {
      return options.now() < skipUntil;
    },
  };
}

/**
 * Bounds one store call by time in which this process ran (kernel/deadline.ts), as the Redis scheduler
 * bounds its commands: on a loaded machine a plain timer comes due while the process is not running
 * and fires before the reply already waiting in the socket is read, so a store that had answered
 * would count as failed, its breaker skip every read and write for `breakMs`, and each process of a
 * fleet fetch robots.txt for itself.
 */
function withTimeout(operation: StoreOperation, run: () => unknown, ms: number): Promise<unknown> {
  // The deadline's timer is not unref'd: a store that hangs without holding a handle of its own (a
  // get that never settles, no socket, no timer) would otherwise leave nothing to keep the process
  // alive, and the caller's `await check()` would never settle: Node exits with code 13 instead of
  // the timeout firing.
  return withDeadline(Promise.resolve().then(run), ms, () => new StoreTimeout(operation, ms));
}

/**
 * The user's store as every part of one Politeness uses it (the robots.txt and tdmrep.json caches,
 * the persisted pace): `close()` waits for the calls under way (at most `timeoutMs`: a store that hangs
 * holds nobody), and every call after it answers at once without touching the store (a miss, a write
 * not acknowledged): a write landing after `close()` (a robots.txt fetched meanwhile) would reopen the
 * connection the caller's `store.disconnect()` closed (@keyv/redis reconnects on use), and the
 * process would never end.
 */
export function closableStore(
  store: KeyvLike,
  timeoutMs = DEFAULT_STORE_TIMEOUT_MS,
): KeyvLike & { close(): Promise<void> } {
  let closed = false;
  const underWay = new Set<Promise<unknown>>();
  const through =
    (method: 'get' | 'set' | 'delete' | 'setMany', refused: unknown) =>
    (...args: unknown[]): unknown => {
      if (closed) return refused;
      const call = Promise.resolve().then(() =>
        (store as unknown as Record<string, (...args: unknown[]) => unknown>)[method]?.(...args),
      );
      underWay.add(call);
      const done = () => underWay.delete(call);
      call.then(done, done);
      return call;
    };
  const hasMany = typeof (store as { setMany?: unknown }).setMany === 'function';
  return {
    get: through('get', undefined),
    set: through('set', false),
    delete: through('delete', false),
    ...(hasMany ? { setMany: through('setMany', false) } : {}),
    async close() {
      closed = true;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const bound = new Promise((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      });
      await Promise.race([Promise.allSettled([...underWay]), bound]);
      clearTimeout(timer);
    },
  };
}
