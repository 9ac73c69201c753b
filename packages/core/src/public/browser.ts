/**
 * `@politely/core/browser`: robots.txt and per-host pacing for the pages of a Playwright or Puppeteer
 * script, without a crawler framework. Neither library is a dependency: pages are recognised by shape.
 */
export type { PageSkip, SubresourcePolicy } from '../browser/browser-guard.js';
export {
  createPageGuard,
  type PageGuard,
  type PageGuardOptions,
  type PageRequestLike,
  type PageResponseLike,
  pageRequestFetch,
} from '../browser/page-guard.js';
export type { InterceptionMode } from '../browser/page-interception.js';
