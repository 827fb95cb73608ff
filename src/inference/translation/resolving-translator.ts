/**
 * Gives a translator's `translate()` the client's language codes as sent: `es-MX`, `spa` or
 * `ES` reach the model as its own `es`, and a code it does not support is a 400 listing those it
 * does. Engines keep working in their own codes; the registry wraps every translator it loads.
 */
import { ValidationError } from '../../errors.js';
import type { Translator } from '../types.js';
import { resolveLanguage } from './language-codes.js';

export function resolvingTranslator(translator: Translator, modelId: string): Translator {
  const sources = translator.sourceLanguages ?? translator.targetLanguages;
  return {
    targetLanguages: translator.targetLanguages,
    ...(translator.sourceLanguages ? { sourceLanguages: translator.sourceLanguages } : {}),
    async translate(text, options) {
      const targetLanguage = supported(translator.targetLanguages, options.targetLanguage, 'target_language', modelId);
      const sourceLanguage = options.sourceLanguage === undefined ? undefined : supported(sources, options.sourceLanguage, 'source_language', modelId);
      return translator.translate(text, { targetLanguage, ...(sourceLanguage ? { sourceLanguage } : {}), signal: options.signal });
    },
    dispose: () => translator.dispose(),
  };
}

/** The model's own code for `code`, or a 400 naming the request field and what the model supports. */
function supported(languages: readonly string[], code: string, field: string, modelId: string): string {
  const language = resolveLanguage(code, languages);
  if (language === undefined) {
    throw new ValidationError(`"${field}" ${code} is not supported by ${modelId}; supported: ${languages.join(', ')}`);
  }
  return language;
}
