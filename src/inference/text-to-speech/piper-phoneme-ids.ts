/**
 * Phonemes → model input ids exactly as Piper does it: BOS `^`, then each phoneme (a Unicode
 * code point after NFD) followed by the pad `_`, then EOS `$`:
 * `^ _ p1 _ p2 _ … pn _ $`. Phonemes missing from the voice's map are skipped, like Piper.
 */

export const BOS = '^';
export const EOS = '$';
export const PAD = '_';

export function phonemeIds(phonemes: string, idMap: ReadonlyMap<string, readonly number[]>): number[] {
  const pad = idMap.get(PAD) ?? [];
  const ids: number[] = [...(idMap.get(BOS) ?? []), ...pad];
  for (const phoneme of phonemes.normalize('NFD')) {
    const mapped = idMap.get(phoneme);
    if (!mapped) continue;
    ids.push(...mapped, ...pad);
  }
  ids.push(...(idMap.get(EOS) ?? []));
  return ids;
}
