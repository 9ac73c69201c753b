import { describe, expect, it } from 'vitest';
import { type Handler, html, redirect, text } from '../../../test/helpers/hosts.js';
import { getDisallowedDecision } from '../src/index.js';
import { readBody } from './contract-harness.js';
import { host, paths, polite, rejectionOf } from './setup.js';

/** Answers with the method and body the server received, so a hop's rewrite is visible. */
const echo: Handler = async (req, res) => {
  const body = await readBody(req);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ method: req.method, body, contentType: req.headers['content-type'] ?? null }));
};

describe('redirects: every hop is checked and paced before it leaves', () => {
  it('rejects a redirect into a disallowed path; the target is never requested', async () => {
    const site = await host({
      routes: { '/robots.txt': text('User-agent: *\nDisallow: /private\n'), '/go': redirect('/private/x') },
      fallback: html('secret'),
    });

    const error = await rejectionOf(polite()(site.url('/go')));

    expect(getDisallowedDecision(error)).toMatchObject({ reason: 'disallowed', url: site.url('/private/x') });
    expect(paths(site)).toEqual(['/robots.txt', '/go']);
  });

  it("checks a cross-host redirect against the target host's robots.txt", async () => {
    const target = await host({
      routes: { '/robots.txt': text('User-agent: *\nDisallow: /blocked\n') },
      fallback: html('ok'),
    });
    const source = await host({
      routes: { '/to-blocked': redirect(target.url('/blocked')), '/to-open': redirect(target.url('/open')) },
    });
    const fetch = polite();

    const error = await rejectionOf(fetch(source.url('/to-blocked')));
    const response = await fetch(source.url('/to-open'));

    expect(getDisallowedDecision(error)).toMatchObject({
      reason: 'disallowed',
      robotsUrl: target.url('/robots.txt'),
    });
    expect(response.status).toBe(200);
    expect(response.url).toBe(target.url('/open'));
    expect(response.redirected).toBe(true);
    expect(paths(source)).toEqual(['/robots.txt', '/to-blocked', '/to-open']);
    expect(paths(target)).toEqual(['/robots.txt', '/open']);
  });

  it('turns POST into GET without a body on 301, 302 and 303, and keeps both on 307 and 308', async () => {
    const site = await host({
      routes: {
        '/301': redirect('/echo', 301),
        '/302': redirect('/echo', 302),
        '/303': redirect('/echo', 303),
        '/307': redirect('/echo', 307),
        '/308': redirect('/echo', 308),
        '/echo': echo,
      },
    });
    const fetch = polite();
    const post = (path: string) =>
      fetch(site.url(path), { method: 'POST', body: 'x=1', headers: { 'content-type': 'text/plain' } });

    const seen = [];
    for (const status of [301, 302, 303, 307, 308]) seen.push(await (await post(`/${status}`)).json());

    const moved = { method: 'GET', body: '', contentType: null };
    const kept = { method: 'POST', body: 'x=1', contentType: 'text/plain' };
    expect(seen).toEqual([moved, moved, moved, kept, kept]);
  });

  it('turns PUT into GET on 303 only', async () => {
    const site = await host({
      routes: { '/303': redirect('/echo', 303), '/301': redirect('/echo', 301), '/echo': echo },
    });
    const fetch = polite();

    const after303 = await (await fetch(site.url('/303'), { method: 'PUT', body: 'y' })).json();
    const after301 = await (await fetch(site.url('/301'), { method: 'PUT', body: 'y' })).json();

    expect(after303).toMatchObject({ method: 'GET', body: '' });
    expect(after301).toMatchObject({ method: 'PUT', body: 'y' });
  });

  it('drops Authorization and Cookie on a hop to another origin, keeps them on the same origin', async () => {
    const other = await host({ fallback: html('ok') });
    const site = await host({
      routes: { '/same': redirect('/landing'), '/away': redirect(other.url('/landing')) },
      fallback: html('ok'),
    });
    const fetch = polite();
    const headers = { authorization: 'Bearer secret', cookie: 'session=1' };

    await fetch(site.url('/same'), { headers });
    await fetch(site.url('/away'), { headers });

    expect(site.requests('/landing')[0]?.headers).toMatchObject(headers);
    expect(other.requests('/landing')[0]?.headers.authorization).toBeUndefined();
    expect(other.requests('/landing')[0]?.headers.cookie).toBeUndefined();
  });

  it("returns the redirect itself with redirect: 'manual'; the target is never requested", async () => {
    const site = await host({ routes: { '/go': redirect('/there', 302) }, fallback: html('ok') });

    const response = await polite()(site.url('/go'), { redirect: 'manual' });

    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/there');
    expect(paths(site)).toEqual(['/robots.txt', '/go']);
  });

  it("rejects with a TypeError with redirect: 'error'; the target is never requested", async () => {
    const site = await host({ routes: { '/go': redirect('/there', 302) }, fallback: html('ok') });

    const error = await rejectionOf(polite()(site.url('/go'), { redirect: 'error' }));

    expect(error).toBeInstanceOf(TypeError);
    expect(paths(site)).toEqual(['/robots.txt', '/go']);
  });

  it('stops after maxRedirects hops with a TypeError, as fetch does after 20', async () => {
    const site = await host({ routes: { '/loop': redirect('/loop') } });

    const error = await rejectionOf(polite({ maxRedirects: 3 })(site.url('/loop')));

    expect(error).toBeInstanceOf(TypeError);
    expect(error).toMatchObject({ message: 'fetch failed', cause: { message: 'redirect count exceeded' } });
    expect(site.requests('/loop')).toHaveLength(4);
  });

  it('rejects a 307 that would have to send a stream body again; the target is never requested', async () => {
    const site = await host({ routes: { '/307': redirect('/echo', 307), '/echo': echo } });
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('streamed'));
        controller.close();
      },
    });

    const error = await rejectionOf(
      polite()(site.url('/307'), { method: 'POST', body: stream, duplex: 'half' } as RequestInit),
    );

    expect(error).toBeInstanceOf(TypeError);
    expect(site.requests('/echo')).toHaveLength(0);
  });

  it('returns a redirect status without Location as it is', async () => {
    const site = await host({ routes: { '/odd': { status: 301, body: 'no location' } } });

    const response = await polite()(site.url('/odd'));

    expect(response.status).toBe(301);
    expect(response.redirected).toBe(false);
  });
});
