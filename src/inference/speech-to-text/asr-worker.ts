/**
 * Worker thread that owns one Whisper pipeline. Everything CPU-heavy of a transcription runs
 * here: audio decoding and resampling, log-mel feature extraction, the ONNX encoder/decoder
 * and detokenisation, so the HTTP event loop stays free.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from '@huggingface/transformers';
import { ValidationError } from '../../errors.js';
import { createLogger, type Logger } from '../../logger.js';
import { decodeAudio16, probeAudio } from '../../audio/decode-audio.js';
import { quietDecoderLogs } from '../../audio/quiet-decoder-logs.js';
import type { PcmAudio } from '../../audio/pcm-audio.js';
import { Pcm16Buffer } from '../../audio/pcm16-buffer.js';
import { resample } from '../../audio/resample.js';
import { threadSessionOptions } from '../ort-threads.js';
import { configureRuntime } from '../runtime.js';
import type { EncodedAudio, Transcript, TranscriptSegment } from '../types.js';
import { abortStreamer } from '../abort-streamer.js';
import { serveWorker } from '../worker/serve-worker.js';
import { lowerThreadPriority } from '../worker/thread-priority.js';
import type { CallContext } from '../worker/worker-api.js';
import type { AsrApi, AsrProgress, AsrRequest, AsrResponse, AsrWorkerInit } from './asr-worker-protocol.js';
import { type WhisperProcessor, withFastWhisperFeatures } from './features/fast-features.js';
import { silentTranscript, VadFilter } from './vad/vad-filter.js';
import { needsOwnDecoder, whisperCallOptions } from './whisper-call-options.js';
import { detectWhisperLanguage, type LanguageIdPipeline } from './whisper-language-id.js';
import { decodedTranscript, toTranscript, type WhisperOutput } from './whisper-output.js';
import { decodeLongForm, type DecodedSegment } from './long-form/long-form-decoder.js';
import { hasDecodingOptions, longFormDecoding, withDefaultSearch } from './decoding/decoding-options.js';
import { TokenLogprobs } from './token-logprobs.js';
import { decodeWindows } from './long-form/decode-windows.js';
import { leadingSpeech, windowReader, type SpeechWindow } from './vad/speech-windows.js';
import { whisperStartTokens } from './decoding/whisper-special-tokens.js';
import { searchBatchFits, whisperBatchSize, type WhisperDimensions } from './long-form/whisper-batch-size.js';
import { whisperLongFormModel, type WhisperPipelineParts } from './long-form/whisper-long-form-model.js';
import { crossRowsSupport, decoderFile } from './graph/cross-rows-support.js';
import { RewrittenDecoder, type RewritePlan, rewrites } from './graph/rewritten-decoder.js';
import { withRewrittenDecoder } from './decoder/pipeline-decoder-session.js';
import { whisperInSteps } from './long-form/whisper-in-steps.js';
import { encoderFile, withEncoderInThread } from './whisper-encoder-thread.js';
import { withEncoderMemo } from './whisper-encoder-memo.js';

/** The part of the transformers.js ASR pipeline we call. */
interface AsrPipeline extends LanguageIdPipeline, WhisperPipelineParts {
  (audio: Float32Array, options: Record<string, unknown>): Promise<WhisperOutput>;
  model: LanguageIdPipeline['model'] & WhisperPipelineParts['model'] & { config: WhisperDimensions };
  tokenizer: WhisperPipelineParts['tokenizer'] & { encode(text: string, options: { add_special_tokens: boolean }): number[] };
  processor: LanguageIdPipeline['processor'] & WhisperProcessor;
  dispose(): Promise<void>;
}

