/** Every operation reads and writes one environment's rows only: the one the caller's API key belongs to. */
export function inEnvironment<Row extends { _environmentId: string }>(
  rows: readonly Row[],
  environmentId: string,
): Row[] {
  return rows.filter((row) => row._environmentId === environmentId);
}
