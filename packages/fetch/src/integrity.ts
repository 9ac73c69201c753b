/**
 * Subresource Integrity (https://w3c.github.io/webappsec-subresource-integrity/#does-response-match-metadatalist)
 * for the response a caller gets: fetch checks only the last response of a redirect, and the inner
 * fetch, called one hop at a time, cannot know which hop is the last, so hops go without `integrity`
 * and the answer is checked here, on a clone (fetch, too, reads the whole body before it resolves).
 */
import { createHash } from 'node:crypto';
import type { ResponseLike } from './fetch-shapes.js';

const ALGORITHMS = ['sha256', 'sha384', 'sha512'];

/** Rejects as fetch does when `response`'s body does not match `metadata`; no valid hash: no check. */
export async function checkIntegrity(response: ResponseLike, metadata: string): Promise<void> {
  const hashes = metadata
    .split(/\s+/)
    .map((token) => /^(sha256|sha384|sha512)-([A-Za-z0-9+/_=-]+)/.exec(token))
    .filter((match) => match !== null);
  if (hashes.length === 0) return;
  const strongest =
    ALGORITHMS[Math.max(...hashes.map(([, algorithm]) => ALGORITHMS.indexOf(algorithm ?? '')))];
  const copy = (response as unknown as { clone(): { arrayBuffer(): Promise<ArrayBuffer> } }).clone();
  const digest = createHash(strongest ?? 'sha256')
    .update(new Uint8Array(await copy.arrayBuffer()))
    .digest('base64');
  if (hashes.some(([, algorithm, value]) => algorithm === strongest && sameBase64(value ?? '', digest)))
    return;
  throw new TypeError('fetch failed', { cause: new Error('integrity mismatch') });
}

/** base64 and base64url, padded or not, as the same digest. */
function sameBase64(a: string, b: string): boolean {
  const plain = (text: string) => text.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  return plain(a) === plain(b);
}
