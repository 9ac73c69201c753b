/**
 * The TDMRep file cache: each origin's `/.well-known/tdmrep.json` (W3C TDM Reservation Protocol,
 * "TDM File on the Origin Server"), fetched once and kept as robots.txt is: process memory (an LRU)
 * -> the user's store, if any (its own key prefix, records checked on the way back in) -> a fetch
 * (the robots.txt fetcher: its time limit, byte limit and redirect hops, paced like a robots.txt
 * fetch), single flight per origin in the process and across a fleet (the robots.txt fleet lock,
 * under a name of its own). Only a crawl whose `purpose` is text and data mining asks for it.
 *
 * Outcomes, and what each means for the origin's URLs (the verdict itself is the facade's):
 * - `ok`: a 2xx body that reads as the spec's array of rules; its rules apply.
 * - `absent`: 4xx (404 above all), an empty 2xx body or an HTML page (a site that answers every
 *   unknown path with its home page or an error page, with a 200), or redirects past the limit: no
 *   file, every URL unset by it, and nothing reported (most sites have none).
 * - `malformed`: a 2xx body that is not JSON, not an array, holds a rule we cannot read, or was cut
 *   at the byte limit: reported (`tdmrep-malformed`, and the operator's log), then unset.
 * - `unreachable`: 429, 5xx, no answer or a timeout: unset for now, and fetched again after
 *   `unreachableRetryMs` (not the day a file gets). TDMRep is an opt-out a site states; a site whose
 *   well-known file cannot be read has stated nothing we can see, and its headers and meta tags still
 *   speak on each response. Refusing every page of an origin because one file is down would stall a
 *   crawl for a signal most sites never send.
 * Freshness: `cacheTtlMs` (a day by default) for what the origin answered.
 */
import { LRUCache } from 'lru-cache';
import { parseTdmRep, type TdmRepRule, tdmRepRules } from '../engine/tdmrep.js';
import { fetchRobotsTxt } from '../fetch/fetcher.js';
import { originOf } from '../fetch/robots-url.js';
import type { FetchLike } from '../fetch/types.js';
import { raceAbort } from '../kernel/abort.js';
import type { Clock } from '../kernel/clock.js';
import { isWaitTooLongError } from '../kernel/errors.js';
import type { PolitelyEvent, StoreRecordRejection } from '../kernel/events.js';
import type { FleetLock } from './fleet-lock.js';
import { createSafeStore, type SafeStore } from './safe-store.js';
import { createSingleFlight } from './single-flight.js';
import { MAX_CLOCK_SKEW_MS, MAX_STORED_ERROR } from './stored-record.js';
import type { KeyvLike } from './types.js';

export const TDMREP_PATH = '/.well-known/tdmrep.json';
export const TDMREP_KEY_PREFIX = 'politely:tdmrep:v1:';

export type TdmRepOutcome = 'ok' | 'absent' | 'malformed' | 'unreachable';

/** What the cache knows about one origin's tdmrep.json. */
export interface TdmRepEntry {
  readonly origin: string;
  /** `https://example.com/.well-known/tdmrep.json`. */
  readonly fileUrl: string;
  readonly outcome: TdmRepOutcome;
  /** HTTP status of the fetch (0: no answer). */
  readonly status: number;
  /** The file's rules (`ok` only; empty otherwise). */
  readonly rules: readonly TdmRepRule[];
  readonly fetchedAt: number;
  readonly freshUntil: number;
  /** Why the file is malformed or could not be fetched. */
  readonly error?: string;
}

export interface TdmRepCacheOptions {
  readonly userAgent: string;
  readonly store: KeyvLike | undefined;
  readonly robotsTimeoutMs: number;
  readonly robotsMaxBytes: number;
  readonly robotsMaxRedirects: number;
  readonly cacheTtlMs: number;
  readonly unreachableRetryMs: number;
  readonly staleTtlMs: number;
}

