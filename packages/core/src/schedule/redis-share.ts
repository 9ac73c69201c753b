/**
 * Who may pace which host while Redis is away, so that no two processes pace one host alone.
 *
 * Every Redis scheduler heartbeats itself into a member set on Redis (MEMBERS_SCRIPT, one call every
 * `fallbackRetryMs`, never per request) and keeps the last list it read. When it falls back, a host
 * is paced in-process only by its OWNER: the member with the highest weight for it over that list
 * (rendezvous hashing, Thaler and Ravishankar's highest-random-weight scheme; each process computes
 * it alone and they agree when they hold the same list). The others' callers for the host wait until
 * Redis is back (`maxWaitMs` bounds them). A member that died simply owns hosts that wait.
 *
 * Lists read at different moments can differ (a process joined between two reads), and then two
 * processes could each find themselves the winner. With H the heartbeat and C the command timeout:
 * - a list is used only when read within F = 2 (H + C) before this process fell back (its last read
 *   came at most H + C before Redis went away, and it finds out at most H + C after: an idle process
 *   at its next heartbeat); an older one (the event loop stalled) gives it no host at all;
 * - a member counts as an owner only once it has been in the set for S = 3 (H + C) (settled), unless
 *   it is the only member it knows of;
 * - members not seen for S are dropped from the set.
 * Say A and B both claim host h. Each wins over its own list, so one list lacks the other member:
 * say A is missing from B's list, i.e. A joined after B's last read (TB). Then A's read (TA) came after
 * TB, so B, alive and joined before TB, is in A's list: A's list is not A alone, so A must be settled,
 * TA - S >= join(A) > TB. But both reads came at most F before the outage began, so |TA - TB| <= F < S.
 * So no host has two owners (short of a process whose heartbeats stall for S while it still runs).
 *
 * With no list at all (Redis away since the start) or a list of itself alone, the process owns every
 * host.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { RedisLink } from './redis-client.js';
import { MEMBERS_SCRIPT } from './redis-script.js';

/** What a process keeps pacing while Redis is away: every host, its share of them, or none. */
export type FallbackShare = 'all' | 'owned' | 'none';

export interface FleetShare {
  /** This scheduler's member id. */
  readonly id: string;
  /** Starts heartbeating (on first use: nothing is sent at creation). */
  start(): void;
  /** Redis just went away: fixes who owns what for this outage, from the last list read. */
  freeze(): { readonly share: FallbackShare; readonly members: number };
  /** During an outage: may this process pace `host` alone? */
  owns(host: string): boolean;
  /** During an outage, with other members known: the earliest start of a host it owns (see fellBack). */
  holdOf(delayMs: number): number;
  /** Redis is back (hand-over done): hosts not owned during the outage wait out the grace. */
  recovered(): void;
  /** On Redis: the earliest this process may reserve `host` (−∞ when not held by a grace). */
  graceUntil(host: string): number;
  close(): void;
}

export interface FleetShareDeps
  extends Pick<RedisLink, 'ask' | 'clock' | 'onRedis' | 'commandTimeoutMs' | 'safetyMarginMs'> {
  readonly membersKey: string;
  readonly joinedKey: string;
  /** 'alone': every process paces every host alone while Redis is away. */
  readonly mode: 'share' | 'alone';
  readonly heartbeatMs: number;
}

interface MemberList {
  /** Local time the reply was read. */
  readonly readAt: number;
  /** Member ids alive, and settled ones (joined S before the read, server clock). */
  readonly all: readonly string[];
  readonly settled: readonly string[];
}

/** The member's weight for a host: the first 48 bits of SHA-1(member, host). */
function weight(member: string, host: string): number {
  return Number.parseInt(createHash('sha1').update(`${member}\n${host}`).digest('hex').slice(0, 12), 16);
}

