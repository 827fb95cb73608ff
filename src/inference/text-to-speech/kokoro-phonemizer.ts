/**
 * Kokoro's text front end: sentence → phonemes in the voice's language → ids of the model's
 * tokenizer.json. It runs in its own worker (phonemizer-worker.ts) beside the ORT one, as Piper's
 * does, so the next sentence is phonemised while the current one is synthesised.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { kokoroPhonemes } from './kokoro-phonemes.js';
import { KokoroTokenizer } from './kokoro-tokenizer.js';
import { splitPhonemes } from './phoneme-pieces.js';
import { KokoroVoices } from './kokoro-voices.js';

/** Varied enough to take espeak's code paths hot (as Piper's warm-up, piper-phonemizer.ts). */
const WARM_UP = [
  'Warm up the phonemizer, once or twice. Thank you!',
  'On 12 May 2024 at 7:30 pm, Dr. Smith paid $1,250.75 for 3.5 kg of apples; was it 25% more?',
];
const WARM_UP_ROUNDS = 3;

export class KokoroPhonemizer {
  readonly tokenizer: KokoroTokenizer;
  readonly voices: KokoroVoices;

  constructor(tokenizer: KokoroTokenizer, voices: KokoroVoices) {
    this.tokenizer = tokenizer;
    this.voices = voices;
  }

  static async load(modelDir: string): Promise<KokoroPhonemizer> {
    const path = join(modelDir, 'tokenizer.json');
    const tokenizer = KokoroTokenizer.parse(JSON.parse(await readFile(path, 'utf8')), path);
    const phonemizer = new KokoroPhonemizer(tokenizer, await KokoroVoices.read(modelDir));
    // espeak's first calls are slow (WASM tier-up): pay that at load, in the default voice's language.
    for (let i = 0; i < WARM_UP_ROUNDS; i++) for (const text of WARM_UP) await phonemizer.ids(text, undefined);
    return phonemizer;
  }

  /** Padded ids of one sentence in `voice`'s language; a ValidationError for a voice it cannot speak. */
  async ids(sentence: string, voice: string | undefined): Promise<number[]> {
    const { language } = this.voices.resolve(voice);
    return this.tokenizer.ids(await kokoroPhonemes(sentence, language));
  }

  /** One sentence as the padded ids of pieces of at most `limit` phonemes each (phoneme-pieces.ts). */
  async pieces(sentence: string, voice: string | undefined, limit: number): Promise<number[][]> {
    const { language } = this.voices.resolve(voice);
    return splitPhonemes(await kokoroPhonemes(sentence, language), limit).map((piece) => this.tokenizer.ids(piece));
  }
}
