/**
 * The facade: wires the rules engine, the robots.txt cache and the scheduler behind one object.
 * Both adapters are thin translators over it; everything they share lives here.
 */

import { createFleetLock, type FleetLock } from './cache/fleet-lock.js';
import { createRobotsCache, type RobotsCache } from './cache/robots-cache.js';
import type { RobotsEntry } from './cache/types.js';
import { createEventBus } from './event-bus.js';
import { isRobotsTxtUrl, robotsLocation, toHttpUrl } from './fetch/robots-url.js';
import type { FetchLike } from './fetch/types.js';
import { createHostKeys, type HostKeys } from './host-key.js';
import { identificationWarnings } from './identification.js';
import { systemClock } from './kernel/clock.js';
import { DeadlineExceededError, isWaitTooLongError, RobotsDisallowedError } from './kernel/errors.js';
import { withoutCredentials } from './kernel/redact.js';
import { retryAfterMs } from './kernel/retry-after.js';
import { operatorLog } from './operator-log.js';
import { type PolitenessOptions, type ResolvedOptions, resolveOptions } from './options.js';
import { createLocalInFlight, type InFlightLease, type InFlightLimiter } from './schedule/in-flight.js';
import { isRedisClient, redisClientOfStore, toScriptClient } from './schedule/redis-client.js';
import { resolveScheduler } from './schedule/resolve-scheduler.js';
import type { Clock, Reservation, ReserveOptions, Scheduler, TryReservation } from './schedule/types.js';
import { createHostPace, type HostPace } from './signals/host-pace.js';
import { createMemorySignalStore, createRedisSignalStore, type SignalStore } from './signals/signal-store.js';
import { createFacadeCounters } from './stats.js';
import type {
  AdmitOptions,
  CheckOptions,
  Decision,
  DisallowedDecision,
  PolitelyEvent,
  Politeness,
  PolitenessStats,
  ResponseDetails,
  SkipStage,
} from './types.js';

const BRAND = Symbol.for('politely.politeness');

/** Backoff for a 429 that carries no usable Retry-After. */
const DEFAULT_429_BACKOFF_MS = 5_000;

/** True for an object made by createPoliteness (in any copy of this package). */
export function isPoliteness(value: unknown): value is Politeness {
  return value !== null && typeof value === 'object' && BRAND in value;
}

/**
 * `createPoliteness(options)`: the one entry point. Passing an existing Politeness returns it, so an
 * adapter accepts either the options object or a shared instance.
 */
export function createPoliteness(options: PolitenessOptions | Politeness): Politeness {
  if (isPoliteness(options)) return options;
  return new PolitenessImpl(resolveOptions(options));
}

class PolitenessImpl implements Politeness {
  readonly [BRAND] = true;
  readonly productToken: string;
  readonly userAgent: string;
  readonly sendUserAgent: boolean;
  readonly scheduler: Scheduler;
  readonly #options: ResolvedOptions;
  readonly #clock: Clock;
  readonly #cache: RobotsCache;
  readonly #hostKeys: HostKeys;
  readonly #pace: HostPace;
  readonly #events = createEventBus();
  readonly #log: (event: PolitelyEvent) => void;
  readonly #counters = createFacadeCounters();
  /** Caps requests in flight per host: the scheduler's own (fleet-wide with Redis), else in-process. */
  readonly #inFlight: InFlightLimiter;

