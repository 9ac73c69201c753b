/**
 * Identification checks on the crawler's User-Agent (RFC 9309 2.2.1: the product token SHOULD be a
 * substring of the User-Agent the crawler sends). Pure: the facade reports what this returns, once.
 */

export type IdentificationProblem =
  | 'browser-user-agent'
  | 'token-not-in-user-agent'
  | 'user-agent-not-a-product-token';

export interface IdentificationWarning {
  readonly problem: IdentificationProblem;
  readonly message: string;
}

import { productTokenOf } from '../engine/agent.js';

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
  const cut = tokenCut(userAgent, productToken);
  if (cut !== undefined) return [cut];
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

/**
 * A product token taken from a userAgent that goes on as a name would (`My Bot`, `MyBot2/1.0`,
 * `my.bot/1.0`): the token ends at the first character RFC 9309 2.2.1 does not allow, so the crawler
 * obeys the groups of `My` while its author thinks of `My Bot`. After the token a User-Agent may have
 * a version (`/1.0`) or, after a space, comments and other products: anything else is warned about.
 * Only for a token read from userAgent; an explicit productToken is the user's choice.
 */
function tokenCut(userAgent: string, productToken: string): IdentificationWarning | undefined {
  if (productTokenOf(userAgent) !== productToken) return undefined;
  const rest = userAgent.slice(productToken.length);
  if (rest === '' || rest.startsWith('/') || /^\s+\(/.test(rest)) return undefined;
  const meant = (userAgent.split(/[/(]/)[0] ?? '').replace(/[^A-Za-z_-]/g, '') || 'MyBot';
  return {
    problem: 'user-agent-not-a-product-token',
    message: `userAgent "${userAgent}" does not start with a product token followed by a version or comments: robots.txt groups are matched for "${productToken}" (its letters, "-" and "_" up to the first other character). Write it as one token, e.g. "${meant}/1.0 (+https://example.com/bot)", or set productToken`,
  };
}
