/**
 * Every instrument politely creates, in one table: its name, kind, unit, description and the
 * attributes it may carry. The recorder (recorder.ts) creates exactly these, and docs/metrics.md lists
 * exactly these (test/docs/metrics-doc.test.ts compares the page with this table).
 *
 * Names and units follow the OpenTelemetry semantic-convention style: dotted lowercase names under
 * the library's own namespace, UCUM units (`s`, annotations in braces like `{decision}`), and a
 * `wait_time` histogram in seconds as `db.client.connection.wait_time` is. Every attribute takes its
 * values from a bounded set; no URL is ever an attribute, and the host (`politely.host`) only when
 * the `metrics.hostAttribute` option asks for it.
 */

export type InstrumentKind = 'counter' | 'histogram' | 'gauge';

export interface InstrumentSpec {
  readonly name: string;
  readonly kind: InstrumentKind;
  readonly unit: string;
  readonly description: string;
  /** Attributes besides `politely.host` (which every instrument but the gauges carries when asked). */
  readonly attributes: readonly string[];
}

/** The attribute naming a host (its pacing key), set only with `metrics.hostAttribute`. */
export const HOST_ATTRIBUTE = 'politely.host';

/**
 * Bucket boundaries advised for the wait histogram, in seconds: 0 alone (a slot granted at once is
 * the usual case and must not blur the waits), then roughly 2.5x steps up to the minute a blocking wait
 * may last by default (`pacing.maxWaitMs`), so a 1 s minDelayMs, a 5 s Crawl-delay and a 30 s one each
 * land in a bucket of their own.
 */
export const WAIT_BUCKETS_S: readonly number[] = [
  0, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60,
];

export const INSTRUMENTS = {
  decisions: {
    name: 'politely.decisions',
    kind: 'counter',
    unit: '{decision}',
    description: 'Verdicts on URLs (check, admit, a queue handing a request out), by reason.',
    attributes: ['politely.decision.reason'],
  },
  robotsFetches: {
    name: 'politely.robots.fetches',
    kind: 'counter',
    unit: '{fetch}',
    description: 'robots.txt fetches, by outcome.',
    attributes: ['politely.robots.outcome'],
  },
  skips: {
    name: 'politely.skips',
    kind: 'counter',
    unit: '{request}',
    description: 'Requests an adapter kept from being sent (or whose content it withheld), by stage.',
    attributes: ['politely.skip.stage'],
  },
  backoffs: {
    name: 'politely.backoffs',
    kind: 'counter',
    unit: '{backoff}',
    description: "Times a host's responses slowed it down, by cause.",
    attributes: ['politely.backoff.cause'],
  },
  waitTime: {
    name: 'politely.pacing.wait_time',
    kind: 'histogram',
    unit: 's',
    description: 'The time a request waited for its pacing slot (admit, and every adapter send).',
    attributes: [],
  },
  hostsWaiting: {
    name: 'politely.hosts.waiting',
    kind: 'gauge',
    unit: '{host}',
    description: 'Hosts with at least one caller waiting for a pacing slot.',
    attributes: [],
  },
  requestsParked: {
    name: 'politely.requests.parked',
    kind: 'gauge',
    unit: '{request}',
    description:
      'Requests parked by the frontiers built on this instance (Crawlee included) until their host is due.',
    attributes: [],
  },
  hostsParked: {
    name: 'politely.hosts.parked',
    kind: 'gauge',
    unit: '{host}',
    description: 'Hosts with requests parked in the frontiers built on this instance.',
    attributes: [],
  },
} as const satisfies Readonly<Record<string, InstrumentSpec>>;
