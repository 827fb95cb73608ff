/**
 * How many cases a property test runs: small by default so `npm test` stays fast, scaled up by
 * `npm run fuzz` (FUZZ_RUNS=<n>, the number for a property whose default is 100).
 */
export function fuzzRuns(defaultRuns: number): number {
  const requested = Number(process.env.FUZZ_RUNS);
  if (!Number.isFinite(requested) || requested <= 0) return defaultRuns;
  return Math.max(defaultRuns, Math.round((requested * defaultRuns) / 100));
}
