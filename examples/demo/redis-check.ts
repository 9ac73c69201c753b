/**
 * Is Redis there? One PING over a raw socket with a short timeout, so an example can say so clearly
 * instead of hanging in a client's reconnect loop.
 */
import { Socket } from 'node:net';

export function redisReachable(url: string, timeoutMs = 1000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = new Socket();
    const finish = (up: boolean) => {
      socket.destroy();
      resolve(up);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('error', () => finish(false));
    // A password-protected Redis answers NOAUTH, which still means it is up.
    socket.once('data', (data) => finish(/^[+-]/.test(data.toString())));
    socket.connect(Number(port || 6379), hostname || '127.0.0.1', () => socket.write('PING\r\n'));
  });
}
