import { afterEach, describe, expect, it } from 'vitest';
import { startHosts, type TestHost, text } from './hosts.js';
import {
  droppedPackets,
  judgePacing,
  parseCapture,
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
});
