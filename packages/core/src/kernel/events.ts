/**
 * What politely reports while it works. The cache, the schedulers and the facade all emit these, so
 * the union lives in the kernel below them; listeners subscribe through the facade.
 */
import type { RobotsTxtDiff } from '../engine/diff.js';
import type { Decision, DisallowedDecision } from './decision.js';

/** Why a host's delay moved (`pace-changed`). */
export type PaceChangeReason = 'latency' | 'errors' | 'recovered' | 'rate-limit' | 'rate-limit-reset';

/** The rate-limit header that set a host's pace, as read (see signals/rate-limit-headers.ts). */
export interface PaceRateLimit {
  /** Which form it came in: the draft's `RateLimit` / `RateLimit-Policy`, or a legacy `-Remaining`/`-Reset` pair. */
  readonly header: 'RateLimit' | 'RateLimit-Policy' | 'RateLimit-Remaining' | 'X-RateLimit-Remaining';
  /** The policy's name (`RateLimit`, `RateLimit-Policy`), when named. */
  readonly policy?: string;
  /** Requests left before the reset (`r`, or `-Remaining`). */
  readonly remaining?: number;
  /** ms until the quota resets (`t`, or `-Reset`). */
  readonly resetMs?: number;
  /** Requests per window (`q`, or `-Limit`). */
  readonly quota?: number;
  /** The window, in ms (`w`). */
  readonly windowMs?: number;
  /** The spacing between starts it asks for, in ms (capped by maxBackoffMs). */
  readonly spacingMs: number;
}

/**
 * Why a stored value was not trusted. Every byte read from a shared store is hostile: whoever can
 * write to it could otherwise silence robots.txt for a whole fleet (a `freshUntil` in 2100 over
 * allow-all rules), so anything this process would not have written itself is a miss.
 */
export type StoreRecordRejection =
  | 'malformed' // not an object, or a field of the wrong type or out of range
  | 'version' // a layout this version does not write
  | 'origin-mismatch' // another origin's record under this origin's key (or another robots.txt URL)
  | 'parse-options' // written by a process with other parse options (not tampering, but not ours to use)
  | 'future-fetch' // fetchedAt later than now (beyond the allowed clock skew)
  | 'freshness-too-long' // freshUntil beyond fetchedAt + the longest lifetime this process would give
  | 'rules'; // the serialised rules do not load

/**
 * Where a robots.txt outage stands under Google's timeline (cache/unreachable-timeline.ts);
 * `recovered` only ever appears in the event that ends one.
 */
export type UnreachablePhase = 'disallow-all' | 'last-good-copy' | 'allow-all' | 'site-down' | 'recovered';

/**
 * Where an adapter kept a request from being sent (`Politeness.reportSkip`): before it entered a
 * crawl's queue, as it left the queue, right before it went out, at a redirect hop, at a browser's
 * navigation, or at a page's subresource; or, `response`, where it kept a response's content from
 * its caller (the response's Content-Usage header says no for the `purpose` option).
 */
export type SkipStage =
  | 'enqueue'
  | 'dequeue'
  | 'send'
  | 'redirect'
  | 'navigation'
  | 'subresource'
  /** The response came, and its content was withheld: its Content-Usage header refuses the `purpose`. */
  | 'response';

/** Receives events; `Politeness.subscribe` takes one. */
export type EventSink = (event: PolitelyEvent) => void;