  constructor(options: ResolvedOptions) {
    this.#options = options;
    this.productToken = options.productToken;
    this.userAgent = options.userAgent;
    this.sendUserAgent = options.sendUserAgent;
    this.#clock = options.clock ?? systemClock;
    this.#log = operatorLog(options.logger);
    // The onEvent option is sugar: a subscription made with the instance.
    if (options.onEvent) this.#events.subscribe(options.onEvent);
    const emit = (event: PolitelyEvent) => this.#emit(event);
    this.scheduler = resolveScheduler(options, { clock: this.#clock, emit });
    this.#hostKeys = createHostKeys({
      option: options.hostKey,
      lookup: options.lookup,
      clock: this.#clock,
      onLookupFailed: (hostname, error) => emit({ type: 'host-lookup-failed', hostname, error }),
    });
    this.#pace = createHostPace({
      store: signalStoreFor(options, this.scheduler),
      emit,
      latencyFactor: options.latencyFactor,
      maxDelayMs: options.maxDelayMs,
      defaultFloorMs: withSafetyMargin(options.minDelayMs),
    });
    const acquire = this.scheduler.acquireInFlight?.bind(this.scheduler);
    this.#inFlight = acquire ? { acquire } : createLocalInFlight(this.#clock);
    this.#cache = createRobotsCache(options, {
      fetch: this.#slotTakingFetch(options.fetch),
      clock: this.#clock,
      emit,
      takeSlot: (robotsUrl) => this.#takeRobotsSlot(robotsUrl),
      ...fleetLockFor(options),
    });
    for (const warning of identificationWarnings(options.userAgent, options.productToken)) {
      emit({
        type: 'identification-warning',
        ...warning,
        userAgent: options.userAgent,
        productToken: options.productToken,
      });
    }
  }

  async forget(url: string | URL): Promise<void> {
    await this.#cache.forget(toHttpUrl(url));
  }

  async check(url: string | URL, options: CheckOptions = {}): Promise<Decision> {
    const target = toHttpUrl(url);
    if (isRobotsTxtUrl(target))
      return this.#record(this.#robotsTxtItself(target, await this.#hostKeys.resolve(target)));
    const timeoutMs = checkTimeout(options.timeoutMs);
    // 'ip' grouping resolves the host name here (cached), so every decision carries the resolved key.
    const hostKey = await this.#hostKeys.resolve(target);
    if (timeoutMs === undefined)
      return this.#record(this.#decide(await this.#cache.get(target, options.signal), target, hostKey));
    const hit = this.#cache.peek(target);
    if (hit) return this.#record(this.#decide(hit, target, hostKey));
    const bound = this.#deadlineSignal(
      options.signal,
      timeoutMs,
      () => new DeadlineExceededError(target.href, 'robots.txt', timeoutMs),
    );
    try {
      return this.#record(this.#decide(await this.#cache.get(target, bound.signal), target, hostKey));
    } finally {
      bound.dispose();
    }
  }

  checkCached(url: string | URL): Decision | undefined {
    const target = toHttpUrl(url);
    if (isRobotsTxtUrl(target)) return this.#robotsTxtItself(target);
    const entry = this.#cache.peek(target);
    return entry && this.#decide(entry, target);
  }

  async sitemaps(url: string | URL): Promise<string[]> {
    const entry = await this.#cache.get(toHttpUrl(url));
    return absoluteSitemaps(entry.robots?.sitemaps ?? []);
  }

  prefetch(url: string | URL): void {
    let target: URL;
    try {
      target = toHttpUrl(url);
    } catch {
      return;
    }
    if (this.#cache.peek(target)) return;
    this.#cache.get(target).catch(() => {});
  }

  async admit(url: string | URL, options: AdmitOptions = {}): Promise<Decision> {
    const timeoutMs = checkTimeout(options.timeoutMs);
    const { signal, maxWaitMs } = options;
    if (timeoutMs === undefined) {
      const decision = await this.check(url, signal ? { signal } : {});
      if (!decision.allowed) throw this.#disallowed(decision);
      await this.reserve(decision, options);
      return decision;
    }
    const startedAt = this.#clock.now();
    const decision = await this.check(url, { ...(signal ? { signal } : {}), timeoutMs });
    if (!decision.allowed) throw this.#disallowed(decision);
    // What is left of the time limit bounds the pacing wait: a slot beyond it is refused at once.
    const left = Math.max(0, timeoutMs - (this.#clock.now() - startedAt));
    const bound = this.#deadlineSignal(
      signal,
      left,
      () => new DeadlineExceededError(decision.url, 'pacing', timeoutMs),
    );
    try {
      await this.reserve(decision, {
        signal: bound.signal,
        maxWaitMs: Math.min(left, maxWaitMs ?? this.#options.maxWaitMs),
      });
    } finally {
      bound.dispose();
    }
    return decision;
  }

  async reserve(decision: Decision, options: ReserveOptions = {}): Promise<Reservation> {
    if (!decision.allowed) throw this.#disallowed(decision);
    const maxWaitMs = options.maxWaitMs ?? this.#options.maxWaitMs;
    try {
      const reservation = await this.scheduler.reserve(decision.hostKey, this.paceMs(decision), {
        maxWaitMs,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      this.#counters.reservation(reservation.waitMs > 0 ? 'waited' : 'immediate');
      return reservation;
    } catch (error) {
      if (isWaitTooLongError(error)) this.#counters.reservation('tooLong');
      throw error;
    }
  }

  async acquireInFlight(
    decision: Decision,
    options: { readonly signal?: AbortSignal; readonly maxWaitMs?: number } = {},
  ): Promise<InFlightLease> {
    if (!decision.allowed) throw this.#disallowed(decision);
    return this.#inFlight.acquire(decision.hostKey, this.#options.maxConcurrentPerHost, {
      signal: options.signal,
      maxWaitMs: options.maxWaitMs ?? this.#options.maxWaitMs,
    });
  }

  async tryReserve(decision: Decision): Promise<TryReservation> {
    if (!decision.allowed) throw this.#disallowed(decision);
    const result = await this.scheduler.tryReserve(decision.hostKey, this.paceMs(decision));
    this.#counters.reservation(result.ok ? 'immediate' : 'deferred');
    return result;
  }

  async nextStart(decisionOrUrl: Decision | string | URL): Promise<number> {
    const host =
      typeof decisionOrUrl === 'string' || decisionOrUrl instanceof URL
        ? this.hostKey(decisionOrUrl)
        : decisionOrUrl.hostKey;
    return this.scheduler.peek ? this.scheduler.peek(host) : this.#clock.now();
  }

  paceMs(decision: Decision): number {
    return this.#pace.paceMs(decision.hostKey, decision.delayMs);
  }

  async observeResponse(
    url: string | URL,
    status: number,
    retryAfter?: string | null,
    details?: ResponseDetails,
  ): Promise<number | undefined> {
    const host = this.hostKey(url);
    try {
      const { fromMs, toMs } = await this.#pace.observe(host, status, details?.latencyMs);
      // A slower pace holds the next request already now: an adapter may have spaced it (markSent)
      // by the pace from before this response was read.
      if (toMs > fromMs) await this.scheduler.penalize(host, toMs);
    } catch {
      // The signal is advice: trouble recording it never fails the response it describes.
    }
    if (status !== 429 && status !== 503) return undefined;
    const now = this.#clock.now();
    const asked = retryAfterMs(retryAfter, now);
    const fallback = status === 429 ? DEFAULT_429_BACKOFF_MS : undefined;
    const ms = Math.min(asked ?? fallback ?? 0, this.#options.maxBackoffMs);
    if (ms <= 0) return undefined;
    await this.scheduler.penalize(host, ms);
    this.#counters.backoff();
    this.#emit({ type: 'backoff', host, ms, status });
    return ms;
  }

  async markSent(
    decisionOrUrl: Decision | string | URL,
    options: { readonly at?: number } = {},
  ): Promise<void> {
    const decision =
      typeof decisionOrUrl === 'string' || decisionOrUrl instanceof URL
        ? this.#cachedOrUndefined(decisionOrUrl)
        : decisionOrUrl;
    if (!decision?.allowed) return;
    const delayMs = this.paceMs(decision);
    if (delayMs <= 0) return;
    const sentAt = options.at ?? this.#clock.now();
    const ms = sentAt + delayMs - this.#clock.now();
    if (ms <= 0) return;
    try {
      await this.scheduler.penalize(decision.hostKey, ms);
    } catch {
      // Pacing bookkeeping is best effort; it never fails the request it describes.
    }
  }

  hostKey(url: string | URL): string {
    // One host, one key: `example.com.`, `EXAMPLE.com` and `example.com` are paced as one host.
    return this.#hostKeys.keyOf(toHttpUrl(url));
  }

  reportSkip(decision: DisallowedDecision, stage: SkipStage): void {
    this.#counters.skip(stage);
    if (!this.#events.listening) return;
    let host: string;
    try {
      host = this.hostKey(decision.url);
    } catch {
      // A decision not made here (a look-alike's URL): its own key is the best there is.
      host = decision.hostKey;
    }
    this.#emit({ type: 'skip', url: decision.url, host, stage, decision });
  }

  stats(): PolitenessStats {
    return this.#counters.snapshot(this.#cache.stats());
  }

  subscribe(listener: (event: PolitelyEvent) => void): () => void {
    return this.#events.subscribe(listener);
  }

  async close(): Promise<void> {
    this.#events.clear();
    await this.scheduler.close();
  }

  #cachedOrUndefined(url: string | URL): Decision | undefined {
    try {
      return this.checkCached(url);
    } catch {
      return undefined;
    }
  }

  /** The decision for a URL given what the cache knows about its origin. Pure apart from reading options. */
  #decide(entry: RobotsEntry, url: URL, hostKey = this.hostKey(url)): Decision {
    const o = this.#options;
    const base = {
      url: withoutCredentials(url),
      robotsUrl: entry.robotsUrl,
      productToken: this.productToken,
      hostKey,
    };
    if (!entry.robots) {
      // Google's timeline disallows all in its first 12 hours and for a site down after 30 days.
      const phase = entry.outage?.phase;
      const forced = phase === 'disallow-all' || phase === 'site-down';
      const unreachable = entry.source === 'unreachable' && (forced || o.onUnreachable === 'disallow');
      const common = {
        ...base,
        source: entry.source,
        delayMs: withSafetyMargin(o.minDelayMs),
        askedDelayMs: o.minDelayMs,
      };
      return unreachable
        ? { ...common, allowed: false, reason: 'unreachable' }
        : { ...common, allowed: true, reason: 'allowed' };
    }
    const rules = entry.robots.forAgent(this.productToken);
    const verdict = rules.check(url.href);
    const crawlDelayMs =
      o.respectCrawlDelay && rules.crawlDelay !== undefined ? Math.round(rules.crawlDelay * 1000) : undefined;
    const tooLong = crawlDelayMs !== undefined && crawlDelayMs > o.maxCrawlDelayMs;
    const askedDelayMs = Math.max(o.minDelayMs, Math.min(crawlDelayMs ?? 0, o.maxCrawlDelayMs));
    const delayMs = withSafetyMargin(askedDelayMs);
    const common = {
      ...base,
      source: entry.source,
      delayMs,
      askedDelayMs,
      ...(crawlDelayMs !== undefined ? { crawlDelayMs } : {}),
      ...(verdict.rule ? { rule: verdict.rule } : {}),
    };
    if (!verdict.allowed) return { ...common, allowed: false, reason: 'disallowed' };
    if (tooLong && o.crawlDelayAboveMax === 'skip')
      return { ...common, allowed: false, reason: 'crawl-delay-too-long' };
    return { ...common, allowed: true, reason: 'allowed' };
  }

  /**
   * A signal that aborts with the caller's reason, or with `expired()` once `ms` have passed on our
   * clock (fake clocks included). `dispose` stops the timer.
   */
  #deadlineSignal(
    outer: AbortSignal | undefined,
    ms: number,
    expired: () => Error,
  ): { signal: AbortSignal; dispose: () => void } {
    const controller = new AbortController();
    const stopTimer = new AbortController();
    const onOuter = () => controller.abort(outer?.reason);
    if (outer?.aborted) onOuter();
    else outer?.addEventListener('abort', onOuter, { once: true });
    this.#clock.sleep(ms, stopTimer.signal).then(
      () => controller.abort(expired()),
      () => {},
    );
    return {
      signal: controller.signal,
      dispose: () => {
        stopTimer.abort();
        outer?.removeEventListener('abort', onOuter);
      },
    };
  }

  #robotsTxtItself(url: URL, hostKey = this.hostKey(url)): Decision {
    const { robotsUrl } = robotsLocation(url);
    return {
      allowed: true,
      reason: 'allowed',
      url: withoutCredentials(url),
      robotsUrl,
      productToken: this.productToken,
      source: 'robots.txt-itself',
      delayMs: withSafetyMargin(this.#options.minDelayMs),
      askedDelayMs: this.#options.minDelayMs,
      hostKey,
    };
  }

  #record(decision: Decision): Decision {
    this.#counters.decision(decision);
    if (this.#events.listening) this.#emit({ type: 'decision', decision });
    return decision;
  }

  #disallowed(decision: Decision): RobotsDisallowedError {
    return new RobotsDisallowedError(decision);
  }

  /**
   * A robots.txt fetch is a request to the host too (Nutch and Heritrix count it): it waits for the
   * host's slot like any other request (so a fleet starting together, or a crawl that already runs,
   * never sends it closer than minDelayMs to another request), and it cannot fail for pacing trouble.
   */
  async #takeRobotsSlot(robotsUrl: string): Promise<void> {
    try {
      const host = await this.#hostKeys.resolve(toHttpUrl(robotsUrl));
      await this.scheduler.reserve(host, withSafetyMargin(this.#options.minDelayMs));
    } catch {
      // Pacing bookkeeping never fails the robots.txt fetch itself.
    }
  }

  /**
   * Once a robots.txt response (or a redirect hop's) arrives, the host's next start is pushed to at
   * least minDelayMs later.
   */
  #slotTakingFetch(fetch: FetchLike | undefined): FetchLike {
    const inner: FetchLike = fetch ?? ((url, init) => globalThis.fetch(url, init));
    const spacing = withSafetyMargin(this.#options.minDelayMs);
    return async (url, init) => {
      const response = await inner(url, init);
      if (spacing > 0) {
        try {
          await this.scheduler.penalize(this.hostKey(url), spacing);
        } catch {
          // Pacing trouble never fails the robots.txt fetch itself.
        }
      }
      return response;
    };
  }

  /** Logs what an operator must see, then tells the listeners. */
  #emit(event: PolitelyEvent): void {
    this.#log(event);
    this.#events.emit(event);
  }
}

