/** What a frontier's caller does with the items it cannot hand out, and the clock it reads. */

import type { Logger, Politeness } from '../facade/types.js';
import type { DisallowedDecision } from '../kernel/decision.js';
import {
  assertPoliteness,
  CONSOLE_LOGGER,
  checkOptions,
  functionOption,
  loggerOption,
  numberOption,
  type OptionTable,
  type ResolvedOf,
} from '../kernel/option-table.js';
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
   * memory a queue of one slow host can take, and how far ahead of the workers the frontier reads.
   * `admit` still parks beyond it. Default: 2,000 (DEFAULT_MAX_PARKED); Infinity: no bound.
   */
  readonly maxParked?: number;
  /**
   * Origins whose robots.txt the frontier fetches at once for items it pulled (`next` pulls nothing
   * more while that many are under way: `full`); `screen`'s background prefetches start only while
   * fewer are under way. Bounds the connections a breadth crawl opens at its start. `admit` called by
   * hand still starts its check beyond it. Default: 16 (DEFAULT_MAX_ROBOTS_FETCHES); Infinity: no bound.
   */
  readonly maxRobotsFetches?: number;
  /** The clock that due times are compared with (epoch ms). Default: Date.now. */
  readonly now?: () => number;
  /** Where the frontier warns (a failing scheduler, a failing callback). Default: console; false: silent. */
  readonly logger?: Logger | false;
}

/**
 * `maxParked`'s default: enough look-ahead for a pool of tens of workers over many hosts (a few hundred
 * bytes an item), small enough that `next` never reads a whole queue into memory.
 */
export const DEFAULT_MAX_PARKED = 2000;
/** `maxRobotsFetches`' default: about what a polite crawler opens at once (Scrapy's 16 requests). */
export const DEFAULT_MAX_ROBOTS_FETCHES = 16;

/** Every option, kept in step with FrontierOptions by the compiler. */
const OPTIONS = {
  onSkip: functionOption<FrontierOptions<FrontierItem>['onSkip']>(),
  onCheckFailed: functionOption<FrontierOptions<FrontierItem>['onCheckFailed']>(),
  maxParked: numberOption({ min: 1, integer: true, infinity: true, default: DEFAULT_MAX_PARKED }),
  maxRobotsFetches: numberOption({
    min: 1,
    integer: true,
    infinity: true,
    default: DEFAULT_MAX_ROBOTS_FETCHES,
  }),
  now: functionOption<() => number>('a function', { default: () => Date.now() }),
  logger: loggerOption<Logger>({ default: CONSOLE_LOGGER }),
} as const satisfies OptionTable<FrontierOptions<FrontierItem>>;

/** The options of a frontier, checked, with their defaults (the callbacks typed on its items). */
export type ResolvedFrontierOptions<T extends FrontierItem> = Omit<
  ResolvedOf<typeof OPTIONS>,
  'onSkip' | 'onCheckFailed'
> & {
  readonly onSkip: FrontierOptions<T>['onSkip'] | undefined;
  readonly onCheckFailed: FrontierOptions<T>['onCheckFailed'] | undefined;
};

/** The politeness methods a frontier calls (the rest it takes from the instance's adapter kit). */
const POLITENESS_METHODS = ['check'] as const;

/** Checks the politeness and every option once, at creation: a TypeError names the bad key. */
export function validateFrontierOptions<T extends FrontierItem>(
  politeness: Politeness,
  options: FrontierOptions<T>,
): ResolvedFrontierOptions<T> {
  assertPoliteness<Politeness>(politeness, POLITENESS_METHODS);
  return checkOptions('frontier', OPTIONS, options) as ResolvedFrontierOptions<T>;
}