export type PolitelyEvent =
  | {
      readonly type: 'robots-fetch';
      readonly origin: string;
      readonly robotsUrl: string;
      readonly status: number;
      /**
       * What the fetch led to (RFC 9309 2.3.1); `not-modified`: a 304 to a conditional request renewed
       * the cached rules (`bytes` 0). A 304 that renews nothing is `unreachable`, with `error` saying
       * why, and is followed by one request without conditions.
       */
      readonly outcome: 'ok' | 'unavailable' | 'unreachable' | 'not-modified';
      readonly redirects: number;
      readonly bytes: number;
      readonly truncated: boolean;
      readonly elapsedMs: number;
      readonly error?: string;
    }
  | { readonly type: 'decision'; readonly decision: Decision }
  | {
      /**
       * An adapter kept a request from being sent because of `decision` (`reportSkip`). `host`: the
       * facade's host key of `decision.url`.
       */
      readonly type: 'skip';
      readonly url: string;
      readonly host: string;
      readonly stage: SkipStage;
      readonly decision: DisallowedDecision;
    }
  | {
      /**
       * The URL's AI usage preferences say no for the `purpose` option (`decision.usageRefusal` says
       * which line): from robots.txt when decided, or from a response's Content-Usage header after it
       * was fetched (`source: 'header'`, the content then withheld from the caller).
       */
      readonly type: 'usage-refused';
      readonly url: string;
      readonly decision: DisallowedDecision;
    }
  | {
      /**
       * TDMRep reserves text and data mining rights for the URL and the `purpose` is TDM
       * (`decision.tdm` says which declaration, with its policy URL): the origin's tdmrep.json when
       * decided (nothing was fetched), or the response's header or the page's meta tag after it was
       * fetched (the content then withheld from the caller).
       */
      readonly type: 'tdm-reserved';
      readonly url: string;
      readonly decision: DisallowedDecision;
    }
  | {
      /**
       * An origin's /.well-known/tdmrep.json could not be read (not JSON, not an array, a rule without
       * a path `location` or with a `tdm-reservation` other than 0 or 1): every URL of the origin is
       * unset by the file until it is fetched again. Reported once per fetch of the file.
       */
      readonly type: 'tdmrep-malformed';
      readonly origin: string;
      readonly url: string;
      readonly error: string;
    }
  | {
      /**
       * An origin's tdmrep.json holds more rules than its share of `memory.budgetBytes`
       * (`budgetBytes / 512`), or more bytes than `robots.maxBytes` (then `rules` counts those read,
       * plus one): the first `kept` of its `rules` are used, the rest ignored, as the lines of a
       * robots.txt past `robots.maxBytes` are. Reported once per fetch of the file.
       */
      readonly type: 'tdmrep-truncated';
      readonly origin: string;
      readonly url: string;
      readonly rules: number;
      readonly kept: number;
    }
  | {
      /**
       * A response backed its host off for `ms`: `cause` 'retry-after' (its Retry-After, whatever the
       * status) or '429' (a 429 without a usable Retry-After: the default backoff).
       */
      readonly type: 'backoff';
      readonly host: string;
      readonly ms: number;
      readonly status?: number;
      readonly cause: 'retry-after' | '429';
    }
  | {
      /** The store failed a call (or took longer than its timeout) on `key` (a batch's first key). */
      readonly type: 'store-error';
      readonly operation: 'get' | 'set' | 'delete';
      readonly key: string;
      readonly error: unknown;
    }
  | {
      /**
       * The store took `latencyMs` to write a batch of pace records, more than the `marginMs` the
       * write-ahead allows for (`pacing.persistPace`): a request due at once waits that long for its
       * record. Reported once per instance.
       */
      readonly type: 'store-slow';
      readonly operation: 'set';
      readonly latencyMs: number;
      readonly marginMs: number;
    }
  | {
      /**
       * A stored pace record (`pacing.persistPace`) held `host` `aheadMs` from now, further than this
       * crawler's options could have asked (a clock that jumped, a bad record in a shared store): it is
       * trusted only up to `trustedMs` from now.
       */
      readonly type: 'pace-record-ahead';
      readonly host: string;
      readonly aheadMs: number;
      readonly trustedMs: number;
    }
  /** A stored robots.txt record was not trusted (see StoreRecordRejection): treated as a miss, refetched. */
  | {
      readonly type: 'store-record-rejected';
      readonly origin: string;
      readonly reason: StoreRecordRejection;
    }
  | {
      readonly type: 'scheduler-fallback';
      readonly error: unknown;
      /**
       * What this process paces alone until Redis is back: 'all' hosts (it knows of no other
       * scheduler, or `fallback: 'alone'`), the hosts it 'owned' by rendezvous hashing over the fleet
       * it last read, or 'none' (it joined too recently or its list was stale). Callers for the hosts
       * it does not pace wait for Redis.
       */
      readonly share?: 'all' | 'owned' | 'none';
      /** Schedulers this process knew of on the fleet's Redis (itself included). */
      readonly members?: number;
    }
  | {
      /** The User-Agent does not identify the crawler by its product token (reported once, at creation). */
      readonly type: 'identification-warning';
      readonly problem: 'browser-user-agent' | 'token-not-in-user-agent' | 'user-agent-not-a-product-token';
      readonly userAgent: string;
      readonly productToken: string;
      readonly message: string;
    }
  | { readonly type: 'scheduler-recovered' }
  | {
      /**
       * The store is a Keyv on something other than Redis (Postgres, SQLite, ...): processes sharing it
       * share what `shared` names and keep `perProcess` to themselves (reported once, at creation).
       */
      readonly type: 'store-sharing';
      readonly shared: readonly ('robots-cache' | 'pacing')[];
      readonly perProcess: readonly ('robots-fetch-lock' | 'pacing')[];
      readonly message: string;
    }
  | {
      /**
       * `unreachablePolicy: 'google'`: an origin's robots.txt outage entered a phase of Google's
       * timeline, or ended (`recovered`). `since`: when the outage began (epoch ms); `siteStatus`: the
       * home page's status behind `allow-all` / `site-down` (0: no answer).
       */
      readonly type: 'unreachable-phase';
      readonly origin: string;
      readonly phase: UnreachablePhase;
      readonly since: number;
      readonly siteStatus?: number;
    }
  | {
      /**
       * A host's effective delay moved by 25% or more (latency-aware pacing), or an error spell ended:
       * `reason` says whether its responses got slower or faster ('latency'), it answered with errors
       * ('errors': 5xx, 429, timeouts, failed connections), or it recovered from them ('recovered'),
       * its rate-limit headers spread what remains of its quota over the time to its reset
       * ('rate-limit': `rateLimit` says which header and its values, `toMs` is the new spacing,
       * `untilMs` when it ends), or that reset passed ('rate-limit-reset').
       */
      readonly type: 'pace-changed';
      readonly host: string;
      readonly fromMs: number;
      readonly toMs: number;
      readonly reason: PaceChangeReason;
      /** The smoothed time to response headers, in ms, when measured. */
      readonly latencyMs?: number;
      /** The error multiplier (1 when the host answers well). */
      readonly penalty: number;
      /** reason 'rate-limit': the header read and its values (times in ms), and the spacing it asks. */
      readonly rateLimit?: PaceRateLimit;
      /** reason 'rate-limit': when the quota resets and the host's pace goes back (epoch ms). */
      readonly untilMs?: number;
    }
  | {
      /**
       * A host's rate-limit headers ask for more time between its requests than maxRateLimitDelayMs
       * (`spacingMs`, until `untilMs`, epoch ms), and `action` is what rateLimitAboveMax does about
       * it: wait it out, skip the host's requests, or fail them until then. Once per spell: again only
       * after the host went back under the limit.
       */
      readonly type: 'rate-limit-above-max';
      readonly host: string;
      readonly spacingMs: number;
      readonly untilMs: number;
      readonly maxRateLimitDelayMs: number;
      readonly action: 'wait' | 'skip' | 'fail';
      /** The header read and its values. */
      readonly rateLimit?: PaceRateLimit;
    }
  | {
      /**
       * A request to `url` waited for a place among its host's requests in flight and shares the
       * place of a request of this process that has made no progress for `stalledMs` (a request that
       * depends on another to the same host, as a download piped into an upload; adapter/stalled-places.ts).
       */
      readonly type: 'in-flight-shared';
      readonly host: string;
      readonly url: string;
      readonly stalledMs: number;
    }
  | {
      /** `hostKey: 'ip'` could not resolve a host name: it is paced by its name until a lookup works. */
      readonly type: 'host-lookup-failed';
      readonly hostname: string;
      readonly error: unknown;
    }
  | {
      /**
       * A refreshed robots.txt changed the rules or the Crawl-delay for our product token (fetched by
       * this process, or read from the store as another process wrote it): what was added and removed.
       */
      readonly type: 'robots-changed';
      readonly origin: string;
      readonly robotsUrl: string;
      readonly diff: RobotsTxtDiff;
    };