export function createFleetShare(deps: FleetShareDeps): FleetShare {
  const { ask, clock, heartbeatMs, commandTimeoutMs } = deps;
  const id = randomUUID();
  const freshMs = 2 * (heartbeatMs + commandTimeoutMs);
  const settleMs = 3 * (heartbeatMs + commandTimeoutMs);
  /*
   * After Redis is back, every process probes it within one `fallbackRetryMs` (= heartbeatMs) and
   * hands its in-process starts over before it reserves on Redis again (redis-outage.ts). A process
   * that got back first must not reserve a host another one owned until that owner has handed over:
   * the owner is back at most one retry period after Redis was, plus its probe's round trip and the
   * hand-over's (each under commandTimeoutMs), and no process can be back before Redis was. So a
   * grace of one retry period and two command timeouts, counted from this process's own recovery,
   * covers it. The owner's own hosts need no grace: its hand-over came before its first reservation.
   */
  const graceMs = heartbeatMs + 2 * commandTimeoutMs;
  let list: MemberList | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let started = false;
  let closed = false;
  // The outage in force: the owners' list (undefined: owns nothing), and when it began.
  let owners: readonly string[] | 'all' | undefined = 'all';
  let fellBackAt = Number.NEGATIVE_INFINITY;
  let othersKnown = false;
  const owned = new Map<string, boolean>();
  // The last outage's owners, for the grace after it.
  let graceOwners: readonly string[] | 'all' | undefined = 'all';
  let graceEnds = Number.NEGATIVE_INFINITY;

  const ownerOf = (members: readonly string[], host: string): string | undefined => {
    let best: string | undefined;
    let bestWeight = -1;
    for (const member of members) {
      const w = weight(member, host);
      if (w > bestWeight || (w === bestWeight && best !== undefined && member > best)) {
        best = member;
        bestWeight = w;
      }
    }
    return best;
  };
  const ownsUnder = (set: readonly string[] | 'all' | undefined, host: string) =>
    set === 'all' ? true : set === undefined ? false : ownerOf(set, host) === id;

  const parse = (value: unknown): MemberList | undefined => {
    if (!Array.isArray(value) || value.length % 2 !== 1) return undefined;
    const now = Number(value[0]);
    if (!Number.isFinite(now)) return undefined;
    const all: string[] = [];
    const settled: string[] = [];
    for (let i = 1; i < value.length; i += 2) {
      const member = String(value[i]);
      all.push(member);
      if (Number(value[i + 1]) <= now - settleMs) settled.push(member);
    }
    return all.includes(id) ? { readAt: clock.now(), all, settled } : undefined;
  };

  const beat = async () => {
    timer = undefined;
    if (closed) return;
    if (deps.onRedis()) {
      const keys = [deps.membersKey, deps.joinedKey];
      const read = await ask(MEMBERS_SCRIPT, keys, [id, String(settleMs)], parse, 'members');
      // A reply that comes in after the fallback is not used: the list in force was fixed then.
      if (read !== undefined && deps.onRedis()) list = read;
    }
    schedule();
  };
  const schedule = () => {
    if (closed) return;
    timer = setTimeout(() => void beat(), heartbeatMs);
    // The heartbeat alone must not keep a finished crawl's process alive.
    (timer as { unref?: () => void }).unref?.();
  };

  return {
    id,
    start() {
      if (started || closed || deps.mode === 'alone') return;
      started = true;
      void beat();
    },

    freeze() {
      owned.clear();
      fellBackAt = clock.now();
      othersKnown = false;
      if (deps.mode === 'alone' || list === undefined) {
        owners = 'all';
        return { share: 'all', members: list?.all.length ?? 1 };
      }
      const members = list.all.length;
      if (fellBackAt - list.readAt > freshMs) owners = undefined;
      else if (members === 1) owners = 'all';
      else if (!list.settled.includes(id)) owners = undefined;
      else {
        owners = list.settled;
        othersKnown = true;
      }
      return { share: owners === 'all' ? 'all' : owners === undefined ? 'none' : 'owned', members };
    },

    owns(host) {
      let mine = owned.get(host);
      if (mine === undefined) {
        mine = ownsUnder(owners, host);
        owned.set(host, mine);
      }
      return mine;
    },

    /*
     * Another process may have started the host on Redis just before the outage, which this
     * process's own pace does not know of. Its start came on a reply to a command Redis ran before it
     * went away, so before this process saw it fail, plus at most that reply's deadline
     * (commandTimeoutMs: a later reply counts as a failure, and one that comes in after a process has
     * fallen back is not used, redis-scheduler.ts). So the owner's first start waits one delay and
     * one command timeout from when it fell back.
     */
    holdOf(delayMs) {
      if (!othersKnown || delayMs === 0) return Number.NEGATIVE_INFINITY;
      return fellBackAt + Math.ceil(delayMs) + commandTimeoutMs + deps.safetyMarginMs;
    },

    recovered() {
      graceOwners = owners;
      graceEnds = owners === 'all' ? Number.NEGATIVE_INFINITY : clock.now() + graceMs;
      owners = 'all';
      othersKnown = false;
      owned.clear();
    },

    graceUntil(host) {
      if (clock.now() >= graceEnds) return Number.NEGATIVE_INFINITY;
      return ownsUnder(graceOwners, host) ? Number.NEGATIVE_INFINITY : graceEnds;
    },

    close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
