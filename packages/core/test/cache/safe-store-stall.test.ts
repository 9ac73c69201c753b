/**
 * The store's time limit counts only time in which the process ran. A reply that reached the socket
 * while the process was stalled (a loaded machine, a GC pause) is read, not counted as a failure that
 * would open the breaker and make every process of a fleet fetch robots.txt for itself.
 */
import { once } from 'node:events';
import { type AddressInfo, createServer, type Server, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSafeStore } from '../../src/cache/safe-store.js';
import type { KeyvLike } from '../../src/cache/types.js';
import type { PolitelyEvent } from '../../src/facade/types.js';

/** Blocks the event loop, as a busy machine or a long GC pause does. */
function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin
  }
}

describe('safe store on a stalled process', () => {
  let server: Server;
  let port: number;

  beforeAll(async () => {
    // A store on the other end of a loopback socket: answers each line with "value".
    server = createServer((socket) => socket.on('data', () => socket.end('value')));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** A get that asks the socket and resolves with its answer; `afterSend` runs once the ask is written. */
  function socketStore(afterSend: () => void): KeyvLike {
    return {
      get: () =>
        new Promise((resolve, reject) => {
          const socket = new Socket();
          let answer = '';
          socket.on('data', (chunk) => {
            answer += String(chunk);
          });
          socket.on('end', () => resolve(answer));
          socket.on('error', reject);
          socket.connect(port, '127.0.0.1', () => socket.write('get\n', () => setImmediate(afterSend)));
        }),
      set: () => true,
      delete: () => true,
    };
  }

  it('reads a reply that arrived while the process stalled past the time limit', async () => {
    const events: PolitelyEvent[] = [];
    const safe = createSafeStore(
      socketStore(() => stall(400)),
      { now: () => performance.now(), emit: (event) => events.push(event), timeoutMs: 200, breakMs: 10_000 },
    );
    expect(await safe.get('k')).toBe('value');
    expect(events).toEqual([]);
    expect(safe.broken).toBe(false);
  });
});
