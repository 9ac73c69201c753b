import { once } from 'node:events';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startHost, startHosts, type TestHost, text } from './hosts.js';
import {
  droppedPackets,
  judgePacing,
  parseCapture,
  serverLogCapture,
  startWireCapture,
  wireUnavailableReason,
} from './wire.js';

const hosts: TestHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

describe('wire capture (the judge of every pacing test)', () => {
  it('parses request lines and their kernel times from tcpdump -tt -A output', () => {
    const output = [
      '1763825000.100000 IP 127.0.0.1.51234 > 127.0.0.2.18080: Flags [S], seq 1, length 0',
      'E..<..@.@.........',
      '1763825000.123456 IP 127.0.0.1.51234 > 127.0.0.2.18080: Flags [P.], seq 1:80, length 79',
      '....B.V3GET /a?x=1 HTTP/1.1', // header bytes run straight into the request line
      'host: 127.0.0.2:18080',
      '1763825000.623456 IP6 ::1.40000 > ::1.18081: Flags [P.], seq 1:80, length 79',
      '..........HEAD /robots.txt HTTP/1.1',
    ].join('\n');
    expect(parseCapture(output)).toEqual([
      { at: 1763825000123.456, ip: '127.0.0.2', port: 18080, method: 'GET', path: '/a?x=1' },
      { at: 1763825000623.456, ip: '::1', port: 18081, method: 'HEAD', path: '/robots.txt' },
    ]);
  });

  it("reads the kernel's dropped-packet count from tcpdump's closing statistics", () => {
    // A dropped request line would widen a gap and hide a violation: stop() refuses such a capture.
    const closing = (dropped: number) =>
      `tcpdump: listening on lo\n12 packets captured\n14 packets received by filter\n${dropped} packets dropped by kernel\n`;
    expect(droppedPackets(closing(0))).toBe(0);
    expect(droppedPackets(closing(3))).toBe(3);
    expect(droppedPackets('tcpdump: listening on lo\n')).toBe(0);
  });

  it('judges gaps per host against the asked delay, robots.txt apart, with no tolerance', () => {
    const at = (ip: string, ms: number, path = '/p') => ({ at: ms, ip, port: 1, method: 'GET', path });
    const judged = judgePacing(
      [at('a', 0, '/robots.txt'), at('a', 10), at('a', 110), at('a', 209.5), at('b', 0), at('b', 500)],
      100,
    );
    expect(judged.get('a')).toMatchObject({ gaps: [100, 99.5], smallestGapMs: 99.5, violations: [99.5] });
    expect(judged.get('b')).toMatchObject({ gaps: [500], violations: [], efficiency: 0.2 });
  });

  it('captures what really reached each simulated host', async () => {
    if (wireUnavailableReason())
      console.warn(`[wire] ${wireUnavailableReason()}: this run checks the fallback`);
    hosts.push(...(await startHosts(2, () => ({ fallback: text('ok') }), 60)));
    const [first, second] = hosts as [TestHost, TestHost];
    const capture = await startWireCapture(hosts);
    await fetch(first.url('/one'));
    await fetch(second.url('/two?q=1'));
    await fetch(first.url('/three'));
    const seen = await capture.stop();
    expect(seen.map((r) => [r.ip, r.path])).toEqual([
      [first.ip, '/one'],
      [second.ip, '/two?q=1'],
      [first.ip, '/three'],
    ]);
  });

  it('from server logs, calls a gap short only when the earlier request being logged late cannot explain it', () => {
    // Logged up to 30 ms after arrival: a logged gap of 80 ms may have been 110 ms at the wire, one of
    // 60 ms was at most 90 ms.
    const at = (ms: number) => ({ at: ms, ip: 'a', port: 1, method: 'GET', path: '/p', lateByUpToMs: 30 });
    const judged = judgePacing([at(0), at(80), at(140), at(260)], 100);
    expect(judged.get('a')).toMatchObject({ gaps: [80, 60, 120], violations: [60] });
  });

  it("bounds how late a server logged a request that arrived while the test process's event loop was busy", async () => {
    const site = await startHost({ ip: '127.0.33.1', fallback: text('ok') });
    hosts.push(site);
    const capture = serverLogCapture([site]);
    const socket = connect(site.port, site.ip);
    await once(socket, 'connect');
    socket.write(`GET /late HTTP/1.1\r\nHost: ${site.ip}\r\nConnection: close\r\n\r\n`);
    const sentAt = performance.timeOrigin + performance.now();
    // The request is in the server's socket now; its log waits for this loop, held for 150 ms.
    while (performance.timeOrigin + performance.now() < sentAt + 150) {}
    socket.resume(); // the answer is read and dropped, so the socket ends
    await once(socket, 'close');
    const [seen] = await capture.stop();

    expect(seen?.path).toBe('/late');
    const loggedLateBy = (seen?.at ?? 0) - sentAt;
    expect(loggedLateBy).toBeGreaterThanOrEqual(150);
    expect(seen?.lateByUpToMs).toBeGreaterThanOrEqual(loggedLateBy);
  });
});
