/**
 * The facade's parse.percentEncoding: RFC 9309 2.2.2 by default, Google's literal form on request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHost, type TestHost, text } from '../../../../test/helpers/hosts.js';
import { createPoliteness } from '../../src/index.js';

describe('facade option parse.percentEncoding', () => {
  let site: TestHost;
  beforeAll(async () => {
    site = await startHost({
      ip: '127.0.0.47',
      routes: { '/robots.txt': text('User-agent: *\nDisallow: /private\n') },
    });
  });
  afterAll(() => site.close());

  it("blocks /%70rivate by default, allows it with 'google', and rejects anything else", async () => {
    const rfc = createPoliteness({ userAgent: 'PoliteBot/1.0', scheduler: 'memory', logger: false });
    const google = createPoliteness({
      userAgent: 'PoliteBot/1.0',
      scheduler: 'memory',
      logger: false,
      robots: { parse: { percentEncoding: 'google' } },
    });
    expect(await rfc.check(site.url('/%70rivate/x'))).toMatchObject({ allowed: false, reason: 'disallowed' });
    expect(await google.check(site.url('/%70rivate/x'))).toMatchObject({ allowed: true });
    expect(() =>
      createPoliteness({
        userAgent: 'PoliteBot/1.0',
        robots: { parse: { percentEncoding: 'decode' as never } },
      }),
    ).toThrow(/percentEncoding/);
    await Promise.all([rfc.close(), google.close()]);
  });
});
