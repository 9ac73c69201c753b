/**
 * The few parts of got the hooks touch, written as structural types so nothing is imported from got
 * at runtime and one hook fits got 14.0 through 16.x (whose own hook types differ between versions).
 */

/** What `beforeRequest` receives: got's Options (NormalizedOptions from 14.6), by shape. */
export interface GotRequestOptionsLike {
  /** A WHATWG URL inside beforeRequest (prefixUrl and searchParams already applied). */
  readonly url?: URL | string | undefined;
  readonly signal?: AbortSignal | undefined;
  /** got's per-phase time limits in ms; `request` bounds the whole request. */
  readonly timeout?: { readonly request?: number | undefined } | undefined;
  /** Merged instance and per-call context; also readable from a got error as `error.options.context`. */
  readonly context: Record<string, unknown>;
  /** Lower-cased header names; got fills in its own default `user-agent`. Writable in beforeRequest. */
  readonly headers?: Record<string, string | string[] | undefined>;
  /** The attempt's own hook arrays (got copies them per call and reads them live). */
  readonly hooks?: { readonly beforeRequest?: unknown } | undefined;
}

/** What `afterResponse` receives: got's Response, by shape. */
export interface GotResponseLike {
  readonly statusCode: number;
  /** The final URL, after redirects. */
  readonly url: string;
  readonly headers: Record<string, string | string[] | undefined>;
  /** got's timings (`@szmarczak/http-timer`): `phases.firstByte` is request sent to response headers. */
  readonly timings?: { readonly phases?: { readonly firstByte?: number | undefined } } | undefined;
}

/** What `beforeError` receives: got's RequestError, by shape. */
export interface GotErrorLike extends Error {
  readonly code?: string;
  readonly options?:
    | {
        readonly url?: URL | string | undefined;
        readonly context?: Record<string, unknown>;
        /** The attempt's own hook arrays (got copies them per attempt). */
        readonly hooks?: { readonly beforeRetry?: unknown } | undefined;
      }
    | undefined;
}

export type PoliteBeforeRequestHook = (options: GotRequestOptionsLike) => Promise<undefined>;
export type PoliteAfterResponseHook = <Response extends GotResponseLike>(
  response: Response,
) => Promise<Response>;

/** What `beforeRedirect` receives first: the options of the hop about to be requested. */
export type PoliteBeforeRedirectHook = (options: GotRequestOptionsLike, response?: GotResponseLike) => void;

export type PoliteBeforeErrorHook = <Failure extends GotErrorLike>(error: Failure) => Promise<Failure>;

/** What `beforeRetry` receives: the error of the attempt got is about to retry (got 12 to 16). */
export type PoliteBeforeRetryHook = (error: GotErrorLike) => Promise<void>;

/**
 * A got handler, by shape: it sees each call's options and what got returns for it (a promise or a
 * stream, both emitting `request` with Node's ClientRequest for every attempt and redirect hop).
 */
export type PoliteHandler = <Options extends GotRequestOptionsLike, Result>(
  options: Options,
  next: (options: Options) => Result,
) => Result;

/** The extend-options `politeGot` returns: pass them to `got.extend(...)`. */
export interface PoliteGotOptions {
  readonly handlers: PoliteHandler[];
  readonly hooks: {
    readonly beforeRequest: PoliteBeforeRequestHook[];
    readonly afterResponse: PoliteAfterResponseHook[];
    readonly beforeError: PoliteBeforeErrorHook[];
    readonly beforeRetry: PoliteBeforeRetryHook[];
    readonly beforeRedirect: PoliteBeforeRedirectHook[];
  };
}
