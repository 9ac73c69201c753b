/**
 * The facade: wires the rules engine, the robots.txt cache and the scheduler behind one object.
 * Both adapters are thin translators over it. What it offers is here; how is delegated: verdicts to
 * decision-policy.ts, what responses and sends tell a host's schedule to host-feedback.ts, an
 * adapter's pass for one request (place in flight, slot, reports) to send-pass.ts, the scheduler,
 * host keys, pace, in-flight limit and robots.txt cache to the parts facade-parts.ts builds,
 * counters to stats.ts, listeners to event-bus.ts, OpenTelemetry metrics to metrics/recorder.ts and the
 * operator's log to operator-log.ts. It also
 * builds the instance's adapter kit (adapter/kit.ts), bound to these parts, for adapters, frontiers
 * and page guards.
 */

import { ADAPTER_KIT, type AdapterKit, type CheckCachedOptions } from '../adapter/kit.js';
import { openSendPass } from '../adapter/send-pass.js';
import { createStalledPlaces } from '../adapter/stalled-places.js';
import { createUnreportedSends } from '../adapter/unreported-sends.js';
import type { RobotsCache } from '../cache/robots-cache.js';
import type { TdmRepCache, TdmRepEntry } from '../cache/tdmrep-cache.js';
import type { RobotsEntry } from '../cache/types.js';
import { isRobotsTxtUrl, toHttpUrl } from '../fetch/robots-url.js';
import { withinDeadline } from '../kernel/abort.js';
import { systemClock } from '../kernel/clock.js';
import {
  DeadlineExceededError,
  isWaitTooLongError,
  RobotsDisallowedError,
  WaitTooLongError,
} from '../kernel/errors.js';
import { shown } from '../kernel/shown.js';
import { createMetricsRecorder, type MetricsRecorder } from '../metrics/recorder.js';
import { createClosing } from '../schedule/closing.js';
import type { InFlightLimiter } from '../schedule/in-flight.js';
import type {
  Clock,
  InFlightLease,
  InFlightOptions,
  Reservation,
  ReserveOptions,
  Scheduler,
  TryReservation,
} from '../schedule/types.js';
import type { HostPace } from '../signals/host-pace.js';
import { decide, rateLimitVerdict, robotsTxtItself, tdmFileVerdict } from './decision-policy.js';
import { createEventBus } from './event-bus.js';
import { createFacadeParts, type FacadeParts } from './facade-parts.js';
import type { HostFeedback } from './host-feedback.js';
import type { HostKeys } from './host-key.js';
import { identificationWarnings } from './identification.js';
import { operatorLog } from './operator-log.js';
import { type PolitenessOptions, type ResolvedOptions, resolveOptions } from './options.js';
import { absoluteSitemaps } from './sitemap-urls.js';
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
  /** What adapters, frontiers and page guards use beyond the crawler's methods (adapter/kit.ts). */
  readonly [ADAPTER_KIT]: AdapterKit;
  readonly productToken: string;
  readonly userAgent: string;
  readonly #options: ResolvedOptions;
  readonly #clock: Clock;
  readonly #scheduler: Scheduler;
  readonly #reserveNow: FacadeParts['reserveNow'];
  readonly #cache: RobotsCache;
  readonly #tdmrep: TdmRepCache | undefined;
  readonly #hostKeys: HostKeys;
  readonly #pace: HostPace;
  readonly #feedback: HostFeedback;
  readonly #events = createEventBus();
  readonly #log: (event: PolitelyEvent) => void;
  readonly #counters = createFacadeCounters();
  readonly #inFlight: InFlightLimiter;
  readonly #closeParts: () => Promise<void>;
  /** Undefined when metrics are off (or no meter is to be had): then nothing is recorded or listened for. */
  readonly #metrics: MetricsRecorder | undefined;
  // Every wait the facade starts (robots.txt, a place in flight, a slot) runs on a signal this aborts
  // with ClosedError at close(), whatever scheduler (a user's too) is underneath.
  readonly #closing = createClosing('politeness instance');

  constructor(options: ResolvedOptions) {
    this.#options = options;
    this.productToken = options.productToken;
    this.userAgent = options.userAgent;
    this.#clock = options.clock ?? systemClock;
    this.#log = operatorLog(options.logger);
    // The onEvent option is sugar: a subscription made with the instance.
    if (options.onEvent) this.#events.subscribe(options.onEvent);
    // Metrics hear every event as it is emitted, and count decisions without one: with them off
    // nothing is recorded, and no event is built for them.
    this.#metrics = options.metricsEnabled
      ? createMetricsRecorder({
          meterProvider: options.meterProvider,
          hostAttribute: options.metricsHostAttribute,
          maxHosts: options.metricsMaxHosts,
        })
      : undefined;
    const emit = (event: PolitelyEvent) => this.#emit(event);
    const parts = createFacadeParts(options, this.#clock, emit);
    this.#scheduler = parts.scheduler;
    this.#reserveNow = parts.reserveNow;
    this.#hostKeys = parts.hostKeys;
    this.#pace = parts.pace;
    this.#feedback = parts.feedback;
    this.#inFlight = parts.inFlight;
    this.#cache = parts.cache;
    this.#tdmrep = parts.tdmrep;
    this.#closeParts = parts.close;
    this[ADAPTER_KIT] = this.#kit(options.sendUserAgent);
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
    const target = toHttpUrl(url);
    await Promise.all([this.#cache.forget(target), this.#tdmrep?.forget(target)]);
  }

  async check(url: string | URL, options: CheckOptions = {}): Promise<Decision> {
    return this.#check(toHttpUrl(url), options.signal, checkTimeout(options.timeoutMs));
  }

  /**
   * The verdict for `target`. Without a caller's signal, with robots.txt in memory and the host key
   * known, it is made here and now: no promise, signal or closure (what every request pays when no
   * delay is asked, issue 42).
   */
  #check(
    target: URL,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
  ): Decision | Promise<Decision> {
    if (isRobotsTxtUrl(target)) return this.#robotsTxtItself(target);
    if (signal === undefined && !this.#tdmrep) {
      // Closed: no robots.txt is fetched any more, so no verdict either.
      this.#closing.check();
      const hostKey = this.#hostKeys.known(target);
      const entry = hostKey === undefined ? undefined : this.#cache.peek(target);
      if (entry) return this.#record(this.#decide(entry, target, hostKey as string));
    }
    return this.#closing.run(signal, async (linked) => {
      // 'ip' grouping resolves the host name here (cached), so every decision carries the resolved key.
      const hostKey = await this.#hostKeys.resolve(target);
      const entry = await this.#robotsEntry(target, linked, timeoutMs);
      const first = this.#decide(entry, target, hostKey);
      // TDMRep's file only for a URL robots.txt lets us fetch: no request to a site that said no.
      if (!first.allowed || !this.#tdmrep) return this.#record(first);
      const file = await this.#tdmEntry(target, linked, timeoutMs);
      return this.#record(this.#decide(entry, target, hostKey, file));
    });
  }

  async #robotsTxtItself(target: URL): Promise<Decision> {
    const hostKey = await this.#hostKeys.resolve(target);
    return this.#record(robotsTxtItself(target, hostKey, this.#options, this.#cache.known(target)));
  }

  async sitemaps(url: string | URL): Promise<string[]> {
    const entry = await this.#cache.get(toHttpUrl(url));
    return absoluteSitemaps(entry.robots?.sitemaps ?? []);
  }

  async admit(url: string | URL, options: AdmitOptions = {}): Promise<Decision> {
    const timeoutMs = checkTimeout(options.timeoutMs);
    const { signal, maxWaitMs } = options;
    const startedAt = timeoutMs === undefined ? 0 : this.#clock.now();
    const checked = this.#check(toHttpUrl(url), signal, timeoutMs);
    const decision = checked instanceof Promise ? await checked : checked;
    if (!decision.allowed) throw new RobotsDisallowedError(decision);
    if (timeoutMs === undefined) {
      await this.#reserve(decision, signal, maxWaitMs);
      return decision;
    }
    // What is left of the time limit bounds the pacing wait: a slot beyond it is refused at once.
    const left = Math.max(0, timeoutMs - (this.#clock.now() - startedAt));
    const expired = () => new DeadlineExceededError(decision.url, 'pacing', timeoutMs);
    await withinDeadline(this.#clock, signal, left, expired, (bound) =>
      this.#reserve(decision, bound, Math.min(left, maxWaitMs ?? this.#options.maxWaitMs)),
    );
    return decision;
  }

  async observeResponse(
    url: string | URL,
    status: number,
    retryAfter?: string | null,
    details?: ResponseDetails,
  ): Promise<number | undefined> {
    return this.#observe(this.#hostKey(url), status, retryAfter, details);
  }

  stats(): PolitenessStats {
    return this.#counters.snapshot(this.#cache.stats(), this.#tdmrep?.stats());
  }

  subscribe(listener: (event: PolitelyEvent) => void): () => void {
    return this.#events.subscribe(listener);
  }

  /**
   * Every caller still waiting (robots.txt, a place in flight, a pacing slot) rejects with ClosedError
   * at once, and so does every later check, admit or pass: nothing is sent through this instance
   * after it. Resolves once what it owes Redis and the store (slots given back, places in flight
   * released, pace records, cache writes) has been sent or given up, each within its timeout, so a
   * worker can disconnect its store and end. Idempotent.
   */
  async close(): Promise<void> {
    this.#closing.close();
    this.#events.clear();
    this.#metrics?.close();
    await this.#closeParts();
  }

  /** The adapter kit of this instance: bound to its private parts, built once. */
  #kit(sendUserAgent: boolean): AdapterKit {
    const unreported = createUnreportedSends();
    const passParts = {
      unreported,
      acquireInFlight: (decision: Decision, options: InFlightOptions) =>
        this.#acquireInFlight(decision, options),
      tryAcquireInFlight: (decision: Decision) =>
        this.#closing.closed || !decision.allowed
          ? undefined
          : this.#inFlight.tryAcquire?.(decision.hostKey, this.#options.maxConcurrentPerHost),
      reserve: (decision: Decision, options: ReserveOptions) =>
        this.#reserve(decision, options.signal, options.maxWaitMs),
      // The pass's own decision carries its host's key (resolved, with `hostKey: 'ip'`).
      observe: (
        decision: Decision,
        status: number,
        retryAfter: string | null | undefined,
        details: ResponseDetails | undefined,
      ) => this.#observe(decision.hostKey, status, retryAfter, details),
      sent: (decision: Decision, at: number | undefined) => this.#markSent(decision, at),
      places: createStalledPlaces(this.#clock),
      shared: (decision: Decision, stalledMs: number) =>
        this.#emit({ type: 'in-flight-shared', host: decision.hostKey, url: decision.url, stalledMs }),
    };
    return Object.freeze({
      sendUserAgent,
      pass: (decision, options = {}) => openSendPass(passParts, decision, options),
      tryReserve: (decision) => this.#tryReserve(decision),
      checkCached: (url, options = {}) => this.#checkCached(url, options),
      prefetch: (url) => this.#prefetch(url),
      hostKey: (url) => this.#hostKey(url),
      nextStart: (decisionOrUrl) => this.#nextStart(decisionOrUrl),
      markSent: (decisionOrUrl, options = {}) => {
        const decision =
          typeof decisionOrUrl === 'string' || decisionOrUrl instanceof URL
            ? this.#cachedOrUndefined(decisionOrUrl)
            : decisionOrUrl;
        return decision?.allowed ? this.#markSent(decision, options.at) : Promise.resolve();
      },
      paceMs: (decision) => this.#paceMs(decision),
      reportSkip: (decision, stage) => this.#reportSkip(decision, stage),
      observeParked: (source) => this.#metrics?.observeParked(source),
    } satisfies AdapterKit);
  }

  #checkCached(url: string | URL, options: CheckCachedOptions): Decision | undefined {
    const target = toHttpUrl(url);
    // The key `check` would give, or no answer: with hostKey 'ip', an address past its minute would
    // key by host name, and two names of one server would be paced apart.
    const hostKey = this.#hostKeys.known(target);
    if (hostKey === undefined) return undefined;
    const entry = isRobotsTxtUrl(target) ? undefined : this.#cache.peek(target);
    // With a TDM purpose, a decision needs the origin's tdmrep.json too: none in memory, no answer.
    const file = entry && this.#tdmrep?.peek(target);
    const decision = isRobotsTxtUrl(target)
      ? robotsTxtItself(target, hostKey, this.#options, this.#cache.known(target))
      : entry && (!this.#tdmrep || file) && this.#decide(entry, target, hostKey, file);
    return decision && options.count ? this.#record(decision) : decision;
  }

  #prefetch(url: string | URL): void {
    if (this.#closing.closed) return;
    let target: URL;
    try {
      target = toHttpUrl(url);
    } catch {
      return;
    }
    const files = this.#tdmrep;
    const known = this.#cache.peek(target);
    if (known && (!files || files.peek(target))) return;
    // With a TDM purpose, the origin's tdmrep.json once robots.txt lets this URL be fetched, as check does.
    (known ? Promise.resolve(known) : this.#cache.get(target))
      .then((entry) => {
        if (!files || files.peek(target)) return;
        if (decide(entry, target, this.#hostKey(target), this.#options).allowed) return files.get(target);
      })
      .catch(() => {});
  }

  /** The verdict for `target`: robots.txt's (decision-policy.ts), then its host's rate limit's. */
  #decide(entry: RobotsEntry, target: URL, hostKey: string, file?: TdmRepEntry): Decision {
    const decision = tdmFileVerdict(decide(entry, target, hostKey, this.#options), file, target);
    return rateLimitVerdict(decision, this.#pace.limitAboveMax(hostKey), this.#options);
  }

  /**
   * A request allowed before its host's rate limit went above maxRateLimitDelayMs is not sent
   * either while it holds, unless rateLimitAboveMax is 'wait': 'skip' refuses it as its check now
   * would, 'fail' fails it with WaitTooLongError. Its pace no longer holds the host (host-pace.ts),
   * so without this it would go out sooner than the site asked.
   */
  #refuseAboveRateLimit(decision: Decision): void {
    if (this.#options.rateLimitAboveMax === 'wait') return;
    const limit = this.#pace.limitAboveMax(decision.hostKey);
    if (!limit) return;
    if (this.#options.rateLimitAboveMax === 'skip')
      throw new RobotsDisallowedError(rateLimitVerdict(decision, limit, this.#options));
    const waitMs = limit.untilMs - this.#clock.now();
    this.#counters.reservation('tooLong');
    throw new WaitTooLongError(
      decision.hostKey,
      waitMs,
      this.#options.maxRateLimitDelayMs,
      'maxRateLimitDelayMs',
    );
  }

  /**
   * The one blocking pacing slot everything else (admit, the kit's pass) is built on. Without a
   * caller's signal it waits on the instance's close signal: nothing is made for the call.
   */
  #reserve(
    decision: Decision,
    signal: AbortSignal | undefined,
    maxWaitMs = this.#options.maxWaitMs,
  ): Promise<Reservation> {
    try {
      if (!decision.allowed) throw new RobotsDisallowedError(decision);
      this.#refuseAboveRateLimit(decision);
      if (signal === undefined) {
        this.#closing.check();
        const paceMs = this.#paceMs(decision);
        // A host due now: its slot starts in this step, and nobody waited for it.
        const now = this.#reserveNow?.(decision.hostKey, paceMs);
        if (now) {
          this.#counters.reservation('immediate');
          this.#metrics?.waited(decision.hostKey, 0);
          return Promise.resolve(now);
        }
        return this.#slot(decision, maxWaitMs, this.#closing.signal, paceMs);
      }
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#closing.run(signal, (linked) => this.#slot(decision, maxWaitMs, linked));
  }

  async #slot(
    decision: Decision,
    maxWaitMs: number,
    signal: AbortSignal,
    paceMs = this.#paceMs(decision),
  ): Promise<Reservation> {
    const stopWaiting = this.#metrics?.waiting(decision.hostKey);
    try {
      const reservation = await this.#scheduler.reserve(decision.hostKey, paceMs, {
        maxWaitMs,
        signal,
      });
      this.#counters.reservation(reservation.waitMs > 0 ? 'waited' : 'immediate');
      // Every blocking slot (admit, each adapter's pass) comes through here: the one place to time it.
      this.#metrics?.waited(decision.hostKey, reservation.waitMs);
      return reservation;
    } catch (error) {
      if (isWaitTooLongError(error)) this.#counters.reservation('tooLong');
      throw error;
    } finally {
      stopWaiting?.();
    }
  }

  async #acquireInFlight(decision: Decision, options: InFlightOptions): Promise<InFlightLease> {
    if (!decision.allowed) throw new RobotsDisallowedError(decision);
    const limit = this.#options.maxConcurrentPerHost;
    const maxWaitMs = options.maxWaitMs ?? this.#options.maxWaitMs;
    if (options.signal === undefined) {
      this.#closing.check();
      return this.#inFlight.acquire(decision.hostKey, limit, { signal: this.#closing.signal, maxWaitMs });
    }
    return this.#closing.run(options.signal, (signal) =>
      this.#inFlight.acquire(decision.hostKey, limit, { signal, maxWaitMs }),
    );
  }

  async #tryReserve(decision: Decision): Promise<TryReservation> {
    if (!decision.allowed) throw new RobotsDisallowedError(decision);
    this.#refuseAboveRateLimit(decision);
    this.#closing.check();
    const result = await this.#scheduler.tryReserve(decision.hostKey, this.#paceMs(decision));
    this.#counters.reservation(result.ok ? 'immediate' : 'deferred');
    return result;
  }

  async #nextStart(decisionOrUrl: Decision | string | URL): Promise<number> {
    const host =
      typeof decisionOrUrl === 'string' || decisionOrUrl instanceof URL
        ? this.#hostKey(decisionOrUrl)
        : decisionOrUrl.hostKey;
    return this.#scheduler.peek ? this.#scheduler.peek(host) : this.#clock.now();
  }

  #paceMs(decision: Decision): number {
    return this.#pace.paceMs(decision.hostKey, decision.delayMs);
  }

  /** Never rejects: host-feedback.ts keeps scheduler trouble out of the response it describes. */
  async #observe(
    host: string,
    status: number,
    retryAfter: string | null | undefined,
    details: ResponseDetails | undefined,
  ): Promise<number | undefined> {
    const backoff = await this.#feedback.response(host, status, retryAfter, details);
    if (backoff === undefined) return undefined;
    this.#counters.backoff();
    this.#emit({ type: 'backoff', host, ms: backoff.ms, status, cause: backoff.cause });
    return backoff.ms;
  }

  #markSent(decision: Decision, at: number | undefined): Promise<void> {
    return this.#feedback.sent(decision.hostKey, this.#paceMs(decision), at);
  }

  #hostKey(url: string | URL): string {
    // One host, one key: `example.com.`, `EXAMPLE.com` and `example.com` are paced as one host.
    return this.#hostKeys.keyOf(toHttpUrl(url));
  }

  #reportSkip(decision: DisallowedDecision, stage: SkipStage): void {
    this.#counters.skip(stage);
    if (stage === 'response' && decision.reason === 'tdm-reserved') this.#counters.tdmAfterResponse();
    if (!this.#events.listening && !this.#metrics) return;
    let host: string;
    try {
      host = this.#hostKey(decision.url);
    } catch {
      // A decision not made here (a look-alike's URL): its own key is the best there is.
      host = decision.hostKey;
    }
    this.#emit({ type: 'skip', url: decision.url, host, stage, decision });
    // A refusal by robots.txt was reported as it was decided; one by a response header is reported here.
    if (stage === 'response') this.#refusal(decision);
  }

  #cachedOrUndefined(url: string | URL): Decision | undefined {
    try {
      return this.#checkCached(url, {});
    } catch {
      return undefined;
    }
  }

  /**
   * The cache entry of the URL's origin. With a time limit, an entry in memory answers at once and
   * waiting for robots.txt longer rejects with DeadlineExceededError (never a verdict).
   */
  async #robotsEntry(target: URL, signal: AbortSignal | undefined, timeoutMs: number | undefined) {
    return this.#bounded(this.#cache, target, signal, timeoutMs);
  }

  /** The origin's tdmrep.json entry, bounded by the request's time limit as robots.txt is. */
  async #tdmEntry(
    target: URL,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
  ): Promise<TdmRepEntry | undefined> {
    return this.#tdmrep && this.#bounded(this.#tdmrep, target, signal, timeoutMs);
  }

  /** An origin file's entry from its cache (robots.txt's, tdmrep.json's), within the request's time limit. */
  async #bounded<Entry>(
    files: {
      get(url: URL, signal?: AbortSignal): Promise<Entry>;
      peek(url: URL): Entry | undefined;
    },
    target: URL,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
  ): Promise<Entry> {
    if (timeoutMs === undefined) return files.get(target, signal);
    const hit = files.peek(target);
    if (hit) return hit;
    const expired = () => new DeadlineExceededError(target.href, 'robots.txt', timeoutMs);
    return withinDeadline(this.#clock, signal, timeoutMs, expired, (bound) => files.get(target, bound));
  }

  /** Counts a decision and reports it to listeners (building the event only when someone listens). */
  #record(decision: Decision): Decision {
    this.#counters.decision(decision);
    this.#metrics?.decided(decision);
    if (!this.#events.listening) return decision;
    this.#emit({ type: 'decision', decision });
    this.#refusal(decision);
    return decision;
  }

  /** A refusal by usage preferences or by TDMRep is an event of its own too. */
  #refusal(decision: Decision): void {
    if (decision.reason === 'usage-refused' || decision.reason === 'tdm-reserved')
      this.#emit({ type: decision.reason, url: decision.url, decision });
  }

  /** Logs what an operator must see, then tells the metrics and the listeners. */
  #emit(event: PolitelyEvent): void {
    try {
      this.#log(event);
    } catch {
      // A logger that throws is the logger's bug, as a listener's is: it must not fail the request
      // the event is about, nor keep the listeners from hearing it.
    }
    this.#metrics?.listener(event);
    this.#events.emit(event);
  }
}

/** A request time limit: undefined, or a number >= 0 (TypeError otherwise, echoing the value). */
function checkTimeout(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
    throw new TypeError(`Expected \`timeoutMs\` to be a number >= 0, got ${shown(value)}`);
  }
  return value;
}
