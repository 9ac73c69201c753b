/**
 * docs/metrics.md lists the instruments politely creates: the page's table must name exactly the
 * instruments a Politeness asks its meter for, each with the kind and unit it is created with, and
 * the attributes the code's table gives it. A meter that records what it is asked for stands in for
 * an SDK.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPoliteness } from '../../packages/core/src/index.js';
import { INSTRUMENTS } from '../../packages/core/src/metrics/instruments.js';

const PAGE = resolve(import.meta.dirname, '../../docs/metrics.md');

interface Row {
  readonly name: string;
  readonly kind: string;
  readonly unit: string;
  readonly attributes: string[];
}

/** The rows of the page's instrument table: `| \`politely.x\` | kind | \`unit\` | attributes |`. */
function documented(): Row[] {
  const rows: Row[] = [];
  for (const line of readFileSync(PAGE, 'utf8').split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const name = /^`(politely\.[^`]+)`$/.exec(cells[1] ?? '')?.[1];
    if (!name) continue;
    const attributes = [...(cells[4] ?? '').matchAll(/`(politely\.[a-z_.]+)`:/g)].map((m) => m[1] ?? '');
    rows.push({ name, kind: cells[2] ?? '', unit: (cells[3] ?? '').replaceAll('`', ''), attributes });
  }
  return rows;
}

/** What a Politeness asks its meter to create, recorded. */
function created(): Row[] {
  const rows: Row[] = [];
  const make =
    <I>(kind: string, instrument: I) =>
    (name: string, options?: { readonly unit?: string }) => {
      const spec = Object.values(INSTRUMENTS).find((s) => s.name === name);
      rows.push({ name, kind, unit: options?.unit ?? '', attributes: [...(spec?.attributes ?? [])] });
      return instrument;
    };
  const meter = {
    createCounter: make('counter', { add() {} }),
    createHistogram: make('histogram', { record() {} }),
    createObservableGauge: make('gauge', {}),
    addBatchObservableCallback() {},
    removeBatchObservableCallback() {},
  };
  const p = createPoliteness({
    userAgent: 'DocBot/1.0',
    logger: false,
    metrics: { meterProvider: { getMeter: () => meter } },
  });
  void p.close();
  return rows;
}

describe('docs/metrics.md', () => {
  it('lists exactly the instruments the code creates, with their kind, unit and attributes', () => {
    const code = created();
    expect(code.length).toBe(Object.keys(INSTRUMENTS).length);
    const byName = (a: Row, b: Row) => a.name.localeCompare(b.name);
    expect(documented().sort(byName)).toEqual(code.sort(byName));
  });

  it('documents every value the code gives the decision and skip attributes', () => {
    const page = readFileSync(PAGE, 'utf8');
    const decisions = [
      'allowed',
      'disallowed',
      'unreachable',
      'crawl-delay-too-long',
      'rate-limited',
      'usage-refused',
    ];
    const stages = ['enqueue', 'dequeue', 'send', 'redirect', 'navigation', 'subresource', 'response'];
    for (const value of [...decisions, ...stages]) expect(page).toContain(`\`${value}\``);
  });
});
