/**
 * The main-thread face of a Whisper model: checks request options (cheap, so a bad language
 * is a 400 before any audio is touched) and forwards the work to its ASR worker.
 */
import type { PcmAudio } from '../../audio/pcm-audio.js';
import { ValidationError } from '../../errors.js';
import type { EncodedAudio, TranscribeOptions, Transcriber, Transcript } from '../types.js';
import { ModelWorker } from '../worker/model-worker.js';
import { workerModule } from '../worker/worker-api.js';
import type { AsrOptions } from './asr-options.js';
import type { AsrApi, AsrRequest, AsrWorkerInit } from './asr-worker-protocol.js';
import { vadFilterRequest } from './vad/vad-request.js';
import { whisperLanguageCode, whisperLanguageName } from './whisper-languages.js';

const ASR_WORKER = workerModule<AsrApi, AsrWorkerInit>(import.meta.url, './asr-worker', { packages: ['@huggingface/transformers'] });

interface WhisperTranscriberOptions extends AsrOptions {
  modelId: string;
  multilingual: boolean;
  /** Codes of the model's language tokens (generation_config lang_to_id); undefined: not known, any goes. */
  languages?: readonly string[];
}

export class WhisperTranscriber implements Transcriber {
  readonly #options: WhisperTranscriberOptions;
  readonly #worker: ModelWorker<AsrApi>;
  readonly #vadInstalled: boolean;

  constructor(worker: ModelWorker<AsrApi>, options: WhisperTranscriberOptions, vadInstalled = false) {
    this.#worker = worker;
    this.#options = options;
    this.#vadInstalled = vadInstalled;
  }

  /** Starts the model's ASR worker (rejects if the model cannot load there). */
  static async start(init: AsrWorkerInit, options: WhisperTranscriberOptions): Promise<WhisperTranscriber> {
    const worker = await ModelWorker.start(ASR_WORKER, { init, modelId: options.modelId, name: `asr:${options.modelId}` });
    return new WhisperTranscriber(worker, options, init.vadModelFile !== undefined);
  }

  async transcribe(audio: PcmAudio | EncodedAudio, options: TranscribeOptions = {}): Promise<Transcript> {
    const request: AsrRequest = {
      audio,
      ...this.#languageAndTask(options),
      segments: options.segments ?? false,
      words: options.words ?? false,
      chunkLengthSeconds: this.#options.chunkLengthSeconds,
      strideSeconds: this.#options.strideSeconds,
      maxNewTokens: this.#options.maxNewTokens,
      vad: vadFilterRequest(options, this.#vadInstalled),
      decoding: options.decoding,
      stream: options.onSegments !== undefined,
    };
    const { onSegments } = options;
    const transcript = await this.#worker.call('transcribe', request, {
      transfer: ownedBuffers(audio),
      signal: options.signal,
      onProgress: onSegments && ((progress) => onSegments(progress.segments)),
    });
    // English-only models are English by construction; multilingual ones report what was detected.
    const language = transcript.language ?? 'en';
    return { ...transcript, language, languageName: whisperLanguageName(language) ?? language };
  }

  dispose(): Promise<void> {
    return this.#worker.dispose();
  }

  #languageAndTask(options: TranscribeOptions): Pick<AsrRequest, 'language' | 'detectLanguage' | 'task'> {
    const language = options.language === undefined ? undefined : whisperLanguageCode(options.language);
    if (options.language !== undefined && language === undefined) {
      throw new ValidationError(`"language" must be a Whisper language code such as en, es, fr or de; got "${options.language}"`, 'language');
    }
    const { languages } = this.#options;
    if (this.#options.multilingual && language !== undefined && languages !== undefined && !languages.includes(language)) {
      // Without its token the model would decode the audio as some other language.
      const hint = language === 'yue' ? ' (Cantonese came with large-v3)' : '';
      throw new ValidationError(`Model "${this.#options.modelId}" has no "${language}" language token${hint}`, 'language');
    }
    if (this.#options.multilingual) return language ? { language, task: options.task } : { detectLanguage: true, task: options.task };
    // English-only models have no language or task tokens: English transcription is all they do.
    if (language !== undefined && language !== 'en') {
      throw new ValidationError(`Model "${this.#options.modelId}" is English-only; "language" can only be "en"`, 'language');
    }
    if (options.task === 'translate') {
      throw new ValidationError(`Model "${this.#options.modelId}" is English-only and cannot translate; use "task": "transcribe"`, 'model');
    }
    // English-only models take no language token at all (transformers.js refuses one).
    return {};
  }
}

/**
 * Buffers we may move to the worker instead of copying: only ones the typed array owns
 * whole. Small Node Buffers share a pooled ArrayBuffer, and moving that would detach
 * unrelated data; those are copied by postMessage instead.
 */
function ownedBuffers(audio: PcmAudio | EncodedAudio): ArrayBuffer[] {
  const view = 'bytes' in audio ? audio.bytes : audio.samples;
  const owned = view.buffer instanceof ArrayBuffer && view.byteOffset === 0 && view.byteLength === view.buffer.byteLength;
  return owned ? [view.buffer as ArrayBuffer] : [];
}
