/**
 * Fleet-wide pacing: every process reserves a host's next start through atomic scripts on a shared
 * Redis (redis-script.ts; the round trips are in redis-reserve.ts), so the spacing holds across
 * machines. When Redis goes away the crawl keeps going on in-process pacing (one warning event), and
 * Redis is probed until it is back (redis-outage.ts). Requests in flight per host are capped the same
 * way, with leases (redis-in-flight.ts).
 *
 * The parts: redis-call (one round trip with a deadline), redis-reserve (reserve, confirm, report a
 * late start), redis-outage (fall back, probe, hand back and recover), redis-in-flight (leases).
 */
import { raceAbort } from '../kernel/abort.js';
import { WaitTooLongError } from '../kernel/errors.js';
import type { PolitelyEvent } from '../kernel/events.js';
import { checkDuration, checkHost, checkReserveOptions } from './arguments.js';
import { createClosing } from './closing.js';
import { checkInFlightOptions, type InFlightLimiter } from './in-flight.js';
import { createLocalPace } from './memory-scheduler.js';
import { createRedisCall } from './redis-call.js';
import type { RedisScriptClient } from './redis-client.js';
import { createRedisInFlight } from './redis-in-flight.js';
import { createRedisOutage } from './redis-outage.js';
import { createRedisReserve, malformed } from './redis-reserve.js';
import { type RedisSchedulerOptions, validateRedisSchedulerOptions } from './redis-scheduler-options.js';
import { PEEK_SCRIPT, PENALIZE_SCRIPT } from './redis-script.js';
import type { Reservation, ReserveOptions, Scheduler, TryReservation } from './types.js';

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
 * shares its hosts' rate-limit, latency and error signals on the same Redis under the same prefix.
 * Without it a fleet built with `createRedisScheduler({ prefix })` shared the pacing but kept each
 * process's signals to itself (issue 35: a second process paced at 110 ms a host told to wait 10 min).
 */
export const FLEET_REDIS: unique symbol = Symbol.for('politely.redis-scheduler.fleet');

export interface FleetRedis {
  readonly redis: RedisScriptClient;
  readonly connect: (() => Promise<unknown>) | undefined;
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
  // CANCEL round trips under way; close() waits for them, so a process that closes and quits leaves
  // the fleet's schedule where its real requests put it.
  const givingBack = new Set<Promise<void>>();
  const emitSafely = (event: PolitelyEvent) => {
    try {
      emit?.(event);
    } catch {
      // A throwing listener must not stop the crawl.
    }
  };
  const onRedis = () => outage.mode === 'redis';
  const fallBack = (error: unknown) => outage.fallBack(error);
  const inFlight = createRedisInFlight({
    clock,
    keyOf,
    callRedis,
    onRedis,
    fallBack,
    leaseTtlMs: settings.leaseTtlMs,
    pollMs: settings.leasePollMs,
  });
  const outage = createRedisOutage({
    callRedis,
    keyOf,
    // Outside the hosts' namespace (every host key has a `{` right after the prefix).
    probeKey: `${prefix}probe`,
    clock,
    local,
    emit: emitSafely,
    fallbackRetryMs: settings.fallbackRetryMs,
    safetyMarginMs,
    keySlackMs: KEY_TTL_SLACK_MS,
    handOverLeases: () => inFlight.handOver(),
  });
  const fleet = createRedisReserve({
    callRedis,
    keyOf,
    givenBackOf: (host) => `${keyOf(host)}:given-back`,
    clock,
    safetyMarginMs,
    keySlackMs: KEY_TTL_SLACK_MS,
    onRedis,
    fallBack,
  });

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

  /** A give-back close() waits for. */
  const closeWaitsFor = (call: Promise<void>) => {
    givingBack.add(call);
    void call.finally(() => givingBack.delete(call));
  };
  /** A Redis slot given up before it started goes back to the fleet (one CANCEL round trip). */
  const giveBackOnRedis = (host: string, delayMs: number, start: number) =>
    closeWaitsFor(fleet.giveBack(host, delayMs, start));