export interface TdmRepCacheDeps {
  readonly clock: Pick<Clock, 'now'>;
  readonly emit: (event: PolitelyEvent) => void;
  readonly fetch?: FetchLike;
  readonly fleetLock?: FleetLock;
  readonly takeSlot?: (url: string) => Promise<void>;
}

export interface TdmRepCacheStats {
  /** Fetches of tdmrep.json by outcome. */
  readonly fetches: Readonly<Record<TdmRepOutcome, number>>;
  readonly memoryHits: number;
  readonly storeHits: number;
  readonly storeRejects: number;
}

export interface TdmRepCache {
  /** The origin's entry, fetched once when nothing fresh is known. Never rejects for HTTP or store trouble. */
  get(url: URL | string, signal?: AbortSignal): Promise<TdmRepEntry>;
  /** The fresh entry from process memory, without I/O. */
  peek(url: URL | string): TdmRepEntry | undefined;
  forget(url: URL | string): Promise<void>;
  stats(): TdmRepCacheStats;
}

/** Origins kept in process memory at most (a file is a few rules; the bound is on count and bytes). */
const MEMORY_ENTRIES = 50_000;
const MEMORY_BYTES = 64 * 1024 * 1024;
/** A tdmrep.json is a few rules; robots.txt's byte limit (500 KiB by default) bounds it too. */
const ACCEPT = 'application/json, */*;q=0.1';

