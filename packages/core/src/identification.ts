/**
 * Identification checks on the crawler's User-Agent (RFC 9309 2.2.1: the product token SHOULD be a
 * substring of the User-Agent the crawler sends). Pure: the facade reports what this returns, once.
 */

export type IdentificationProblem = 'browser-user-agent' | 'token-not-in-user-agent';

export interface IdentificationWarning {
  readonly problem: IdentificationProblem;
  readonly message: string;
}

/** `Mozilla/5.0 (...)`, `Mozilla/4.0`: what browsers (and crawlers posing as them) send. */
const BROWSER_PREFIX = /^Mozilla\/\d/i;

export function identificationWarnings(userAgent: string, productToken: string): IdentificationWarning[] {
  const named = userAgent.toLowerCase().includes(productToken.toLowerCase());
  if (productToken.toLowerCase() === 'mozilla') {
    return [
      {
        problem: 'browser-user-agent',
        message: `userAgent "${userAgent}" looks like a browser: its product token is "Mozilla", which robots.txt groups almost never name, so only the * rules apply. Use your crawler's own name, e.g. "MyBot/1.0 (+https://example.com/bot)", or set productToken when your User-Agent names it later on ("Mozilla/5.0 (compatible; MyBot/1.0)")`,
      },
    ];
  }
  if (named) return []; // "Mozilla/5.0 (compatible; MyBot/1.0)" with productToken MyBot names the crawler
  if (BROWSER_PREFIX.test(userAgent)) {
    return [
      {
        problem: 'browser-user-agent',
        message: `userAgent "${userAgent}" looks like a browser: rules are matched for "${productToken}" while the site sees a browser. Send a User-Agent that names "${productToken}", e.g. "${productToken}/1.0 (+https://example.com/bot)"`,
      },
    ];
  }
  return [
    {
      problem: 'token-not-in-user-agent',
      message: `productToken "${productToken}" does not appear in userAgent "${userAgent}": sites cannot tell which robots.txt group you obey (RFC 9309 2.2.1)`,
    },
  ];
}
