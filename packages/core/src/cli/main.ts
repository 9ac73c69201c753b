/**
 * The `politely` command: check URLs against their live robots.txt, explain a local file's verdicts,
 * lint a file or URL, diff two versions of a robots.txt for one crawler. Exit codes a script can branch on (the EXIT table below, also in --help and the
 * core README).
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { parseTdmRep, type TdmRepRule } from '../engine/tdmrep.js';
import { USAGE_PURPOSES, type UsagePurpose } from '../engine/usage.js';
import { closestName } from '../kernel/suggest.js';
import { runCheck, runDiff, runExplain, runLint } from './commands.js';
import { formatCheck, formatDiff, formatExplain, formatLint } from './format.js';

/**
 * | code | check / explain                 | lint                                     | diff                              |
 * | ---- | ------------------------------- | ---------------------------------------- | --------------------------------- |
 * | 0    | every URL allowed               | no lint errors                           | same rules for the agent          |
 * | 1    | a URL disallowed by the rules   | lint errors found                        | the agent's rules differ          |
 * | 2    | usage error                     | usage error                              | usage error                       |
 * | 3    | input file could not be read    | input file could not be read             | input file could not be read      |
 * | 4    | a robots.txt was unreachable    | robots.txt unreachable (5xx, 429, error) | a side's robots.txt unreachable   |
 *
 * 4 wins over 1: a site whose rules could not be read is the one a script must look at first.
 */
export const EXIT = { ok: 0, negative: 1, usage: 2, input: 3, unreachable: 4 } as const;

export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly readFile: (path: string) => Promise<Uint8Array>;
}

const defaultIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  readFile: (path) => readFile(path),
};

