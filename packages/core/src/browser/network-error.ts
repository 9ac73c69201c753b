/**
 * A browser names a failed request in its own words (net::ERR_CONNECTION_RESET, NS_ERROR_NET_RESET);
 * got and fetch give Node codes (ECONNRESET). `browserNetworkError` translates the first into the
 * second, so a navigation the host dropped, refused or let time out slows the host's pace as such a
 * failure does for got and fetch (one judge, `isServerTroubleError`, for all three), and a failure of
 * our own making (an abort, the page closing) does not.
 */

/**
 * The browsers' names for a request the host (or the path to it) dropped, refused or let time out,
 * as the Node codes `isServerTroubleError` knows. Chromium's come from its net_error_list.h, Firefox's
 * are its nsresult names (Playwright reports either as `failure().errorText`). Whatever else a
 * navigation fails with is not the host's doing: net::ERR_ABORTED (the page closed or moved on, the
 * crawler gave up), ERR_FAILED and ERR_BLOCKED_BY_CLIENT (our own aborts), DNS and certificate errors.
 */
const TROUBLE_TEXTS: ReadonlyMap<string, string> = new Map([
  ['ERR_CONNECTION_RESET', 'ECONNRESET'],
  ['ERR_CONNECTION_CLOSED', 'ECONNRESET'],
  ['ERR_EMPTY_RESPONSE', 'ECONNRESET'],
  ['ERR_CONNECTION_REFUSED', 'ECONNREFUSED'],
  ['ERR_CONNECTION_ABORTED', 'ECONNABORTED'],
  ['ERR_CONNECTION_FAILED', 'ECONNABORTED'],
  ['ERR_TIMED_OUT', 'ETIMEDOUT'],
  ['ERR_CONNECTION_TIMED_OUT', 'ETIMEDOUT'],
  ['NS_ERROR_NET_RESET', 'ECONNRESET'],
  ['NS_ERROR_NET_INTERRUPT', 'ECONNRESET'],
  ['NS_ERROR_CONNECTION_REFUSED', 'ECONNREFUSED'],
  ['NS_ERROR_NET_TIMEOUT', 'ETIMEDOUT'],
]);

/**
 * How a paused request is failed, in Puppeteer's and Playwright's words (`abort(errorCode)`; CDP's
 * `Fetch.failRequest` takes the same names capitalised): blocked by us, failed, or as the transport
 * failure robots.txt met, so the page reports what the browser would have met itself.
 */
export type AbortReason =
  | 'blockedbyclient'
  | 'failed'
  | 'connectionrefused'
  | 'connectionreset'
  | 'connectionaborted'
  | 'timedout'
  | 'namenotresolved'
  | 'addressunreachable';

/** Node's transport codes as the abort reasons a browser reports them with (net::ERR_CONNECTION_REFUSED...). */
const ABORT_REASONS: ReadonlyMap<string, AbortReason> = new Map([
  ['ECONNREFUSED', 'connectionrefused'],
  ['ECONNRESET', 'connectionreset'],
  ['EPIPE', 'connectionreset'],
  ['ECONNABORTED', 'connectionaborted'],
  ['ETIMEDOUT', 'timedout'],
  ['ENOTFOUND', 'namenotresolved'],
  ['EAI_AGAIN', 'namenotresolved'],
  ['EHOSTUNREACH', 'addressunreachable'],
  ['ENETUNREACH', 'addressunreachable'],
]);

/** The abort reason for a Node transport code; `failed` for any other. */
export function abortReasonFor(code: string | undefined): AbortReason {
  return (code === undefined ? undefined : ABORT_REASONS.get(code)) ?? 'failed';
}

/** A browser's network failure as an error `SendPass.failed` judges: with a Node code when it is the host's. */
export function browserNetworkError(errorText: string): Error {
  const name = /\b[A-Z][A-Z_]+\b/.exec(errorText)?.[0];
  const code = name === undefined ? undefined : TROUBLE_TEXTS.get(name);
  const error = new Error(`The browser's request failed: ${errorText}`);
  return code === undefined ? error : Object.assign(error, { code });
}
