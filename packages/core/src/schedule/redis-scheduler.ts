/**
 * Fleet-wide pacing: every process reserves a host's next start through atomic scripts on a shared
 * Redis (redis-script.ts; the round trips are in redis-reserve.ts), so the spacing holds across
 * machines. When Redis goes away the crawl keeps going on in-process pacing (one warning event), and
 * Redis is probed until it is back (redis-outage.ts). Requests in flight per host are capped the same
 * way, with leases (redis-in-flight.ts).
 *
 * The parts: redis-client (one round trip with a deadline), redis-reserve (reserve, confirm, report a
 * late start), redis-outage (fall back, probe, hand back and recover), redis-share (which hosts
 * this process may pace alone while Redis is away, and the grace after), redis-in-flight (leases).
 */
import { raceAbort, withinDeadline } from '../kernel/abort.js';
import { WaitTooLongError } from '../kernel/errors.js';
import type { PolitelyEvent } from '../kernel/events.js';
import { createClosing } from './closing.js';
import type { InFlightLimiter } from './in-flight.js';
import { createLocalPace } from './memory-scheduler.js';
import { askThrough, type CallRedis, createRedisCall, type RedisLink } from './redis-client.js';
import { createRedisInFlight } from './redis-in-flight.js';
import { createRedisOutage } from './redis-outage.js';
import { createRedisReserve } from './redis-reserve.js';
import { type RedisSchedulerOptions, validateRedisSchedulerOptions } from './redis-scheduler-options.js';
import { PEEK_SCRIPT, PENALIZE_SCRIPT } from './redis-script.js';
import { createFleetShare } from './redis-share.js';
import type { Reservation, ReserveOptions, Scheduler, TryReservation } from './types.js';
import { checkDuration, checkHost, checkReserve, checkWaitOptions } from './types.js';

export type { RedisSchedulerOptions } from './redis-scheduler-options.js';
export { DEFAULT_REDIS_PREFIX } from './redis-scheduler-options.js';

export interface RedisScheduler extends Scheduler {
  readonly kind: 'redis' | 'memory-fallback';
  peek(host: string): Promise<number>;
  acquireInFlight: InFlightLimiter['acquire'];
  /** Where a Politeness given this scheduler shares hosts' signals (facade/fleet-sharing.ts). */
  readonly [FLEET_REDIS]: FleetRedis;
}

/**
 * A Redis scheduler's connection and key prefix, under a registered symbol (so a scheduler made by
 * another copy of the package is recognised too): a Politeness handed the scheduler, not a client,
 * shares its hosts' rate-limit, latency and error signals on the same Redis under the same prefix,
 * or a fleet built with `createRedisScheduler({ prefix })` shares the pacing but not what hosts said.
 */
export const FLEET_REDIS: unique symbol = Symbol.for('politely.redis-scheduler.fleet');

export interface FleetRedis {
  /** The scheduler's Redis calls (closed with it). */
  readonly call: CallRedis;
  /** The scheduler's key prefix (`<prefix>{<host>}` are its pace keys). */
  readonly prefix: string;
}

/** Keys outlive the stored next start by this much, then Redis drops them. */
const KEY_TTL_SLACK_MS = 1000;

