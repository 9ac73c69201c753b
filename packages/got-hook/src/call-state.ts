/**
 * Per got call, shared by its attempts. The handler puts it on the call's `context` (got copies the
 * context shallowly into each retry, so every attempt sees the same object); hooks taken without the
 * handler make one at the call's first attempt. `beforeRequest` leaves each attempt's pass in it, for
 * the attempt's ClientRequest (watched) and for got's response and error hooks.
 */
import type { Hop, SendPass } from '@politely/core/adapter';

const CALL = Symbol('politely.got.call');

export interface CallState {
  /** True when the handler watches the call's ClientRequests, which then report to each pass. */
  readonly watched: boolean;
  /** The admitted attempt that has not been sent yet (watched calls). */
  pending?: Hop | undefined;
  /** The latest attempt's hop or pass: got's error hooks report its failure to it. */
  latest?: Pick<Hop, 'failed'> | undefined;
  /** When nobody watches the call, the latest attempt's pass: got's response hook reports to it. */
  unwatched?: SendPass | undefined;
}

type Context = Record<string, unknown> | undefined;

/** Starts a watched call on `context` (the handler's). */
export function startCall(context: Record<string, unknown>): CallState {
  const call: CallState = { watched: true };
  // Enumerable, so got's shallow copy of the context carries it into every retry.
  Object.defineProperty(context, CALL, { value: call, enumerable: true, configurable: true });
  return call;
}

/** The call `context` belongs to, made unwatched when no handler started it; undefined without a context. */
export function callOf(context: Context): CallState | undefined {
  if (typeof context !== 'object' || context === null) return undefined;
  const existing = (context as { [CALL]?: CallState })[CALL];
  if (existing) return existing;
  const call: CallState = { watched: false };
  Object.defineProperty(context, CALL, { value: call, enumerable: true, configurable: true });
  return call;
}

/** The call's attempt that was admitted but never reached the wire (another hook answered it) is over. */
export function dropPending(call: CallState): void {
  void call.pending?.notSent();
  call.pending = undefined;
}

/** The call `context` belongs to, if one was started; never makes one. */
export function existingCall(context: Context): CallState | undefined {
  if (typeof context !== 'object' || context === null) return undefined;
  return (context as { [CALL]?: CallState })[CALL];
}
