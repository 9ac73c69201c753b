/**
 * bench/RESULTS.md: a run of some benchmarks replaces their sections and keeps the others', each
 * section saying when, where and under what load it ran, with what the benchmark printed.
 */
import { describe, expect, it } from 'vitest';
import { capturingOutput, mergeResults, section, startContext } from '../../bench/results.js';

describe('bench/RESULTS.md', () => {
  it('a section carries the date, Node, CPU, load at start and end, and the printed figures', async () => {
    const context = startContext();
    const output = await capturingOutput(async () => {
      process.stdout.write('| got | 4306 req/s |\n');
    });
    const text = section('got', context, output);
    expect(text).toMatch(/^## got\n/);
    expect(text).toContain(`- run: ${context.started.toISOString()}`);
    expect(text).toContain(`Node ${process.version}`);
    expect(text).toMatch(
      /- load average \(1 \/ 5 \/ 15 min\): [\d.]+ \/ [\d.]+ \/ [\d.]+ at start, [\d.]+ \/ [\d.]+ \/ [\d.]+ at end/,
    );
    expect(text).toContain('```text\n| got | 4306 req/s |\n```');
  });

  it("replaces the sections run, keeps the others, in the benchmarks' order", () => {
    const first = mergeResults(
      '',
      new Map([
        ['got', '## got\n\nold got\n'],
        ['engine', '## engine\n\nengine figures\n'],
      ]),
      ['engine', 'got', 'fetch'],
    );
    const second = mergeResults(
      first,
      new Map([
        ['fetch', '## fetch\n\nfetch figures\n'],
        ['got', '## got\n\nnew got\n'],
      ]),
      ['engine', 'got', 'fetch'],
    );
    expect(second).toMatch(/^# Benchmark results\n/);
    expect(second).not.toContain('old got');
    const order = [...second.matchAll(/^## (\S+)$/gm)].map((m) => m[1]);
    expect(order).toEqual(['engine', 'got', 'fetch']);
    expect(second).toContain('## engine\n\nengine figures\n');
    expect(second).toContain('## got\n\nnew got\n');
    expect(mergeResults(second, new Map(), ['engine', 'got', 'fetch'])).toBe(second);
  });
});
