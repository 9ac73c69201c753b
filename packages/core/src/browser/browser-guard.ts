/**
 * What a page may send, request by request, as the browser sends it, whatever the
 * library (page-interception.ts asks). A main-frame navigation (first request or redirect hop) is
 * checked against robots.txt, holds one of its host's in-flight places until its response headers
 * are in (or the page moves on or closes), and takes its host's binding slot as it goes out; a
 * disallowed one is remembered for its page until asked (`PageGuard.blockedNavigation`).
 * A subresource is checked against its own origin's robots.txt, as Google's renderer does, but not
 * paced: a page's subresources come in a burst the site expects, and pacing them would hold the page
 * open for (subresources x delay). A navigation the host reset, refused or let time out slows the
 * host's pace, as such a failure does for got and fetch.
 */

import { type Hop, openHop } from '../adapter/hop.js';
import type { AdapterKit } from '../adapter/kit.js';
import { responseVerdict } from '../adapter/response-verdict.js';
import type { Spacing } from '../adapter/spacing.js';
import { type RobotsTransportError, robotsTransportError } from '../adapter/transport-error.js';
import type { Logger, Politeness } from '../facade/types.js';
import type { Decision, DisallowedDecision } from '../kernel/decision.js';
import type { SkipStage } from '../kernel/events.js';
import { isHttpUrl } from '../kernel/http-url.js';
import { type AbortReason, abortReasonFor, browserNetworkError } from './network-error.js';

/** Whether a page's subresources are checked against their own origin's robots.txt. */
export type SubresourcePolicy = 'check' | 'allow';

/** One request of a page kept from the network: the request's URL, where, and why. */
export interface PageSkip {
  readonly url: string;
  /** `response`: the page came, and its Content-Usage header refuses the `purpose` (kernel/content-usage.ts). */
  readonly stage: Extract<SkipStage, 'navigation' | 'subresource' | 'response'>;
  readonly decision: DisallowedDecision;
}

/** What to do with one intercepted request. */
export type Verdict =
  /** Let it go; a paced navigation carries its hop, for `navigationOnWire`. */
  | { readonly kind: 'continue'; readonly paced?: Hop }
  /** robots.txt does not allow it: never let it reach the server. */
  | { readonly kind: 'block'; readonly decision: Decision }
  /**
   * It could not be paced (waited too long, robots.txt lookup failed), or its robots.txt got no
   * answer at all (`reason`: the transport failure it met): fail it like a network error.
   */
  | { readonly kind: 'fail'; readonly error: unknown; readonly reason?: AbortReason };

export interface BrowserGuardOptions {
  readonly politeness: Politeness;
  /** The politeness' adapter kit: each navigation's pass. */
  readonly kit: AdapterKit;
  /** Reports a request robots.txt refused, when it is refused. Never awaited by the page. */
  readonly onSkip: (skip: PageSkip) => unknown;
  /** The navigation took its slot and was let go (`at`), or reached the wire (`at`, later). */
  readonly onSent: (decision: Decision, at: number) => void;
  readonly subresources: SubresourcePolicy;
  /**
   * What a host's next navigation counts its delay from: the previous one's response (`'response'`:
   * a proxy in front of the browser may hold a request out of the browser's sight, and only the
   * response proves the site had it) or its send as the network stack reports it (`'start'`).
   */
  readonly spacing: Spacing;
  /** The User-Agent header the pages send; undefined leaves the browser's own. */
  readonly userAgent: string | undefined;
  readonly logger: Logger | undefined;
}

const CONTINUE: Verdict = { kind: 'continue' };
/** Why a page's wait for its host ended (an AbortError, as any aborted wait): the page closed. */
const pageClosed = () =>
  new DOMException('politely: the page closed while it waited for its host', 'AbortError');
/** Why a navigation's wait for its host ended: the browser gave the navigation up. */
const givenUp = () =>
  new DOMException('politely: the browser gave the navigation up while it waited for its host', 'AbortError');

/** A page's navigation under way: the hop let go (its in-flight place, its pacing slot). */
interface Navigation {
  readonly url: string;
  readonly hop: Hop;
  readonly letGoAt: number;
}

