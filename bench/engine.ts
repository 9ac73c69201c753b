/**
 * Rules engine against robots-parser (the JS parser Crawlee uses), side by side in one run on the same
 * inputs: every file of ../shared/corpus/robots and every path x agent of ../shared/corpus/urls.jsonl.
 *
 * - parse: MB/s over the whole corpus, both parsers fed the same decoded strings (politely also from
 *   bytes, its native input).
 * - parse + first check: the same, then one isAllowed per file (its first path and agent). politely
 *   escapes and compiles an agent's rules on first use, which a bare parse does not pay for; robots-parser
 *   escapes while parsing. This row charges both with that work.
 * - check: ns per isAllowed; every file is parsed once beforehand, then only checks are timed.
 * A warm-up round runs first; each figure is the median of several rounds.
 * Run alone: `npx tsx bench/engine.ts`.
 */
import { pathToFileURL } from 'node:url';
import robotsParserModule from 'robots-parser';
import { parseRobotsTxt, type RobotsTxt } from '../packages/core/src/engine/index.js';
import { loadCorpus, NO_LIMIT, ORIGIN, ROUNDS, race, withUsageLines } from './engine-corpus.js';

/** robots-parser is CommonJS (`module.exports = fn`); its typings declare an ES default export. */
interface PeerRobots {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getSitemaps(): string[];
}
const robotsParser = robotsParserModule as unknown as (url: string, contents: string) => PeerRobots;

/** Keeps results alive so the work cannot be optimised away. */
let sink = 0;

function row(name: string, politely: number, peer: number, unit: string, higherIsBetter: boolean): string {
  const ratio = higherIsBetter ? politely / peer : peer / politely;
  return `${name.padEnd(34)} ${politely.toFixed(1).padStart(10)} ${peer.toFixed(1).padStart(14)}  ${unit.padEnd(6)} ${ratio.toFixed(1).padStart(6)}x`;
}

export async function runEngineBench(): Promise<void> {
  const inputs = loadCorpus('engine');
  if (inputs === undefined) return;
  const totalBytes = inputs.reduce((sum, input) => sum + input.bytes.length, 0);
  const checksPerRound = inputs.reduce((sum, input) => sum + input.urls.length * input.agents.length, 0);
  console.log(
    `corpus: ${inputs.length} files, ${(totalBytes / 1e6).toFixed(1)} MB; ${checksPerRound} checks (path x agent) per round; median of ${ROUNDS} interleaved rounds after a warm-up`,
  );

  // Parse throughput: the same decoded strings to both parsers.
  // Strings and bytes are raced in turn: a process normally feeds one kind (the cache feeds bytes),
  // and feeding both in one race makes V8 optimise the hot loops for neither.
  const parseText = race({
    politely: () => {
      for (const input of inputs) sink += parseRobotsTxt(input.text, NO_LIMIT).byteLength;
    },
    peer: () => {
      for (const input of inputs)
        sink += robotsParser(`${ORIGIN}/robots.txt`, input.text).getSitemaps().length;
    },
  });
  const parseBytes = race({
    politely: () => {
      for (const input of inputs) sink += parseRobotsTxt(input.bytes, NO_LIMIT).byteLength;
    },
    peer: () => {
      for (const input of inputs)
        sink += robotsParser(`${ORIGIN}/robots.txt`, input.text).getSitemaps().length;
    },
  });
  // Parse, then the first question a crawler asks: same strings, one check per file.
  const parseFirst = race({
    politely: () => {
      for (const input of inputs)
        if (
          parseRobotsTxt(input.text, NO_LIMIT).isAllowed(input.urls[0] as string, input.agents[0] as string)
        )
          sink++;
    },
    peer: () => {
      for (const input of inputs)
        if (
          robotsParser(`${ORIGIN}/robots.txt`, input.text).isAllowed(input.urls[0] as string, input.agents[0])
        )
          sink++;
    },
  });
  const mbps = (ms: number) => totalBytes / 1e6 / (ms / 1000);
  // The same files with AI usage preference lines added (engine-corpus.ts): what reading them costs
  // (robots-parser skips them as unknown lines).
  const usageTexts = inputs.map((input) => withUsageLines(input.text));
  const usageBytes = usageTexts.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
  const parseUsage = race({
    politely: () => {
      for (const text of usageTexts) sink += parseRobotsTxt(text, NO_LIMIT).byteLength;
    },
    peer: () => {
      for (const text of usageTexts) sink += robotsParser(`${ORIGIN}/robots.txt`, text).getSitemaps().length;
    },
  });
  const usageMbps = (ms: number) => usageBytes / 1e6 / (ms / 1000);

  // Checks: every file parsed once beforehand; only checks are timed.
  const politely: RobotsTxt[] = inputs.map((input) => parseRobotsTxt(input.text, NO_LIMIT));
  const peers = inputs.map((input) => robotsParser(`${ORIGIN}/robots.txt`, input.text));
  const check = race({
    politely: () => {
      inputs.forEach((input, i) => {
        const robots = politely[i] as RobotsTxt;
        for (const agent of input.agents)
          for (const url of input.urls) if (robots.isAllowed(url, agent)) sink++;
      });
    },
    politelyCompiled: () => {
      inputs.forEach((input, i) => {
        const robots = politely[i] as RobotsTxt;
        for (const agent of input.agents) {
          const rules = robots.forAgent(agent);
          for (const url of input.urls) if (rules.isAllowed(url)) sink++;
        }
      });
    },
    peer: () => {
      inputs.forEach((input, i) => {
        const robots = peers[i] as PeerRobots;
        for (const agent of input.agents)
          for (const url of input.urls) if (robots.isAllowed(url, agent)) sink++;
      });
    },
  });
  const ns = (ms: number) => (ms * 1e6) / checksPerRound;

  console.log(
    `\n${'measure'.padEnd(34)} ${'politely'.padStart(10)} ${'robots-parser'.padStart(14)}  unit   faster`,
  );
  console.log(row('parse, same strings', mbps(parseText.politely), mbps(parseText.peer), 'MB/s', true));
  console.log(
    row('parse, politely from bytes', mbps(parseBytes.politely), mbps(parseBytes.peer), 'MB/s', true),
  );
  console.log(
    row('parse + first check, same strings', mbps(parseFirst.politely), mbps(parseFirst.peer), 'MB/s', true),
  );
  console.log(
    row('parse, usage lines added', usageMbps(parseUsage.politely), usageMbps(parseUsage.peer), 'MB/s', true),
  );
  console.log(row('isAllowed(url, agent)', ns(check.politely), ns(check.peer), 'ns', false));
  console.log(row('forAgent(agent).isAllowed(url)', ns(check.politelyCompiled), ns(check.peer), 'ns', false));
  scalingTable();
  if (sink === -1) console.log(sink);
}

