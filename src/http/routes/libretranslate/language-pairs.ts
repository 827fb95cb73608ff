/**
 * Which installed translation model serves a language pair, for the LibreTranslate API: the
 * first model in the preference list (LIBRETRANSLATE_MODELS), then in manifest order, whose
 * source and target languages include the pair. Only installed models count, so an answer never
 * points a client at a model it cannot use.
 */
import { ValidationError } from '../../../errors.js';
import type { ModelInfo } from '../../../inference/model-registry.js';
import type { Models } from '../../scoped-models.js';
import type { Translator } from '../../../inference/types.js';

const LANGUAGE_NAMES = new Intl.DisplayNames(['en'], { type: 'language' });

interface PairModel {
  id: string;
  sources: readonly string[];
  targets: readonly string[];
}

export class LanguagePairs {
  readonly #models: Models;
  readonly #preferred: readonly string[];

  constructor(models: Models, preferred: readonly string[]) {
    this.#models = models;
    this.#preferred = preferred;
  }

  /** LibreTranslate's `/languages`: every source language with the targets reachable from it. */
  async languages(): Promise<{ code: string; name: string; targets: string[] }[]> {
    const targets = new Map<string, Set<string>>();
    for (const model of await this.#installed()) {
      for (const source of model.sources) {
        const set = targets.get(source) ?? new Set();
        for (const target of model.targets) if (target !== source) set.add(target);
        targets.set(source, set);
      }
    }
    return [...targets].sort(([a], [b]) => a.localeCompare(b)).map(([code, set]) => ({ code, name: languageName(code), targets: [...set].sort() }));
  }

  async translator(source: string, target: string): Promise<Translator> {
    const installed = await this.#installed();
    const model = installed.find((candidate) => candidate.sources.includes(source) && candidate.targets.includes(target));
    if (!model) {
      const known = new Set(installed.flatMap((candidate) => [...candidate.sources, ...candidate.targets]));
      // LibreTranslate's wording for an unknown language; ours names what is installed.
      if (!known.has(source)) throw new ValidationError(`${source} is not supported (installed languages: ${[...known].sort().join(', ') || 'none'})`);
      if (!known.has(target)) throw new ValidationError(`${target} is not supported (installed languages: ${[...known].sort().join(', ')})`);
      throw new ValidationError(`${languageName(target)} (${target}) is not available as a target language from ${languageName(source)} (${source})`);
    }
    return this.#models.get(model.id, 'translation');
  }

  async #installed(): Promise<PairModel[]> {
    const rank = (id: string) => (this.#preferred.includes(id) ? this.#preferred.indexOf(id) : this.#preferred.length);
    return (await this.#models.list())
      .filter((info) => info.task === 'translation' && info.installed)
      .map((info, order) => ({ info, order }))
      .sort((a, b) => rank(a.info.id) - rank(b.info.id) || a.order - b.order)
      .map(({ info }) => ({ id: info.id, sources: codes(info, 'source_languages'), targets: codes(info, 'target_languages') }));
  }
}

function codes(info: ModelInfo, field: 'source_languages' | 'target_languages'): string[] {
  const value = info[field];
  return Array.isArray(value) ? value.filter((code): code is string => typeof code === 'string') : [];
}

function languageName(code: string): string {
  try {
    return LANGUAGE_NAMES.of(code) ?? code;
  } catch {
    return code;
  }
}
