/**
 * Captures a crawl of the demo web at the wire (tcpdump on lo; see ../../test/helpers/wire.ts), so a crawl is
 * judged by when its requests really reached each host. Without tcpdump it says so loudly and falls
 * back to the servers' own logs.
 */
import { startWireCapture, type WireCapture } from '../../test/helpers/wire.js';
import type { DemoWeb } from './index.js';

export function captureDemoWeb(web: DemoWeb): Promise<WireCapture> {
  return startWireCapture(
    web.hosts.map((host) => ({ ip: host.hostname, port: Number(new URL(host.origin).port), log: host.log })),
  );
}
