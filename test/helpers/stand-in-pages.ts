/**
 * Stand-ins with the shapes of Playwright and Puppeteer pages and responses, for tests of what a
 * browser on Firefox or WebKit would do (no such browser here): a page without CDP, whose
 * interception falls back to `page.route` and so never sees redirect hops, and responses that carry
 * their redirect chain the way each library exposes it.
 */

/**
 * A Playwright-shaped page without CDP: interception falls back to page.route. `navigate` hands the
 * route handler a main-frame navigation and resolves with what the page was answered.
 */
export function routeOnlyPage() {
  const frame = {};
  let handler: ((route: unknown) => Promise<void>) | undefined;
  return {
    route: async (_url: string, routeHandler: (route: unknown) => Promise<void>) => {
      handler = routeHandler;
    },
    context: () => ({}),
    mainFrame: () => frame,
    on: () => {},
    async navigate(url: string): Promise<string> {
      const answers: string[] = [];
      await handler?.({
        request: () => ({
          url: () => url,
          isNavigationRequest: () => true,
          frame: () => frame,
          headers: () => ({}),
        }),
        continue: async () => void answers.push('continued'),
        fulfill: async () => void answers.push('blocked page'),
        abort: async () => void answers.push('aborted'),
      });
      return answers.join(', ');
    },
  };
}

/** A Playwright response at the end of a redirect chain (`request().redirectedFrom()`). */
export interface PlaywrightHop {
  url(): string;
  redirectedFrom(): PlaywrightHop | null;
}

export function playwrightResponse(...urls: string[]): { request(): PlaywrightHop | null } {
  let hop: PlaywrightHop | null = null;
  for (const url of urls) {
    const previous: PlaywrightHop | null = hop;
    hop = { url: () => url, redirectedFrom: () => previous };
  }
  return { request: () => hop };
}