/**
 * Sitemap lines as a crawler can enqueue them: absolute http(s) URLs only (the sitemaps protocol and
 * Google ask for a fully qualified URL; a relative one has no agreed base), without duplicates.
 */
function absoluteSitemaps(lines: readonly string[]): string[] {
  const urls = new Set<string>();
  for (const line of lines) {
    if (!URL.canParse(line)) continue;
    const url = new URL(line);
    if (url.protocol === 'http:' || url.protocol === 'https:') urls.add(url.href);
  }
  return [...urls];
}

/** A request time limit: undefined, or a number >= 0 (TypeError otherwise, echoing the value). */
function checkTimeout(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
    throw new TypeError(
      `Expected \`timeoutMs\` to be a number >= 0, got \`${String(value)}\` (${typeof value})`,
    );
  }
  return value;
}

/**
 * With a Redis-backed store the robots.txt cache is shared by the fleet, so one process fetches an
 * unknown origin and the others read its result (a short Redis lock; see cache/fleet-lock.ts).
 */
function fleetLockFor(options: ResolvedOptions): { fleetLock?: FleetLock } {
  const found = options.store === undefined ? undefined : redisClientOfStore(options.store);
  const redis = found && toScriptClient(found.client);
  if (!found || !redis) return {};
  return {
    fleetLock: createFleetLock({
      redis,
      connect: found.connect,
      // A holder that takes longer than its fetch may (plus its slot) is taken over; Google's timeline
      // may add a home page check to the fetch.
      ttlMs: options.robotsTimeoutMs * (options.unreachablePolicy === 'google' ? 2 : 1) + 5000,
    }),
  };
}

