/** Reads a FLORES-style TSV of translation pairs (header `source<TAB>reference`). */
import { readFile } from 'node:fs/promises';

export interface TranslationPair {
  source: string;
  reference: string;
}

export async function readPairs(path: string): Promise<TranslationPair[]> {
  const [header, ...lines] = (await readFile(path, 'utf8')).split('\n').filter((line) => line.trim() !== '');
  if (header !== 'source\treference') throw new Error(`${path}: expected a "source<TAB>reference" header`);
  return lines.map((line) => {
    const [source = '', reference = ''] = line.split('\t');
    return { source, reference };
  });
}
