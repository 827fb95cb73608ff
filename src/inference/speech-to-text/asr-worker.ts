/**
 * Worker thread that owns one Whisper pipeline. Everything CPU-heavy of a transcription runs
 * here: audio decoding and resampling, log-mel feature extraction, the ONNX encoder/decoder
 * and detokenisation, so the HTTP event loop stays free.
 */
import { pipeline } from '@huggingface/transformers';
import { decodeAudio, probeAudio } from '../../audio/decode-audio.js';
import { quietDecoderLogs } from '../../audio/quiet-decoder-logs.js';
import type { PcmAudio } from '../../audio/pcm-audio.js';
import { resample } from '../../audio/resample.js';
import { configureRuntime } from '../runtime.js';
import type { EncodedAudio } from '../types.js';
import { abortStreamer } from '../abort-streamer.js';
import { serveWorker } from '../worker/serve-worker.js';
import { lowerThreadPriority } from '../worker/thread-priority.js';
import type { AsrApi, AsrRequest, AsrResponse, AsrWorkerInit } from './asr-worker-protocol.js';
import { useFastWhisperFeatures } from './fast-features.js';
import { silentTranscript, VadFilter } from './vad-filter.js';
import { whisperCallOptions } from './whisper-call-options.js';
import { detectWhisperLanguage, type LanguageIdPipeline } from './whisper-language-id.js';
import { toTranscript, type WhisperOutput } from './whisper-output.js';

/** The part of the transformers.js ASR pipeline we call. */
interface AsrPipeline extends LanguageIdPipeline {
  (audio: Float32Array, options: Record<string, unknown>): Promise<WhisperOutput>;
  processor: LanguageIdPipeline['processor'] & {
    feature_extractor: Parameters<typeof useFastWhisperFeatures>[0] & { config: { sampling_rate: number } };
  };
  dispose(): Promise<void>;
}

serveWorker<AsrApi, AsrWorkerInit>(async (init) => {
  // onnxruntime-node runs the model synchronously on this thread (intra-op threads = 1), so
  // this thread carries all of a transcription's CPU: let the event loop preempt it.
  lowerThreadPriority(init.nice);
  quietDecoderLogs();
  // Each worker has its own copy of the transformers.js module and so its own `env`.
  configureRuntime({ modelsDir: init.modelsDir });
  const asr = (await pipeline('automatic-speech-recognition', init.modelId, {
    dtype: init.dtype as never,
    device: 'cpu',
    session_options: { intraOpNumThreads: init.threads, interOpNumThreads: 1 },
  })) as unknown as AsrPipeline;
  const sampleRate = asr.processor.feature_extractor.config.sampling_rate;
  if (init.fastFeatures) useFastWhisperFeatures(asr.processor.feature_extractor);
  const vadFilter = init.vadModelFile ? new VadFilter(init.vadModelFile) : undefined;

  /** Stops at the next step once `signal` aborts: between phases, and at every decoded token. */
  const transcribe = async (request: AsrRequest, signal: AbortSignal): Promise<AsrResponse> => {
    const decoded = await toModelInput(request.audio, sampleRate);
    signal.throwIfAborted();
    // With vad_filter, only the speech is transcribed, and no speech means no Whisper at all.
    const speech = await vadFilter?.speechOnly(decoded, sampleRate, request.vad, signal);
    if (speech?.samples.length === 0) return silentTranscript(decoded.length / sampleRate, { language: request.language, segments: request.segments });
    const audio = speech?.samples ?? decoded;
    const duration = audio.length / sampleRate;
    const language = request.detectLanguage ? await detectWhisperLanguage(asr, audio, sampleRate) : request.language;
    signal.throwIfAborted();
    const output = await asr(audio, { ...whisperCallOptions({ ...request, language }, duration), streamer: abortStreamer(signal) });
    const transcript = toTranscript(output, { duration, language, segments: request.segments });
    return speech ? speech.restore(transcript) : transcript;
  };

  return {
    transcribe: async (request, { signal, serial }) => {
      // Empty or unrecognisable uploads fail at once; the full decode waits its turn, so the
      // queue holds compressed bytes (≤ 25 MB) rather than decoded audio (up to ~115 MB).
      if ('bytes' in request.audio) probeAudio(request.audio.bytes, request.audio.contentType);
      // One transcription at a time: the model's threads already use the cores we give it, and
      // interleaved requests would only hold more decoded audio in memory at once. A request
      // cancelled while it waits is never decoded.
      return serial(() => transcribe(request, signal));
    },
    dispose: async () => {
      await vadFilter?.dispose();
      await asr.dispose();
    },
  };
});

async function toModelInput(audio: PcmAudio | EncodedAudio, sampleRate: number): Promise<Float32Array> {
  if ('bytes' in audio) {
    const pcm = await decodeAudio(audio.bytes, { contentType: audio.contentType, maxSeconds: audio.maxSeconds, sampleRate });
    return pcm.samples;
  }
  return resample(audio.samples, audio.sampleRate, sampleRate);
}
