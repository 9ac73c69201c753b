/**
 * Bytes and charsets: UTF-8 by default, BOMs, ISO-8859-1 and UTF-16 bodies, cuts inside characters.
 */
import { describe, expect, it } from 'vitest';
import { lintRobotsTxt, parseRobotsTxt } from '../../src/engine/index.js';

function utf16(text: string, littleEndian: boolean): Uint8Array {
  const bytes = new Uint8Array(2 + text.length * 2);
  const view = new DataView(bytes.buffer);
  view.setUint16(0, 0xfeff, littleEndian);
  for (let i = 0; i < text.length; i++) view.setUint16(2 + i * 2, text.charCodeAt(i), littleEndian);
  return bytes;
}

describe('body encodings', () => {
  const text = 'User-agent: *\nDisallow: /caf\u00e9\nSitemap: https://a/\u00e9.xml\n';

  it.each([
    ['UTF-16LE', true],
    ['UTF-16BE', false],
  ])('decodes a %s body by its BOM', (_name, littleEndian) => {
    const robots = parseRobotsTxt(utf16(text, littleEndian));
    expect(robots.isAllowed('http://h/caf%C3%A9', 'x')).toBe(false);
    expect(robots.sitemaps).toEqual(['https://a/\u00e9.xml']);
  });

  it('decodes ISO-8859-1 when the charset says so, escaping from the UTF-8 octets', () => {
    const latin1 = Uint8Array.from(text, (char) => char.charCodeAt(0));
    const robots = parseRobotsTxt(latin1, { charset: 'ISO-8859-1' });
    expect(robots.check('http://h/caf%C3%A9', 'x').rule?.pattern).toBe('/caf%C3%A9');
    // Without the charset, the lone 0xE9 byte is kept as an octet, as Google does.
    expect(parseRobotsTxt(latin1).check('http://h/caf%E9', 'x').rule?.pattern).toBe('/caf%E9');
  });

  it('lets a UTF-8 BOM win over a declared charset', () => {
    const body = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(text)]);
    expect(parseRobotsTxt(body, { charset: 'iso-8859-1' }).isAllowed('http://h/caf%C3%A9', 'x')).toBe(false);
  });

  it('falls back to UTF-8 for an unknown charset, and lints it', () => {
    const body = new TextEncoder().encode(text);
    expect(parseRobotsTxt(body, { charset: 'x-klingon' }).isAllowed('http://h/caf%C3%A9', 'x')).toBe(false);
    expect(lintRobotsTxt(body, { charset: 'x-klingon' }).map((d) => d.code)).toContain('unknown-charset');
  });

  it('drops a line cut inside a multi-byte character', () => {
    const body = new TextEncoder().encode('User-agent: *\nDisallow: /a\nAllow: /\u30c4\u30c4\n');
    const cutAt = body.length - 3;
    const robots = parseRobotsTxt(body, { maxBytes: cutAt });
    expect(robots.truncated).toBe(true);
    expect(robots.isAllowed('http://h/%E3%83%84', 'x')).toBe(true);
    expect(robots.check('http://h/a', 'x').rule?.line).toBe(2);
  });

  it('cuts a UTF-16 body at maxBytes of the raw body', () => {
    const robots = parseRobotsTxt(utf16('User-agent: *\nDisallow: /a\nDisallow: /bbbbbbbb\n', true), {
      maxBytes: 60,
    });
    expect(robots.truncated).toBe(true);
    expect(robots.byteLength).toBe(60);
    expect(robots.isAllowed('http://h/a', 'x')).toBe(false);
    expect(robots.isAllowed('http://h/bbbbbbbb', 'x')).toBe(true);
  });

  it('lints bytes that are not valid in the charset', () => {
    const body = new Uint8Array([...new TextEncoder().encode('User-agent: *\nDisallow: /caf'), 0xe9, 0x0a]);
    expect(lintRobotsTxt(body)).toContainEqual(
      expect.objectContaining({ code: 'invalid-encoding', line: 2 }),
    );
  });
});

describe('a string body, measured as its UTF-8', () => {
  const encode = (text: string) => new TextEncoder().encode(text);

  it.each([
    ['ASCII with rules', 'User-agent: *\nDisallow: /a\n'],
    ['non-ASCII with rules', 'User-agent: *\nDisallow: /caf\u00e9/\u30c4\n'],
    ['a surrogate pair, sitemap only', 'Sitemap: https://a/\u{1f600}.xml\n'],
    ['no rules at all', '<html>caf\u00e9</html>\n'],
  ])('reports the byte length of its UTF-8 (%s), as the same body in bytes does', (_name, text) => {
    const robots = parseRobotsTxt(text);
    expect(robots.byteLength).toBe(encode(text).length);
    expect(robots.byteLength).toBe(parseRobotsTxt(encode(text)).byteLength);
    expect(robots.toJSON().b).toBe(encode(text).length);
  });

  it('cuts a long ASCII line of a non-ASCII string at the byte the bytes parse cuts it', () => {
    const text = `User-agent: *\n# caf\u00e9\nDisallow: /${'a'.repeat(20_000)}\n`;
    const fromText = parseRobotsTxt(text).check(`http://h/${'a'.repeat(20_000)}`, 'x');
    const fromBytes = parseRobotsTxt(encode(text)).check(`http://h/${'a'.repeat(20_000)}`, 'x');
    expect(fromText.rule?.pattern).toBe(fromBytes.rule?.pattern);
    // 16,663 bytes kept of the line, `Disallow: ` included.
    expect(fromText.rule?.pattern.length).toBe(2083 * 8 - 1 - 'Disallow: '.length);
  });

  it('stops reading a line of a string body at a NUL, as the bytes parse does', () => {
    const text = 'User-agent: *\nDisallow: /a\u0000b\nDisallow: /caf\u00e9\n';
    for (const body of [text, encode(text), text.replace('\u00e9', 'e')]) {
      const robots = parseRobotsTxt(body);
      expect(robots.isAllowed('http://h/ab', 'x')).toBe(false);
      expect(robots.check('http://h/ab', 'x').rule?.pattern).toBe('/a');
    }
  });
});
