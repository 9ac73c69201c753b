/**
 * Reads a response body incrementally and stops at a byte limit, cancelling the rest, so a 2 GB
 * robots.txt costs no more than the limit (RFC 9309 2.5), or releases one that is not read at all.
 */
import { raceAbort } from '../kernel/abort.js';
import type { FetchLikeResponse } from './types.js';

export interface BoundedBody {
  readonly bytes: Uint8Array;
  /** True when more bytes were (or may have been) on offer than the limit. */
  readonly truncated: boolean;
}

type Body = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

/** Rejects with `signal.reason` when the signal aborts before the limit or the end is reached. */
export async function readBounded(body: Body, maxBytes: number, signal: AbortSignal): Promise<BoundedBody> {
  const chunks: Uint8Array[] = [];
  let received = 0;
  let ended = false;
  const take = (chunk: Uint8Array): boolean => {
    chunks.push(chunk);
    received += chunk.byteLength;
    return received >= maxBytes;
  };

  if (isReadableStream(body)) {
    const reader = body.getReader();
    try {
      for (;;) {
        if (received >= maxBytes) break;
        const { done, value } = await raceAbort(reader.read(), signal);
        if (done) {
          ended = true;
          break;
        }
        if (value && take(value)) break;
      }
    } finally {
      if (!ended) reader.cancel().catch(() => {});
    }
  } else {
    const iterator = body[Symbol.asyncIterator]();
    try {
      for (;;) {
        if (received >= maxBytes) break;
        const step = await raceAbort(iterator.next(), signal);
        if (step.done) {
          ended = true;
          break;
        }
        if (take(step.value)) break;
      }
    } finally {
      if (!ended) iterator.return?.()?.catch(() => {});
    }
  }

  // Exactly maxBytes with the stream still open counts as cut: whether more would have come is unknowable
  // without waiting on a body that may never end.
  const truncated = !ended;
  return { bytes: concat(chunks, Math.min(received, maxBytes)), truncated };
}

function isReadableStream(body: Body): body is ReadableStream<Uint8Array> {
  return typeof (body as ReadableStream<Uint8Array>).getReader === 'function';
}

function concat(chunks: readonly Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    if (offset >= length) break;
    const part = chunk.byteLength > length - offset ? chunk.subarray(0, length - offset) : chunk;
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

/** Releases a body we will not read, so its connection can close or be reused. */
export function discard(response: FetchLikeResponse): void {
  const body = response.body as ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | null;
  if (!body) return;
  try {
    if ('cancel' in body && typeof body.cancel === 'function') {
      if (!(body as ReadableStream<Uint8Array>).locked)
        (body as ReadableStream<Uint8Array>).cancel().catch(() => {});
    } else {
      const iterator = (body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
      iterator.return?.()?.catch(() => {});
    }
  } catch {
    // A body that cannot be cancelled is left to the abort in fetchRobotsTxt's finally.
  }
}