serveWorker<AsrApi, AsrWorkerInit>(async (init) => {
  // onnxruntime-node runs the model synchronously on this thread (intra-op threads = 1), so
  // this thread carries all of a transcription's CPU: let the event loop preempt it.
  lowerThreadPriority(init.nice);
  quietDecoderLogs();
  // Each worker has its own copy of the transformers.js module and so its own `env`.
  configureRuntime({ modelsDir: init.modelsDir });
  const loaded = (await pipeline('automatic-speech-recognition', init.modelId, {
    dtype: init.dtype as never,
    device: 'cpu',
    session_options: asrSessionOptions(init),
  })) as unknown as AsrPipeline;
  const featured = init.fastFeatures ? withFastWhisperFeatures(loaded) : loaded;
  const log = createLogger(init.logLevel ?? 'info');
  const decoders = await chooseDecoders(init, log);
  const decoded = decoders.session ? await withRewrittenDecoder(featured, decoders.session) : featured;
  const threaded =
    init.encoderThreads > 0
      ? await withEncoderInThread(
          decoded,
          encoderFile(join(init.modelsDir, init.modelId), init.dtype),
          {
            sessionOptions: asrSessionOptions({ ...init, threads: init.encoderThreads }),
            nice: init.nice,
          },
          init.modelId,
        )
      : decoded;
  const { asr, memo: encoderMemo } = withEncoderMemo(threaded);
  const sampleRate = asr.processor.feature_extractor.config.sampling_rate;
  const vadFilter = init.vadModelFile ? new VadFilter(init.vadModelFile) : undefined;
  const longForm = whisperLongFormModel(asr, {
    ...decoders.windowDecoder,
    fitsSearchBatch: searchBatchFits({ threads: init.threads, dims: asr.model.config, memoryBudgetBytes: init.batchMemoryBytes }),
  });
  const cannotTimeWords = longForm?.aligner
    ? undefined
    : `Model "${init.modelId}" cannot give word timestamps: ${longForm ? 'its decoder has no cross-attention outputs (exported by an older recipe; reinstall it with npm run test-models)' : 'it has no timestamp tokens'}`;
  const logprobEntries = new TokenLogprobs(asr.tokenizer.get_vocab());
  const encode = (text: string) => asr.tokenizer.encode(text, { add_special_tokens: false });
  /**
   * Stops at the next step once `signal` aborts: between phases, and at every decoded token. Each
   * phase and each unit of model work is a `step`, where another key's request may take the thread.
   */
  const transcribe = async (
    request: AsrRequest,
    { signal, progress, step }: Pick<CallContext<AsrProgress>, 'signal' | 'progress' | 'step'>,
  ): Promise<AsrResponse> => {
    if (request.words && cannotTimeWords) throw new ValidationError(cannotTimeWords);
    if (!longForm && hasDecodingOptions(request.decoding)) {
      throw new ValidationError(
        `Model "${init.modelId}" takes no decoding options (prompt, temperature, …): it has no timestamp tokens for our window decoder`,
      );
    }
    // Checked before the audio is decoded: a bad option costs nothing.
    const decoding = longFormDecoding(request.decoding, encode);
    // The audio is held once, as 16-bit PCM with an exponent per 16 ms (an hour at 16 kHz: 115 MB), and each step reads
    // the window it needs as Float32; the upload's bytes are let go as soon as they are decoded.
    const audio = takeAudio(request);
    const decoded = await step(() => toModelInput(audio, sampleRate));
    signal.throwIfAborted();
    const duration = decoded.length / sampleRate;
    // With vad_filter, only the speech is transcribed, and no speech means no Whisper at all.
    const windows = vadFilter && (await step(() => vadFilter.speechWindows(decoded, sampleRate, request.vad, signal)));
    if (windows?.length === 0) return silentTranscript(duration, { language: request.language, segments: request.segments });
    const languageSample = windows ? leadingSpeech(decoded, windows) : decoded.read(0, WINDOW_SECONDS * sampleRate);
    const language = request.detectLanguage ? await step(() => detectWhisperLanguage(asr, languageSample, sampleRate)) : request.language;
    signal.throwIfAborted();
    if (longForm && (windows || needsOwnDecoder(request, language, duration))) {
      // Over one window, with VAD (a window per stretch of speech), or in a language transformers.js
      // does not know: openai's sequential decode, always with timestamps, whatever the response
      // format (without them each window's text stops early). Words and segments come from it at
      // any length, so each segment carries its window's real decoding details (tokens,
      // temperature, avg_logprob, compression_ratio, no_speech_prob).
      const startTokens = whisperStartTokens(asr.model.generation_config ?? {}, { language, task: request.task });
      const options = {
        startTokens,
        signal,
        sampleRate,
        maxTokensPerWindow: request.maxNewTokens,
        // Only a caller that streams asks for segments: with them, decodeWindows sends the first window's text first.
        onSegments: !request.stream
          ? undefined
          : (fresh: DecodedSegment[]) =>
              progress({
                segments: decoding.logprobs
                  ? fresh.map((segment) => ({
                      ...segment,
                      logprobs: logprobEntries.entries(segment.details.tokens, segment.tokenLogprobs ?? [], longForm.tokens.eot),
                    }))
                  : fresh,
              }),
        words: request.words,
        language: language ?? 'en',
        batchSize: windows
          ? whisperBatchSize({ windows: windows.length, threads: init.threads, dims: asr.model.config, memoryBudgetBytes: init.batchMemoryBytes })
          : 1,
        ...withDefaultSearch(decoding, request.decoding ?? {}, windows ? 'vadWindows' : 'sequential'),
      };
      const model = whisperInSteps(longForm, step);
      const segments = windows ? await decodeWindows(decoded, windows, model, options) : await decodeLongForm(decoded, model, options);
      const transcript = decodedTranscript(segments, { duration, language, segments: request.segments, words: request.words === true });
      if (decoding.logprobs) {
        transcript.logprobs = segments.flatMap((segment) => logprobEntries.entries(segment.details.tokens, segment.tokenLogprobs ?? [], longForm.tokens.eot));
      }
      return transcript;
    }
    if (windows) return pipelineOverWindows(decoded, windows, { ...request, language }, { signal, step });
    const output = await step(() =>
      asr(decoded.read(0, decoded.length), { ...whisperCallOptions({ ...request, language }, duration), streamer: abortStreamer(signal) }),
    );
    return toTranscript(output, { duration, language, segments: request.segments });
  };

  /** A model without timestamp tokens, with VAD: the pipeline on each speech window, times moved by the window's start. */
  const pipelineOverWindows = async (
    source: Pcm16Buffer,
    windows: readonly SpeechWindow[],
    request: AsrRequest,
    { signal, step }: Pick<CallContext<AsrProgress>, 'signal' | 'step'>,
  ): Promise<Transcript> => {
    const texts: string[] = [];
    const segments: TranscriptSegment[] = [];
    for (const window of windows) {
      const pcm = windowReader(source, window).read(0, window.end - window.start);
      const output = await step(() => asr(pcm, { ...whisperCallOptions(request, pcm.length / sampleRate), streamer: abortStreamer(signal) }));
      const part = toTranscript(output, { duration: pcm.length / sampleRate, segments: request.segments });
      texts.push(part.text);
      const offset = window.start / sampleRate;
      for (const segment of part.segments ?? []) segments.push({ ...segment, start: roundMs(segment.start + offset), end: roundMs(segment.end + offset) });
    }
    const transcript: Transcript = { text: texts.filter(Boolean).join(' '), duration: roundMs(source.length / sampleRate) };
    if (request.language) transcript.language = request.language;
    if (request.segments) transcript.segments = segments;
    return transcript;
  };

  return {
    transcribe: async (request, context) => {
      // Empty or unrecognisable uploads fail at once; the full decode waits its turn, so the
      // queue holds compressed bytes (≤ maxAudioBytes) rather than decoded audio.
      if ('bytes' in request.audio) probeAudio(request.audio.bytes, request.audio.contentType);
      // One transcription holds the model at a time (its threads already use the cores we give
      // it), in turns between keys: at each step of one, another key's may go first (fair-queue.ts
      // bounds how many are started at once, each holding its decoded audio). A request cancelled
      // while it waits is never decoded.
      return context.serial(() => transcribe(request, context).finally(() => encoderMemo?.forget()));
    },
    dispose: async () => {
      await vadFilter?.dispose();
      await asr.dispose();
    },
  };
});

