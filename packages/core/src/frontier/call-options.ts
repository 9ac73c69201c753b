/**
 * The options of one `next` or `waitForWork` call. They belong to the call, not to the frontier, so
 * they are checked on each call, where FrontierOptions are checked once, at creation.
 */

/** `waitForWork`'s options. */
export interface FrontierWaitOptions {
  /**
   * Longest wait, in real milliseconds (the injected clock only says when hosts are due). Default
   * Infinity: wait until there is work or nothing can bring any.
   */
  readonly maxMs?: number;
  /**
   * Whether the caller's queue (what `next` pulls from) is empty now; asked before each nap, not while
   * the frontier is `full`. Without it, only parked items count as work.
   */
  readonly sourceEmpty?: () => boolean | Promise<boolean>;
}

export interface FrontierNextOptions {
  /** Items pulled per call at most, looking for one that may go now. Default: no limit. */
  readonly limit?: number;
}

/** `next`'s options, checked on each call (they are per call): a TypeError names the bad one. */
export function validateLimit(options: FrontierNextOptions): number {
  if (options === null || typeof options !== 'object')
    throw new TypeError(`Expected next() options to be an object, got \`${String(options)}\``);
  const { limit = Number.POSITIVE_INFINITY } = options;
  if (typeof limit !== 'number' || !(limit >= 1) || (Number.isFinite(limit) && !Number.isInteger(limit)))
    throw new TypeError(
      `Expected option \`limit\` to be an integer >= 1 or Infinity, got \`${String(limit)}\``,
    );
  return limit;
}

/** `waitForWork`'s options, checked on each call: a TypeError names the bad one. */
export function validateWait(options: FrontierWaitOptions): FrontierWaitOptions & { maxMs: number } {
  if (options === null || typeof options !== 'object')
    throw new TypeError(`Expected waitForWork() options to be an object, got \`${String(options)}\``);
  const { maxMs = Number.POSITIVE_INFINITY, sourceEmpty } = options;
  if (typeof maxMs !== 'number' || !(maxMs >= 0))
    throw new TypeError(`Expected option \`maxMs\` to be a number >= 0, got \`${String(maxMs)}\``);
  if (sourceEmpty !== undefined && typeof sourceEmpty !== 'function')
    throw new TypeError(`Expected option \`sourceEmpty\` to be a function, got \`${String(sourceEmpty)}\``);
  return sourceEmpty ? { maxMs, sourceEmpty } : { maxMs };
}
