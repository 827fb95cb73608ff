/**
 * One Piper voice: espeak-ng phonemes → ids → VITS on onnxruntime-node → Float32 samples.
 * Runs inside the synthesis worker (ORT's run blocks its JS thread), where the phoneme ids come
 * from the phonemizer worker; `synthesize(text)` phonemises itself (tests, scripts).
 *
 * Model I/O (Piper's export): `input` int64 [1, T], `input_lengths` int64 [1],
 * `scales` float32 [3] = [noise_scale, length_scale, noise_w], optional `sid` int64 [1]
 * → `output` float32 [1, 1, 1, S] (or [1, S]); any shape is read as a flat sample array.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { ValidationError } from '../../errors.js';
import { threadSessionOptions } from '../ort-threads.js';
import { findOnnx } from './find-onnx.js';
import { PiperPhonemizer } from './piper-phonemizer.js';
import { SentenceLevel } from './piece-join.js';
import { parsePiperVoiceConfig, type PiperVoiceConfig } from './piper-voice-config.js';
import type { SentenceSynthesizer } from './sentence-synthesizer.js';
import { DEFAULT_PIPER_SPINNING } from './tts-options.js';

interface PiperVoiceOptions {
  /**
   * Load espeak too, so `synthesize(text)` works. Off in the synthesis worker, which gets ids
   * from the phonemizer worker. Defaults to true.
   */
  phonemize?: boolean;
  /** File name of the .onnx inside the model folder; defaults to the only *.onnx there. */
  onnxFile?: string;
  /** ORT intra-op threads; ORT's default when absent. */
  threads?: number;
  /**
   * Scale each synthesised sentence to full scale, as Piper does. Off in the synthesis worker:
   * WorkerSynthesizer scales there, so the pieces of a sentence cut in two share one gain
   * (piece-join.ts). Defaults to true.
   */
  normalize?: boolean;
  /** Idle ORT threads spin between operators: true, false, or at most this many µs (default DEFAULT_PIPER_SPINNING; see PiperOptions.spinning). */
  spinning?: boolean | number;
  /**
   * onnxruntime's CPU memory arena; off by default: the arena keeps the largest run's buffers for
   * the life of the session, and a run's buffers grow with its audio, so a long piece would stay
   * held after its request. Without it they go back to malloc (jemalloc under `npm start` returns
   * them to the system within a second). PiperOptions.memoryArena; docs/benchmarks.md ("Text to speech").
   */
  memoryArena?: boolean;
}

export class PiperVoice implements SentenceSynthesizer {
  readonly #session: ort.InferenceSession;
  readonly config: PiperVoiceConfig;
  readonly #hasSpeakerInput: boolean;
  readonly #phonemizer: PiperPhonemizer | undefined;
  readonly #normalize: boolean;

  private constructor(session: ort.InferenceSession, config: PiperVoiceConfig, phonemizer: PiperPhonemizer | undefined, normalize: boolean) {
    this.#session = session;
    this.#normalize = normalize;
    this.config = config;
    this.#phonemizer = phonemizer;
    this.#hasSpeakerInput = session.inputNames.includes('sid');
  }

  static async load(modelDir: string, options: PiperVoiceOptions = {}): Promise<PiperVoice> {
    const onnxFile = options.onnxFile ?? (await findOnnx(modelDir));
    const configPath = join(modelDir, `${onnxFile}.json`);
    const config = parsePiperVoiceConfig(JSON.parse(await readFile(configPath, 'utf8')), configPath);
    const session = await ort.InferenceSession.create(join(modelDir, onnxFile), {
      // ORT's default thread count (the piper CLI's too) was faster than explicit settings. The
      // threads spin as the manifest's `spinning` says (PiperOptions.spinning says why). Not
      // stopped after each run: that cost as much as not spinning, and ORT's own spin ends by
      // itself shortly after the last sentence (docs/benchmarks.md, "Text to speech").
      ...threadSessionOptions({ threads: options.threads, spinning: options.spinning ?? DEFAULT_PIPER_SPINNING }),
      enableCpuMemArena: options.memoryArena ?? false,
    });
    for (const name of ['input', 'input_lengths', 'scales']) {
      if (!session.inputNames.includes(name)) throw new Error(`${onnxFile} is not a Piper voice: no "${name}" input`);
    }
    const phonemizer = options.phonemize === false ? undefined : await PiperPhonemizer.load(configPath);
    return new PiperVoice(session, config, phonemizer, options.normalize ?? true);
  }

  get sampleRate(): number {
    return this.config.sampleRate;
  }

  /** The speaker id for `voice`, or 0; single-speaker voices accept (and ignore) any name. */
  checkOptions(options: { voice?: string }): void {
    this.speakerId(options.voice);
  }

  speakerId(voice: string | undefined): number {
    const { speakers } = this.config;
    if (voice === undefined || speakers.size === 0) return 0;
    const id = speakers.get(voice);
    if (id === undefined) {
      throw new ValidationError(`"voice" must be one of: ${[...speakers.keys()].join(', ')}`, 'voice');
    }
    return id;
  }

  /** Synthesises one sentence. `speed` 2 is twice as fast (Piper's length_scale / speed). */
  async synthesize(sentence: string, options: { speed?: number; voice?: string } = {}): Promise<Float32Array> {
    if (!this.#phonemizer) throw new Error('this PiperVoice was loaded without a phonemizer; pass phoneme ids');
    this.speakerId(options.voice);
    return this.synthesizeIds(await this.#phonemizer.ids(sentence), options);
  }

  /** Synthesises one sentence given as phoneme ids (from PiperPhonemizer). */
  async synthesizeIds(ids: readonly number[], options: { speed?: number; voice?: string } = {}): Promise<Float32Array> {
    const speaker = this.speakerId(options.voice);
    // Only BOS, pad and EOS: nothing speakable (e.g. punctuation only).
    if (ids.length <= 3) return new Float32Array(0);
    const { noiseScale, lengthScale, noiseW } = this.config;
    const feeds: Record<string, ort.Tensor> = {
      input: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, ids.length]),
      input_lengths: new ort.Tensor('int64', BigInt64Array.of(BigInt(ids.length)), [1]),
      scales: new ort.Tensor('float32', Float32Array.of(noiseScale, lengthScale / (options.speed ?? 1), noiseW), [3]),
    };
    if (this.#hasSpeakerInput) feeds.sid = new ort.Tensor('int64', BigInt64Array.of(BigInt(speaker)), [1]);
    const outputName = this.#session.outputNames[0] as string;
    const result = await this.#session.run(feeds);
    const output = result[outputName] as ort.Tensor;
    // A copy (not ORT's buffer), so the caller may transfer it to another thread.
    const samples = Float32Array.from(output.data as Float32Array);
    return this.#normalize ? new SentenceLevel().apply(samples, false) : samples;
  }

  async dispose(): Promise<void> {
    await this.#session.release();
  }
}
