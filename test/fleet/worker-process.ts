/**
 * Crawler processes for the fleet tests: a worker script run by tsx in a child process of its own,
 * talking in lines. It prints `ready` once set up, waits for `go` on its stdin, prints what it did,
 * and exits with 0 when done. `killWorkerProcesses` (after each test) kills those still running.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export interface WorkerProcess {
  readonly child: ChildProcess;
  /** Every line the worker printed, in order. */
  readonly lines: readonly string[];
  /** Resolves once the worker has printed `line`, before or after this call. */
  saw(line: string): Promise<void>;
  /** The worker printed `ready` (rejects when it ended before). */
  readonly ready: Promise<void>;
  /** Tells it to start (`go` on its stdin). */
  go(): void;
  /** Resolves when it exits with 0; rejects with its exit code or signal and its stderr otherwise. */
  readonly done: Promise<void>;
}

const running: ChildProcess[] = [];

/** Starts `script` (a URL next to the test, e.g. `new URL('./worker.ts', import.meta.url)`) with `args`. */
export function startWorkerProcess(
  script: URL,
  args: readonly string[],
  options: { readonly name?: string; readonly onLine?: (line: string) => void } = {},
): WorkerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(script), ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  running.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const lines: string[] = [];
  const waiting = new Map<string, Array<() => void>>();
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    lines.push(line);
    options.onLine?.(line);
    for (const resolve of waiting.get(line) ?? []) resolve();
    waiting.delete(line);
  });
  const saw = (line: string) =>
    lines.includes(line)
      ? Promise.resolve()
      : new Promise<void>((resolve) => waiting.set(line, [...(waiting.get(line) ?? []), resolve]));
  const name = options.name ?? 'worker';
  const done = new Promise<void>((resolve, reject) => {
    child.once('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${name} exited with ${code ?? signal}: ${stderr}`)),
    );
  });
  // A worker that ends before it is ready fails `ready` with its stderr, rather than a wait to expire.
  const ready = Promise.race([
    saw('ready'),
    done.then(() => Promise.reject(new Error(`${name} exited before it was ready`))),
  ]);
  // A worker a test kills on purpose rejects `done`; a test that waits for either still sees it.
  done.catch(() => {});
  ready.catch(() => {});
  return { child, lines, saw, ready, go: () => child.stdin?.write('go\n'), done };
}

/** Kills (SIGKILL) every worker still running; for afterEach. */
export function killWorkerProcesses(): void {
  for (const child of running.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
}

/** Rejects with what took too long once `ms` have passed: a limit for a hang, not a speed bound. */
export function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took more than ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