export class BrowserGuard {
  readonly userAgent: string | undefined;
  readonly #options: BrowserGuardOptions;
  /** The last navigation of a page that robots.txt did not allow, until `takeBlocked` is asked. */
  readonly #blocked = new WeakMap<object, DisallowedDecision>();
  /** The navigation failed because its robots.txt got no answer, per page, until the page's caller asks. */
  readonly #transportFailed = new WeakMap<object, { url: string; error: RobotsTransportError }>();
  /** The URL of such a navigation, until the browser reports its failure (which is not the host's). */
  readonly #ownFailures = new WeakMap<object, string>();
  /** The in-flight place held by each page's navigation under way. */
  readonly #leases = new WeakMap<object, Navigation>();
  /** Pages that started closing: a place acquired for one of them afterwards is given back at once. */
  readonly #closed = new WeakSet<object>();
  /** A page's failed navigation being reported: its next one is paced only after the report. */
  readonly #failing = new WeakMap<object, Promise<void>>();
  /**
   * Aborted when the page closes: every wait of the page (its navigation's, `prepare`'s) stops there
   * and holds nothing, neither the host's place in flight nor a pacing slot (a page closed while it
   * waited would otherwise take both later, the place for good when nobody said it closed).
   */
  readonly #pageAborts = new WeakMap<object, AbortController>();
  /** The navigation of a page waiting for its pass: aborted when the browser gives it up. */
  readonly #waiting = new WeakMap<object, { readonly url: string; readonly stop: AbortController }>();
  /** A hop opened for a page before it navigates (`prepare`), until its navigation uses it. */
  readonly #prepared = new WeakMap<object, Hop>();

  constructor(options: BrowserGuardOptions) {
    this.#options = options;
    this.userAgent = options.userAgent;
  }

