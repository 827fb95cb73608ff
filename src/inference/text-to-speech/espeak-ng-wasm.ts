/**
 * espeak-ng's text → phonemes in real WebAssembly (@echogarden/espeak-ng-emscripten, GPL-3.0 like
 * espeak-ng): far faster per sentence than the wasm2js build in the npm `phonemizer` package it
 * replaced (docs/benchmarks.md, "Text to speech"). It calls espeak_TextToPhonemes, the function
 * Piper's own phonemizer calls, without synthesising audio.
 *
 * espeak-ng keeps global state, so there is one instance per thread, loaded on first use.
 */
// @ts-expect-error: the package ships no type declarations; the part we use is typed below.
import createEspeakModule from '@echogarden/espeak-ng-emscripten';

interface EspeakModule {
  HEAPU8: Uint8Array;
  FS: { readFile(path: string): Uint8Array; writeFile(path: string, data: Uint8Array): void };
  _free(pointer: number): void;
  eSpeakNGWorker: new () => EspeakWorker;
}

interface EspeakWorker {
  set_voice(name: string): number;
  /** A heap pointer to the clauses' phonemes joined with " | ", phonemes separated by "_". */
  text_to_phonemes(text: string, useIpa: 0 | 1): { ptr: number };
}

const DATA_DIR = '/usr/share/espeak-ng-data';

let loading: Promise<EspeakNg> | undefined;

/** The thread's espeak-ng; the first call loads it (a WASM compile and 24 MB of data). */
export function loadEspeakNg(): Promise<EspeakNg> {
  loading ??= (createEspeakModule as () => Promise<EspeakModule>)().then((module) => {
    showLinkingJ(module);
    return new EspeakNg(module);
  });
  return loading;
}

class EspeakNg {
  readonly #module: EspeakModule;
  readonly #worker: EspeakWorker;
  readonly #decoder = new TextDecoder();
  #voice: string | undefined;

  constructor(module: EspeakModule) {
    this.#module = module;
    this.#worker = new module.eSpeakNGWorker();
  }

  /**
   * The IPA of each clause espeak finds in `text` (its clause punctuation is not returned).
   * Throws for a voice espeak does not have.
   */
  clauses(text: string, voice: string): string[] {
    // The binding separates phonemes with "_" (never an IPA symbol), which Piper does not.
    return this.#clauses(text, voice).map((clause) => clause.replaceAll('_', '').trim());
  }

  /**
   * Each clause as words of phonemes, as espeak segments them: a diphthong or affricate ("aɪ",
   * "tʃ") is one phoneme, with any stress mark before it ("ˈaɪ"). Kokoro's symbols are per phoneme.
   */
  phonemes(text: string, voice: string): string[][][] {
    return this.#clauses(text, voice).map((clause) =>
      clause
        .split(' ')
        .map((word) => word.split('_').filter((phoneme) => phoneme !== ''))
        .filter((word) => word.length > 0),
    );
  }

  #clauses(text: string, voice: string): string[] {
    if (voice !== this.#voice) {
      if (this.#worker.set_voice(voice) !== 0) throw new Error(`espeak-ng has no voice "${voice}"`);
      this.#voice = voice;
    }
    const pointer = this.#worker.text_to_phonemes(text, 1).ptr;
    try {
      const heap = this.#module.HEAPU8;
      const ipa = this.#decoder.decode(heap.subarray(pointer, heap.indexOf(0, pointer)));
      // Like Piper, drop the language switch flags around foreign words, e.g. "(fr)".
      return ipa.split(' | ').map((clause) => clause.replace(/\([^)]+\)/g, ''));
    } finally {
      this.#module._free(pointer);
    }
  }
}

/**
 * Piper's espeak-ng writes the linking j that English puts between an i vowel and a following
 * vowel ("he is" → "hiːʲ ɪz"), and its voices were trained on that; this espeak-ng build's
 * phoneme table hides it after i vowels (`ipa NULL`). We rewrite that one instruction in the
 * compiled table, before espeak reads it, to name the phoneme "ʲ" as Piper's does.
 *
 * phontab: a table count, then per table a 36-byte header (phoneme count, …, name) and 16-byte
 * phonemes (mnemonic u32, flags u32, program u16, …); phonindex: the programs, u16 words. The
 * instruction `ipa NULL` is 0x0D01 0x2000 (IPA name, 1 byte: " "); `ipa ʲ` is 0x0D02 0xCAB2.
 */
function showLinkingJ(module: EspeakModule): void {
  const table = module.FS.readFile(`${DATA_DIR}/phontab`);
  const view = new DataView(table.buffer, table.byteOffset, table.byteLength);
  const names = new TextDecoder();
  let program: number | undefined;
  for (let index = 0, offset = 4; index < table[0]! && program === undefined; index++) {
    const count = table[offset]!;
    const name = names.decode(table.subarray(offset + 4, offset + 36)).replace(/\0.*$/s, '');
    offset += 36;
    for (let phoneme = 0; phoneme < count; phoneme++, offset += 16) {
      if (name === 'base1' && view.getUint32(offset, true) === ';'.charCodeAt(0)) program = view.getUint16(offset + 8, true);
    }
  }
  const index = module.FS.readFile(`${DATA_DIR}/phonindex`);
  const words = new DataView(index.buffer, index.byteOffset, index.byteLength);
  const at = (word: number) => words.getUint16(word * 2, true);
  // The program starts with the condition prevPh(#i) and then `ipa NULL`.
  if (program === undefined || at(program) !== 0x201f || at(program + 1) !== 0x0d01 || at(program + 2) !== 0x2000) {
    throw new Error('unexpected espeak-ng phoneme table: the linking j of @echogarden/espeak-ng-emscripten 0.3.5 was not found');
  }
  words.setUint16((program + 1) * 2, 0x0d02, true);
  words.setUint16((program + 2) * 2, 0xcab2, true);
  module.FS.writeFile(`${DATA_DIR}/phonindex`, index);
}
