/**
 * One GET on a fresh connection (so its request line is a packet of its own at the wire), reporting
 * when the request really left: the moment Node handed its last byte to the kernel ('finish'). Pacing
 * tests report that to the scheduler (Politeness.markSent), as the adapters do, so a send that went
 * out late (a busy CPU) moves the host's next slot rather than bringing the next request closer.
 */
import { request } from 'node:http';

export interface Sent {
  /** Date.now() when the request was flushed to the kernel: at or after its packet's capture time. */
  readonly sentAt: number;
  readonly status: number;
}

/**
 * `onSent(at)` runs at 'finish', before the response: a caller that reports the send there, rather
 * than once the response has ended, moves the host's next slot before that slot can come even when a
 * loaded machine is slow to read the response (a report after the response let the next request of
 * the host go 100 ms inside the delay, under load 27).
 */
export function sendGet(url: string, timeoutMs = 10_000, onSent?: (at: number) => void): Promise<Sent> {
  return new Promise((resolve, reject) => {
    let sentAt = Number.NaN;
    const req = request(url, { agent: false }, (res) => {
      res.resume();
      res.once('end', () => resolve({ sentAt, status: res.statusCode ?? 0 }));
    });
    req.once('finish', () => {
      sentAt = Date.now();
      onSent?.(sentAt);
    });
    req.once('error', reject);
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`GET ${url} timed out`)));
    req.end();
  });
}