export function createRedisScheduler(options: RedisSchedulerOptions): RedisScheduler {
  const settings = validateRedisSchedulerOptions(options);
  const { prefix, clock, emit, safetyMarginMs } = settings;
  // One pace per host in this process, whatever Redis does: every Redis reservation is noted here and
  // every start passes its gate, so when Redis goes away (or comes back) the in-process pacing carries
  // on from the last slot this process knows of instead of starting a second, independent schedule.
  const local = createLocalPace({ clock });
  const callRedis = createRedisCall(settings);
  // The `{host}` hash tag keeps every key of one host in one Redis Cluster slot.
  const keyOf = (host: string) => `${prefix}{${host}}`;
  const closing = createClosing('scheduler');
  const emitSafely = (event: PolitelyEvent) => {
    try {
      emit?.(event);
    } catch {
      // A throwing listener must not stop the crawl.
    }
  };
  const onRedis = () => outage.mode === 'redis';
  const fallBack = (error: unknown) => outage.fallBack(error);
  const link: RedisLink = {
    ...askThrough(callRedis, fallBack),
    callRedis,
    keyOf,
    clock,
    onRedis,
    fallBack,
    safetyMarginMs,
    keySlackMs: KEY_TTL_SLACK_MS,
    commandTimeoutMs: settings.commandTimeoutMs,
  };
  const inFlight = createRedisInFlight({
    ...link,
    leaseTtlMs: settings.leaseTtlMs,
    pollMs: settings.leasePollMs,
  });
  const outage = createRedisOutage({
    ...link,
    // Outside the hosts' namespace (every host key has a `{` right after the prefix).
    probeKey: `${prefix}probe`,
    local,
    emit: emitSafely,
    fallbackRetryMs: settings.fallbackRetryMs,
    monotonic: () => (clock.monotonic ?? clock.now).call(clock),
    handOverLeases: () => inFlight.handOver(),
    onFallBack: () => share.freeze(),
    onRecovered: () => share.recovered(),
  });
  const share = createFleetShare({
    ...link,
    // Outside the hosts' namespace too; both keys in one Redis Cluster slot.
    membersKey: `${prefix}fleet{members}`,
    joinedKey: `${prefix}fleet{members}:joined`,
    mode: settings.fallback,
    heartbeatMs: settings.fallbackRetryMs,
  });
  const fleet = createRedisReserve({ ...link, givenBackOf: (host) => `${keyOf(host)}:given-back` });

  /** In-process pacing while Redis is away; maxWaitMs counts from when the caller asked. */
  const reserveLocally = async (
    host: string,
    delayMs: number,
    signal: AbortSignal | undefined,
    calledAt: number,
    maxWaitMs: number,
  ): Promise<Reservation> => {
    const left = Math.max(0, maxWaitMs - (clock.now() - calledAt));
    const { startAt } = await local.reserve(host, delayMs, {
      ...(signal ? { signal } : {}),
      ...(left !== Number.POSITIVE_INFINITY ? { maxWaitMs: left } : {}),
    });
    return { startAt, waitMs: startAt - calledAt };
  };

  /**
   * An owned host's first start in an outage waits out its hold (redis-share.ts holdOf): another
   * process may have started it on Redis just before.
   */
  const holdOwned = async (host: string, delayMs: number) => {
    const ms = share.holdOf(delayMs) - clock.now();
    if (ms > 0) await local.penalize(host, ms);
  };

  /**
   * Waits for `until` (Redis back), the caller's signal, or its maxWaitMs, whichever comes first
   * (WaitTooLongError then, saying the next probe is `fallbackRetryMs` away at most).
   */
  const waitForRedis = async (host: string, signal: AbortSignal, calledAt: number, limit: number) => {
    const until = outage.back();
    if (limit === Number.POSITIVE_INFINITY) return raceAbort(until, signal);
    const left = calledAt + limit - clock.now();
    const expired = () => new WaitTooLongError(host, settings.fallbackRetryMs, limit);
    if (left <= 0) throw expired();
    await withinDeadline(clock, signal, left, expired, (bounded) => raceAbort(until, bounded));
  };

  /**
   * A Redis slot given up before it started goes back to the fleet (one CANCEL round trip, which
   * close() waits for: a process that closes and quits leaves the fleet's schedule where its real
   * requests put it).
   */
  const giveBackOnRedis = (host: string, delayMs: number, start: number) =>
    void fleet.giveBack(host, delayMs, start);

  /**
   * A slot reserved on Redis, `waitMs` away: sleeps until it, confirms it with the server, then passes
   * this process's own gate, which has the last word (a start made in-process during an outage, a
   * backoff, a later real send); the start is recorded there. Undefined when Redis went away before
   * the start was confirmed: the slot went back, and the caller asks again as the outage allows.
   */
  const startReserved = async (
    host: string,
    delayMs: number,
    { waitMs, start }: { readonly waitMs: number; readonly start: number },
    signal: AbortSignal | undefined,
    calledAt: number,
    limit: number,
  ): Promise<Reservation | undefined> => {
    // The clock read the late-reply check measures from, so the two never disagree.
    const grantedAt = clock.now();
    const slotAt = grantedAt + waitMs;
    // Slots this process hands out itself (should Redis go away now) come after this one.
    const note = local.grant(host, slotAt + delayMs);
    let confirmedAt: number | undefined = calledAt;
    let startAt: number;
    let givenUp = false;
    // Aborted, timed out or closed before starting: the slot goes back, here and on Redis. A start
    // CONFIRM already recorded stays (it is field `f`, which the give-back leaves alone).
    const giveUp = () => {
      if (givenUp) return;
      givenUp = true;
      local.giveBack(host, note.start, note.stop);
      giveBackOnRedis(host, delayMs, start);
    };
    // On the abort itself, not a few microtasks later in the catch: a reservation asked right after
    // the abort, in the same tick, then finds the give-back under way and is sent after it.
    signal?.addEventListener('abort', giveUp, { once: true });
    try {
      if (waitMs > 0) {
        await clock.sleep(slotAt - clock.now(), signal);
        confirmedAt = (await fleet.confirm(host, delayMs, signal, calledAt + limit, limit))?.sentAt;
        // Redis went away before the start was confirmed: the slot goes back and the caller asks
        // again as the outage allows (in-process if this process owns the host, else after Redis is
        // back). Asked again, not just waited for here: an in-process reservation moves the host's
        // next start before it sleeps, so a hand-over at recovery while it sleeps tells the fleet
        // about it (a caller waiting on the gate alone would hand over only "not before", and on an
        // empty Redis another process could take the same moment).
        if (confirmedAt === undefined && !onRedis()) {
          giveUp();
          return undefined;
        }
      }
      startAt = await local.startWhenFree(host, delayMs, {
        signal,
        deadline: calledAt + limit,
        maxWaitMs: limit,
      });
      // Aborted between the start and here: the slot has gone back, so this caller must not send.
      signal?.throwIfAborted();
    } catch (error) {
      giveUp();
      throw error;
    } finally {
      signal?.removeEventListener('abort', giveUp);
    }
    if (confirmedAt !== undefined) fleet.reportIfLate(host, delayMs, startAt - confirmedAt);
    return { startAt, waitMs: startAt - calledAt };
  };

  const reserveLinked = async (
    host: string,
    delayMs: number,
    signal: AbortSignal,
    maxWaitMs: number | undefined,
  ): Promise<Reservation> => {
    const calledAt = clock.now();
    const limit = maxWaitMs ?? Number.POSITIVE_INFINITY;
    share.start();
    for (;;) {
      if (!onRedis()) {
        if (share.owns(host)) {
          await holdOwned(host, delayMs);
          // Back on Redis meanwhile: the hold went over with the hand-over; the slot comes from Redis.
          if (onRedis()) continue;
          const slot = await reserveUntilRecovery(host, delayMs, signal, calledAt, limit);
          if (slot !== undefined) return slot;
          continue;
        }
        // Not this process's host while Redis is away: its owner paces it; this caller waits.
        await waitForRedis(host, signal, calledAt, limit);
        continue;
      }
      // Just back on Redis, and the host was another process's during the outage: its owner may not
      // have handed its starts over yet (redis-share.ts graceMs).
      const graceEnds = share.graceUntil(host);
      if (graceEnds > clock.now()) {
        if (graceEnds > calledAt + limit) throw new WaitTooLongError(host, graceEnds - clock.now(), limit);
        await clock.sleep(graceEnds - clock.now(), signal);
        continue;
      }
      const left = maxWaitMs === undefined ? undefined : Math.max(0, calledAt + limit - clock.now());
      const pending = fleet.reserve(host, delayMs, left);
      // Given up while RESERVE was on its way: a slot it takes for nobody goes back once the reply is
      // in. Marked pending on the abort itself, so a reservation asked right after waits for it.
      const giveUp = () => void fleet.giveBackWhenReserved(host, delayMs, pending);
      signal.addEventListener('abort', giveUp, { once: true });
      let reply: Awaited<typeof pending>;
      try {
        reply = await raceAbort(pending, signal);
        // Aborted after the reply was in but before this ran: the slot is already on its way back.
        signal.throwIfAborted();
      } finally {
        signal.removeEventListener('abort', giveUp);
      }
      // Failed, and the scheduler closed meanwhile (it then stays on Redis mode): in-process.
      if (reply === undefined && onRedis()) return reserveLocally(host, delayMs, signal, calledAt, limit);
      // A reply that came in after this process fell back is not used (its slot stays taken on
      // Redis for nobody, the polite side): every start on Redis then came before this process's
      // fallback, which an owner's hold counts from (redis-share.ts holdOf).
      if (reply === undefined || !onRedis()) continue;
      if (!reply.reserved) throw new WaitTooLongError(host, reply.waitMs, limit);
      const started = await startReserved(host, delayMs, reply, signal, calledAt, limit);
      if (started !== undefined) return started;
    }
  };

  /**
   * An in-process reservation made during an outage, given up if Redis comes back before its slot
   * starts (undefined: the caller asks Redis). Redis then knows what this process could not: a start
   * another process made on a reply it read after this one had fallen back (a paused server answers
   * everything it queued when it wakes, and a process that did not time out yet uses the reply), and
   * the owners' hand-overs, which a slot kept in-process past the recovery would come too close to.
   */
  const reserveUntilRecovery = async (
    host: string,
    delayMs: number,
    signal: AbortSignal,
    calledAt: number,
    limit: number,
  ): Promise<Reservation | undefined> => {
    const linked = new AbortController();
    const onAbort = () => linked.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    let recovered = false;
    void outage.back().then(() => {
      recovered = true;
      linked.abort(new Error('Redis is back'));
    });
    try {
      const slot = await reserveLocally(host, delayMs, linked.signal, calledAt, limit);
      // Stalled past what proves Redis away, and Redis is back: its start went over with the
      // hand-over (the polite side), and the caller asks Redis (redis-outage.ts).
      return (await outage.stillAway()) ? slot : undefined;
    } catch (error) {
      if (recovered && !signal.aborted) return undefined;
      throw error;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  };

  /** tryReserve while Redis is away: in-process for an owned host, else not now. */
  const tryLocally = async (host: string, delayMs: number): Promise<TryReservation> => {
    if (!share.owns(host)) {
      const waitMs = settings.fallbackRetryMs;
      return { ok: false, notBefore: clock.now() + waitMs, waitMs };
    }
    await holdOwned(host, delayMs);
    const result = await local.tryReserve(host, delayMs);
    // As reserveUntilRecovery: a stall past the proof, and Redis back, sends the caller to Redis.
    return !result.ok || (await outage.stillAway())
      ? result
      : { ok: false, notBefore: clock.now(), waitMs: 0 };
  };

  return {
    get kind() {
      return outage.mode;
    },

    [FLEET_REDIS]: { call: callRedis, prefix },

    async reserve(host: string, delayMs: number, reserveOptions?: ReserveOptions): Promise<Reservation> {
      checkReserve(host, delayMs, reserveOptions);
      const { signal, maxWaitMs } = reserveOptions ?? {};
      return closing.run(signal, (linked) => reserveLinked(host, delayMs, linked, maxWaitMs));
    },

    async tryReserve(host: string, delayMs: number): Promise<TryReservation> {
      checkHost(host);
      checkDuration('delayMs', delayMs);
      closing.check();
      share.start();
      if (!onRedis()) return tryLocally(host, delayMs);
      const calledAt = clock.now();
      const graceEnds = share.graceUntil(host);
      if (graceEnds > calledAt) return { ok: false, notBefore: graceEnds, waitMs: graceEnds - calledAt };
      const reply = await fleet.reserve(host, delayMs, 0);
      // Failed, or came in after this process fell back (see reserveLinked).
      if (reply === undefined || !onRedis()) return tryLocally(host, delayMs);
      const now = clock.now();
      const { reserved, waitMs } = reply;
      if (!reserved) return { ok: false, notBefore: now + waitMs, waitMs };
      // Redis may not know everything this process does (a start made during an outage): the slot it
      // handed out is then not taken, and goes back.
      const free = local.freeAt(host);
      if (free > now) {
        giveBackOnRedis(host, delayMs, reply.start);
        return { ok: false, notBefore: free, waitMs: free - now };
      }
      const startAt = await local.startWhenFree(host, delayMs, { deadline: now, maxWaitMs: 0 });
      fleet.reportIfLate(host, delayMs, startAt - calledAt);
      return { ok: true, startAt };
    },

    async peek(host: string): Promise<number> {
      checkHost(host);
      // After this process's give-backs for the host, as a reservation would be.
      await fleet.givenBack(host);
      if (!onRedis()) {
        // A host another process paces meanwhile: not before Redis is back (the next probe at most).
        return share.owns(host) ? local.peek(host) : clock.now() + settings.fallbackRetryMs;
      }
      const waitMs = await link.ask(PEEK_SCRIPT, [keyOf(host)], [], waitOf, 'peek');
      if (waitMs === undefined) return local.peek(host);
      // The server's wait, counted from the local clock read after the reply, as tryReserve does.
      const now = clock.now();
      return Math.max(now + waitMs, local.freeAt(host), share.graceUntil(host));
    },

    async penalize(host: string, ms: number): Promise<void> {
      checkHost(host);
      checkDuration('ms', ms);
      // A response that arrives after close moves nothing: nothing will be sent to the host.
      if (closing.closed) return;
      await local.penalize(host, ms);
      if (!onRedis() || ms === 0) return;
      await link.tell(PENALIZE_SCRIPT, [keyOf(host)], [String(Math.ceil(ms)), String(KEY_TTL_SLACK_MS)]);
    },

    async acquireInFlight(host, limit, inFlightOptions) {
      checkWaitOptions(inFlightOptions);
      share.start();
      return closing.run(inFlightOptions?.signal, (signal) =>
        inFlight.acquire(host, limit, { ...inFlightOptions, signal }),
      );
    },

    /**
     * Every caller still waiting (a slot, a place in flight, a Redis round trip) rejects with
     * ClosedError at once, and so does any later one; the slots they held and the places in flight
     * still held go back to the fleet, and close() resolves once Redis has answered those (or their
     * deadlines passed): nothing is sent after it, so the process can end with its client.
     */
    async close(): Promise<void> {
      closing.close();
      outage.close();
      share.close();
      inFlight.close();
      // The rejected waiters' give-backs (sent from their catch blocks, a few microtasks on) and the releases.
      await callRedis.close();
      // The fallback's idle-sweep timer.
      await local.close();
    },
  };
}

/** A wait in ms as a script replies it, or undefined for anything else. */
function waitOf(value: unknown): number | undefined {
  const ms = Number(value);
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}
