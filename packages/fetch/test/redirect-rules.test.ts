import { describe, expect, it } from 'vitest';
import { nextHop } from '../src/redirect.js';
import type { HopRequest } from '../src/request.js';

const request = (overrides: Partial<HopRequest> = {}): HopRequest => ({
  url: new URL('http://a.test/from#frag'),
  method: 'POST',
  headers: new Headers([
    ['content-type', 'text/plain'],
    ['authorization', 'Bearer x'],
  ]),
  body: 'x=1',
  signal: undefined,
  redirect: 'follow',
  rest: {},
  ...overrides,
});

describe('nextHop (Fetch standard, HTTP-redirect fetch)', () => {
  it('is final for non-redirect statuses and for a redirect without Location', () => {
    expect(nextHop(request(), 200, '/x', 0, 20)).toEqual({ kind: 'final' });
    expect(nextHop(request(), 304, '/x', 0, 20)).toEqual({ kind: 'final' });
    expect(nextHop(request(), 302, null, 0, 20)).toEqual({ kind: 'final' });
  });

  it('resolves Location against the current URL and keeps the fragment when Location has none', () => {
    const next = nextHop(request({ method: 'GET', body: undefined }), 301, '../to?q', 0, 20);
    expect(next.kind === 'follow' && next.request.url.href).toBe('http://a.test/to?q#frag');
  });

  it('errors on a non-http(s) Location, an unparsable one, and past the maximum', () => {
    expect(nextHop(request(), 302, 'ftp://a.test/x', 0, 20).kind).toBe('error');
    expect(nextHop(request(), 302, 'http://[bad', 0, 20).kind).toBe('error');
    expect(nextHop(request(), 302, '/x', 20, 20)).toMatchObject({
      kind: 'error',
      cause: { message: 'redirect count exceeded' },
    });
  });

  it('drops the body and its headers when the method becomes GET, and credentials across origins', () => {
    const next = nextHop(request(), 303, 'http://b.test/x', 0, 20);
    expect(next.kind === 'follow' && next.request).toMatchObject({ method: 'GET', body: undefined });
    expect(next.kind === 'follow' && [...next.request.headers]).toEqual([]);
  });

  it('keeps HEAD on 303, and keeps method, body and headers on a same-origin 307', () => {
    const head = nextHop(request({ method: 'HEAD', body: undefined }), 303, '/x', 0, 20);
    expect(head.kind === 'follow' && head.request.method).toBe('HEAD');
    const kept = nextHop(request(), 307, '/x', 0, 20);
    expect(kept.kind === 'follow' && kept.request).toMatchObject({ method: 'POST', body: 'x=1' });
    expect(kept.kind === 'follow' && [...kept.request.headers]).toEqual([...request().headers]);
  });
});
