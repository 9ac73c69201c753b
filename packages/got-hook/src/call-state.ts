/**
 * Per got call, shared by its attempts. The handler puts it on the call's `context` (got copies the
 * context into each retry and redirect hop: `put` says how the call goes along); hooks taken without the
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
  latest?: Pick<Hop, 'failed' | 'decision'> | undefined;
  /** When nobody watches the call, the latest attempt's pass: got's response hook reports to it. */
  unwatched?: SendPass | undefined;
  /** The context the call started on: got copies each retry's context from it. */
  readonly home: Record<string, unknown>;
}

type Context = Record<string, unknown> | undefined;

/**
 * The call is kept on its context under a symbol that is not enumerable, so the context the caller
 * sees is the one they gave (got: "context is shallow merged and enumerable"; a strict deepEqual sees
 * an enumerable symbol). got copies a context shallowly, enumerable properties only, for each retry
 * and redirect hop: `carry` makes the symbol enumerable just before a retry's copy (beforeRetry), a
 * redirect hop gets it from its response's request (beforeRedirect), and the attempt's
 * `beforeRequest` hides it again (`callOf`).
 */
function put(context: Record<string, unknown>, call: CallState, enumerable = false): void {
  Object.defineProperty(context, CALL, { value: call, enumerable, configurable: true });
}

/** Starts a watched call on `context` (the handler's). */
export function startCall(context: Record<string, unknown>): CallState {
  const call: CallState = { watched: true, home: context };
  put(context, call);
  return call;
}

/** The call `context` belongs to, made unwatched when no handler started it; undefined without a context. */
export function callOf(context: Context): CallState | undefined {
  if (typeof context !== 'object' || context === null) return undefined;
  const existing = (context as { [CALL]?: CallState })[CALL];
  // Already hidden on its own context (every attempt but a retry's first look): nothing to redefine.
  if (existing?.home === context && !Object.prototype.propertyIsEnumerable.call(context, CALL))
    return existing;
  const call = existing ?? { watched: false, home: context };
  put(context, call);
  if (existing && existing.home !== context) put(existing.home, existing);
  return call;
}

/** got is about to copy the contexts of the call (for a retry): they carry the call into the copy. */
export function carry(call: CallState, ...contexts: Context[]): void {
  for (const context of [call.home, ...contexts]) {
    if (typeof context === 'object' && context !== null) put(context, call, true);
  }
}

/** A redirect hop's context (a copy made without the hidden call) joins the call of `from`. */
export function joinCall(from: Context, hop: Context): void {
  const call = existingCall(from);
  if (call && typeof hop === 'object' && hop !== null) put(hop, call);
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
