/**
 * got's own timeout error for a time limit spent before the page went out: the request's
 * `timeout.request` spent on robots.txt or the host's slot, or a phase limit (`timeout.lookup`, ...)
 * that ended robots.txt, sent with the page's options. got would have timed the page out with its
 * `TimeoutError` (`instanceof got.TimeoutError`, name, code ETIMEDOUT, `event`); got keeps an error
 * of its own class that a hook throws as it is, so its retry and the caller see that class.
 *
 * got's classes are read from the got this package's peer dependency resolves to, and used only for a
 * request whose options are that got's `Options`: a request made by another copy of got (a bundled
 * one, another version) gets the same error by shape (name, code, `event`, message), which got wraps
 * in its RequestError. Either way politely's own error stays the `cause`.
 */
import type { GotRequestOptionsLike } from './got-shapes.js';

/** The parts of got's module used here (got 14.0 to 16.x). */
interface GotErrors {
  readonly Options: abstract new (...args: never[]) => object;
  readonly TimeoutError: new (error: Error & { event: string }, timings: undefined, options: object) => Error;
}

let loading: Promise<GotErrors | undefined> | undefined;

/** got's module, imported once; undefined when it cannot be (the peer is missing). */
function gotErrors(): Promise<GotErrors | undefined> {
  loading ??= import('got').then(
    (module) => module as unknown as GotErrors,
    () => undefined,
  );
  return loading;
}

/** got's own timeout error, by shape (its timed-out.ts): name, code ETIMEDOUT, the phase as `event`. */
export function timeoutError(phase: string, ms: number, cause?: unknown): Error & { event: string } {
  const message = `Timeout awaiting '${phase}' for ${ms}ms`;
  return Object.assign(cause === undefined ? new Error(message) : new Error(message, { cause }), {
    name: 'TimeoutError',
    code: 'ETIMEDOUT',
    event: phase,
  });
}

const GOT_TIMEOUT = /^Timeout awaiting '(\w+)' for (\d+)ms$/;

/**
 * The error to throw for the request with `options`: `error` as got's TimeoutError when it is a
 * timeout got would have raised for the page (made by `timeoutError`, or carrying its message and
 * code ETIMEDOUT, as robots.txt's transport failure does), else `error` itself.
 */
export async function asGotTimeout(options: GotRequestOptionsLike, error: Error): Promise<Error> {
  const code = (error as { code?: unknown }).code;
  const phase = code === 'ETIMEDOUT' ? GOT_TIMEOUT.exec(error.message)?.[1] : undefined;
  if (phase === undefined) return error;
  const got = await gotErrors();
  if (got === undefined || !(options instanceof got.Options)) return error;
  // got's class reads the message, code and `event` of the error it wraps, and keeps it as `cause`.
  return new got.TimeoutError(Object.assign(error, { event: phase }), undefined, options);
}
