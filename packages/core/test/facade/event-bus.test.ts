import { describe, expect, it } from 'vitest';
import { createEventBus } from '../../src/facade/event-bus.js';
import { operatorLog } from '../../src/facade/operator-log.js';
import type { PolitelyEvent } from '../../src/facade/types.js';

const backoff: PolitelyEvent = { type: 'backoff', host: 'a.test', ms: 1000, status: 429, cause: '429' };

describe('event bus', () => {
  it('delivers to every listener, past one that throws, until it unsubscribes or the bus is cleared', () => {
    const bus = createEventBus();
    const heard: string[] = [];
    expect(bus.listening).toBe(false);
    bus.subscribe(() => {
      throw new Error('listener bug');
    });
    const stop = bus.subscribe((event) => heard.push(`a:${event.type}`));
    bus.subscribe((event) => heard.push(`b:${event.type}`));
    expect(bus.listening).toBe(true);
    bus.emit(backoff);
    stop();
    bus.emit(backoff);
    bus.clear();
    bus.emit(backoff);
    expect(heard).toEqual(['a:backoff', 'b:backoff', 'b:backoff']);
    expect(bus.listening).toBe(false);
  });

  it('lets a listener unsubscribe another while an event is delivered', () => {
    const bus = createEventBus();
    const heard: string[] = [];
    let stopSecond = () => {};
    bus.subscribe(() => {
      heard.push('first');
      stopSecond();
    });
    stopSecond = bus.subscribe(() => heard.push('second'));
    bus.emit(backoff);
    bus.emit(backoff);
    expect(heard).toEqual(['first', 'second', 'first']);
  });
});

describe('operator log', () => {
  it('warns once per kind of record about store trouble, naming it, each time about the scheduler, and not about the rest', () => {
    const lines: string[] = [];
    const log = operatorLog({
      warn: (message) => lines.push(`warn ${message}`),
      info: (message) => lines.push(`info ${message}`),
    });
    log({
      type: 'store-error',
      operation: 'get',
      key: 'politely:robots:v1:https://a.test',
      error: new Error('down'),
    });
    log({
      type: 'store-error',
      operation: 'set',
      key: 'politely:robots:v1:https://b.test',
      error: new Error('down'),
    });
    // A pace record is not robots.txt: the warning says which records failed and what follows (issue 43.6).
    log({ type: 'store-error', operation: 'set', key: 'politely:pace:v1:a.test', error: new Error('down') });
    log({ type: 'store-error', operation: 'set', key: 'politely:pace:v1:b.test', error: new Error('down') });
    log({ type: 'scheduler-fallback', error: new Error('gone') });
    log({ type: 'scheduler-fallback', error: new Error('gone'), share: 'owned', members: 3 });
    log({ type: 'scheduler-recovered' });
    log(backoff);
    expect(lines).toEqual([
      'warn store failed reading robots.txt records; robots.txt is fetched instead (reported once)',
      "warn store failed writing pace records; each host's pace is kept in process memory only (reported once)",
      'warn Redis scheduler unavailable; until it is back this process paces every host',
      "warn Redis scheduler unavailable; until it is back this process paces the hosts it owns; the others' requests wait",
      'info Redis scheduler is back; pacing is fleet-wide again',
    ]);
  });
});
