/**
 * "Did you mean ...?" for mistyped names (options, CLI flags): the closest known name by edit distance,
 * when it is close enough to be a plausible typo.
 */

/** Levenshtein distance, case-insensitive (a wrong case is a typo too). */
function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const current = [i];
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[y.length] ?? 0;
}

/**
 * The known name closest to `input`, or undefined when none is close: at most a third of the longer
 * name's letters may differ, or `input` is a prefix of exactly one known name (`minDelay` -> `minDelayMs`).
 */
export function closestName(input: string, known: Iterable<string>): string | undefined {
  const names = [...known];
  const lower = input.toLowerCase();
  const prefixed = names.filter((name) => lower.length >= 3 && name.toLowerCase().startsWith(lower));
  if (prefixed.length === 1) return prefixed[0];
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const name of names) {
    const d = distance(input, name);
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  if (best === undefined) return undefined;
  return bestDistance <= Math.max(1, Math.floor(Math.max(input.length, best.length) / 3)) ? best : undefined;
}
