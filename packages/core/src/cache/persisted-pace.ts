/**
 * Host pace that survives a restart: the memory scheduler's "not before" time for each host is kept
 * in the user's store, so a crawler killed mid-crawl (SIGKILL: nothing runs at exit) and started again
 * sends its first request to a host, robots.txt included, no closer than the host's delay to the last
 * one before the kill. Nutch and StormCrawler keep politeness state with the queue owner; here it
 * goes where the robots.txt records already go.
 *
 * Write-ahead: a reservation resolves (and its request leaves) only once a record covering the
 * reservation's start plus its delay has been written. Writes are batched: every change waits in a
 * dirty map and one batch carries them all, at most one batch per FLUSH_GAP_MS, so a crawl at 1,000
 * requests/s writes at most 100 batches a second, not 1,000 records. The record for a slot is queued
 * when the slot is handed out, before its wait, so a request that waits for its host (the usual case
 * for a paced host) finds it written already; only a request that can start at once waits for a batch,
 * and never for more than that one: a slow store costs such a request one batch, said once
 * (`store-slow`) when a batch takes longer than the margin.
 *
 * Reads: a host's first reservation (or peek) reads its record once, bounded by the store's timeout,
 * and pushes the host's next start there (penalize). A record is trusted only up to `maxAheadMs` from
 * now, the longest this crawler's options could have asked for (a clock that jumped, a bad or hostile
 * record in a shared store): further, it is held to that and reported (`pace-record-ahead`). A failing
 * store loses nothing: the breaker in safe-store.ts skips it, the store-error event warns the operator
 * once (operator-log.ts), and pacing goes on in memory as without a store. Records expire (TTL) once
 * their time has passed.
 */
import type { PolitelyEvent } from '../kernel/events.js';
import type { Clock, Scheduler, TryReservation } from '../schedule/types.js';
import type { SafeStore, StoreEntry } from './safe-store.js';

export const PACE_KEY_PREFIX = 'politely:pace:v1:';

/**
 * Added to every stored time: the wire send comes a little after the slot's start (the event loop, a
 * connection to open), and a record written before the send cannot know by how much; a reported send
 * (markSent) corrects the record in the next batch, this covers a kill in between. Costs a restarted
 * crawl at most this much once per host.
 */
export const RESTART_MARGIN_MS = 250;

/**
 * At most one batch per this many ms (the first after a quiet spell goes at once). A request whose
 * host is due at once waits for the next batch, so this is paid on such a request's start: at 50 ms,
 * Crawlee's quick start (whose requests are handed out when due) fell from 0.99 to 0.95 of the
 * politeness bound at 1 s a host and to 0.90 at 500 ms; at 10 ms it is 0.98 and 0.96-0.97.
 */
export const FLUSH_GAP_MS = 10;

/** Hosts whose record was read are remembered up to this many; past it the memory starts over (a re-read is harmless). */
const MAX_REMEMBERED_HOSTS = 100_000;

interface StoredPace {
  readonly v: 1;
  /** Wall-clock epoch ms before which no request may start. */
  readonly notBefore: number;
}

export interface PersistedPaceDeps {
  readonly store: SafeStore;
  /** Wall-clock epoch ms (systemClock): the stored times must mean the same after a restart. */
  readonly clock: Clock;
  /** The furthest ahead of now this crawler could have written (its largest delay and the margin). */
  readonly maxAheadMs: number;
  readonly emit: (event: Extract<PolitelyEvent, { type: 'pace-record-ahead' | 'store-slow' }>) => void;
}

export function paceKey(host: string): string {
  return `${PACE_KEY_PREFIX}${host}`;
}

/**
 * Wraps a memory scheduler (its clock must be wall-clock epoch ms, as systemClock is: the stored
 * times must mean the same after a restart). The wrapper answers to the same contract.
 */