/**
 * The decoder every decode of ours and the pipeline's run on, decided from the graphs when the
 * model loads and logged in one line with the reasons: the model's decoder rewritten
 * (graph/rewritten-decoder.ts) when a rewrite applies and onnxruntime takes it, else the model's
 * own; whether it pre-packs its weights; and whether it takes one row of cross-attention cache
 * for a search's rows.
 */
async function chooseDecoders(init: AsrWorkerInit, log: Logger) {
  const modelDir = join(init.modelsDir, init.modelId);
  const file = decoderFile(modelDir, init.dtype);
  const packing = RewrittenDecoder.prepacks(modelDir, init.dtype, init.prepackWeights);
  const rewritten = RewrittenDecoder.of(modelDir, init.dtype, asrSessionOptions({ ...init, prepackWeights: packing.prepack }));
  const plan = await rewritten?.plan();
  const session = plan && rewrites(plan) ? await rewritten!.open(log) : undefined;
  const cross = session
    ? { broadcasts: session.broadcastsCrossRows ?? false, reason: 'read from the rewritten graph' }
    : file && existsSync(file)
      ? crossRowsSupport(await readFile(file))
      : { broadcasts: false, reason: `no decoder file where transformers.js keeps dtype ${JSON.stringify(init.dtype)}` };
  log.info('whisper decoder', {
    model: init.modelId,
    decoder: session ? 'decoder_model_merged rewritten, for every decode and the pipeline' : "the model's decoder as it is",
    rewrites: plan && {
      crossAttentionGroupedLayers: plan.groupedLayers,
      selfAttentionStepOutputs: plan.stepOutputs,
      selfAttentionStepsWhy: stepsWhy(plan),
      logitsFrom: plan.logitsFrom,
    },
    prepacked: session ? packing.prepack : init.prepackWeights,
    prepackedWhy: session ? packing.reason : "the model's sessions as loaded",
    crossRows: cross.broadcasts ? 'one row broadcast to a search group' : "repeated to a search group's size",
    crossRowsWhy: cross.reason,
  });
  return { session, windowDecoder: { decoder: session, decoderBroadcastsCrossRows: cross.broadcasts } };
}

