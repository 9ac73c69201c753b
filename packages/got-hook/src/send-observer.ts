/**
 * What really happened to one request, from Node's ClientRequest: when its last byte was handed to
 * the kernel (`finish`: after any connection setup, TLS handshake or proxy CONNECT the client can see),
 * when its response's headers arrived (`response`), and when it was over (response body read, or the
 * request failed or was destroyed). How it failed is not read here: the caller giving up (an abort, a
 * stream destroyed) and the server dropping the connection look the same on a ClientRequest, an
 * ECONNRESET; got's own error hooks tell them apart. got's own `timings.upload` and
 * `timings.response` come from the same events.
 */
import type { ClientRequest, IncomingMessage } from 'node:http';

export interface SendObserver {
  /** The request is on the wire; `at` is an upper bound of when (epoch ms). */
  onSent(at: number): void;
  /**
   * The response's headers arrived; `at` is an upper bound of when. The server had the whole request
   * before it answered, whatever a proxy on the way held back.
   */
  onResponse(at: number, response: IncomingMessage): void;
  /** The request is over: response read to its end, or it failed, was aborted or destroyed. */
  onDone(at: number): void;
}

/**
 * Date.now() floors to the millisecond, so the event really happened up to 1 ms after what it says;
 * +1 keeps `at` at or after the moment the packet left, and a gap counted from it is never short.
 */
const upperBoundNow = () => Date.now() + 1;

export function observeSend(request: ClientRequest, observer: SendObserver): void {
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    observer.onDone(upperBoundNow());
  };
  // `on`, not `once`: each of these events comes once per request (and `finish` is guarded), and
  // `once` makes a wrapper per listener on every request.
  if (request.writableFinished) observer.onSent(upperBoundNow());
  else request.on('finish', () => observer.onSent(upperBoundNow()));
  let answered = false;
  request.on('response', (response: IncomingMessage) => {
    answered = true;
    observer.onResponse(upperBoundNow(), response);
    response.on('end', finish);
    response.on('close', finish);
    response.on('error', finish);
  });
  request.on('error', finish);
  request.on('close', () => {
    // A request closed before any response (refused, reset, aborted) is over now; with a response,
    // the response's own end says when it was.
    if (!answered) finish();
  });
}
