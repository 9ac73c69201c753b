/**
 * `createPageGuard(politeness, options)`: robots.txt and per-host pacing for the pages of a Playwright
 * or Puppeteer script, request by request as the browser sends them (browser-guard.ts judges,
 * page-interception.ts pauses). One guard serves every page of a browser or a crawl; each page is
 * installed before it navigates and told before it closes.
 */
import type { Decision, DisallowedDecision } from '../kernel/decision.js';
import type { Spacing } from '../spacing.js';
import type { Logger, Politeness } from '../types.js';
import { BrowserGuard, type PageSkip, type SubresourcePolicy } from './browser-guard.js';
import { type InterceptionMode, interceptionOf, interceptPage, pageClosing } from './page-interception.js';
import { redirectChain } from './redirect-chain.js';

export interface PageGuardOptions {
  /**
   * `'check'` (default): every subresource (image, script, style, XHR, frame) is checked against its
   * own origin's robots.txt and a disallowed one is aborted, unpaced. `'allow'`: only navigations are
   * checked.
   */
  readonly subresources?: SubresourcePolicy;
  /**
   * What a host's next navigation counts its delay from. `'response'` (default): the previous one's
   * response arrival, which covers a proxy in front of the browser that holds a request out of its
   * sight (only the response proves the site had it). `'start'`: its send, as Chromium's network
   * stack reports it; faster on a slow site, not covered through such a proxy.
   */
  readonly spacing?: Spacing;
  /**
   * A main-frame navigation (first request or redirect hop) took its host's slot and was let go,
   * later (Chromium) reached the wire, and (spacing `'response'`) got its response, each at `at`
   * (epoch ms). For a scheduler of your own that counts the host's next start from there.
   */
  readonly onNavigationSent?: (decision: Decision, at: number) => void;
  /**
   * A request robots.txt refused, when it is refused. Default: `politeness.reportSkip`, so it is a
   * `skip` event and counted in `stats().skipped`. Its result is not awaited and its errors ignored.
   */
  readonly onSkip?: (skip: PageSkip) => unknown;
  /** Where the guard says why it failed a navigation (debug only). Default: silent. */
  readonly logger?: Logger | false;
}

export interface PageGuard {
  /**
   * Intercepts a Playwright page (Chromium: CDP's Fetch domain, which sees redirect hops; Firefox,
   * WebKit: `page.route`, which does not) or a Puppeteer page (cooperative `setRequestInterception`).
   * Call it before the page navigates; resolves with how, once requests are paused. TypeError for
   * anything else, or a page another guard intercepts.
   */
  install(page: object): Promise<InterceptionMode | undefined>;
  /** How this guard intercepts `page`, or undefined when it does not. */
  interception(page: object): InterceptionMode | undefined;
  /**
   * The decision that refused the page's last navigation (or one of its redirect hops), once: the
   * page then shows an empty document, not the one asked for. Undefined when nothing was refused.
   * Given the navigation's response (what `page.goto` resolved with), it also checks the hops this
   * guard could not see (a page intercepted with `page.route`, on Firefox or WebKit, or not by this
   * guard): each URL of the response's redirect chain after the first. Such a hop reached the server
   * already; what the page shows must not be taken for the page asked for. Its refusal goes to `onSkip`.
   */
  blockedNavigation(page: object, response?: object | null): Promise<DisallowedDecision | undefined>;
  /**
   * Before `page.close()`: fails the page's requests still waiting for their host's slot and frees
   * the in-flight place its navigation held.
   */
  pageClosing(page: object): Promise<void>;
}

/** A test of an option's value, and what the error says it should be. */
type Check = readonly [(value: unknown) => boolean, string];

const FUNCTION: Check = [(value) => typeof value === 'function', 'a function'];

/** Every option, kept in step with PageGuardOptions by the compiler. */
const OPTIONS: { readonly [K in keyof PageGuardOptions]-?: Check } = {
  subresources: [(value) => value === 'check' || value === 'allow', "'check' or 'allow'"],
  spacing: [(value) => value === 'response' || value === 'start', "'response' or 'start'"],
  onNavigationSent: FUNCTION,
  onSkip: FUNCTION,
  logger: [
    (value) => value === false || (typeof value === 'object' && value !== null && 'warn' in value),
    'a logger ({ debug?, info?, warn }) or false',
  ],
};

const POLITENESS_METHODS = ['check', 'sendPass', 'observeResponse', 'reportSkip'];

export function createPageGuard(politeness: Politeness, options: PageGuardOptions = {}): PageGuard {
  assertPoliteness(politeness);
  const valid = validate(options);
  const guard = new BrowserGuard({
    politeness,
    subresources: valid.subresources ?? 'check',
    spacing: valid.spacing ?? 'response',
    onSent: valid.onNavigationSent ?? (() => {}),
    onSkip: valid.onSkip ?? ((skip) => politeness.reportSkip(skip.decision, skip.stage)),
    // The name robots.txt was read for is the one the site sees (RFC 9309 2.2.1), unless turned off.
    userAgent: (politeness.sendUserAgent ?? true) ? politeness.userAgent : undefined,
    logger: valid.logger || undefined,
  });
  return {
    install: (page) => interceptPage(page, guard),
    interception: (page) => interceptionOf(page, guard),
    blockedNavigation: async (page, response) => {
      const refused = guard.takeBlocked(page);
      if (refused || !response) return refused;
      const mode = interceptionOf(page, guard);
      // Through CDP or Puppeteer's interception every hop was judged before it went out.
      return mode === 'cdp' || mode === 'puppeteer'
        ? undefined
        : guard.disallowedHop(redirectChain(response));
    },
    pageClosing: (page) => pageClosing(page, guard),
  };
}

function assertPoliteness(politeness: unknown): asserts politeness is Politeness {
  const candidate = politeness as Record<string, unknown> | null | undefined;
  const missing = POLITENESS_METHODS.filter((name) => typeof candidate?.[name] !== 'function');
  if (candidate === null || typeof candidate !== 'object' || missing.length > 0) {
    throw new TypeError(
      `Expected a Politeness from createPoliteness() as the first argument${missing.length > 0 ? ` (missing ${missing.join(', ')})` : ''}`,
    );
  }
}

/** The options, checked once: a TypeError names the key, as createPoliteness's do. */
function validate(options: PageGuardOptions): PageGuardOptions {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`Expected page guard options to be an object, got \`${String(options)}\``);
  }
  for (const [key, value] of Object.entries(options)) {
    const check = Object.hasOwn(OPTIONS, key) ? (OPTIONS as Readonly<Record<string, Check>>)[key] : undefined;
    if (!check) {
      throw new TypeError(
        `Unknown page guard option \`${key}\`; known options: ${Object.keys(OPTIONS).join(', ')}`,
      );
    }
    if (value !== undefined && !check[0](value)) {
      throw new TypeError(
        `Expected option \`${key}\` to be ${check[1]}, got \`${String(value)}\` (${typeof value})`,
      );
    }
  }
  return options;
}
