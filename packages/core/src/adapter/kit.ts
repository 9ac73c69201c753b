/**
 * The adapter kit: what an adapter author needs of a Politeness beyond what a crawler calls. A crawler
 * holds the small `Politeness` (check, admit, observeResponse, ...); an adapter, a frontier or a page
 * guard handed one asks it for its kit with `adapterKit(politeness)`. The kit travels with the
 * instance under a registered symbol, so a Politeness from another copy of the package works, and a
 * stand-in (a test double, a wrapper) can carry a kit of its own.
 *
 * The kit takes a slot one way: `pass` (a place among the host's requests in flight, then the binding
 * pacing slot, then reports on what happened). `tryReserve` is its non-blocking form for a frontier
 * that decides what to hand out without waiting; everything else here reads or reports.
 */
import type { Decision, DisallowedDecision } from '../kernel/decision.js';
import type { SkipStage } from '../kernel/events.js';
import type { TryReservation } from '../schedule/types.js';
import type { SendPass, SendPassOptions } from './send-pass.js';

/** The key a Politeness carries its kit under (registered, so every copy of the package agrees). */
export const ADAPTER_KIT: unique symbol = Symbol.for('politely.adapter-kit');

export interface CheckCachedOptions {
  /**
   * True: this is the caller's decision about the URL (a queue handing the request out), counted in
   * `stats().decisions` and sent as a `decision` event as `check` does; false (default): a look.
   */
  readonly count?: boolean;
}

export interface AdapterKit {
  /**
   * Whether adapters set User-Agent to the Politeness' `userAgent` on the requests they pace when the
   * caller set none (option `sendUserAgent`).
   */
  readonly sendUserAgent: boolean;
  /**
   * Takes an allowed decision's place among its host's requests in flight, then its pacing slot, and
   * resolves with a `SendPass` to report the real send (`sent`), the response (`answered`) or the
   * failure (`failed`), and to `release` the place when the body has ended. With `sendReported` the
   * request is paced by the delay asked, without the safety margin, unless another request to the
   * host has its slot and no reported send. Rejects with RobotsDisallowedError for a disallowed
   * decision, WaitTooLongError, ClosedError or the signal's reason; nothing is held after a rejection.
   */
  pass(decision: Decision, options?: SendPassOptions): Promise<SendPass>;
  /**
   * The pacing slot without waiting: taken when the host is due (`ok`), else "not before T" and
   * nothing taken. For a frontier that hands out only what may go now. Rejects like `pass` for a
   * disallowed decision or a closed instance.
   */
  tryReserve(decision: Decision): Promise<TryReservation>;
  /**
   * The decision without I/O when the origin's rules are in process memory and fresh; else undefined.
   * Not counted unless `count` is set (a look, not the caller's decision). TypeError for a non-http(s) URL.
   */
  checkCached(url: string | URL, options?: CheckCachedOptions): Decision | undefined;
  /** Starts fetching the origin's robots.txt in the background (never rejects, never throws). */
  prefetch(url: string | URL): void;
  /**
   * The scheduler key of a URL, without I/O. With `hostKey: 'ip'` that is the address once `check`
   * has resolved the host name (cached a minute), the host name before; decisions always carry the
   * resolved key. TypeError for a non-http(s) URL.
   */
  hostKey(url: string | URL): string;
  /**
   * Reserves nothing: the earliest start (epoch ms, this process's clock) a slot for the host of a
   * decision or URL could get if asked now; at or before now means the host is due. Only a hint:
   * another caller may take that slot first. Never rejects for scheduler trouble; a custom scheduler
   * without `peek` answers "due now".
   */
  nextStart(decisionOrUrl: Decision | string | URL): Promise<number>;
  /**
   * A request to the host really went out at `at` (epoch ms, default now), outside a pass (a request
   * a frontier handed out): the host's next start moves to at least `at` plus its pace, for every
   * caller (the fleet too). Best effort: never rejects.
   */
  markSent(decisionOrUrl: Decision | string | URL, options?: { readonly at?: number }): Promise<void>;
  /**
   * The delay, in ms, the host of a decision is paced by now: `decision.delayMs` raised by latency and
   * error signals (never lowered).
   */
  paceMs(decision: Decision): number;
  /**
   * A request was kept from being sent because of `decision`: emits a `skip` event and counts it in
   * `stats().skipped`. For adapters, at the point where they refuse the request. Never throws.
   */
  reportSkip(decision: DisallowedDecision, stage: SkipStage): void;
  /**
   * A frontier's parked requests, read (`size`, `parkedHosts`) into the `politely.requests.parked`
   * and `politely.hosts.parked` gauges at each metrics collection for as long as the frontier is
   * referenced elsewhere (held weakly: it has no close). Does nothing with metrics off. Never throws.
   * Optional, so a stand-in kit (a test double, an older copy's) need not have it.
   */
  observeParked?(source: { readonly size: number; readonly parkedHosts: number }): void;
}

/**
 * The adapter kit of a Politeness (from `createPoliteness`, or any object carrying one under
 * `ADAPTER_KIT`). TypeError for anything else, echoing what was given.
 */
export function adapterKit(politeness: unknown): AdapterKit {
  const kit =
    typeof politeness === 'object' && politeness !== null
      ? (politeness as { readonly [ADAPTER_KIT]?: AdapterKit })[ADAPTER_KIT]
      : undefined;
  if (typeof kit !== 'object' || kit === null) {
    const given =
      politeness === null
        ? 'null'
        : typeof politeness === 'object'
          ? 'an object without a kit'
          : typeof politeness;
    throw new TypeError(`Expected a Politeness made by createPoliteness, got ${given}`);
  }
  return kit;
}