/**
 * With a Redis scheduler (a fleet), hosts' latency and error signals are shared through the same
 * Redis; elsewhere they stay in this process. While the scheduler has fallen back to memory (Redis
 * away), signals do too.
 */
function signalStoreFor(options: ResolvedOptions, scheduler: Scheduler): SignalStore {
  const option = options.scheduler;
  const found =
    option === 'auto'
      ? options.store === undefined
        ? undefined
        : redisClientOfStore(options.store)
      : isRedisClient(option)
        ? { client: option }
        : undefined;
  const redis = found && toScriptClient(found.client);
  if (!found || !redis || (scheduler.kind !== 'redis' && scheduler.kind !== 'memory-fallback'))
    return createMemorySignalStore();
  return createRedisSignalStore({
    redis,
    connect: 'connect' in found ? found.connect : undefined,
    redisUsable: () => scheduler.kind === 'redis',
  });
}

/**
 * Spacing is enforced when a request starts on our side; the server sees it shifted by connection
 * latency, which varies from one request to the next (a new connection, a busy event loop). A small
 * upward margin, 10% of the delay and at most 50 ms, keeps the gaps the server sees at or above the
 * delay asked. Jitter only ever goes upward: a Crawl-delay is a floor.
 *
 * Measured at the wire (bench/pacing.ts, two CPU burners), a margin cannot cover latency that varies
 * by more than itself (120 ms of connection setup: gaps of 99 ms for 200 asked), and an adapter that
 * reports the real send with `markSent` needs none (0 gaps below the delay from 50 ms to 1 s), so
 * @politely/got paces by `askedDelayMs`; the margin stays for adapters that cannot see the send.
 */
export function withSafetyMargin(delayMs: number): number {
  return delayMs + Math.min(50, Math.round(delayMs * 0.1));
}