export function withPersistedPace<S extends Scheduler>(inner: S, deps: PersistedPaceDeps): S {
  const { store, clock, maxAheadMs, emit } = deps;
  const now = () => clock.now();
  const loads = new Map<string, Promise<void>>();
  /** Hosts whose record has been read: their reservations go on without waiting for it. */
  const read = new Set<string>();
  /** What the store is known to hold for each host (only ever raised). */
  let onRecord = new Map<string, number>();
  /** Times queued for the next batch, which starts after the batch under way and the gap. */
  let queued = new Map<string, number>();
  let next: Promise<void> | undefined;
  let writing: { readonly hosts: Map<string, number>; readonly done: Promise<void> } | undefined;
  let lastFlushAt = Number.NEGATIVE_INFINITY;
  /** How long the last batch took: a record a request waits for covers that much more. */
  let writeMs = 0;
  let slowSaid = false;
  let closed = false;

  const load = (host: string): Promise<void> => {
    let loading = loads.get(host);
    if (loading === undefined) {
      if (loads.size >= MAX_REMEMBERED_HOSTS) {
        loads.clear();
        read.clear();
      }
      loading = readRecord(host);
      loads.set(host, loading);
      loading.then(
        () => read.add(host),
        () => {},
      );
    }
    return loading;
  };

  async function readRecord(host: string): Promise<void> {
    const notBefore = decode(await store.get(paceKey(host)));
    const at = now();
    if (notBefore === undefined || notBefore <= at) return;
    if (notBefore - at > maxAheadMs) {
      emit({ type: 'pace-record-ahead', host, aheadMs: notBefore - at, trustedMs: maxAheadMs });
    }
    const holdMs = Math.min(notBefore - at, maxAheadMs);
    raise(onRecord, host, at + holdMs);
    try {
      // penalize holds the host (waiters included) until then, exactly what the last process asked.
      await inner.penalize(host, holdMs);
    } catch {
      // Closed meanwhile: nothing will be sent anyway.
    }
  }

  /** Queues the host's time; the promise settles once the batch carrying it ends. */
  const note = (host: string, notBefore: number): Promise<void> => {
    if ((onRecord.get(host) ?? Number.NEGATIVE_INFINITY) >= notBefore) return Promise.resolve();
    raise(queued, host, notBefore);
    next ??= nextBatch();
    return next;
  };

  async function nextBatch(): Promise<void> {
    await writing?.done;
    // Not unref'd: a reservation is waiting on this batch, and it is at most FLUSH_GAP_MS away.
    const gap = lastFlushAt + FLUSH_GAP_MS - now();
    if (gap > 0 && !closed) await new Promise((resolve) => setTimeout(resolve, gap));
    next = undefined;
    const hosts = queued;
    queued = new Map();
    const batch = { hosts, done: write(hosts) };
    writing = batch;
    await batch.done;
    if (writing === batch) writing = undefined;
  }

  async function write(hosts: Map<string, number>): Promise<void> {
    const at = now();
    lastFlushAt = at;
    const records: StoreEntry[] = [];
    for (const [host, notBefore] of hosts) {
      // Kept until its time has passed, and a little past it: the store holds only live hosts.
      records.push({
        key: paceKey(host),
        value: { v: 1, notBefore },
        ttl: Math.max(1, notBefore - at) + 1000,
      });
    }
    // On failure the waiters go on anyway: a failing store loses nothing (safe-store.ts has warned).
    if (await store.setMany(records)) for (const [host, notBefore] of hosts) raise(onRecord, host, notBefore);
    writeMs = Math.max(0, now() - at);
    if (writeMs > RESTART_MARGIN_MS && !slowSaid) {
      slowSaid = true;
      emit({ type: 'store-slow', operation: 'set', latencyMs: writeMs, marginMs: RESTART_MARGIN_MS });
    }
    // Only times still ahead are kept: a host past its time needs a new write anyway.
    if (onRecord.size >= 1024) onRecord = new Map([...onRecord].filter(([, notBefore]) => notBefore > at));
  }

  /** When a note made now is likely on record: after the batch under way, the gap, and one batch. */
  const landingAt = () =>
    Math.max(now(), lastFlushAt + FLUSH_GAP_MS, writing ? lastFlushAt + writeMs : 0) + writeMs;

  /**
   * The slot just handed out ends at the host's next start: queued before the wait begins, covering a
   * start as late as the record's landing (a wait shorter than the store takes).
   */
  const noteAhead = (host: string, delayMs: number) => {
    const peek = (inner as { peek?: (host: string) => Promise<number> }).peek;
    if (typeof peek !== 'function') return;
    peek.call(inner, host).then(
      (next) => {
        if (next > now()) void note(host, Math.max(next, landingAt() + delayMs) + RESTART_MARGIN_MS);
      },
      () => {},
    );
  };

  /** True when the record covers a send now plus the delay, with half the margin left for the send's own lag. */
  const covers = (host: string, delayMs: number) =>
    (onRecord.get(host) ?? Number.NEGATIVE_INFINITY) >= now() + delayMs + RESTART_MARGIN_MS / 2;

  /**
   * Returns when the request whose slot started at `startAt` may really go: once a record covers its
   * send plus the delay. The record queued ahead of the wait usually does, or will once its batch is
   * in; otherwise one batch is waited for, its record covering that batch's likely length too. A
   * request that went later than its slot moves the host's next start with it, so the gap to the next
   * request stays a full delay (penalize only ever pushes forward).
   */
  const written = async (host: string, startAt: number, delayMs: number): Promise<number> => {
    if (delayMs <= 0 || closed) return startAt;
    if (!covers(host, delayMs)) {
      if (queued.has(host)) await next;
      else if (writing?.hosts.has(host)) await writing.done;
      if (!covers(host, delayMs) && !closed) await note(host, landingAt() + delayMs + RESTART_MARGIN_MS);
    }
    const goAt = now();
    if (goAt > startAt && !closed) await wrapper.penalize(host, delayMs);
    return Math.max(startAt, goAt);
  };

  const wrapper: Scheduler = {
    get kind() {
      return inner.kind;
    },
    async reserve(host, delayMs, options) {
      if (!read.has(host)) await load(host);
      const reserving = inner.reserve(host, delayMs, options);
      // No delay asked: nothing to write ahead of the start, nothing to wait for.
      if (delayMs <= 0) return reserving;
      noteAhead(host, delayMs);
      const reservation = await reserving;
      const startAt = await written(host, reservation.startAt, delayMs);
      return { startAt, waitMs: reservation.waitMs + (startAt - reservation.startAt) };
    },
    async tryReserve(host, delayMs): Promise<TryReservation> {
      await load(host);
      const result = await inner.tryReserve(host, delayMs);
      return result.ok ? { ok: true, startAt: await written(host, result.startAt, delayMs) } : result;
    },
    async penalize(host, ms) {
      await inner.penalize(host, ms);
      // A backoff or a reported send: recorded in the next batch, nobody waits for it.
      if (ms > 0 && !closed) void note(host, now() + ms);
    },
    /** Writes what is still queued (after the batch under way), then nothing more. */
    async close() {
      closed = true;
      await next;
      await writing?.done;
      await inner.close();
    },
  };
  // Everything else (peek, acquireInFlight, size, ...) is the inner scheduler's; peek reads the
  // record first, so a frontier deciding what to hand out sees the restored pace.
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property === 'peek' && typeof target.peek === 'function') {
        const peek = target.peek.bind(target);
        return async (host: string) => {
          await load(host);
          return peek(host);
        };
      }
      if (Object.hasOwn(wrapper, property)) return Reflect.get(wrapper, property);
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function raise(map: Map<string, number>, host: string, at: number): void {
  const known = map.get(host);
  if (known === undefined || at > known) map.set(host, at);
}

/** The stored time, or undefined for anything this module would not have written. */
function decode(value: unknown): number | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Partial<StoredPace>;
  return record.v === 1 && typeof record.notBefore === 'number' && Number.isFinite(record.notBefore)
    ? record.notBefore
    : undefined;
}
