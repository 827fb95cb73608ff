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
import type { Engine } from '../engine.js';
import type { ManifestEntry } from '../manifest.js';
import type { Translator } from '../types.js';
import { readModeFile } from './apertium-mode.js';
import { ApertiumPipeline } from './apertium-pipeline.js';
import { ApertiumTranslator } from './apertium-translator.js';

export const DEFAULT_MODES_DIR = '/usr/share/apertium/modes';

interface ApertiumOptions {
  pair: string;
  package: string;
  source: string;
  target: string;
  modesDir: string;
  markUnknown: boolean;
  timeoutMs?: number;
}

export class ApertiumOptionError extends Error {
  override name = 'ApertiumOptionError';
}

export function apertiumOptions(entry: ManifestEntry): ApertiumOptions {
  const options = entry.options ?? {};
  const text = (name: string, fallback?: string): string => {
    const value = options[name] ?? fallback;
    if (typeof value !== 'string' || !/^[A-Za-z0-9_@.-]+$/.test(value)) {
      throw new ApertiumOptionError(`models.json "${entry.id}": options.${name} must be a code such as "eng-spa"`);
    }
    return value;
  };
  const modesDir = options.modesDir ?? DEFAULT_MODES_DIR;
  if (typeof modesDir !== 'string') throw new ApertiumOptionError(`models.json "${entry.id}": options.modesDir must be a path`);
  const timeoutMs = options.timeoutMs;
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || timeoutMs <= 0)) {
    throw new ApertiumOptionError(`models.json "${entry.id}": options.timeoutMs must be a positive number`);
  }
  const pair = text('pair');
  return {
    pair,
    package: text('package', `apertium-${pair.replace(/_.*$/, '')}`),
    source: text('source').toLowerCase(),
    target: text('target').toLowerCase(),
    modesDir,
    markUnknown: options.markUnknown === true,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
  };
}

function modeFile(options: ApertiumOptions): string {
  return join(options.modesDir, `${options.pair}.mode`);
}

export const apertiumEngine: Engine<'translation'> = {
  tasks: ['translation'],

  async isInstalled(entry) {
    try {
      await access(modeFile(apertiumOptions(entry)));
      return true;
    } catch {
      return false;
    }
  },

  installCommand(entry) {
    let debianPackage: string;
    try {
      debianPackage = apertiumOptions(entry).package;
    } catch {
      debianPackage = entry.id;
    }
    return `apt-get install apertium ${debianPackage}`;
  },

  async load(entry): Promise<Translator> {
    const options = apertiumOptions(entry);
    const commands = await readModeFile(modeFile(options), { markUnknown: options.markUnknown });
    const pipeline = new ApertiumPipeline({
      commands,
      name: options.pair,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    });
    const translator = new ApertiumTranslator({ modelId: entry.id, pipeline, source: options.source, target: options.target });
    // Start the processes now, so the first request does not pay for loading the pair's data.
    try {
      await translator.translate('Hello.', { targetLanguage: options.target });
    } catch (error) {
      await translator.dispose();
      throw error;
    }
    return translator;
  },

  describe(entry) {
    try {
      const { pair, source, target } = apertiumOptions(entry);
      return { pair, source_languages: [source], target_languages: [target] };
    } catch {
      return {};
    }
  },
};
