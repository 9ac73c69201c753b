/**
 * The redirect rule every adapter that follows redirects itself applies: which method the next hop
 * uses, whether its body goes, and which headers it must not carry.
 */
import { describe, expect, it } from 'vitest';
import { isRedirectStatus, redirectChange } from '../../src/public/adapter.js';

const from = new URL('https://a.test/form');
const sameOrigin = new URL('https://a.test/next');
const otherOrigin = new URL('https://b.test/next');
const BODY = ['content-encoding', 'content-language', 'content-location', 'content-type', 'content-length'];
const CREDENTIALS = ['authorization', 'proxy-authorization', 'cookie', 'host'];

describe('redirectChange', () => {
  it('turns a POST into a GET on 301, 302 and 303, dropping the body and the headers describing it', () => {
    for (const status of [301, 302, 303]) {
      const change = redirectChange(status, 'POST', from, sameOrigin);
      expect(change.method).toBe('GET');
      expect(change.dropsBody).toBe(true);
      expect(change.droppedHeaders).toEqual(expect.arrayContaining([...BODY, 'transfer-encoding']));
      expect(change.droppedHeaders).not.toContain('authorization');
    }
  });

  it('turns PUT and DELETE into GET on 303 only, and keeps GET and HEAD as they are', () => {
    expect(redirectChange(303, 'PUT', from, sameOrigin)).toMatchObject({ method: 'GET', dropsBody: true });
    expect(redirectChange(303, 'delete', from, sameOrigin)).toMatchObject({ method: 'GET', dropsBody: true });
    expect(redirectChange(302, 'PUT', from, sameOrigin)).toEqual({
      method: 'PUT',
      dropsBody: false,
      droppedHeaders: [],
    });
    expect(redirectChange(303, 'HEAD', from, sameOrigin)).toMatchObject({ method: 'HEAD', dropsBody: false });
    expect(redirectChange(303, 'GET', from, sameOrigin)).toMatchObject({ method: 'GET', dropsBody: false });
  });

  it('keeps method and body on 307 and 308, even for a POST, and a method in the case it was given', () => {
    for (const status of [307, 308]) {
      expect(redirectChange(status, 'POST', from, sameOrigin)).toEqual({
        method: 'POST',
        dropsBody: false,
        droppedHeaders: [],
      });
    }
    expect(redirectChange(307, 'patch', from, sameOrigin).method).toBe('patch');
    expect(redirectChange(302, 'post', from, sameOrigin).method).toBe('GET');
  });

  it('drops credentials, cookies and Host across origins (another port or scheme is another origin)', () => {
    expect(redirectChange(307, 'GET', from, otherOrigin).droppedHeaders).toEqual(CREDENTIALS);
    expect(redirectChange(301, 'GET', from, new URL('https://a.test:8443/x')).droppedHeaders).toEqual(
      CREDENTIALS,
    );
    expect(redirectChange(301, 'GET', from, new URL('http://a.test/x')).droppedHeaders).toEqual(CREDENTIALS);
    expect(redirectChange(303, 'POST', from, otherOrigin).droppedHeaders).toEqual(
      expect.arrayContaining([...BODY, ...CREDENTIALS]),
    );
  });
});

describe('isRedirectStatus', () => {
  it('is true for the statuses followed with a Location, and only those', () => {
    expect([300, 301, 302, 303, 304, 305, 306, 307, 308, 200, 404].filter(isRedirectStatus)).toEqual([
      301, 302, 303, 307, 308,
    ]);
  });
});
