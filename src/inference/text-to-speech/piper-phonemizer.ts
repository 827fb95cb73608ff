/**
 * Piper's text front end: sentence → espeak-ng IPA → phoneme ids for one voice. It runs in its
 * own worker (phonemizer-worker.ts) so the next sentence is phonemised while ORT synthesises
 * the current one (espeak-ng in WASM is cheap per sentence but slow to load: espeak-ng-wasm.ts).
 */
import { readFile } from 'node:fs/promises';
import { espeakPhonemes } from './espeak-phonemes.js';
import { parsePiperVoiceConfig, type PiperVoiceConfig } from './piper-voice-config.js';
import { phonemeIds } from './piper-phoneme-ids.js';
import { splitPhonemes } from './phoneme-pieces.js';

/** Varied enough (numbers, abbreviations, names, clause marks) to take espeak's code paths hot. */
const WARM_UP = [
  'Warm up the phonemizer, once or twice. Thank you!',
  'On 12 May 2024 at 7:30 pm, Dr. Smith paid $1,250.75 for 3.5 kg of apples; was it 25% more?',
  "I'm sure the U.S. team's coach, Mr. O'Neill, didn't say: \"Let's go\" — or did he?",
  'Quickly, the brave young explorers journeyed through the misty mountains and frozen valleys.',
];
const WARM_UP_ROUNDS = 6;

export class PiperPhonemizer {
  readonly #config: PiperVoiceConfig;

  constructor(config: PiperVoiceConfig) {
    this.#config = config;
  }

  static async load(configPath: string): Promise<PiperPhonemizer> {
    const config = parsePiperVoiceConfig(JSON.parse(await readFile(configPath, 'utf8')), configPath);
    const phonemizer = new PiperPhonemizer(config);
    // espeak's first calls are several times slower (WASM tier-up), and an unsupported espeak
    // voice is rejected here: pay both at load time, not on a request.
    for (let i = 0; i < WARM_UP_ROUNDS; i++) for (const text of WARM_UP) await phonemizer.ids(text);
    return phonemizer;
  }

  /** Phoneme ids for one sentence; just BOS, pad and EOS when there is nothing to say. */
  async ids(sentence: string): Promise<number[]> {
    return phonemeIds(await espeakPhonemes(sentence, this.#config.espeakVoice), this.#config.phonemeIdMap);
  }

  /** One sentence as the ids of pieces of at most `limit` phonemes each (phoneme-pieces.ts). */
  async pieces(sentence: string, limit: number): Promise<number[][]> {
    const phonemes = await espeakPhonemes(sentence, this.#config.espeakVoice);
    return splitPhonemes(phonemes, limit).map((piece) => phonemeIds(piece, this.#config.phonemeIdMap));
  }
}
