/**
 * A private redis-server for tests: on a free loopback port, no persistence, started and stopped by
 * PID. Tests that kill and restart Redis (or start from an empty script cache) use one so they never
 * touch a shared Redis; test/helpers/redis.ts starts one for a file when no Redis answers.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer, Socket } from 'node:net';

export interface PrivateRedis {
  readonly port: number;
  readonly url: string;
  /** Kills the server (SIGKILL: an abrupt loss, as in a crash). */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty. */
  restart(): Promise<void>;
  /** The server's process id while it runs. */
  readonly pid: number | undefined;
}

let installed: string | undefined;

/**
 * Why no redis-server can be started here (with how to get one), or undefined when one can. Asked
 * once per process: a spawn of a missing binary fails only asynchronously (an 'error' event, which
 * unhandled crashes the run), so callers ask first instead of trying.
 */
export function redisServerUnavailableReason(): string | undefined {
  installed ??= spawnSync('redis-server', ['--version'], { stdio: 'ignore', timeout: 10_000 }).error
    ? 'redis-server is not installed (Debian: apt-get install -y redis-server)'
    : '';
  return installed || undefined;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (up: boolean) => {
      socket.destroy();
      resolve(up);
    };
    socket.setTimeout(200, () => done(false));
    socket.once('error', () => done(false));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
  });
}

/** `extraArgs` are added to redis-server's command line (e.g. `--enable-debug-command yes`). */
export async function startPrivateRedis(extraArgs: readonly string[] = []): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    const started = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...extraArgs],
      { stdio: 'ignore' },
    );
    child = started;
    // Held here, not left unhandled: a missing binary (ENOENT) or a refused exec is an 'error' event,
    // which with no listener is an uncaught exception that fails the whole run.
    let failed: Error | undefined;
    started.once('error', (error) => {
      failed = error;
    });
    for (let attempt = 0; attempt < 100; attempt++) {
      if (failed) throw new Error(`redis-server could not be started: ${failed.message}`);
      if (started.exitCode !== null)
        throw new Error(`redis-server exited (${started.exitCode}) on port ${port}`);
      if (await answersPing(port)) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    started.kill('SIGKILL');
    throw new Error(`redis-server did not start on port ${port}`);
  };
  const kill = async () => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
    if (running.pid === undefined) return; // never started (its 'error' said why)
    const exited = once(running, 'exit');
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    kill,
    restart: start,
    get pid() {
      return child?.pid;
    },
  };
}
