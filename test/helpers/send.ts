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

export function sendGet(url: string, timeoutMs = 10_000): Promise<Sent> {
  return new Promise((resolve, reject) => {
    let sentAt = Number.NaN;
    const req = request(url, { agent: false }, (res) => {
      res.resume();
      res.once('end', () => resolve({ sentAt, status: res.statusCode ?? 0 }));
    });
    req.once('finish', () => {
      sentAt = Date.now();
    });
    req.once('error', reject);
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`GET ${url} timed out`)));
    req.end();
  });
}
