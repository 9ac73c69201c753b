/**
 * Rates of several clients measured side by side in one run: each is warmed once (robots.txt fetched,
 * sockets and the JIT warm), then run for `rounds` rounds in an order rotated every round, so that
 * none always runs first while the machine's load drifts. `run` returns how many operations it did.
 */
export async function rotatedRates<K extends string, C>(
  clients: Record<K, C>,
  run: (client: C) => Promise<number>,
  rounds: number,
): Promise<Record<K, number[]>> {
  const names = Object.keys(clients) as K[];
  for (const name of names) await run(clients[name]);
  const rates = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<K, number[]>;
  for (let round = 0; round < rounds; round++) {
    for (let offset = 0; offset < names.length; offset++) {
      const name = names[(round + offset) % names.length] as K;
      const started = performance.now();
      const count = await run(clients[name]);
      rates[name].push(count / ((performance.now() - started) / 1000));
    }
  }
  return rates;
}