export function createTdmRepCache(options: TdmRepCacheOptions, deps: TdmRepCacheDeps): TdmRepCache {
  const now = () => deps.clock.now();
  const emit = (event: PolitelyEvent) => {
    try {
      deps.emit(event);
    } catch {
      // A listener's bug must not break a lookup.
    }
  };
  const counters = { memoryHits: 0, storeHits: 0, storeRejects: 0 };
  const fetches: Record<TdmRepOutcome, number> = { ok: 0, absent: 0, malformed: 0, unreachable: 0 };
  const memory = new LRUCache<string, TdmRepEntry>({
    max: MEMORY_ENTRIES,
    maxSize: MEMORY_BYTES,
    sizeCalculation: entryBytes,
  });
  const store: SafeStore | undefined =
    options.store === undefined ? undefined : createSafeStore(options.store, { now, emit });
  const flights = createSingleFlight<TdmRepEntry>();

  function fresh(origin: string): TdmRepEntry | undefined {
    const known = memory.get(origin);
    return known && now() < known.freshUntil ? known : undefined;
  }

  async function readStored(origin: string, generation: number): Promise<TdmRepEntry | undefined> {
    if (!store) return undefined;
    const value = await store.get(storeKey(origin));
    if (value === undefined || value === null) return undefined;
    const decoded = decodeStoredTdmRep(value, origin, { now: now(), maxLifetimeMs: options.cacheTtlMs });
    if ('rejected' in decoded) {
      counters.storeRejects++;
      emit({ type: 'store-record-rejected', origin, reason: decoded.rejected });
      return undefined;
    }
    if (now() >= decoded.entry.freshUntil) return undefined;
    counters.storeHits++;
    if (flights.isCurrent(origin, generation)) memory.set(origin, decoded.entry);
    return decoded.entry;
  }

  async function fetchHere(origin: string, generation: number): Promise<TdmRepEntry> {
    const fileUrl = `${origin}${TDMREP_PATH}`;
    await deps.takeSlot?.(fileUrl);
    const result = await fetchRobotsTxt(fileUrl, {
      userAgent: options.userAgent,
      timeoutMs: options.robotsTimeoutMs,
      maxBytes: options.robotsMaxBytes,
      maxRedirects: options.robotsMaxRedirects,
      accept: ACCEPT,
      ...(deps.fetch ? { fetch: deps.fetch } : {}),
    });
    const at = now();
    const base = { origin, fileUrl, status: result.status, fetchedAt: at };
    let entry: TdmRepEntry;
    const status = result.status;
    if (status >= 200 && status <= 299) {
      const text = new TextDecoder('utf-8').decode(result.body ?? new Uint8Array());
      const parsed = result.truncated
        ? { ok: false as const, error: `larger than ${options.robotsMaxBytes} bytes` }
        : isSoftNotFound(text)
          ? undefined
          : parseTdmRep(text, result.finalUrl);
      entry =
        parsed === undefined
          ? { ...base, outcome: 'absent', rules: [], freshUntil: at + options.cacheTtlMs }
          : parsed.ok
            ? { ...base, outcome: 'ok', rules: parsed.rules, freshUntil: at + options.cacheTtlMs }
            : {
                ...base,
                outcome: 'malformed',
                rules: [],
                error: parsed.error.slice(0, MAX_STORED_ERROR),
                freshUntil: at + options.cacheTtlMs,
              };
    } else if (
      (status >= 400 && status <= 499 && status !== 429) ||
      result.failure === 'too-many-redirects'
    ) {
      entry = { ...base, outcome: 'absent', rules: [], freshUntil: at + options.cacheTtlMs };
    } else {
      const error = (result.error ?? `HTTP ${status}`).slice(0, MAX_STORED_ERROR);
      entry = {
        ...base,
        outcome: 'unreachable',
        rules: [],
        error,
        freshUntil: at + Math.min(options.unreachableRetryMs, options.cacheTtlMs),
      };
    }
    fetches[entry.outcome]++;
    if (entry.outcome === 'malformed') {
      emit({ type: 'tdmrep-malformed', origin, url: fileUrl, error: entry.error ?? 'malformed' });
    }
    if (!flights.isCurrent(origin, generation)) return entry;
    memory.set(origin, entry);
    await store?.set(storeKey(origin), storedOf(entry), Math.max(options.cacheTtlMs, 1));
    return entry;
  }

  async function load(origin: string, generation: number): Promise<TdmRepEntry> {
    const stored = await readStored(origin, generation);
    if (stored) return stored;
    const lock = deps.fleetLock;
    if (!lock) return fetchHere(origin, generation);
    return lock.run(
      `tdmrep:${origin}`,
      () => readStored(origin, generation),
      () => fetchHere(origin, generation),
    );
  }

  return {
    get(url, signal) {
      let origin: string;
      try {
        origin = originOf(url);
        signal?.throwIfAborted();
      } catch (error) {
        return Promise.reject(error);
      }
      const hit = fresh(origin);
      if (hit) {
        counters.memoryHits++;
        return Promise.resolve(hit);
      }
      const flight = flights.run(origin, (generation) =>
        load(origin, generation).catch((error: unknown): TdmRepEntry => {
          // The host's slot is further than maxWaitMs (robots-fetch-pacing.ts): nothing was fetched, nothing kept.
          if (isWaitTooLongError(error)) throw error;
          // Whatever went wrong here is ours, not the site's: unset, and asked again soon.
          const at = now();
          const failed: TdmRepEntry = {
            origin,
            fileUrl: `${origin}${TDMREP_PATH}`,
            outcome: 'unreachable',
            status: 0,
            rules: [],
            fetchedAt: at,
            freshUntil: at + Math.min(options.unreachableRetryMs, options.cacheTtlMs),
            error: String(error).slice(0, MAX_STORED_ERROR),
          };
          memory.set(origin, failed);
          return failed;
        }),
      );
      return raceAbort(flight, signal);
    },
    peek(url) {
      return fresh(originOf(url));
    },
    async forget(url) {
      const origin = originOf(url);
      flights.forget(origin);
      memory.delete(origin);
      await store?.delete(storeKey(origin));
    },
    stats() {
      return { ...counters, fetches: { ...fetches } };
    },
  };
}

export function storeKey(origin: string): string {
  return `${TDMREP_KEY_PREFIX}${origin}`;
}