/** Why the self-attention returns only the positions each run read, and how (graph/self-attention-steps.ts), or why not. */
function stepsWhy(plan: RewritePlan): string {
  if (plan.stepOutputs === 0) return 'none: its self-attention is not the shape the rewrite knows; the presents are fetched whole';
  if (plan.quantizesPerRun)
    return 'joined: it quantizes activations per run (q8), so past and new stay concatenated in the graph as before (split, the rounding would change the tokens); only the new positions are fetched';
  return 'split: past, shared and new positions read apart, no Concat; only the new positions are fetched';
}

/** The onnxruntime options of the model's sessions. */
function asrSessionOptions(init: AsrWorkerInit) {
  const threads = threadSessionOptions({ threads: init.threads, spinning: init.spinning });
  return {
    ...threads,
    enableCpuMemArena: init.memoryArena ?? false,
    extra: { session: { ...threads.extra.session, ...(init.prepackWeights ? {} : { disable_prepacking: '1' }) } },
  };
}

/** Whisper's 30-s window, which language identification listens to. */
const WINDOW_SECONDS = 30;

function roundMs(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}

/** The request's audio, taken out of it so that the upload's bytes can be freed once decoded. */
function takeAudio(request: AsrRequest): AsrRequest['audio'] {
  const { audio } = request;
  (request as { audio?: AsrRequest['audio'] }).audio = undefined;
  return audio;
}

async function toModelInput(audio: PcmAudio | EncodedAudio, sampleRate: number): Promise<Pcm16Buffer> {
  if ('bytes' in audio) return decodeAudio16(audio.bytes, { contentType: audio.contentType, maxSeconds: audio.maxSeconds, sampleRate });
  const pcm = new Pcm16Buffer();
  pcm.append(resample(audio.samples, audio.sampleRate, sampleRate));
  return pcm;
}
