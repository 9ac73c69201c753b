/** What a frontier's caller does with the items it cannot hand out, and the clock it reads. */
import type { DisallowedDecision } from '../kernel/decision.js';
import {
  assertPoliteness,
  checkOptions,
  FUNCTION,
  LOGGER,
  type OptionTable,
} from '../kernel/option-table.js';
import type { Logger, Politeness } from '../types.js';
import type { FrontierItem } from './frontier-item.js';

export interface FrontierOptions<T extends FrontierItem> {
  /**
   * An item robots.txt refuses, when it is refused (at `admit`, or once its robots.txt is in). It is
   * never handed out. Awaited; a rejection is logged. Default: nothing (the item is dropped).
   */
  readonly onSkip?: (item: T, decision: DisallowedDecision) => unknown;
  /**
   * `politeness.check` rejected for a parked item (a bug, never a robots.txt answer): the item leaves
   * the frontier and is the caller's again (requeue it). Default: logged, and the item is dropped.
   */
  readonly onCheckFailed?: (item: T, error: unknown) => unknown;
  /**
   * Items parked at most before `next` stops pulling from the caller's queue (`full`): bounds the
   * memory a queue of one slow host can take. `admit` still parks beyond it. Default: no bound.
   */
  readonly maxParked?: number;
  /** The clock that due times are compared with (epoch ms). Default: Date.now. */
  readonly now?: () => number;
  /** Where the frontier warns (a failing scheduler, a failing callback). Default: console; false: silent. */
  readonly logger?: Logger | false;
}

/** Every option, kept in step with FrontierOptions by the compiler. */
const OPTIONS: OptionTable<FrontierOptions<FrontierItem>> = {
  onSkip: FUNCTION,
  onCheckFailed: FUNCTION,
  maxParked: [
    (value) => value === Number.POSITIVE_INFINITY || (Number.isInteger(value) && (value as number) >= 1),
    'an integer >= 1 or Infinity',
  ],
  now: FUNCTION,
  logger: LOGGER,
};

/** The politeness methods a frontier calls. */
const POLITENESS_METHODS = ['hostKey', 'checkCached', 'check', 'prefetch', 'nextStart', 'markSent'] as const;

/** Checks the politeness and every option once, at creation: a TypeError names the bad key. */
export function validateFrontierOptions<T extends FrontierItem>(
  politeness: Politeness,
  options: FrontierOptions<T>,
): FrontierOptions<T> {
  assertPoliteness<Politeness>(politeness, POLITENESS_METHODS);
  return checkOptions('frontier', OPTIONS, options);
}
