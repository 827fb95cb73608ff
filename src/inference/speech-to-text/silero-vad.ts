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
import { speechChunksFromProbs, VAD_FRAME_SAMPLES, type SpeechChunk, type VadOptions } from './speech-timestamps.js';

const CONTEXT_SAMPLES = 64;
const STATE_SHAPE = [1, 1, 128] as const;
const STATE_SIZE = 128;
/** ~65 s of audio per call: 4.7 MB of input, however long the audio. */
const FRAMES_PER_BATCH = 2048;

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
   * ⌊length / 512⌋ + 1 frames. `framesPerBatch` frames go into each model call.
   */
  async speechProbs(samples: Float32Array, signal?: AbortSignal, framesPerBatch = FRAMES_PER_BATCH): Promise<Float32Array> {
    const frames = Math.floor(samples.length / VAD_FRAME_SAMPLES) + 1;
    const probs = new Float32Array(frames);
    const score = this.openStream();
    for (let first = 0; first < frames; first += framesPerBatch) {
      signal?.throwIfAborted();
      const count = Math.min(framesPerBatch, frames - first);
      let batch = samples.subarray(first * VAD_FRAME_SAMPLES, (first + count) * VAD_FRAME_SAMPLES);
      // Only the last batch is short; it alone is copied to pad it, not the whole audio.
      if (batch.length < count * VAD_FRAME_SAMPLES) {
        const padded = new Float32Array(count * VAD_FRAME_SAMPLES);
        padded.set(batch);
        batch = padded;
      }
      probs.set(await score(batch), first);
    }
    return probs;
  }

  /** Speech regions of 16 kHz audio, in samples (faster-whisper's get_speech_timestamps). */
  async speechChunks(samples: Float32Array, options: VadOptions = {}, signal?: AbortSignal): Promise<SpeechChunk[]> {
    return speechChunksFromProbs(await this.speechProbs(samples, signal), samples.length, options);
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
