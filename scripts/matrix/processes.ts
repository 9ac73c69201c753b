/** Child processes for the matrix: npm installs and side-by-side cells logged to files, else the console. */
import { spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';

export interface RunOptions {
  readonly cwd: string;
  /** Extra directories put first on PATH (the cell's Node). */
  readonly path?: readonly string[];
  /** Output goes to this file instead of the console. */
  readonly logFile?: string;
  /** Adds to the log file instead of replacing it. */
  readonly append?: boolean;
}

/**
 * The environment a cell's processes see: ours without the `npm_*` variables `npm run` sets, since a
 * nested npm would read `npm_config_*` as its own configuration (and act on the repository).
 */
function cellEnv(path: readonly string[] = []): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('npm_')));
  env.PATH = [...path, process.env.PATH ?? ''].join(':');
  return env;
}

/** Runs a command to its end; resolves with its exit code (a signal counts as 1). */
export function run(command: string, args: readonly string[], options: RunOptions): Promise<number> {
  return new Promise((resolve, reject) => {
    const log =
      options.logFile === undefined
        ? undefined
        : createWriteStream(options.logFile, { flags: options.append === true ? 'a' : 'w' });
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: cellEnv(options.path),
      stdio: log === undefined ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    });
    if (log !== undefined) {
      child.stdout?.pipe(log, { end: false });
      child.stderr?.pipe(log, { end: false });
    }
    child.once('error', reject);
    child.once('close', (code) => {
      const finish = () => resolve(code ?? 1);
      if (log === undefined) finish();
      else log.end(finish);
    });
  });
}

/** Runs a command and returns what it printed on stdout, or the exit code and stderr when it failed. */
export function capture(
  command: string,
  args: readonly string[],
  options: RunOptions,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: cellEnv(options.path) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += String(chunk);
    });
    child.stderr.on('data', (chunk) => {
      stderr += String(chunk);
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** The last lines of a log, to print when the step it records failed. */
export function tail(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return `(no log at ${file})`;
  }
}
