/**
 * A keep-alive agent whose new connections take `setupMs` before the request can be written, as a TLS
 * handshake does; a reused connection costs nothing. Unlike a proxy's hold, the client sees this
 * (the request is written only once the socket is ready), so an adapter can count from the real send.
 */
import { Agent, type AgentOptions } from 'node:http';
import { connect, type NetConnectOpts, type Socket } from 'node:net';

export function slowConnectAgent(setupMs: number, options: AgentOptions = {}): Agent {
  const agent = new Agent({ keepAlive: true, ...options });
  // Node's Agent accepts a createConnection that answers through its callback later.
  (agent as unknown as { createConnection: unknown }).createConnection = (
    connectOptions: NetConnectOpts,
    callback: (error: Error | null, socket?: Socket) => void,
  ) => {
    setTimeout(() => {
      const socket = connect(connectOptions);
      const onError = (error: Error) => callback(error);
      socket.once('error', onError);
      socket.once('connect', () => {
        socket.off('error', onError);
        callback(null, socket);
      });
    }, setupMs);
    return undefined;
  };
  return agent;
}
