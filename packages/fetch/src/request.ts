/**
 * A caller's `fetch(input, init)` arguments as one plain value the hop loop can rewrite: URL, method,
 * headers, body and the rest of init, whatever fetch implementation's Request the input came from.
 */

/** What politeFetch accepts as `input`: a URL, or a Request of any fetch implementation (by shape). */
export type FetchInput = string | URL | RequestLike;

/** A WHATWG Request by shape, so Node's global Request and undici's own Request both fit. */
export interface RequestLike {
  readonly url: string;
  readonly method: string;
  readonly headers: Iterable<[string, string]>;
  readonly body: unknown;
  readonly signal?: AbortSignal | null;
  readonly redirect?: string;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/**
 * The Request fields that are not rebuilt per hop: each hop's fetch gets them as init, so it sends
 * what its own redirect would (the Referer it derives from referrer and policy); integrity is checked
 * on the answer (integrity.ts).
 */
const CARRIED_FIELDS = [
  'cache',
  'credentials',
  'duplex',
  'integrity',
  'keepalive',
  'mode',
  'referrer',
  'referrerPolicy',
] as const;

export type RedirectMode = 'follow' | 'manual' | 'error';

/** One request as the hop loop sees it; `rest` is the caller's other init fields (e.g. undici's `dispatcher`). */
export interface HopRequest {
  readonly url: URL;
  readonly method: string;
  /** As fetch builds them (Headers semantics: repeated names joined, a cookie with `; `). */
  readonly headers: Headers;
  /** Undefined when there is none. */
  readonly body: unknown;
  readonly signal: AbortSignal | undefined;
  readonly redirect: RedirectMode;
  readonly rest: Readonly<Record<string, unknown>>;
  /** The class of the caller's Request, when `input` was one: each hop is handed over as one of it. */
  readonly requestClass?: RequestClass | undefined;
}

type RequestClass = new (url: string, init: Record<string, unknown>) => unknown;

/** Methods the Fetch standard normalizes to upper case (https://fetch.spec.whatwg.org/#concept-method-normalize). */
const NORMALIZED_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);

const OWN_INIT_KEYS = new Set(['method', 'headers', 'body', 'signal', 'redirect']);

function isRequestLike(input: unknown): input is RequestLike {
  return (
    typeof input === 'object' &&
    input !== null &&
    !(input instanceof URL) &&
    typeof (input as RequestLike).url === 'string' &&
    typeof (input as RequestLike).method === 'string'
  );
}

/**
 * Reads `input` and `init` the way `new Request(input, init)` would (init wins), without building a
 * Request of one implementation that another implementation's fetch would not recognise. A Request
 * input's body is read into memory once, so a 307/308 hop can send it again.
 */
