/**
 * Kokoro's voices: each is a file `voices/<name>.bin` in the model folder, and the first letter
 * of its name is its language (hexgrad's kokoro: a = American English, b = British English, e, f,
 * h, i, p, j, z). The names clients may send are the installed voices that this server can give
 * phonemes for, plus OpenAI's voice names, each standing for an installed Kokoro voice.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ValidationError } from '../../errors.js';
import type { ManifestEntry } from '../manifest.js';
import { targetPath } from '../manifest.js';

export interface KokoroLanguage {
  /** The voice-name letter. */
  code: string;
  name: string;
  /** espeak-ng voice of this build that phonemises it; absent: no G2P here (Japanese, Chinese). */
  espeak?: string;
}

/**
 * espeak-ng names as the WASM build knows them: its British English is `en` and its French `fr`
 * (`en-gb` and `fr-fr`, the names kokoro's own pipeline passes to its espeak, do not load).
 */
const LANGUAGES: readonly KokoroLanguage[] = [
  { code: 'a', name: 'American English', espeak: 'en-us' },
  { code: 'b', name: 'British English', espeak: 'en' },
  { code: 'e', name: 'Spanish', espeak: 'es' },
  { code: 'f', name: 'French', espeak: 'fr' },
  { code: 'h', name: 'Hindi', espeak: 'hi' },
  { code: 'i', name: 'Italian', espeak: 'it' },
  { code: 'p', name: 'Brazilian Portuguese', espeak: 'pt-br' },
  // Kokoro speaks these through misaki's Japanese and Chinese G2P, which espeak does not replace.
  { code: 'j', name: 'Japanese' },
  { code: 'z', name: 'Mandarin Chinese' },
];

/**
 * OpenAI's voice names → Kokoro voices, in order of preference: Kokoro's namesake where it has
 * one (af_alloy, am_echo, bm_fable, af_nova, am_onyx), else our choice of an English voice (a
 * choice, not a match: OpenAI publishes no such mapping, and no voice was compared by ear). Every
 * name listed is a voice of Kokoro-82M v1.0. The first installed one is used; with none of them
 * installed, the default voice.
 */
export const OPENAI_VOICES: Readonly<Record<string, readonly string[]>> = Object.freeze({
  alloy: ['af_alloy', 'af_heart'],
  ash: ['am_adam', 'am_michael'],
  ballad: ['bm_george', 'bm_fable', 'am_michael'],
  coral: ['af_heart', 'af_bella'],
  echo: ['am_echo', 'am_michael'],
  fable: ['bm_fable', 'bm_george'],
  nova: ['af_nova', 'af_bella'],
  onyx: ['am_onyx', 'am_michael'],
  sage: ['af_sarah', 'af_heart'],
  shimmer: ['af_bella', 'af_sky'],
  verse: ['am_michael', 'am_adam'],
  marin: ['af_river', 'af_heart'],
  cedar: ['am_liam', 'am_michael'],
});

/** kokoro-js's default voice, used when the request names none. */
const DEFAULT_VOICE = 'af_heart';

const VOICE_FILE = /^voices\/([a-z]{2}_[A-Za-z0-9]+)\.bin$/;

export interface ResolvedVoice {
  /** The Kokoro voice (its file is voices/<name>.bin). */
  name: string;
  language: KokoroLanguage & { espeak: string };
}

export class KokoroVoices {
  /** Installed voices with a language this server phonemises, sorted. */
  readonly speakable: readonly string[];
  /** OpenAI name → the installed Kokoro voice it stands for. */
  readonly aliases: Readonly<Record<string, string>>;
  readonly #installed: ReadonlySet<string>;
  readonly #default: string | undefined;

  constructor(installed: Iterable<string>) {
    this.#installed = new Set(installed);
    this.speakable = [...this.#installed].filter((name) => languageOf(name)?.espeak).sort();
    this.#default = this.speakable.includes(DEFAULT_VOICE) ? DEFAULT_VOICE : (this.speakable.find((name) => name.startsWith('a')) ?? this.speakable[0]);
    const aliases: Record<string, string> = {};
    for (const [openAi, candidates] of Object.entries(OPENAI_VOICES)) {
      const target = candidates.find((name) => this.speakable.includes(name)) ?? this.#default;
      if (target) aliases[openAi] = target;
    }
    this.aliases = Object.freeze(aliases);
  }

  /** The voices of the folder's `voices/*.bin` files. */
  static async read(modelDir: string): Promise<KokoroVoices> {
    const files = await readdir(join(modelDir, 'voices')).catch(() => [] as string[]);
    return new KokoroVoices(files.flatMap((file) => VOICE_FILE.exec(`voices/${file}`)?.[1] ?? []));
  }

  /** The voices a manifest entry installs (its `voices/*.bin` source files), without reading the folder. */
  static of(entry: ManifestEntry): KokoroVoices {
    return new KokoroVoices((entry.source?.files ?? []).flatMap((file) => VOICE_FILE.exec(targetPath(file))?.[1] ?? []));
  }

  /** The Kokoro voice and language for a request's `voice` (absent: the default); a ValidationError (400) otherwise. */
  resolve(voice: string | undefined): ResolvedVoice {
    const name = voice === undefined ? this.#default : (this.aliases[voice] ?? voice);
    if (name === undefined) throw new Error('this Kokoro model has no voice this server can speak (voices/*.bin)');
    const language = languageOf(name);
    if (this.#installed.has(name) && language && !language.espeak) {
      throw new ValidationError(
        `voice "${name}" speaks ${language.name}, which needs a ${language.name} phonemizer (grapheme-to-phoneme) this server does not have; pick one of: ${this.speakable.join(', ')}`,
        'voice',
      );
    }
    if (!this.#installed.has(name) || !language?.espeak) {
      throw new ValidationError(`"voice" must be one of: ${[...this.speakable, ...Object.keys(this.aliases)].join(', ')}`, 'voice');
    }
    return { name, language: language as ResolvedVoice['language'] };
  }

  /** What GET /v1/models says of them. */
  describe(): { voices: string[]; voice_aliases: Record<string, string>; default_voice?: string } {
    return {
      voices: [...this.speakable, ...Object.keys(this.aliases)],
      voice_aliases: { ...this.aliases },
      ...(this.#default ? { default_voice: this.#default } : {}),
    };
  }
}

function languageOf(voice: string): KokoroLanguage | undefined {
  return LANGUAGES.find((language) => language.code === voice[0]);
}
