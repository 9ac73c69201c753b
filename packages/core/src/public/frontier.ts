/**
 * `@politely/core/frontier`: which URL may go next, for a crawler's own worker pool. Items whose host
 * is not due are parked, not slept on, so no worker waits for a slow host.
 */

export {
  createFrontier,
  type Frontier,
  type FrontierHost,
  type FrontierNextOptions,
  type FrontierPull,
  type FrontierWaitOptions,
  type ParkedItem,
} from '../frontier/frontier.js';
export type { FrontierItem } from '../frontier/frontier-item.js';
export type { FrontierOptions } from '../frontier/frontier-options.js';