  /**
   * A slot reserved on Redis, `waitMs` away: sleeps until it, confirms it with the server, then passes
   * this process's own gate, which has the last word (a start made in-process during an outage, a
   * backoff, a later real send); the start is recorded there.
   */
  const startReserved = async (
    host: string,
    delayMs: number,
    { waitMs, start }: { readonly waitMs: number; readonly start: number },
    signal: AbortSignal | undefined,
    calledAt: number,
    limit: number,
  ): Promise<Reservation> => {
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
    if (!onRedis()) return reserveLocally(host, delayMs, signal, calledAt, limit);
    const pending = fleet.reserve(host, delayMs, maxWaitMs);
    // Given up while RESERVE was on its way: a slot it takes for nobody goes back once the reply is
    // in. Marked pending on the abort itself, so a reservation asked right after waits for it.
    const giveUp = () => closeWaitsFor(fleet.giveBackWhenReserved(host, delayMs, pending));
    signal.addEventListener('abort', giveUp, { once: true });
    let reply: Awaited<typeof pending>;
    try {
      reply = await raceAbort(pending, signal);
      // Aborted after the reply was in but before this ran: the slot is already on its way back.
      signal.throwIfAborted();
    } finally {
      signal.removeEventListener('abort', giveUp);
    }
    if (reply === undefined) return reserveLocally(host, delayMs, signal, calledAt, limit);
    if (!reply.reserved) throw new WaitTooLongError(host, reply.waitMs, limit);
    return startReserved(host, delayMs, reply, signal, calledAt, limit);
  };

  return {
    get kind() {
      return outage.mode;
    },

    [FLEET_REDIS]: { redis: settings.redis, connect: settings.connect, prefix },

    async reserve(host: string, delayMs: number, reserveOptions?: ReserveOptions): Promise<Reservation> {
      checkHost(host);
      checkDuration('delayMs', delayMs);
      checkReserveOptions(reserveOptions);
      const signal = reserveOptions?.signal;
      signal?.throwIfAborted();
      return closing.run(signal, (linked) => reserveLinked(host, delayMs, linked, reserveOptions?.maxWaitMs));
    },

    async tryReserve(host: string, delayMs: number): Promise<TryReservation> {
      checkHost(host);
      checkDuration('delayMs', delayMs);
      closing.check();
      if (!onRedis()) return local.tryReserve(host, delayMs);
      const calledAt = clock.now();
      const reply = await fleet.reserve(host, delayMs, 0);
      if (reply === undefined) return local.tryReserve(host, delayMs);
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
      if (!onRedis()) return local.peek(host);
      const outcome = await callRedis(PEEK_SCRIPT, [keyOf(host)], []);
      const waitMs = outcome.ok ? Number(outcome.value) : Number.NaN;
      if (!Number.isFinite(waitMs) || waitMs < 0) {
        fallBack(outcome.ok ? malformed(outcome.value) : outcome.error);
        return local.peek(host);
      }
      // The server's wait, counted from the local clock read after the reply, as tryReserve does.
      const now = clock.now();
      return Math.max(now + waitMs, local.freeAt(host));
    },

    async penalize(host: string, ms: number): Promise<void> {
      checkHost(host);
      checkDuration('ms', ms);
      // A response that arrives after close moves nothing: nothing will be sent to the host.
      if (closing.closed) return;
      await local.penalize(host, ms);
      if (!onRedis() || ms === 0) return;
      const outcome = await callRedis(
        PENALIZE_SCRIPT,
        [keyOf(host)],
        [String(Math.ceil(ms)), String(KEY_TTL_SLACK_MS)],
      );
      if (!outcome.ok) fallBack(outcome.error);
    },

    async acquireInFlight(host, limit, inFlightOptions) {
      checkInFlightOptions(inFlightOptions);
      return closing.run(inFlightOptions?.signal, (signal) =>
        inFlight.acquire(host, limit, { ...inFlightOptions, signal }),
      );
    },

    /**
     * Every caller still waiting (a slot, a place in flight, a Redis round trip) rejects with
     * ClosedError at once, and so does any later one; the slots they held go back to the fleet.
     */
    async close(): Promise<void> {
      closing.close();
      // The rejected waiters send their give-backs from their catch blocks, a few microtasks on.
      await new Promise<void>((resolve) => setImmediate(resolve));
      await Promise.allSettled([...givingBack]);
      outage.close();
      await inFlight.close();
      // The fallback's idle-sweep timer.
      await local.close();
    },
  };
}
