/**
 * Silero VAD v6 on onnxruntime-node, in the graph faster-whisper 1.2.1 ships
 * (faster_whisper/assets/silero_vad_v6.onnx): `input` [frames, 64 + 512] float32 — each 32 ms
 * frame at 16 kHz preceded by the last 64 samples of the frame before it (zeros for the first) —
 * and the LSTM state `h`, `c` [1, 1, 128], which the graph runs across the frames in order and
 * returns as `hn`, `cn`; `speech_probs` has one probability per frame. The state is carried
 * from one batch to the next, so the batch size changes memory, not the result.
 *
 * Runs synchronously on the calling thread: use it inside a worker (the ASR worker, vad-worker.ts).
 */
import * as ort from 'onnxruntime-node';
import { floatReader, type PcmReader } from '../../../audio/pcm16-buffer.js';
import { speechChunksFromProbs, VAD_FRAME_SAMPLES, type SpeechChunk, type VadOptions } from './speech-timestamps.js';

const CONTEXT_SAMPLES = 64;
const STATE_SHAPE = [1, 1, 128] as const;
const STATE_SIZE = 128;
/** ~65 s of audio per call: 4.7 MB of input, however long the audio. */
const FRAMES_PER_BATCH = 2048;

/**
 * Scoring in blocks whose LSTM state starts afresh: each block of `blockFrames` frames is scored
 * after `warmUpFrames` frames of the audio before it (their probabilities are dropped).
 */
interface StateResets {
  blockFrames: number;
  warmUpFrames: number;
}

/**
 * What the transcription filter uses (vad-filter.ts): blocks of 10 s, each after 4 s of warm-up
 * (more VAD work, but the VAD is a small part of a transcription's). Carried over minutes, the
 * state learns the level of loud speech and then hears quiet speech as silence: quiet clips after
 * loud speech are missed whole with one continuous pass (faster-whisper's, whose regions ours
 * match exactly), and found alone or with a few seconds of the audio before them. With these
 * blocks every clip of the long-file bench is found, and white noise still has no speech
 * (docs/benchmarks.md, "Speech to text").
 */
export const TRANSCRIPTION_STATE_RESETS: StateResets = Object.freeze({ blockFrames: 313, warmUpFrames: 125 });

export class SileroVad {
  readonly #session: ort.InferenceSession;

  private constructor(session: ort.InferenceSession) {
    this.#session = session;
  }

  static async load(onnxFile: string): Promise<SileroVad> {
    // One thread and no arena, as faster-whisper runs it: the model is small and the Whisper
    // session next to it has the cores.
    const session = await ort.InferenceSession.create(onnxFile, {
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      enableCpuMemArena: false,
      graphOptimizationLevel: 'all',
    });
    for (const name of ['input', 'h', 'c']) {
      if (!session.inputNames.includes(name)) {
        throw new Error(`${onnxFile} is not faster-whisper's Silero VAD v6 graph: no "${name}" input (has ${session.inputNames.join(', ')})`);
      }
    }
    return new SileroVad(session);
  }

  /**
   * One speech probability per 512-sample frame of 16 kHz audio. Like faster-whisper, the audio
   * is padded with zeros to whole frames and always by at least one sample, so there are
   * ⌊length / 512⌋ + 1 frames. `framesPerBatch` frames go into each model call. One continuous
   * pass unless `resets` says otherwise.
   */
  async speechProbs(audio: Float32Array | PcmReader, signal?: AbortSignal, framesPerBatch = FRAMES_PER_BATCH, resets?: StateResets): Promise<Float32Array> {
    const source = audio instanceof Float32Array ? floatReader(audio) : audio;
    const frames = Math.floor(source.length / VAD_FRAME_SAMPLES) + 1;
    if (!resets) return this.#score(source, 0, frames, framesPerBatch, signal);
    const probs = new Float32Array(frames);
    for (let first = 0; first < frames; first += resets.blockFrames) {
      const warmUp = Math.min(first, resets.warmUpFrames);
      const block = await this.#score(source, first - warmUp, Math.min(frames, first + resets.blockFrames), framesPerBatch, signal);
      probs.set(block.subarray(warmUp), first);
    }
    return probs;
  }

  /** Speech regions of 16 kHz audio, in samples (faster-whisper's get_speech_timestamps). */
  async speechChunks(audio: Float32Array | PcmReader, options: VadOptions = {}, signal?: AbortSignal, resets?: StateResets): Promise<SpeechChunk[]> {
    return speechChunksFromProbs(await this.speechProbs(audio, signal, FRAMES_PER_BATCH, resets), audio.length, options);
  }

  /** The probabilities of frames [from, to) of `source`, scored in one pass from a fresh state. */
  async #score(source: PcmReader, from: number, to: number, framesPerBatch: number, signal?: AbortSignal): Promise<Float32Array> {
    const probs = new Float32Array(to - from);
    const score = this.openStream();
    for (let first = from; first < to; first += framesPerBatch) {
      signal?.throwIfAborted();
      const count = Math.min(framesPerBatch, to - first);
      let batch = source.read(first * VAD_FRAME_SAMPLES, (first + count) * VAD_FRAME_SAMPLES);
      // Only the last batch is short; it alone is copied to pad it, not the whole audio.
      if (batch.length < count * VAD_FRAME_SAMPLES) {
        const padded = new Float32Array(count * VAD_FRAME_SAMPLES);
        padded.set(batch);
        batch = padded;
      }
      probs.set(await score(batch), first - from);
    }
    return probs;
  }

  /**
   * Scores a live stream whose 512-sample frames arrive over many calls (realtime sessions):
   * the LSTM state and the 64-sample context carry from one call to the next, so the
   * probabilities equal one `speechProbs` pass over the whole stream.
   */
  openStream(): (frames: Float32Array) => Promise<Float32Array> {
    let h: ort.Tensor = new ort.Tensor('float32', new Float32Array(STATE_SIZE), [...STATE_SHAPE]);
    let c: ort.Tensor = new ort.Tensor('float32', new Float32Array(STATE_SIZE), [...STATE_SHAPE]);
    let context = new Float32Array(CONTEXT_SAMPLES);
    return async (frames) => {
      const count = Math.floor(frames.length / VAD_FRAME_SAMPLES);
      if (count === 0) return new Float32Array(0);
      const row = CONTEXT_SAMPLES + VAD_FRAME_SAMPLES;
      const rows = new Float32Array(count * row);
      for (let k = 0; k < count; k++) {
        const frameStart = k * VAD_FRAME_SAMPLES;
        // Each frame is preceded by the last 64 samples of the one before it (zeros before the first).
        rows.set(k === 0 ? context : frames.subarray(frameStart - CONTEXT_SAMPLES, frameStart), k * row);
        rows.set(frames.subarray(frameStart, frameStart + VAD_FRAME_SAMPLES), k * row + CONTEXT_SAMPLES);
      }
      context = frames.slice(count * VAD_FRAME_SAMPLES - CONTEXT_SAMPLES, count * VAD_FRAME_SAMPLES);
      const result = await this.#session.run({ input: new ort.Tensor('float32', rows, [count, row]), h, c });
      h = result.hn as ort.Tensor;
      c = result.cn as ort.Tensor;
      return Float32Array.from((result.speech_probs as ort.Tensor).data as Float32Array);
    };
  }

  async dispose(): Promise<void> {
    await this.#session.release();
  }
}
