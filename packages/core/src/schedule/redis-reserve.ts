/**
 * The fleet-wide reservation, in its round trips: RESERVE takes the host's next slot on the server
 * clock; a caller that had to wait CONFIRMs its start when it wakes (and waits more if the slot
 * moved); a caller whose reply came back later than the margin covers reports it (STARTED_LATE), so
 * the next caller anywhere keeps the gap; a caller that gave its slot up gives it back (CANCEL). Every
 * failure goes to the outage handler (`fallBack`), never thrown, so the scheduler can pace in-process.
 *
 * One order is kept per host: a RESERVE is not sent while this process's earlier CANCELs for the
 * host are under way. A CANCEL that reached Redis after the RESERVE (retried as EVAL after NOSCRIPT,
 * held up on a slow link) would leave the RESERVE's slot after every slot given back, and the chain
 * could never unwind. Each CANCEL settles within the call's deadline, which bounds the wait; the
 * CANCELs of one host still go side by side (the chain rule takes them in any order).
 */
import { raceAbort } from '../kernel/abort.js';
import { WaitTooLongError } from '../kernel/errors.js';
import type { RedisLink } from './redis-client.js';
import { CANCEL_SCRIPT, CONFIRM_SCRIPT, RESERVE_SCRIPT, STARTED_LATE_SCRIPT } from './redis-script.js';

export interface ReserveReply {
  readonly reserved: boolean;
  readonly waitMs: number;
  /** When reserved: the slot's start on the server clock, what `giveBack` hands back (NaN: not said). */
  readonly start: number;
}

export interface RedisReserveDeps
  extends Pick<RedisLink, 'ask' | 'tell' | 'keyOf' | 'clock' | 'safetyMarginMs' | 'keySlackMs' | 'onRedis'> {
  /** The host's given-back slots (same Cluster slot as keyOf). */
  readonly givenBackOf: (host: string) => string;
}

export interface RedisReserve {
  /**
   * One RESERVE round trip, sent once this process's earlier writes for the host are settled;
   * maxWaitMs undefined or infinite: any wait is accepted. Undefined when Redis failed (already
   * reported to `fallBack`) or went away meanwhile: the caller paces in-process.
   */
  reserve(host: string, delayMs: number, maxWaitMs: number | undefined): Promise<ReserveReply | undefined>;
  /**
   * Settles once this process's CANCELs for the host under way now have settled (at once when there
   * are none): a read of the host after it sees them, as a RESERVE does.
   */
  givenBack(host: string): Promise<void>;
  /**
   * After waiting for its slot, a caller confirms its start with the server, and waits more if the
   * previous caller (in any process) started late or a later real send moved the slot (markSent).
   * Returns the local time the server confirmed, or undefined when Redis failed (or is already known
   * to be away): the caller then goes by this process's own pace, never "as if started".
   */
  confirm(
    host: string,
    delayMs: number,
    signal: AbortSignal | undefined,
    deadline: number,
    maxWaitMs: number,
  ): Promise<{ sentAt: number } | undefined>;
  /** Records a start again from the server's clock when it came later than the margin covers. */
  reportIfLate(host: string, delayMs: number, lateByMs: number): void;
  /**
   * The caller gave up the slot RESERVE handed it (`start`, server clock) before starting: one
   * CANCEL round trip, so the host's next start, fleet-wide, is where the requests that went put it.
   * Never waits on the caller (its wait is over): a failure is reported as an outage, and the slot
   * then simply stays taken (the polite side). Later RESERVEs for the host wait for it.
   */
  giveBack(host: string, delayMs: number, start: number): Promise<void>;
  /**
   * The caller gave up while its RESERVE (`reply`) was on its way: the slot it takes goes back once
   * the reply is in. Pending from now, so a RESERVE asked after the give-up waits for both.
   */
  giveBackWhenReserved(
    host: string,
    delayMs: number,
    reply: Promise<ReserveReply | undefined>,
  ): Promise<void>;
}

