/**
 * One engine of bench/engine-ab.ts, alone in its worker thread: V8 keeps no code, feedback or object
 * shapes shared with the other engine. workerData names the engine's index.ts; each message names a
 * row, which runs once over the corpus and answers with the CPU milliseconds it took.
 *
 * CPU time rather than wall time: on a loaded machine a pass is descheduled for as long as other
 * processes please. While a pass runs the process does nothing else (the main thread and the other
 * worker wait for a message), so the process's CPU time is the pass's own, its garbage collection
 * included.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type * as engineModule from '../packages/core/src/engine/index.js';
import { loadCorpus, NO_LIMIT, withUsageLines } from './engine-corpus.js';

type Engine = Pick<typeof engineModule, 'parseRobotsTxt'>;

export type RowName = 'parseText' | 'parseBytes' | 'parseFirst' | 'check' | 'parseUsage';

/** Keeps results alive so the work cannot be optimised away. */
let sink = 0;

const { parseRobotsTxt } = (await import(workerData as string)) as Engine;
const inputs = loadCorpus('engine-ab') ?? [];
const parsed = inputs.map((input) => parseRobotsTxt(input.text, NO_LIMIT));
const usageTexts = inputs.map((input) => withUsageLines(input.text));

const rows: Record<RowName, () => void> = {
  parseText: () => {
    for (const input of inputs) sink += parseRobotsTxt(input.text, NO_LIMIT).byteLength;
  },
  parseBytes: () => {
    for (const input of inputs) sink += parseRobotsTxt(input.bytes, NO_LIMIT).byteLength;
  },
  parseFirst: () => {
    for (const input of inputs)
      if (parseRobotsTxt(input.text, NO_LIMIT).isAllowed(input.urls[0] as string, input.agents[0] as string))
        sink++;
  },
  parseUsage: () => {
    for (const text of usageTexts) sink += parseRobotsTxt(text, NO_LIMIT).byteLength;
  },
  check: () => {
    inputs.forEach((input, i) => {
      const robots = parsed[i] as ReturnType<typeof parseRobotsTxt>;
      for (const agent of input.agents)
        for (const url of input.urls) if (robots.isAllowed(url, agent)) sink++;
    });
  },
};

parentPort?.on('message', (row: RowName) => {
  const start = process.cpuUsage();
  rows[row]();
  const { user, system } = process.cpuUsage(start);
  parentPort?.postMessage((user + system) / 1000);
});
parentPort?.postMessage(sink === -1 ? sink : 0);
