/**
 * `politeFetch(options)`: a fetch-compatible function that asks robots.txt about every URL and waits
 * its turn for the host. It follows redirects itself, one hop at a time (`redirect: 'manual'` to the
 * inner fetch), so each hop is checked against its own host's robots.txt and paced before it leaves.
 */
import {
  createPoliteness,
  type DisallowedDecision,
  type FetchLike,
  type Politeness,
  type PolitenessOptions,
  RobotsDisallowedError,
  type SkipStage,
} from '@politely/core';
import {
  adapterKit,
  attachPoliteness,
  checkOptions,
  functionOption,
  isPoliteness,
  isRedirectStatus,
  numberOption,
  type OptionTable,
  robotsTransportError,
  sendHop,
} from '@politely/core/adapter';
import type { AnyFetch, ResponseLike } from './fetch-shapes.js';
import { checkIntegrity } from './integrity.js';
import { nextHop } from './redirect.js';
import { type FetchInput, type HopRequest, hopArguments, toHopRequest } from './request.js';

/** Redirect hops followed at most, as the Fetch standard and browsers do. */
const DEFAULT_MAX_REDIRECTS = 20;

const WRAP_OPTIONS = {
  fetch: functionOption<AnyFetch>('a fetch-compatible function'),
  maxRedirects: numberOption({ integer: true, default: DEFAULT_MAX_REDIRECTS }),
} as const satisfies OptionTable<PoliteFetchWrapOptions<AnyFetch>>;

/** What only politeFetch reads; everything else is the shared politely options object. */
export interface PoliteFetchWrapOptions<F extends AnyFetch = typeof globalThis.fetch> {
  /** The fetch to wrap, e.g. undici's `fetch` or your own. Default: Node's global fetch. */
  readonly fetch?: F;
  /** Redirect hops followed at most with `redirect: 'follow'`. Default 20 (Fetch standard). */
  readonly maxRedirects?: number;
}

/** The shared politely options, where `fetch` is the fetch to wrap (robots.txt goes through it too). */
export type PoliteFetchOptions<F extends AnyFetch = typeof globalThis.fetch> = Omit<
  PolitenessOptions,
  'robots'
> & {
  /** As the shared `robots`, without `fetch`: robots.txt goes through the `fetch` wrapped. */
  readonly robots?: Omit<NonNullable<PolitenessOptions['robots']>, 'fetch'>;
} & PoliteFetchWrapOptions<F>;

/**
 * `const fetch = politeFetch({ userAgent: 'MyBot/1.0' })`: same signature as the fetch it wraps.
 * Pass an existing Politeness (and the fetch to wrap, if not the global one) to share its cache,
 * pacing and stats with other clients.
 */
// One signature, not an overload per form: with overloads, TypeScript 7 reports a misspelt option
// against the last overload ("'pacin' does not exist in type 'Politeness'"), not the options.
export function politeFetch<F extends AnyFetch = typeof globalThis.fetch>(
  options: PoliteFetchOptions<F> | Politeness,
  wrapOptions: PoliteFetchWrapOptions<F> = {},
): F {
  const { politeness, inner, maxRedirects } = setUp(options, wrapOptions);

  const polite = async (input: FetchInput, init?: Record<string, unknown>): Promise<ResponseLike> => {
    let request = await toHopRequest(input, init ?? {});
    // data:, blob: and the like have no host to be polite to.
    if (request.url.protocol !== 'http:' && request.url.protocol !== 'https:') return inner(input, init);
    if (adapterKit(politeness).sendUserAgent && !request.headers.has('user-agent')) {
      request.headers.set('user-agent', politeness.userAgent);
    }
    // A hop to another origin in cors mode (fetch's default) makes the response a 'cors' one.
    let crossed = false;
    for (let redirects = 0; ; redirects++) {
      const stage: SkipStage = redirects === 0 ? 'send' : 'redirect';
      const hop = request;
      // Waiting for a place in flight is bounded by the caller's signal only, as a crawl's queue is.
      // The send counts from the response (a generic fetch cannot say when its bytes left; the
      // response proves they did), and the latency from the call: on a new connection it includes the
      // connection setup, the site's cost too. fetch hands the body to the caller, who may read it
      // much later or never (`const a = await fetch(x); const b = await fetch(y); await a.text()` is
      // common): holding the place until the body ends would deadlock that code, so the place is
      // given back with the response; got, which reads the body itself, holds it to the body's end.
      const response = await sendHop(politeness, hop.url, () => inner(...hopArguments(hop)), {
        ...(hop.signal ? { signal: hop.signal } : {}),
        // Counted from the response (docs/pacing.md): fetch cannot see when its request went out,
        // and counted from the call, a first request that opens a connection and a second that
        // reuses it reached the server closer than asked (by the connection's setup).
        spacing: 'response',
        inFlightMaxWaitMs: Number.POSITIVE_INFINITY,
        stage,
        refuse: (decision, at) => refusal(politeness, decision, at),
        // The headers a `purpose` judges are read only when one is set (each `get` has a cost).
        answer: (answered, decision) => ({
          status: answered.status,
          retryAfter: answered.headers.get('retry-after'),
          headers: answered.headers,
          ...(decision.purpose === undefined
            ? {}
            : {
                contentUsage: answered.headers.get('content-usage'),
                tdm: {
                  reservation: answered.headers.get('tdm-reservation'),
                  policy: answered.headers.get('tdm-policy'),
                },
              }),
          withhold: () => discard(answered),
        }),
      });
      if (!isRedirectStatus(response.status) || request.redirect === 'manual') {
        return answer(response, redirects, crossed, request);
      }
      if (request.redirect === 'error') {
        await discard(response);
        throw new TypeError('fetch failed', { cause: new Error('unexpected redirect') });
      }
      const next = nextHop(
        request,
        response.status,
        response.headers.get('location'),
        redirects,
        maxRedirects,
      );
      if (next.kind === 'final') return answer(response, redirects, crossed, request);
      await discard(response);
      if (next.kind === 'error') throw new TypeError('fetch failed', { cause: next.cause });
      crossed ||= next.request.url.origin !== request.url.origin;
      request = next.request;
    }
  };
  // Found by core's `politenessOf(fetch)`.
  attachPoliteness(polite, politeness);
  return polite as unknown as F;
}