const USAGE = `Usage (npx -p @politely/core politely ..., or politely ... once @politely/core is installed):
  politely check <url...> --agent <token> [--purpose <p>] [--user-agent <header>] [--timeout <ms>] [--json]
      Fetch each URL's robots.txt and print allowed/disallowed with the deciding line.
  politely explain <robots.txt file> <url-or-path...> --agent <token> [--purpose <p>] [--tdmrep <file>] [--json]
      The same for a local robots.txt file (a URL, or a path starting with "/": /private/x); with
      --tdmrep and a TDM purpose (ai-train, ai-input), the TDMRep verdict of a local tdmrep.json beside it.
  politely lint <file|url> [--json] [--user-agent <header>]
      Diagnostics a webmaster or crawler author needs, with line, severity and a stable code.
  politely diff <a> <b> --agent <token> [--user-agent <header>] [--timeout <ms>] [--json]
      What changed for the agent from a to b (each a robots.txt file or an http(s) URL): rules added
      and removed, Crawl-delay before and after, sitemaps added and removed.

Options:
  -a, --agent <token>      product token matched against robots.txt groups (check, explain, diff)
      --user-agent <ua>    User-Agent header sent for robots.txt (default: <agent>/1.0 (politely-cli))
      --timeout <ms>       robots.txt fetch timeout (default 10000)
      --purpose <p>        search, ai-input or ai-train: a URL whose AI usage preferences
                           (Content-Usage, Content-Signal) say no for it is refused (check, explain);
                           ai-train and ai-input are text and data mining: check reads the site's
                           /.well-known/tdmrep.json (W3C TDMRep) and refuses what it reserves
      --tdmrep <file>      a local tdmrep.json for explain (read only with ai-train or ai-input)
      --json               print the result as JSON; errors too, as { "error": { "exit", "message" } }
                           on stdout, with the same exit codes
  -v, --version            the version of @politely/core
  -h, --help               this help

Exit codes:
  0  every URL allowed / no lint errors / diff: the same rules for the agent
  1  a URL is disallowed by the rules (or its Crawl-delay is above the maximum, or its usage
     preferences say no for --purpose) / lint errors found /
     diff: the agent's rules or Crawl-delay differ
  2  usage error (unknown command or option, missing argument)
  3  a local input file could not be read
  4  a robots.txt was unreachable (HTTP 5xx or 429, network error, timeout): crawlers fetch nothing
     from that site; wins over 1
`;

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export async function main(argv: readonly string[], io: CliIo = defaultIo): Promise<number> {
  // Read before parsing, so a usage error of a --json run is JSON too.
  const json = wantsJson(argv);
  const fail = (exit: number, message: string): number => {
    if (json) io.stdout(`${JSON.stringify({ error: { exit, message } }, null, 2)}\n`);
    else if (exit === EXIT.usage) io.stderr(`politely: ${message}\nRun "politely --help" for usage.\n`);
    else io.stderr(`politely: ${message}\n`);
    return exit;
  };
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    return fail(EXIT.usage, oneLine((error as Error).message));
  }
  const { command, positionals, values } = parsed;
  if (values.version) {
    io.stdout(`${await version()}\n`);
    return EXIT.ok;
  }
  if (values.help || command === 'help') {
    io.stdout(USAGE);
    return EXIT.ok;
  }
  if (command === undefined) return fail(EXIT.usage, 'missing command: check, explain, lint or diff');
  const fetching = (userAgent: string) => ({
    userAgent: values['user-agent'] ?? userAgent,
    readFile: (path: string) => readInput(io, path),
    ...(values.timeout ? { timeoutMs: toMs(values.timeout) } : {}),
  });
  try {
    switch (command) {
      case 'check': {
        const agent = requireAgent(values.agent);
        if (positionals.length === 0) throw new UsageError('check needs at least one URL');
        const results = await runCheck(positionals, {
          productToken: agent,
          ...fetching(`${agent}/1.0 (politely-cli)`),
          ...purposeOf(values.purpose),
        });
        io.stdout(values.json ? `${JSON.stringify(results, null, 2)}\n` : formatCheck(results));
        if (results.some((r) => r.reason === 'unreachable')) return EXIT.unreachable;
        return results.every((r) => r.allowed) ? EXIT.ok : EXIT.negative;
      }
      case 'explain': {
        const agent = requireAgent(values.agent);
        const [file, ...targets] = positionals;
        if (file === undefined || targets.length === 0) {
          throw new UsageError('explain needs a robots.txt file and at least one URL or path');
        }
        for (const target of targets) requireUrlOrPath(target);
        const body = await readInput(io, file);
        const tdmrep = values.tdmrep === undefined ? undefined : await readTdmRep(io, values.tdmrep);
        const report = runExplain(body, targets, agent, purposeOf(values.purpose).purpose, tdmrep);
        io.stdout(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatExplain(report));
        return report.results.every((r) => r.allowed) ? EXIT.ok : EXIT.negative;
      }
      case 'lint': {
        const [target, ...rest] = positionals;
        if (target === undefined || rest.length > 0)
          throw new UsageError('lint needs exactly one file or URL');
        const report = await runLint(target, fetching('politely-cli/1.0'));
        io.stdout(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatLint(report));
        if (report.fetch?.outcome === 'unreachable') return EXIT.unreachable;
        return report.diagnostics.some((d) => d.severity === 'error') ? EXIT.negative : EXIT.ok;
      }
      case 'diff': {
        const agent = requireAgent(values.agent);
        const [a, b, ...rest] = positionals;
        if (a === undefined || b === undefined || rest.length > 0) {
          throw new UsageError('diff needs exactly two robots.txt files or URLs');
        }
        const report = await runDiff(a, b, {
          productToken: agent,
          ...fetching(`${agent}/1.0 (politely-cli)`),
        });
        io.stdout(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatDiff(report, agent));
        if (report.diff === undefined) return EXIT.unreachable;
        return report.diff.changed ? EXIT.negative : EXIT.ok;
      }
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    // A TypeError is a bad argument caught by the library (a URL that is not http(s), say).
    if (error instanceof UsageError || error instanceof TypeError)
      return fail(EXIT.usage, oneLine(error.message));
    if (error instanceof InputError) return fail(EXIT.input, error.message);
    throw error;
  }
}

/** `--json` among the options (not after `--`, where it is a positional). */
function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

/** A usage error is one line; the help is one `--help` away. */
const oneLine = (message: string) => message.split('\n')[0] ?? message;

