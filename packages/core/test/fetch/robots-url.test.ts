import { describe, expect, it } from 'vitest';
import { canonicalHostname, isRobotsTxtUrl, robotsLocation } from '../../src/fetch/robots-url.js';

describe('robotsLocation (RFC 9309 2.3: rules apply per scheme, host and port)', () => {
  it.each([
    ['https://EXAMPLE.com:443/x?y#z', 'https://example.com'],
    ['http://example.com:80/a', 'http://example.com'],
    ['http://example.com:8080/a', 'http://example.com:8080'],
    ['https://example.com:80/a', 'https://example.com:80'],
    ['https://user:secret@example.com/private', 'https://example.com'],
    ['https://bücher.example/katalog', 'https://xn--bcher-kva.example'],
    ['http://[::1]:8080/x', 'http://[::1]:8080'],
    ['http://127.0.0.2:3000', 'http://127.0.0.2:3000'],
    // One host, one origin: every spelling of one server fetches one robots.txt.
    ['http://Example.COM./a', 'http://example.com'],
    ['https://example.com.:8443/a', 'https://example.com:8443'],
    ['http://0x7f.1/', 'http://127.0.0.1'],
    ['http://2130706433/', 'http://127.0.0.1'],
    ['http://0177.0.0.1/', 'http://127.0.0.1'],
    ['http://127.0.0.1./', 'http://127.0.0.1'],
    ['http://[::ffff:7f00:d09]/', 'http://127.0.13.9'],
    ['http://[::FFFF:127.0.13.9]:8080/', 'http://127.0.13.9:8080'],
    ['http://[0:0:0:0:0:ffff:7f00:d09]/', 'http://127.0.13.9'],
    ['http://BÜCHER.example./', 'http://xn--bcher-kva.example'],
    ['http://[::ffff:1:7f00:d09]/', 'http://[::ffff:1:7f00:d09]'],
  ])('%s -> %s', (url, origin) => {
    expect(robotsLocation(url)).toEqual({ origin, robotsUrl: `${origin}/robots.txt` });
  });

  it('accepts URL objects', () => {
    expect(robotsLocation(new URL('https://Example.org/a/b')).robotsUrl).toBe(
      'https://example.org/robots.txt',
    );
  });

  it.each([
    'ftp://example.com/file',
    'file:///etc/passwd',
    'mailto:bot@example.com',
    'not a url',
    '/relative',
  ])('TypeError for %s', (url) => {
    expect(() => robotsLocation(url)).toThrow(TypeError);
  });

  it('does not echo credentials in its error', () => {
    expect(() => robotsLocation('ftp://user:secret@example.com/')).toThrow(/^(?!.*secret).*ftp:/);
  });
});

describe('isRobotsTxtUrl (RFC 9309 2.2.2: /robots.txt is always fetchable)', () => {
  it.each([
    ['https://example.com/robots.txt', true],
    ['https://example.com/robots.txt?v=2', true],
    ['https://example.com:8443/robots.txt', true],
    ['https://example.com/robots.txt/', false],
    ['https://example.com/a/robots.txt', false],
    ['https://example.com/ROBOTS.TXT', false],
    ['ftp://example.com/robots.txt', false],
    ['nonsense', false],
  ])('%s -> %s', (url, expected) => {
    expect(isRobotsTxtUrl(url)).toBe(expected);
  });
});

describe('canonicalHostname: one host, one key', () => {
  it.each([
    ['http://EXAMPLE.com/', 'example.com'],
    ['http://example.com./', 'example.com'],
    ['http://example.com../', 'example.com'],
    ['http://xn--bcher-kva.example/', 'xn--bcher-kva.example'],
    ['http://bücher.example/', 'xn--bcher-kva.example'],
    ['http://0x7f.0.13.9/', '127.0.13.9'],
    ['http://127.3337/', '127.0.13.9'],
    ['http://[::ffff:7f00:d09]/', '127.0.13.9'],
    ['http://[::ffff:ffff:ffff]/', '255.255.255.255'],
    ['http://[::1]:8080/', '[::1]'],
    ['http://[2001:db8::1]/', '[2001:db8::1]'],
  ])('%s -> %s', (url, host) => {
    expect(canonicalHostname(new URL(url))).toBe(host);
  });
});