export function createRedisReserve(deps: RedisReserveDeps): RedisReserve {
  const { ask, tell, keyOf, givenBackOf, clock, safetyMarginMs, keySlackMs, onRedis } = deps;
  // Whole-ms reads of the server clock, and of the local clock at both ends of a round trip, can hide
  // up to 3 ms; a reply quicker than what is left of the margin cannot make a start late enough to matter.
  const lateReplyMs = Math.max(0, safetyMarginMs - 3);
  const spacingOf = (delayMs: number) => (delayMs > 0 ? Math.ceil(delayMs) + safetyMarginMs : 0);
  const spacedArgs = (delayMs: number) => [String(spacingOf(delayMs)), String(keySlackMs)];

  // Per host, the writes a later RESERVE must not overtake; a host leaves the map with its last one.
  const underWay = new Map<string, Set<Promise<void>>>();
  const track = (host: string, write: Promise<void>): Promise<void> => {
    const writes = underWay.get(host) ?? new Set<Promise<void>>();
    underWay.set(host, writes);
    writes.add(write);
    const done = write.finally(() => {
      writes.delete(write);
      if (writes.size === 0 && underWay.get(host) === writes) underWay.delete(host);
    });
    return done;
  };

  const giveBack = (host: string, delayMs: number, start: number): Promise<void> => {
    const spacing = spacingOf(delayMs);
    if (spacing === 0 || !Number.isFinite(start) || !onRedis()) return Promise.resolve();
    const args = [String(start), String(start + spacing), String(keySlackMs)];
    return track(host, tell(CANCEL_SCRIPT, [keyOf(host), givenBackOf(host)], args));
  };

  const givenBack = async (host: string): Promise<void> => {
    const earlier = underWay.get(host);
    // Each settles within the call deadline (never rejects).
    if (earlier !== undefined) await Promise.all([...earlier]);
  };

  return {
    givenBack,

    async reserve(host, delayMs, maxWaitMs) {
      if (underWay.has(host)) {
        await givenBack(host);
        // One that failed has put the scheduler on memory, where the slots given back were given
        // back too: the caller goes there, not to Redis.
        if (!onRedis()) return undefined;
      }
      const maxWait =
        maxWaitMs === undefined || maxWaitMs === Number.POSITIVE_INFINITY ? '-1' : String(maxWaitMs);
      const args = [String(spacingOf(delayMs)), maxWait, String(keySlackMs)];
      return ask(RESERVE_SCRIPT, [keyOf(host)], args, readReserveReply, 'reservation');
    },

    giveBack,

    giveBackWhenReserved(host, delayMs, reply) {
      return track(
        host,
        reply.then(
          (late) => (late?.reserved ? giveBack(host, delayMs, late.start) : undefined),
          () => undefined,
        ),
      );
    },

    async confirm(host, delayMs, signal, deadline, maxWaitMs) {
      for (;;) {
        if (!onRedis()) return undefined;
        const sentAt = clock.now();
        const confirmed = ask(CONFIRM_SCRIPT, [keyOf(host)], spacedArgs(delayMs), Number, 'confirm');
        const moreMs = await raceAbort(confirmed, signal);
        if (moreMs === undefined) return undefined;
        if (!Number.isFinite(moreMs) || moreMs <= 0) return { sentAt };
        const now = clock.now();
        if (now + moreMs > deadline) throw new WaitTooLongError(host, moreMs, maxWaitMs);
        await clock.sleep(moreMs, signal);
      }
    },

    /*
     * The server records a start when its script runs; the caller starts when the reply is read (and
     * this process's own gate lets it). When that took longer than the margin covers (a busy CPU, a
     * slow network), the start is recorded again from the server's later clock so the next caller, in
     * any process, keeps the gap.
     */
    reportIfLate(host, delayMs, lateByMs) {
      if (delayMs === 0 || lateByMs <= lateReplyMs || !onRedis()) return;
      // Not waited for by this process's next RESERVE: the start it reports is this process's own,
      // which its in-process gate already holds the next caller to (it is news for the others).
      void tell(STARTED_LATE_SCRIPT, [keyOf(host)], spacedArgs(delayMs));
    },
  };
}

function readReserveReply(value: unknown): ReserveReply | undefined {
  if (!Array.isArray(value) || value.length < 2 || value.length > 3) return undefined;
  const [flag, wait, start = Number.NaN] = value.map(Number);
  if ((flag !== 0 && flag !== 1) || wait === undefined || !Number.isFinite(wait) || wait < 0)
    return undefined;
  return { reserved: flag === 1, waitMs: wait, start };
}
