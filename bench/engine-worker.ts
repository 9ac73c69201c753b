/**
 * One contender of the engine benchmarks, alone in its worker thread: V8 keeps no code, feedback, object
 * shapes or heap shared with the other contender, so neither's garbage or deoptimisation falls on the
 * other. workerData names the contender: the path of an engine's index.ts (politely, at this or another
 * commit) or `robots-parser`. Each message names a row, which runs once and answers with the CPU
 * milliseconds it took.
 *
 * CPU time rather than wall time: on a loaded machine a pass is descheduled for as long as other
 * processes please. While a pass runs the process does nothing else (the main thread and the other
 * worker wait for a message), so the process's CPU time is the pass's own, its garbage collection
 * included.
 */
import { parentPort, workerData } from 'node:worker_threads';
import robotsParserModule from 'robots-parser';
import type * as engineModule from '../packages/core/src/engine/index.js';
import {
  loadCorpus,
  NO_LIMIT,
  ORIGIN,
  type RowName,
  SCALING_REPEAT,
  SCALING_URLS,
  scalingFile,
  withUsageLines,
} from './engine-corpus.js';

/** The peer contender's name (any other name is an engine's index.ts). */
const PEER = 'robots-parser';

/** The one shape both contenders are driven through. */
interface Checker {
  isAllowed(url: string): boolean | undefined;
}
interface Contender {
  /** Parses a body; politely takes bytes as they come off the wire, robots-parser only strings. */
  parse(
    body: string | Uint8Array,
    text: string,
  ): { isAllowed(url: string, agent: string): boolean | undefined };
  /** The rules one agent is checked against, as a crawler asking about one agent would hold them. */
  forAgent(parsed: ReturnType<Contender['parse']>, agent: string): Checker;
  /** Repeats of a scaling row's checks (robots-parser is linear in the rules: fewer at big sizes). */
  repeat(rules: number): number;
}

interface PeerRobots {
  isAllowed(url: string, ua?: string): boolean | undefined;
}
/** robots-parser is CommonJS (`module.exports = fn`); its typings declare an ES default export. */
const robotsParser = robotsParserModule as unknown as (url: string, contents: string) => PeerRobots;

async function contender(name: string): Promise<Contender> {
  if (name === PEER) {
    return {
      parse: (_body, text) => robotsParser(`${ORIGIN}/robots.txt`, text) as ReturnType<Contender['parse']>,
      forAgent: (parsed, agent) => ({ isAllowed: (url) => parsed.isAllowed(url, agent) }),
      repeat: (rules) => Math.max(1, Math.floor(SCALING_REPEAT / Math.max(1, rules / 100))),
    };
  }
  const { parseRobotsTxt } = (await import(name)) as Pick<typeof engineModule, 'parseRobotsTxt'>;
  return {
    parse: (body) => parseRobotsTxt(body, NO_LIMIT),
    forAgent: (parsed, agent) => (parsed as engineModule.RobotsTxt).forAgent(agent),
    repeat: () => SCALING_REPEAT,
  };
}

/** Keeps results alive so the work cannot be optimised away. */
let sink = 0;

const engine = await contender(workerData as string);
const inputs = loadCorpus('engine') ?? [];
const parsed = inputs.map((input) => engine.parse(input.text, input.text));
const usageTexts = inputs.map((input) => withUsageLines(input.text));
const scaling = new Map<number, Checker>();

function scaleRow(rules: number): () => number {
  let checker = scaling.get(rules);
  if (checker === undefined) {
    const text = scalingFile(rules);
    checker = engine.forAgent(engine.parse(text, text), 'Bot');
    scaling.set(rules, checker);
  }
  const rulesChecker = checker;
  const repeat = engine.repeat(rules);
  return () => {
    for (let i = 0; i < repeat; i++) for (const url of SCALING_URLS) if (rulesChecker.isAllowed(url)) sink++;
    // Answered per check of the full SCALING_REPEAT, whatever this contender repeated.
    return SCALING_REPEAT / repeat;
  };
}

const rows: Record<Exclude<RowName, `scale:${number}`>, () => void> = {
  parseText: () => {
    for (const input of inputs) sink += engine.parse(input.text, input.text) === undefined ? 0 : 1;
  },
  // robots-parser reads strings only: it is fed the decoded text, as in parseText.
  parseBytes: () => {
    for (const input of inputs) sink += engine.parse(input.bytes, input.text) === undefined ? 0 : 1;
  },
  parseFirst: () => {
    for (const input of inputs)
      if (engine.parse(input.text, input.text).isAllowed(input.urls[0] as string, input.agents[0] as string))
        sink++;
  },
  parseUsage: () => {
    for (const text of usageTexts) sink += engine.parse(text, text) === undefined ? 0 : 1;
  },
  check: () => {
    inputs.forEach((input, i) => {
      const robots = parsed[i] as ReturnType<Contender['parse']>;
      for (const agent of input.agents)
        for (const url of input.urls) if (robots.isAllowed(url, agent)) sink++;
    });
  },
  checkCompiled: () => {
    inputs.forEach((input, i) => {
      const robots = parsed[i] as ReturnType<Contender['parse']>;
      for (const agent of input.agents) {
        const rules = engine.forAgent(robots, agent);
        for (const url of input.urls) if (rules.isAllowed(url)) sink++;
      }
    });
  },
};

parentPort?.on('message', (row: RowName) => {
  const run = row.startsWith('scale:')
    ? scaleRow(Number(row.slice('scale:'.length)))
    : rows[row as keyof typeof rows];
  const start = process.cpuUsage();
  // A scaling row answers how many times fewer checks it made than it stands for.
  const scale = run() ?? 1;
  const { user, system } = process.cpuUsage(start);
  parentPort?.postMessage(((user + system) / 1000) * scale);
});
parentPort?.postMessage(sink === -1 ? sink : 0);
