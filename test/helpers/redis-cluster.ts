/**
 * A throwaway Redis Cluster for tests: three redis-server processes in cluster mode on free loopback
 * ports (no persistence, files in a temp folder), joined with `redis-cli --cluster create`, started
 * and stopped by PID, every step bounded in time.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../packages/core/test/schedule/redis-server.js';

export interface RedisClusterNodes {
  readonly nodes: readonly { readonly host: '127.0.0.1'; readonly port: number }[];
  stop(): Promise<void>;
}

/** Why a cluster cannot be started here, or undefined when it can. */
export function redisClusterUnavailableReason(): string | undefined {
  for (const tool of ['redis-server', 'redis-cli']) {
    if (spawnSync(tool, ['--version']).error) return `${tool} is not installed`;
  }
  return undefined;
}

function redisCli(port: number, args: string[]): string {
  const result = spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  return `${result.stdout ?? ''}${result.stderr ?? ''}`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startRedisCluster(count = 3): Promise<RedisClusterNodes> {
  const dir = mkdtempSync(join(tmpdir(), 'politely-cluster-'));
  const children: ChildProcess[] = [];
  const ports: number[] = [];
  const stop = async () => {
    await Promise.all(
      children.map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = once(child, 'exit');
        child.kill('SIGKILL');
        await exited;
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < count; i++) {
      const port = await freePort();
      ports.push(port);
      children.push(
        spawn(
          'redis-server',
          [
            '--port',
            String(port),
            '--bind',
            '127.0.0.1',
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            `nodes-${port}.conf`,
            '--dir',
            dir,
            '--save',
            '',
            '--appendonly',
            'no',
          ],
          { stdio: 'ignore' },
        ),
      );
    }
    for (const port of ports) {
      for (let tries = 0; !redisCli(port, ['PING']).includes('PONG'); tries++) {
        if (tries > 100) throw new Error(`redis-server did not start on port ${port}`);
        await sleep(50);
      }
    }
    const created = spawnSync(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...ports.map((port) => `127.0.0.1:${port}`),
        '--cluster-replicas',
        '0',
        '--cluster-yes',
      ],
      { encoding: 'utf8', timeout: 20_000 },
    );
    if (created.status !== 0)
      throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
    for (const port of ports) {
      for (let tries = 0; !redisCli(port, ['CLUSTER', 'INFO']).includes('cluster_state:ok'); tries++) {
        if (tries > 200) throw new Error(`cluster node on port ${port} did not reach cluster_state:ok`);
        await sleep(50);
      }
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { nodes: ports.map((port) => ({ host: '127.0.0.1' as const, port })), stop };
}
