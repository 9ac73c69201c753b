/**
 * Identification (RFC 9309 2.2.1): the pages politely paces carry the crawler's User-Agent, so the site
 * sees the product token the rules were matched with. What the server received is asserted.
 */
import got from 'got';
import gotWithoutCause from 'got-14-0';
import { describe, expect, it } from 'vitest';
import { html, redirect, text } from '../../../test/helpers/hosts.js';
import { host, politeClient, USER_AGENT } from './setup.js';

const GOT_DEFAULT = 'got (https://github.com/sindresorhus/got)';

async function site() {
  return host({
    routes: { '/robots.txt': text('User-agent: *\nAllow: /\n'), '/old': redirect('/new') },
    fallback: html('ok'),
  });
}

describe('User-Agent of paced requests', () => {
  it('is the politeness userAgent when the caller set none, on every hop', async () => {
    const target = await site();
    const client = politeClient();
    await client(target.url('/page'));
    await client(target.url('/old'));
    const agents = target.log.map((request) => [request.path, request.headers['user-agent']]);
    expect(agents).toEqual([
      ['/robots.txt', USER_AGENT],
      ['/page', USER_AGENT],
      ['/old', USER_AGENT],
      ['/new', USER_AGENT],
    ]);
  });

  it('works with got 14.0 as well', async () => {
    const target = await site();
    await politeClient({}, gotWithoutCause as unknown as typeof got)(target.url('/page'));
    expect(target.requests('/page')[0]?.headers['user-agent']).toBe(USER_AGENT);
  });

  it("leaves the caller's own User-Agent alone, per request or per instance", async () => {
    const target = await site();
    const client = politeClient();
    await client(target.url('/one'), { headers: { 'user-agent': 'Custom/1.0' } });
    const instance = got.extend({ headers: { 'user-agent': 'Instance/2.0' } });
    await politeClient({}, instance)(target.url('/two'));
    expect(target.requests('/one')[0]?.headers['user-agent']).toBe('Custom/1.0');
    expect(target.requests('/two')[0]?.headers['user-agent']).toBe('Instance/2.0');
  });

  it('is left to got when sendUserAgent is false (robots.txt still carries userAgent)', async () => {
    const target = await site();
    await politeClient({ sendUserAgent: false })(target.url('/page'));
    expect(target.requests('/page')[0]?.headers['user-agent']).toBe(GOT_DEFAULT);
    expect(target.requests('/robots.txt')[0]?.headers['user-agent']).toBe(USER_AGENT);
  });
});
