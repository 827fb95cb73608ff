/**
 * The ids nearest a mistyped one, for a "did you mean" hint: first the ids that contain it or that
 * it contains (`whisper-large` → `whisper-large-v3`), shortest first, then those within a few edits
 * (Levenshtein distance), nearest first. The catalogue holds a few hundred ids, so every one is
 * scored.
 */
export function closeMatches(query: string, candidates: readonly string[], limit = 5): string[] {
  const wanted = query.toLowerCase();
  // A third of the id's length: a typo or two in a short id, a wrong size or variant in a long one.
  const maxEdits = Math.max(2, Math.floor(wanted.length / 3));
  return candidates
    .map((id) => {
      const lower = id.toLowerCase();
      return { id, contains: lower.includes(wanted) || wanted.includes(lower), edits: editDistance(wanted, lower) };
    })
    .filter((match) => match.contains || match.edits <= maxEdits)
    .sort((a, b) => Number(b.contains) - Number(a.contains) || a.edits - b.edits || a.id.localeCompare(b.id))
    .slice(0, limit)
    .map((match) => match.id);
}

/** Insertions, deletions and substitutions that turn `a` into `b` (two rows of the usual table). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