  /** A main-frame document request of `page`, about to leave the browser. */
  async navigation(page: object, url: string): Promise<Verdict> {
    if (!isHttpUrl(url)) return CONTINUE;
    const { politeness, onSent } = this.#options;
    // The main frame has one navigation at a time: one still waiting was given up by the browser.
    this.#waiting.get(page)?.stop.abort(givenUp());
    const stop = new AbortController();
    const waiting = { url, stop };
    this.#waiting.set(page, waiting);
    const prepared = this.#takePrepared(page);
    await this.#previousDone(page);
    try {
      const decision = await politeness.check(url);
      const transport = robotsTransportError(decision);
      if (transport) {
        // robots.txt got no answer (a dead proxy, a refused connection): the navigation fails as the
        // browser would have failed it on the page itself, with the transport's failure, and is no
        // skip; the crawler retries it as it retries that failure, as @politely/got and fetch fail it.
        void prepared?.notSent();
        this.#transportFailed.set(page, { url, error: transport });
        this.#ownFailures.set(page, url);
        return { kind: 'fail', error: transport, reason: abortReasonFor(transport.code) };
      }
      if (!decision.allowed) {
        void prepared?.notSent();
        this.#blocked.set(page, decision);
        this.#report({ url, stage: 'navigation', decision });
        return { kind: 'block', decision };
      }
      let hop: Hop;
      if (prepared && prepared.decision.hostKey === decision.hostKey) {
        // Its place and slot were taken before the navigation started (`prepare`): it goes at once.
        hop = prepared;
      } else {
        void prepared?.notSent();
        // The binding slot, taken as the browser sends: the page waits here, open, until the host is
        // due; the wait ends, holding nothing, if the page closes or the browser gives the navigation
        // up. Every end of the navigation is reported to its hop (its response, its failure, the
        // page's next hop, the page closing); the hop lifecycle counts the host's next start.
        hop = await this.#open(page, decision, stop.signal);
      }
      if (this.#closed.has(page) || stop.signal.aborted) {
        // Granted as the page closed or the navigation was given up: nothing will send it.
        void hop.notSent();
        return { kind: 'fail', error: stop.signal.reason ?? pageClosed() };
      }
      this.navigationDone(page);
      this.#leases.set(page, { url, hop, letGoAt: Date.now() });
      onSent(hop.decision, Date.now());
      return { kind: 'continue', paced: hop };
    } catch (error) {
      this.#options.logger?.debug?.('politely: navigation could not be paced; failing it', {
        url,
        error: String(error),
      });
      return { kind: 'fail', error };
    } finally {
      if (this.#waiting.get(page) === waiting) this.#waiting.delete(page);
    }
  }

  /**
   * Before a page navigates to `url`: waits for the host's place in flight and its pacing slot, and
   * keeps them for the page's next navigation to that host, which then goes out at once. The wait is
   * the caller's, outside the navigation's own timeout (a crawler's pre-navigation hook). Resolves
   * without waiting for a URL robots.txt refuses (its navigation is refused as it goes out) or that is
   * not http(s). Rejects like the kit's pass (WaitTooLongError, ClosedError), or when the page closes
   * meanwhile; nothing is held after a rejection. What is kept is given back when the page closes or
   * navigates to another host first.
   */
  async prepare(page: object, url: string): Promise<void> {
    if (!isHttpUrl(url) || this.#closed.has(page)) return;
    const decision = await this.#options.politeness.check(url);
    if (!decision.allowed) return;
    void this.#takePrepared(page)?.notSent();
    const hop = await this.#open(page, decision);
    if (this.#closed.has(page)) {
      void hop.notSent();
      throw pageClosed();
    }
    // A second `prepare` racing this one: the later hop stands, the earlier is given back.
    void this.#takePrepared(page)?.notSent();
    this.#prepared.set(page, hop);
  }

  /**
   * A navigation's hop. The browser does not always show the send (Firefox, WebKit through
   * `page.route`), so with 'start' the slot keeps core's margin, and with 'response' any end of the
   * navigation counts as its answer; `onNavigationSent` hears of every count.
   */
  #open(page: object, decision: Decision, given?: AbortSignal): Promise<Hop> {
    const pageSignal = this.#pageSignal(page);
    return openHop(this.#options.kit, decision, {
      spacing: this.#options.spacing,
      seesSend: false,
      signal: given ? AbortSignal.any([pageSignal, given]) : pageSignal,
      onCounted: this.#options.onSent,
    });
  }

  #takePrepared(page: object): Hop | undefined {
    const hop = this.#prepared.get(page);
    this.#prepared.delete(page);
    return hop;
  }

  #pageSignal(page: object): AbortSignal {
    let controller = this.#pageAborts.get(page);
    if (!controller) {
      controller = new AbortController();
      this.#pageAborts.set(page, controller);
    }
    return controller.signal;
  }

  /** Any other request of a page (images, scripts, styles, XHR, frames). */
  async subresource(url: string): Promise<Verdict> {
    if (this.#options.subresources === 'allow' || !isHttpUrl(url)) return CONTINUE;
    try {
      const decision = await this.#options.politeness.check(url);
      if (decision.allowed) return CONTINUE;
      this.#report({ url, stage: 'subresource', decision });
      return { kind: 'block', decision };
    } catch (error) {
      return { kind: 'fail', error };
    }
  }

  /**
   * The browser's network stack is sending a paced navigation now: under load that can be well after
   * it was let go (115 ms with two CPU burners), so the host's next slot counts from this moment.
   */
  async navigationOnWire(hop: Hop): Promise<void> {
    const at = Date.now();
    this.#options.onSent(hop.decision, at);
    await hop.sent(at);
  }

  /**
   * The page's navigation under way got its response (`url` given: only when the response is for that
   * hop, not a late one of the hop before) or ended: it is over, its in-flight place free once its
   * reports are in.
   */
  navigationDone(page: object, url?: string): Navigation | undefined {
    const held = this.#under(page, url);
    if (!held) return undefined;
    this.#leases.delete(page);
    void held.hop.done();
    return held;
  }

  /**
   * The browser sends a page's next hop or navigation only once the previous one is answered (a
   * redirect) or given up. Its response may not have reached `navigationResponse` yet (the two come
   * on different channels): it ends now, before the next one reserves.
   */
  async #previousDone(page: object): Promise<void> {
    await this.#failing.get(page);
    await this.navigationDone(page)?.hop.done();
  }

  /** The page's navigation under way; with `url`, only when that is the hop let go. */
  #under(page: object, url?: string): Navigation | undefined {
    const held = this.#leases.get(page);
    return held && (url === undefined || url === held.url) ? held : undefined;
  }

  /**
   * The page is closing (or closed): its place is given back, every wait of the page for a place or a
   * slot ends holding nothing, and any place acquired for it later is given back at once. A
   * navigation still under way may have reached the host: its hop ends now.
   */
  async pageClosed(page: object): Promise<void> {
    this.#closed.add(page);
    this.#pageAborts.get(page)?.abort(pageClosed());
    void this.#takePrepared(page)?.notSent();
    await this.navigationDone(page)?.hop.done();
  }

  /**
   * A main-frame navigation's response: its in-flight place is free; its latency (the browser's own
   * timing from sending the request to the response headers, else from letting it go to now, which
   * errs on the slow side) and its rate-limit headers feed the host's pace; 429/503 with Retry-After
   * back the host off. With spacing 'response' the host's next navigation counts from the moment the
   * browser says the headers came in (`arrivedAt`, epoch ms), when that lies between letting the
   * request go and now (anything else is a clock we cannot trust, and now is never early).
   */
  async navigationResponse(
    page: object,
    url: string,
    status: number,
    retryAfter: string | undefined,
    browserLatencyMs?: number,
    headers?: Readonly<Record<string, string>>,
    arrivedAt?: number,
  ): Promise<void> {
    const under = this.#under(page, url);
    // Set at once, before any wait: the page's handler asks `blockedNavigation` once the page is in.
    const withheld =
      under && responseVerdict(under.hop.decision, { status, ...(headers ? { headers } : {}) });
    if (withheld) {
      this.#blocked.set(page, withheld);
      this.#report({ url, stage: 'response', decision: withheld });
    }
    if (under) this.#leases.delete(page);
    if (!isHttpUrl(url)) {
      await under?.hop.done();
      return;
    }
    const latencyMs = browserLatencyMs ?? (under ? Math.max(0, Date.now() - under.letGoAt) : undefined);
    if (under) {
      // +1: the real moment may lie up to 1 ms past a whole millisecond of Date.now(); the browser's
      // timing is rounded up, plus as much.
      const now = Date.now() + 1;
      const browserAt = arrivedAt === undefined ? undefined : Math.ceil(arrivedAt) + 1;
      const at = browserAt !== undefined && browserAt > under.letGoAt && browserAt < now ? browserAt : now;
      await under.hop.answered({
        status,
        retryAfter: retryAfter ?? null,
        latencyMs,
        ...(headers === undefined ? {} : { headers }),
        at,
      });
      await under.hop.done();
      return;
    }
    // A late response of a hop already given up (its hop is over) still backs its host off.
    await this.#options.politeness.observeResponse(url, status, retryAfter ?? null, {
      ...(latencyMs === undefined ? {} : { latencyMs }),
      ...(headers === undefined ? {} : { headers }),
    });
  }

  /**
   * A main-frame navigation failed in the browser's network stack, with `errorText` as the browser
   * names it. One the host reset, refused or let time out counts as no answer (status 0), which
   * slows the host's pace as a 5xx does; with spacing 'response' the host's next navigation counts
   * its delay from the failure. Anything else (our own aborts, the page closing) only frees the place.
   */
  navigationFailed(page: object, url: string, errorText: string): Promise<void> {
    // Failed by us for its robots.txt: nothing the host did (that fetch's failure is counted already).
    if (this.#ownFailures.get(page) === url) {
      this.#ownFailures.delete(page);
      return Promise.resolve();
    }
    const under = this.#under(page, url);
    if (under) this.#leases.delete(page);
    // Failed while it still waited for its pass (aborted by the browser, a timeout, the page
    // navigating elsewhere): the wait ends and holds nothing.
    const waiting = this.#waiting.get(page);
    if (waiting?.url === url) waiting.stop.abort(givenUp());
    const error = browserNetworkError(errorText);
    // Never rejects: the page's next navigation waits for it.
    const report = this.#failed(under, url, error).catch(() => undefined);
    this.#failing.set(page, report);
    return report;
  }

  async #failed(under: Navigation | undefined, url: string, error: Error): Promise<void> {
    if (under) {
      await under.hop.failed(error);
      return;
    }
    // A hop already given up (the page moved on before its failure came in) still slows its host,
    // when the failure was the host's: only those carry a code (browserNetworkError).
    if (!isHttpUrl(url) || !('code' in error)) return;
    await this.#options.politeness.observeResponse(url, 0);
  }

  /** A refusal goes to `onSkip`; a throwing or rejecting callback never fails the page's request. */
  #report(skip: PageSkip): void {
    try {
      void Promise.resolve(this.#options.onSkip(skip)).catch(() => {});
    } catch {
      // As above.
    }
  }

  /**
   * The first disallowed hop of a navigation's redirect chain, after its first request (judged when it
   * went out), for a page whose hops went out unseen; reported as a refused navigation. A robots.txt
   * that cannot be read refuses nothing here: the hop was fetched already.
   */
  async disallowedHop(chain: readonly string[]): Promise<DisallowedDecision | undefined> {
    for (const url of chain.slice(1)) {
      if (!isHttpUrl(url)) continue;
      const decision = await this.#options.politeness.check(url).catch(() => undefined);
      if (decision && !decision.allowed) {
        this.#report({ url, stage: 'navigation', decision });
        return decision;
      }
    }
    return undefined;
  }

  /**
   * The error a failed navigation of `page` to `url` is seen with, once: for one failed because its
   * robots.txt got no answer, the transport's own error (its code, the refusal as its cause), as
   * @politely/got and fetch fail the page; undefined for any other failure.
   */
  takeTransportFailure(page: object, url?: string): RobotsTransportError | undefined {
    const failed = this.#transportFailed.get(page);
    if (!failed || (url !== undefined && failed.url !== url)) return undefined;
    this.#transportFailed.delete(page);
    return failed.error;
  }

  /** The blocked navigation of `page`, once: what was shown is an empty page, not the one asked for. */
  takeBlocked(page: object): DisallowedDecision | undefined {
    const decision = this.#blocked.get(page);
    this.#blocked.delete(page);
    return decision;
  }
}