/**
 * Check cost as rule sets grow: synthetic files of n distinct prefix rules plus a few wildcard rules,
 * the same 8 URLs checked against each (parsed and compiled beforehand).
 */
function scalingTable(): void {
  const urls = [
    '/',
    '/section-7/page',
    '/section-999/a/b?c=d',
    '/none/x',
    '/a.pdf',
    '/s/12/x?session=1',
    '/z',
    '/section-4/',
  ];
  const sizes = [10, 100, 1_000, 10_000, 100_000];
  const files = sizes.map((n) => {
    const lines = ['User-agent: *', 'Disallow: /*.pdf$', 'Disallow: /*?session=', 'Allow: /*/public/'];
    for (let i = 0; i < n; i++) lines.push(`${i % 3 === 0 ? 'Allow' : 'Disallow'}: /section-${i}/`);
    const robots = parseRobotsTxt(lines.join('\n'), NO_LIMIT);
    const peer = robotsParser(`${ORIGIN}/robots.txt`, lines.join('\n'));
    return { n, rules: robots.forAgent('Bot'), peer };
  });
  const repeat = 2_000;
  console.log(`\ncheck cost as rules grow (ns per check, ${urls.length} URLs x ${repeat}):`);
  console.log(`${'rules'.padStart(8)} ${'politely'.padStart(10)} ${'robots-parser'.padStart(14)}`);
  for (const { n, rules, peer } of files) {
    const absolute = urls.map((path) => `${ORIGIN}${path}`);
    const times = race({
      politely: () => {
        for (let i = 0; i < repeat; i++) for (const url of absolute) if (rules.isAllowed(url)) sink++;
      },
      peer: () => {
        // robots-parser is linear in the rules; fewer repeats keep the big sizes bearable.
        const peerRepeat = Math.max(1, Math.floor(repeat / Math.max(1, n / 100)));
        for (let i = 0; i < peerRepeat; i++)
          for (const url of absolute) if (peer.isAllowed(url, 'Bot')) sink++;
        peerScale = repeat / peerRepeat;
      },
    });
    const per = (ms: number, scale = 1) => ((ms * scale * 1e6) / (repeat * urls.length)).toFixed(0);
    console.log(
      `${String(n).padStart(8)} ${per(times.politely).padStart(10)} ${per(times.peer, peerScale).padStart(14)}`,
    );
  }
}

let peerScale = 1;

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runEngineBench();
}
