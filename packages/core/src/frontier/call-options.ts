/**
 * The options of one `next` or `waitForWork` call. They belong to the call, not to the frontier, so
 * they are checked on each call (from a table, like every option), where FrontierOptions are checked
 * once, at creation.
 */
import {
  checkOptions,
  functionOption,
  numberOption,
  type OptionTable,
  type ResolvedOf,
} from '../kernel/option-table.js';

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

const NEXT_OPTIONS = {
  limit: numberOption({ min: 1, integer: true, infinity: true, default: Number.POSITIVE_INFINITY }),
} as const satisfies OptionTable<FrontierNextOptions>;

const WAIT_OPTIONS = {
  maxMs: numberOption({ infinity: true, default: Number.POSITIVE_INFINITY }),
  sourceEmpty: functionOption<FrontierWaitOptions['sourceEmpty']>(),
} as const satisfies OptionTable<FrontierWaitOptions>;

/** `next`'s options, checked on each call (they are per call): a TypeError names the bad one. */
export function validateLimit(options: FrontierNextOptions): number {
  return checkOptions('next()', NEXT_OPTIONS, options).limit;
}

/** `waitForWork`'s options, checked on each call: a TypeError names the bad one. */
export function validateWait(options: FrontierWaitOptions): ResolvedOf<typeof WAIT_OPTIONS> {
  return checkOptions('waitForWork()', WAIT_OPTIONS, options);
}
