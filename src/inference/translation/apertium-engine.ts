/**
 * The `apertium` engine: rule-based translation with language pairs installed from Debian
 * (`apt-get install apertium apertium-eng-spa`), no model download. Manifest options:
 * `{ pair: "eng-spa", source: "en", target: "es" }`, optionally `package` (the Debian package,
 * default `apertium-<pair>`), `modesDir` (default /usr/share/apertium/modes), `markUnknown`
 * and `timeoutMs`.
 *
 * Apertium marks unknown (`*`), untranslatable (`@`) and ungeneratable (`#`) words. By default the
 * generator drops those marks, as `apertium -u` does, so every `*`, `@` or `#` in a translation is
 * the client's own text. `markUnknown: true` keeps the marks; they then cannot be told apart from
 * the same characters typed by the client.
 */
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { defineEngine } from '../engine.js';
import type { Translator } from '../types.js';
import { ApertiumOptions, debianPackage } from './apertium-options.js';
import { readModeFile } from './apertium-mode.js';
import { ApertiumPipeline } from './apertium-pipeline.js';
import { ApertiumTranslator } from './apertium-translator.js';

function modeFile(options: ApertiumOptions): string {
  return join(options.modesDir, `${options.pair}.mode`);
}

export const apertiumEngine = defineEngine({
  tasks: ['translation'],
  options: ApertiumOptions,

  async isInstalled(_entry, _context, options) {
    try {
      await access(modeFile(options));
      return true;
    } catch {
      return false;
    }
  },

  installCommand: (_entry, options) => `apt-get install apertium ${debianPackage(options)}`,

  // Debian's packages, not a model folder.
  filesDir: () => undefined,

  async load(entry, _context, options): Promise<Translator> {
    const commands = await readModeFile(modeFile(options), { markUnknown: options.markUnknown });
    const pipeline = new ApertiumPipeline({
      commands,
      name: options.pair,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    });
    const { source, target } = languages(options);
    const translator = new ApertiumTranslator({ modelId: entry.id, pipeline, source, target });
    // Start the processes now, so the first request does not pay for loading the pair's data.
    try {
      await translator.translate('Hello.', { targetLanguage: target });
    } catch (error) {
      await translator.dispose();
      throw error;
    }
    return translator;
  },

  describe(_entry, options) {
    const { source, target } = languages(options);
    return { pair: options.pair, source_languages: [source], target_languages: [target] };
  },
});

function languages(options: ApertiumOptions): { source: string; target: string } {
  return { source: options.source.toLowerCase(), target: options.target.toLowerCase() };
}
