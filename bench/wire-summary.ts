/**
 * The figures a pacing benchmark prints from hosts judged at the wire (judgePacing in
 * test/helpers/wire.ts), computed one way: gaps under the asked delay, the smallest gap, and
 * efficiency per host (bound / time taken, bound = (pages - 1) x delay), worst and median.
 */
import type { HostPacing } from '../test/helpers/wire.js';

export interface PacingSummary {
  /** Page requests seen at the wire on the judged hosts. */
  readonly requests: number;
  /** Every gap under its host's asked delay, in ms (zero tolerance). */
  readonly violations: readonly number[];
  readonly smallestGapMs: number | undefined;
  readonly worstEfficiency: number | undefined;
  readonly medianEfficiency: number | undefined;
}

export function summarizePacing(hosts: readonly HostPacing[]): PacingSummary {
  const efficiencies = hosts
    .flatMap((host) => (host.efficiency === undefined ? [] : [host.efficiency]))
    .sort((a, b) => a - b);
  const gaps = hosts.flatMap((host) => (host.smallestGapMs === undefined ? [] : [host.smallestGapMs]));
  return {
    requests: hosts.reduce((sum, host) => sum + host.times.length, 0),
    violations: hosts.flatMap((host) => host.violations),
    smallestGapMs: gaps.length > 0 ? Math.min(...gaps) : undefined,
    worstEfficiency: efficiencies[0],
    medianEfficiency: efficiencies[Math.floor(efficiencies.length / 2)],
  };
}

/** `0.93 / 0.97`, or `-` when no host had two requests. */
export function formatEfficiency(summary: PacingSummary): string {
  if (summary.worstEfficiency === undefined) return '-';
  return `${summary.worstEfficiency.toFixed(2)} / ${(summary.medianEfficiency ?? 0).toFixed(2)}`;
}