/** The version in the package.json beside dist/ (or src/ when run from the repository). */
async function version(): Promise<string> {
  const manifest = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));
  return `${manifest.name} ${manifest.version}`;
}

/**
 * A target of `explain` is a URL or a path as robots.txt rules read it: RFC 9309 2.2.2 matches rules
 * against the URL's path, which always starts with "/". `private/x` is neither; read as a path it
 * would match no rule and come out ALLOWED, so it is refused with the path it probably meant.
 */
function requireUrlOrPath(target: string): void {
  if (target.startsWith('/') || /^https?:\/\//i.test(target)) return;
  throw new UsageError(
    `"${target}" is neither an http(s) URL nor a path starting with "/" (did you mean "/${target}"?)`,
  );
}

function purposeOf(value: string | undefined): { purpose?: UsagePurpose } {
  if (value === undefined) return {};
  if (!(USAGE_PURPOSES as readonly string[]).includes(value)) {
    throw new UsageError(`--purpose must be one of ${USAGE_PURPOSES.join(', ')}, got "${value}"`);
  }
  return { purpose: value as UsagePurpose };
}

const OPTIONS = {
  agent: { type: 'string', short: 'a' },
  'user-agent': { type: 'string' },
  timeout: { type: 'string' },
  purpose: { type: 'string' },
  tdmrep: { type: 'string' },
  json: { type: 'boolean' },
  version: { type: 'boolean', short: 'v' },
  help: { type: 'boolean', short: 'h' },
} as const;

function parse(argv: readonly string[]) {
  rejectUnknownOptions(argv);
  const { positionals, values } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: OPTIONS,
  });
  const [command, ...rest] = positionals;
  return { command, positionals: rest, values };
}

/**
 * Names an unknown option plainly, with the closest known one; parseArgs' own message quotes the
 * argument back in a confusing form (`as in '-- "--agnet"'`).
 */
function rejectUnknownOptions(argv: readonly string[]): void {
  const longNames = Object.keys(OPTIONS);
  const shortNames = new Map<string, string>();
  for (const [name, option] of Object.entries(OPTIONS)) {
    if ('short' in option) shortNames.set(option.short, name);
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--') return; // everything after is positional
    let name: string | undefined;
    if (arg.startsWith('--')) name = arg.slice(2).split('=')[0] ?? '';
    else if (arg.startsWith('-') && arg.length > 1) name = shortNames.get(arg.slice(1, 2)) ?? arg;
    if (name === undefined) continue;
    const known = OPTIONS[name as keyof typeof OPTIONS];
    if (known === undefined) {
      const shown = arg.split('=')[0] ?? arg;
      const suggestion = closestName(shown.replace(/^-+/, ''), longNames);
      throw new UsageError(`unknown option ${shown}${suggestion ? ` (did you mean --${suggestion}?)` : ''}`);
    }
    if (known.type === 'string' && !arg.includes('=') && (arg.startsWith('--') || arg.length === 2)) i++; // its value
  }
}

function requireAgent(agent: string | undefined): string {
  if (agent === undefined) throw new UsageError('--agent <product token> is required (e.g. --agent MyBot)');
  if (!/^[A-Za-z_-]+$/.test(agent)) {
    throw new UsageError(`--agent must be a product token made of A-Z, a-z, "_" and "-", got "${agent}"`);
  }
  return agent;
}

function toMs(value: string): number {
  const ms = Number(value);
  if (!Number.isFinite(ms) || ms <= 0)
    throw new UsageError(`--timeout must be a positive number of ms, got "${value}"`);
  return ms;
}

export class InputError extends Error {
  override readonly name = 'InputError';
}

async function readInput(io: CliIo, path: string): Promise<Uint8Array> {
  try {
    return await io.readFile(path);
  } catch (error) {
    throw new InputError(
      `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}

/** A local tdmrep.json's rules; a file that is not one is an input error naming what is wrong. */
async function readTdmRep(io: CliIo, path: string): Promise<readonly TdmRepRule[]> {
  const parsed = parseTdmRep(new TextDecoder().decode(await readInput(io, path)));
  if (!parsed.ok) throw new InputError(`${path} is not a tdmrep.json: ${parsed.error}`);
  return parsed.rules;
}
