/**
 * What following a redirect changes about the request, as one pure rule for every adapter that
 * follows redirects itself (one hop at a time, so each hop is checked and paced before it leaves).
 * The facts are the Fetch standard's HTTP-redirect fetch (https://fetch.spec.whatwg.org/#http-redirect-fetch),
 * which got, undici and browsers agree on: 303 turns any request but GET and HEAD into a GET, 301 and
 * 302 turn a POST into a GET; the body goes with the method, and the headers describing it with the
 * body; credentials are not carried to another origin.
 */

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * Headers that describe a body, dropped with it: the standard's request-body-header names, plus the
 * two framing headers a client derives from the body.
 */
const BODY_HEADERS: readonly string[] = [
  'content-encoding',
  'content-language',
  'content-location',
  'content-type',
  'content-length',
  'transfer-encoding',
];

/**
 * Not carried to another origin. The standard names Authorization; undici's fetch also drops the
 * others (lib/web/fetch/index.js, httpRedirectFetch), got drops Cookie and Host too.
 */
const CROSS_ORIGIN_HEADERS: readonly string[] = ['authorization', 'proxy-authorization', 'cookie', 'host'];

/** What a redirect does to the request that followed it. */
export interface RedirectChange {
  /** The next hop's method: GET, or the request's own as it was given. */
  readonly method: string;
  /** True when the body is not sent again (the method became GET). */
  readonly dropsBody: boolean;
  /** Header names (lower case) the next hop must not carry. */
  readonly droppedHeaders: readonly string[];
}

/** True for the statuses a client follows with a Location: 301, 302, 303, 307, 308. */
export function isRedirectStatus(status: number): boolean {
  return REDIRECT_STATUSES.has(status);
}

/**
 * The change a redirect with `status` makes to a `method` request (any case) from `from` to `to`,
 * compared by origin. For a status that is no redirect, only the origin rule applies.
 */
export function redirectChange(status: number, method: string, from: URL, to: URL): RedirectChange {
  const asked = method.toUpperCase();
  const toGet =
    ((status === 301 || status === 302) && asked === 'POST') ||
    (status === 303 && asked !== 'GET' && asked !== 'HEAD');
  const droppedHeaders = [
    ...(toGet ? BODY_HEADERS : []),
    ...(from.origin !== to.origin ? CROSS_ORIGIN_HEADERS : []),
  ];
  return { method: toGet ? 'GET' : method, dropsBody: toGet, droppedHeaders };
}
