/**
 * `@politely/core/frontier`: which URL may go next, for a crawler's own worker pool. Items whose host
 * is not due are parked, not slept on, so no worker waits for a slow host.
 */

export type { FrontierNextOptions, FrontierWaitOptions } from '../frontier/call-options.js';
export {
  createFrontier,
  type Frontier,
  type FrontierPull,
  type ParkedItem,
} from '../frontier/frontier.js';
export type { FrontierItem } from '../frontier/frontier-item.js';
export type { FrontierOptions } from '../frontier/frontier-options.js';
export type { FrontierHost } from '../frontier/host-counters.js';
