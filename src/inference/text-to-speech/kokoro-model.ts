/**
 * Kokoro-82M (StyleTTS 2 with an iSTFTNet vocoder) on onnxruntime-node, as exported to the hub
 * repo onnx-community/Kokoro-82M-v1.0-ONNX: phoneme ids + one style row of the voice + speed →
 * 24 kHz samples. Runs inside the synthesis worker; the ids come from the phonemizer worker
 * (kokoro-phonemizer.ts), and `synthesize(text)` phonemises itself (tests, scripts).
 *
 * Model I/O, what transformers.js's StyleTextToSpeech2Model and kokoro-js feed and read:
 * `input_ids` int64 [1, T] (phoneme ids between two pads), `style` float32 [1, 256], `speed`
 * float32 [1] → `waveform` float32 (any shape, read flat).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { DTYPE_SUFFIX, type Dtype } from '../dtype.js';
import { threadSessionOptions } from '../ort-threads.js';
import { KokoroPhonemizer } from './kokoro-phonemizer.js';
import { chunkPhonemeIds, KokoroTokenizer, styleRow } from './kokoro-tokenizer.js';
import { KokoroVoices } from './kokoro-voices.js';
import type { SentenceSynthesizer } from './sentence-synthesizer.js';
import { concatSamples } from '../../audio/concat-samples.js';
import { peakOf } from './piece-join.js';

const KOKORO_SAMPLE_RATE = 24_000;
const STYLE_WIDTH = 256;
const INPUTS = ['input_ids', 'style', 'speed'];

export interface KokoroModelOptions {
  modelDir: string;
  dtype: Dtype;
  threads?: number;
  /** Load espeak too, so `synthesize(text)` works; off in the synthesis worker. Defaults to true. */
  phonemize?: boolean;
}

export class KokoroModel implements SentenceSynthesizer {
  readonly sampleRate = KOKORO_SAMPLE_RATE;
  readonly #session: ort.InferenceSession;
  readonly #modelDir: string;
  readonly #voices: KokoroVoices;
  readonly #breaks: { clause: ReadonlySet<number>; word: ReadonlySet<number> };
  readonly #phonemizer: KokoroPhonemizer | undefined;
  readonly #styles = new Map<string, Promise<Float32Array>>();

  private constructor(
    session: ort.InferenceSession,
    modelDir: string,
    tokenizer: KokoroTokenizer,
    voices: KokoroVoices,
    phonemizer: KokoroPhonemizer | undefined,
  ) {
    this.#session = session;
    this.#modelDir = modelDir;
    this.#voices = voices;
    this.#phonemizer = phonemizer;
    const ids = (symbols: string) => new Set([...symbols].flatMap((symbol) => tokenizer.id(symbol) ?? []));
    this.#breaks = { clause: ids(';:,.!?—…'), word: ids(' ') };
  }

  static async load(options: KokoroModelOptions): Promise<KokoroModel> {
    const { modelDir } = options;
    const onnxFile = join(modelDir, 'onnx', `model${DTYPE_SUFFIX[options.dtype]}.onnx`);
    const tokenizerPath = join(modelDir, 'tokenizer.json');
    const tokenizer = KokoroTokenizer.parse(JSON.parse(await readFile(tokenizerPath, 'utf8')), tokenizerPath);
    const voices = await KokoroVoices.read(modelDir);
    if (voices.speakable.length === 0) throw new Error(`${modelDir} has no voice this server can speak (voices/*.bin)`);
    // Idle ORT threads sleep: spinning ones take cores from other work (PiperOptions.spinning says when
    // Piper gains from it); nobody measured Kokoro either way yet.
    // No arena, as Piper's default (PiperOptions.memoryArena): a run's buffers grow with its audio and are given back after it.
    const session = await ort.InferenceSession.create(onnxFile, {
      ...threadSessionOptions({ threads: options.threads, spinning: false }),
      enableCpuMemArena: false,
    });
    const missing = INPUTS.filter((name) => !session.inputNames.includes(name));
    if (missing.length > 0) {
      await session.release();
      throw new Error(`${onnxFile} is not a Kokoro export: no ${missing.map((name) => `"${name}"`).join(', ')} input`);
    }
    const phonemizer = options.phonemize === false ? undefined : await KokoroPhonemizer.load(modelDir);
    return new KokoroModel(session, modelDir, tokenizer, voices, phonemizer);
  }

  checkOptions(options: { speed?: number; voice?: string }): void {
    this.#voices.resolve(options.voice);
  }

  async synthesize(sentence: string, options: { speed?: number; voice?: string } = {}): Promise<Float32Array> {
    if (!this.#phonemizer) throw new Error('this KokoroModel was loaded without a phonemizer; pass phoneme ids');
    return this.synthesizeIds(await this.#phonemizer.ids(sentence, options.voice), options);
  }

  /** One sentence's padded ids; runs longer than the model's context are synthesised in parts and joined. */
  async synthesizeIds(ids: readonly number[], options: { speed?: number; voice?: string } = {}): Promise<Float32Array> {
    const voice = await this.#style(this.#voices.resolve(options.voice).name);
    // Only the two pads: nothing speakable (e.g. punctuation only).
    if (ids.length <= 2) return new Float32Array(0);
    const parts: Float32Array[] = [];
    for (const chunk of chunkPhonemeIds(ids, this.#breaks)) {
      const feeds = {
        input_ids: new ort.Tensor('int64', BigInt64Array.from(chunk, BigInt), [1, chunk.length]),
        style: new ort.Tensor('float32', Float32Array.from(styleRow(voice, chunk.length - 2, STYLE_WIDTH)), [1, STYLE_WIDTH]),
        speed: new ort.Tensor('float32', Float32Array.of(options.speed ?? 1), [1]),
      };
      const outputName = this.#session.outputNames.includes('waveform') ? 'waveform' : (this.#session.outputNames[0] as string);
      const result = await this.#session.run(feeds, [outputName]);
      parts.push((result[outputName] as ort.Tensor).data as Float32Array);
    }
    // A copy (not ORT's buffer), so the caller may transfer it to another thread.
    return limitPeak(concatSamples(parts));
  }

  async dispose(): Promise<void> {
    await this.#session.release();
  }

  /** A voice file's rows (510 × 256 float32, little-endian), read once. */
  #style(name: string): Promise<Float32Array> {
    let style = this.#styles.get(name);
    if (!style) {
      style = readFile(join(this.#modelDir, 'voices', `${name}.bin`)).then((bytes) => {
        if (bytes.length === 0 || bytes.length % (STYLE_WIDTH * 4) !== 0) throw new Error(`voices/${name}.bin is not rows of ${STYLE_WIDTH} float32`);
        return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
      });
      style.catch(() => this.#styles.delete(name));
      this.#styles.set(name, style);
    }
    return style;
  }
}

/**
 * Scales a sentence down if it peaks over full scale (never up: unlike Piper's VITS voices, Kokoro's
 * levels are kept as kokoro-js plays them), so encoders do not clip.
 */
function limitPeak(samples: Float32Array): Float32Array {
  const peak = peakOf(samples);
  if (!(peak > 1)) return samples;
  const gain = 1 / peak;
  for (let i = 0; i < samples.length; i++) samples[i] = (samples[i] as number) * gain;
  return samples;
}