export async function toHopRequest(
  input: FetchInput,
  init: Record<string, unknown> = {},
): Promise<HopRequest> {
  const request = isRequestLike(input) ? input : undefined;
  const href = request ? request.url : input instanceof URL ? input.href : String(input);
  let url: URL;
  try {
    url = new URL(href);
  } catch (error) {
    throw new TypeError(`Failed to parse URL from ${href}`, { cause: error });
  }

  const rawMethod = typeof init.method === 'string' ? init.method : (request?.method ?? 'GET');
  const method = NORMALIZED_METHODS.has(rawMethod.toUpperCase()) ? rawMethod.toUpperCase() : rawMethod;

  // Built by fetch's own Headers: the same joins, and the same TypeError for a bad pair or value.
  const headers = new Headers((init.headers ?? request?.headers) as ConstructorParameters<typeof Headers>[0]);

  let body: unknown = init.body ?? undefined;
  const http = url.protocol === 'http:' || url.protocol === 'https:';
  // Only for http(s): other schemes go to the inner fetch untouched, their Request body unread.
  if (http && body === undefined && request && request.body !== null && request.body !== undefined) {
    body = await request.arrayBuffer();
  }
  if (body !== undefined && body !== null && (method === 'GET' || method === 'HEAD')) {
    throw new TypeError('Request with GET/HEAD method cannot have body.');
  }

  const signal = (init.signal as AbortSignal | null | undefined) ?? request?.signal ?? undefined;
  const redirect = (init.redirect ?? request?.redirect ?? 'follow') as string;
  if (redirect !== 'follow' && redirect !== 'manual' && redirect !== 'error') {
    throw new TypeError(
      `Expected redirect to be 'follow', 'manual' or 'error', got ${JSON.stringify(redirect)}`,
    );
  }

  const rest: Record<string, unknown> = {};
  for (const key of CARRIED_FIELDS) {
    const value = (request as Record<string, unknown> | undefined)?.[key];
    if (value !== undefined) rest[key] = value;
  }
  for (const [key, value] of Object.entries(init)) if (!OWN_INIT_KEYS.has(key)) rest[key] = value;
  const requestClass =
    typeof request?.constructor === 'function' ? (request.constructor as RequestClass) : undefined;
  return {
    url,
    method,
    headers,
    body: body ?? undefined,
    signal: signal ?? undefined,
    redirect,
    rest,
    ...(requestClass ? { requestClass } : {}),
  };
}

const REPLAYABLE_TAGS = new Set([
  '[object URLSearchParams]',
  '[object Blob]',
  '[object File]',
  '[object FormData]',
]);

/** True when the body can be sent again (a stream is read once: 307/308 cannot resend it). */
export function isReplayableBody(body: unknown): boolean {
  if (body === undefined || body === null) return true;
  if (typeof body === 'string' || body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return true;
  // By tag, so undici's own FormData and Blob count as well as Node's globals.
  return REPLAYABLE_TAGS.has(Object.prototype.toString.call(body));
}

/** The fields a Request is built from (RequestInit); anything else in init is the fetch's own (`dispatcher`). */
const REQUEST_FIELDS = new Set([
  'method',
  'headers',
  'body',
  'signal',
  'redirect',
  'referrer',
  'referrerPolicy',
  'mode',
  'credentials',
  'cache',
  'integrity',
  'keepalive',
  'duplex',
  'priority',
]);

/**
 * What the inner fetch is called with for one hop. A caller who passed a Request gets each hop handed
 * over as a Request of their own class, and the fields no Request carries (undici's `dispatcher`) as
 * init: fetch treats a Request's own fields as it would the caller's (Node 24 sends no Referer for a
 * Request's `referrer`, and does for the same referrer given as init). A URL and init otherwise.
 */
export function hopArguments(request: HopRequest): [input: string | unknown, init: Record<string, unknown>] {
  const init = hopInit(request);
  const RequestOfCaller = request.requestClass;
  if (!RequestOfCaller) return [request.url.href, init];
  const fields: Record<string, unknown> = {};
  const own: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(init)) (REQUEST_FIELDS.has(key) ? fields : own)[key] = value;
  try {
    return [new RequestOfCaller(request.url.href, fields), own];
  } catch {
    // A look-alike that cannot be built this way: the hop goes as URL and init.
    return [request.url.href, init];
  }
}

/**
 * The init handed to the inner fetch for one hop: always `redirect: 'manual'`, so every hop comes back
 * to us. Built field by field (no spreads), as it is built for every request; the method is always
 * given, so a wrapping fetch that reads `init.method` sees it.
 */
export function hopInit(request: HopRequest): Record<string, unknown> {
  const init: Record<string, unknown> = {};
  // integrity is checked on the answer only (integrity.ts): a redirect's own body is no part of it.
  for (const key in request.rest) if (key !== 'integrity') init[key] = request.rest[key];
  init.method = request.method;
  init.headers = Object.fromEntries(request.headers);
  if (request.body !== undefined) init.body = request.body;
  if (request.signal) init.signal = request.signal;
  init.redirect = 'manual';
  return init;
}
