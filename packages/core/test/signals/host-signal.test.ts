/**
 * The math of latency-aware pacing, without clocks or I/O: the smoothed latency, the clamp between the
 * asked delay and maxDelayMs, the error penalty and its decay.
 */
import { describe, expect, it } from 'vitest';
import {
  effectiveDelayMs,
  type HostSignal,
  isNotableChange,
  isServerTroubleError,
  isTroubleStatus,
  MAX_PENALTY,
  NO_SIGNAL,
  observeSample,
} from '../../src/signals/host-signal.js';

const params = { latencyFactor: 2, maxDelayMs: 60_000 };
const feed = (signal: HostSignal, ...samples: Parameters<typeof observeSample>[1][]) =>
  samples.reduce(observeSample, signal);

describe('smoothed latency (EWMA of time to headers)', () => {
  it('starts at the first sample, then moves a quarter of the way to each new one', () => {
    const first = observeSample(NO_SIGNAL, { latencyMs: 100, outcome: 'ok' });
    expect(first.latencyMs).toBe(100);
    expect(observeSample(first, { latencyMs: 500, outcome: 'ok' }).latencyMs).toBe(200);
  });

  it('one slow page moves the pace a little; a lasting change moves it all the way', () => {
    const steady = feed(NO_SIGNAL, ...Array(10).fill({ latencyMs: 20, outcome: 'ok' }));
    const spike = observeSample(steady, { latencyMs: 2000, outcome: 'ok' });
    expect(spike.latencyMs).toBeCloseTo(515, 0);
    const lasting = feed(steady, ...Array(30).fill({ latencyMs: 500, outcome: 'ok' }));
    expect(lasting.latencyMs).toBeGreaterThan(499);
  });

  it('ignores samples that are not a duration (missing, negative, NaN, Infinity)', () => {
    const known = observeSample(NO_SIGNAL, { latencyMs: 80, outcome: 'ok' });
    for (const latencyMs of [undefined, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(observeSample(known, { latencyMs, outcome: 'ok' }).latencyMs).toBe(80);
    }
  });
});

describe('effective delay', () => {
  it('is latencyFactor x latency when that is above the asked delay', () => {
    const slow = observeSample(NO_SIGNAL, { latencyMs: 800, outcome: 'ok' });
    expect(effectiveDelayMs(1000, slow, params)).toBe(1600);
  });

  it('never goes below the asked delay (minDelayMs or Crawl-delay), however fast the host', () => {
    const fast = observeSample(NO_SIGNAL, { latencyMs: 2, outcome: 'ok' });
    expect(effectiveDelayMs(1000, fast, params)).toBe(1000);
    expect(effectiveDelayMs(0, NO_SIGNAL, params)).toBe(0);
  });

  it('is capped at maxDelayMs, unless the asked delay itself is higher', () => {
    const crawling = observeSample(NO_SIGNAL, { latencyMs: 50_000, outcome: 'ok' });
    expect(effectiveDelayMs(1000, crawling, params)).toBe(60_000);
    expect(effectiveDelayMs(90_000, crawling, params)).toBe(90_000);
  });

  it('latencyFactor 0 turns latency pacing off; maxDelayMs 0 turns every signal off', () => {
    const slowAndFailing = feed(NO_SIGNAL, { latencyMs: 5000, outcome: 'error' });
    expect(effectiveDelayMs(1000, slowAndFailing, { latencyFactor: 0, maxDelayMs: 60_000 })).toBe(2000);
    expect(effectiveDelayMs(1000, slowAndFailing, { latencyFactor: 2, maxDelayMs: 0 })).toBe(1000);
  });
});

describe('error penalty', () => {
  it('doubles the delay per error (5xx, 429, timeouts) up to a limit', () => {
    let signal = NO_SIGNAL;
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) {
      signal = observeSample(signal, { outcome: 'error' });
      delays.push(effectiveDelayMs(1000, signal, params));
    }
    expect(delays).toEqual([2000, 4000, 8000, 16_000]);
    const worst = feed(signal, ...Array(20).fill({ outcome: 'error' }));
    expect(worst.penalty).toBe(MAX_PENALTY);
    expect(effectiveDelayMs(1000, worst, params)).toBe(32_000);
  });

  it('relaxes gradually: each good response takes 40% off, back to the asked delay', () => {
    const failing = feed(NO_SIGNAL, { outcome: 'error' }, { outcome: 'error' }, { outcome: 'error' });
    const delays: number[] = [];
    let signal = failing;
    for (let i = 0; i < 6; i++) {
      signal = observeSample(signal, { outcome: 'ok' });
      delays.push(effectiveDelayMs(1000, signal, params));
    }
    expect(delays).toEqual([4800, 2880, 1728, 1037, 1000, 1000]);
    for (let i = 1; i < delays.length; i++) expect(delays[i]).toBeLessThanOrEqual(delays[i - 1] ?? 0);
    expect(signal.penalty).toBe(1);
  });

  it('multiplies the latency-based delay too', () => {
    const slowFailing = feed(NO_SIGNAL, { latencyMs: 1000, outcome: 'error' });
    expect(effectiveDelayMs(500, slowFailing, params)).toBe(4000);
  });
});

describe('what counts as trouble', () => {
  it('5xx, 429 and 0 (no response) slow the host; 2xx-4xx do not', () => {
    expect([200, 301, 404, 403, 429, 500, 503, 0].map(isTroubleStatus)).toEqual([
      false,
      false,
      false,
      false,
      true,
      true,
      true,
      true,
    ]);
  });

  it('timeouts and failed connections do, looking through `cause`; DNS failures and aborts do not', () => {
    const code = (value: string) => Object.assign(new Error(value), { code: value });
    expect(isServerTroubleError(code('ETIMEDOUT'))).toBe(true);
    expect(isServerTroubleError(new TypeError('fetch failed', { cause: code('ECONNRESET') }))).toBe(true);
    expect(isServerTroubleError(new DOMException('timed out', 'TimeoutError'))).toBe(true);
    expect(isServerTroubleError(code('ENOTFOUND'))).toBe(false);
    expect(isServerTroubleError(new DOMException('stop', 'AbortError'))).toBe(false);
    expect(isServerTroubleError(undefined)).toBe(false);
  });

  it('a pace change is notable from 25% either way', () => {
    expect(isNotableChange(1000, 1249)).toBe(false);
    expect(isNotableChange(1000, 1250)).toBe(true);
    expect(isNotableChange(1000, 750)).toBe(true);
    expect(isNotableChange(0, 10)).toBe(true);
    expect(isNotableChange(1000, 1000)).toBe(false);
  });
});