/** The plain record kept in the store: the rules as the spec writes them, so a reader re-checks them. */
export interface StoredTdmRep {
  readonly v: 1;
  readonly origin: string;
  readonly outcome: TdmRepOutcome;
  readonly status: number;
  readonly fetchedAt: number;
  readonly freshUntil: number;
  readonly rules: readonly { location: string; 'tdm-reservation': 0 | 1; 'tdm-policy'?: string }[];
  readonly error?: string;
}

function storedOf(entry: TdmRepEntry): StoredTdmRep {
  return {
    v: 1,
    origin: entry.origin,
    outcome: entry.outcome,
    status: entry.status,
    fetchedAt: entry.fetchedAt,
    freshUntil: entry.freshUntil,
    rules: entry.rules.map((rule) => ({
      location: rule.location,
      'tdm-reservation': rule.reservation,
      ...(rule.policy !== undefined ? { 'tdm-policy': rule.policy } : {}),
    })),
    ...(entry.error !== undefined ? { error: entry.error } : {}),
  };
}

const OUTCOMES: ReadonlySet<unknown> = new Set<TdmRepOutcome>(['ok', 'absent', 'malformed', 'unreachable']);

/**
 * A stored record back as an entry, or why it is not trusted: a record we would not have written
 * (another origin's, a rule the parser refuses, rules on an outcome that has none, a time from the
 * future, a freshness longer than this process gives) is a miss, reported, and the file is fetched.
 */
export function decodeStoredTdmRep(
  value: unknown,
  origin: string,
  limits: { readonly now: number; readonly maxLifetimeMs: number },
): { readonly entry: TdmRepEntry } | { readonly rejected: StoreRecordRejection } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { rejected: 'malformed' };
  const record = value as Record<string, unknown>;
  if (record.v !== 1) return { rejected: 'version' };
  if (record.origin !== origin) {
    return { rejected: typeof record.origin === 'string' ? 'origin-mismatch' : 'malformed' };
  }
  const { outcome, status, fetchedAt, freshUntil, error } = record;
  if (!OUTCOMES.has(outcome) || !isStatus(status) || !isTime(fetchedAt) || !isTime(freshUntil)) {
    return { rejected: 'malformed' };
  }
  if (error !== undefined && (typeof error !== 'string' || error.length > MAX_STORED_ERROR)) {
    return { rejected: 'malformed' };
  }
  const fileUrl = `${origin}${TDMREP_PATH}`;
  const rules = tdmRepRules(record.rules, fileUrl);
  if (!rules.ok || (outcome !== 'ok' && rules.rules.length > 0)) return { rejected: 'rules' };
  if (fetchedAt > limits.now + MAX_CLOCK_SKEW_MS) return { rejected: 'future-fetch' };
  if (freshUntil < fetchedAt) return { rejected: 'malformed' };
  if (freshUntil > fetchedAt + limits.maxLifetimeMs) return { rejected: 'freshness-too-long' };
  return {
    entry: {
      origin,
      fileUrl,
      outcome: outcome as TdmRepOutcome,
      status,
      rules: rules.rules,
      fetchedAt,
      freshUntil,
      ...(typeof error === 'string' ? { error } : {}),
    },
  };
}

/**
 * A 2xx that is no file at all: empty, or a page of markup (a body that starts with `<`, which no
 * JSON does). Reporting those as malformed files would warn about most sites. Judged by the body,
 * not the Content-Type: a real file served as text/html is still read.
 */
function isSoftNotFound(text: string): boolean {
  const body = text.trimStart();
  return body === '' || body.startsWith('<');
}

function entryBytes(entry: TdmRepEntry): number {
  let bytes = 400;
  for (const rule of entry.rules) bytes += 80 + 2 * (rule.location.length + (rule.policy?.length ?? 0));
  return bytes;
}

function isTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function isStatus(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 999;
}
