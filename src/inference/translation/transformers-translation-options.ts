/** Manifest options of the `transformers-translation` engine, checked once at load. */
import { DTYPES, isDtype, type Dtype } from '../dtype.js';
import type { ManifestEntry } from '../manifest.js';

export type TranslationFamily = 'marian' | 'nllb' | 'm2m100';


export interface TranslationEngineOptions {
  family: TranslationFamily;
  dtype: Dtype;
  /** Marian pairs only. */
  source?: string;
  target?: string;
  batchSize: number;
  maxUnitChars: number;
  threads?: number;
}

export class TranslationOptionError extends Error {
  override name = 'TranslationOptionError';
}

export function translationOptions(entry: ManifestEntry): TranslationEngineOptions {
  const options = entry.options ?? {};
  const where = `models.json "${entry.id}": options`;
  const family = options.family;
  if (family !== 'marian' && family !== 'nllb' && family !== 'm2m100') {
    throw new TranslationOptionError(`${where}.family must be "marian", "nllb" or "m2m100"`);
  }
  const count = (name: string, fallback: number | undefined): number | undefined => {
    const value = options[name] ?? fallback;
    if (value !== undefined && (!Number.isInteger(value) || (value as number) < 1)) {
      throw new TranslationOptionError(`${where}.${name} must be a positive integer`);
    }
    return value as number | undefined;
  };
  const dtype = options.dtype ?? 'fp32';
  if (!isDtype(dtype)) {
    throw new TranslationOptionError(`${where}.dtype must be one of ${DTYPES.join(', ')}`);
  }
  const result: TranslationEngineOptions = {
    family,
    dtype,
    batchSize: count('batchSize', 8) as number,
    maxUnitChars: count('maxUnitChars', 400) as number,
  };
  const threads = count('threads', undefined);
  if (threads !== undefined) result.threads = threads;
  if (family === 'marian') {
    for (const name of ['source', 'target'] as const) {
      const value = options[name];
      if (typeof value !== 'string' || !/^[a-z]{2,3}(-[a-z0-9]+)*$/.test(value)) {
        throw new TranslationOptionError(`${where}.${name} must be a short language code for a Marian pair`);
      }
      result[name] = value;
    }
  }
  return result;
}