/**
 * The error a refused hop rejects with. robots.txt that got no answer at all (refused, unresolved, a
 * bad port) rejects as fetch does when the page gets none: `TypeError('fetch failed')` whose `cause`
 * has the transport's `code` (what retry code reads), the refusal further down the cause chain for
 * `getDisallowedDecision`. The page is not sent either way (RFC 9309 2.3.1.4).
 */
function refusal(politeness: Politeness, decision: DisallowedDecision, stage: SkipStage): Error {
  adapterKit(politeness).reportSkip(decision, stage);
  if (decision.reason !== 'unreachable' || decision.robots?.status !== 0)
    return new RobotsDisallowedError(decision);
  // Without a transport code (undici's "bad port"), the cause is still the transport's failure.
  const cause =
    robotsTransportError(decision) ??
    new Error(decision.robots.error, { cause: new RobotsDisallowedError(decision) });
  return new TypeError('fetch failed', { cause });
}

/** A hop's response we will not hand back: release its connection. */
async function discard(response: ResponseLike): Promise<void> {
  const body = response.body as { cancel?: () => Promise<void> } | null | undefined;
  try {
    if (typeof body?.cancel === 'function') await body.cancel();
  } catch {
    // Already consumed or errored: nothing left to release.
  }
}

/** The response handed back: its integrity checked, and seen as one fetch that followed the hops. */
async function answer(
  response: ResponseLike,
  redirects: number,
  crossed: boolean,
  request: HopRequest,
): Promise<ResponseLike> {
  const integrity = request.rest.integrity;
  if (typeof integrity === 'string' && integrity !== '') {
    try {
      await checkIntegrity(response, integrity);
    } catch (error) {
      await discard(response);
      throw error;
    }
  }
  return asFollowed(response, redirects, crossed);
}

/**
 * The inner fetch saw single hops; the caller sees one fetch that followed `redirects` of them, as
 * fetch's own response says (`redirected`, and `type` 'cors' once a hop left the origin), and so does
 * every clone (a Response's own clone() copies its internal state, which the inner fetch set).
 */
function asFollowed(response: ResponseLike, redirects: number, crossed: boolean): ResponseLike {
  if (redirects === 0) return response;
  const clone = (response as { clone?: () => ResponseLike }).clone;
  Object.defineProperty(response, 'redirected', { value: true, configurable: true });
  if (crossed && response.type === 'basic')
    Object.defineProperty(response, 'type', { value: 'cors', configurable: true });
  if (typeof clone === 'function') {
    Object.defineProperty(response, 'clone', {
      value: () => asFollowed(clone.call(response), redirects, crossed),
      configurable: true,
    });
  }
  return response;
}

function setUp<F extends AnyFetch>(
  options: PoliteFetchOptions<F> | Politeness,
  wrapOptions: PoliteFetchWrapOptions<F>,
): { politeness: Politeness; inner: AnyFetch; maxRedirects: number } {
  const wrap = checkOptions('politeFetch', WRAP_OPTIONS, wrapOptions);
  if (isPoliteness(options)) {
    return { politeness: options, inner: wrap.fetch ?? globalFetch, maxRedirects: wrap.maxRedirects };
  }
  if (options === null || typeof options !== 'object') {
    throw new TypeError('Expected options to be an object with at least `userAgent`, or a Politeness');
  }
  const { fetch, maxRedirects, ...core } = options;
  const given = checkOptions('politeFetch', WRAP_OPTIONS, { fetch, maxRedirects });
  const chosen = wrap.fetch ?? given.fetch;
  const robots = (core as PolitenessOptions).robots as unknown;
  if (typeof robots === 'object' && robots !== null && 'fetch' in robots) {
    // One fetch for pages and robots.txt alike: a second one would let them take different routes.
    throw new TypeError(
      'Unknown politeFetch option `robots.fetch`: robots.txt goes through the `fetch` politeFetch wraps: politeFetch({ userAgent, fetch })',
    );
  }
  // robots.txt goes through the same fetch as the pages (a proxy applies to both); core calls it
  // with (url, { method, headers, redirect: 'manual', signal }), which any fetch accepts. A `robots`
  // that is no object is passed on as it is, for createPoliteness to refuse by name.
  const politeness = createPoliteness({
    ...core,
    ...(chosen && (robots === undefined || typeof robots === 'object')
      ? { robots: { ...(robots as object | undefined), fetch: chosen as unknown as FetchLike } }
      : {}),
  } as PolitenessOptions);
  return {
    politeness,
    inner: chosen ?? globalFetch,
    // The second argument's wins; each was filled with the default when left out.
    maxRedirects: wrapOptions.maxRedirects === undefined ? given.maxRedirects : wrap.maxRedirects,
  };
}

/** Looked up at call time, so a test or an APM agent that replaces globalThis.fetch is honoured. */
const globalFetch: AnyFetch = (input, init) => globalThis.fetch(input, init);
