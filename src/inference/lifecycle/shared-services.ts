/**
 * What several models or sessions share, owned by the registry rather than by one of them: the one
 * MP3/WAV encoder every voice uses (started on first use, closed with the last voice so that
 * unloading every voice frees it too) and the live-audio worker behind realtime sessions (started
 * with the first session), and the thread that decodes OpenAI token ids for embedding requests
 * (started by the first request that sends them, stopped when idle). All are closed with the registry.
 */
import { ModelNotInstalledError } from '../../errors.js';
import { TokenDecoder } from '../embeddings/token-decoder.js';
import { LiveAudio } from '../live-audio/live-audio.js';
import { vadModelFile } from '../speech-to-text/vad/silero-vad-engine.js';
import { DEFAULT_VAD_MODEL, VAD_INSTALL_COMMAND } from '../speech-to-text/vad/vad-request.js';
import type { SpeechEncoder } from '../text-to-speech/speech-encoder.js';
import type { LiveAudioOptions, LiveAudioStream } from '../types.js';

export class SharedServices {
  readonly #modelsDir: string;
  readonly #createSpeechEncoder: () => SpeechEncoder;
  #speechEncoder: SpeechEncoder | undefined;
  #liveAudio: LiveAudio | undefined;
  #tokenDecoder: TokenDecoder | undefined;

  constructor(modelsDir: string, createSpeechEncoder: () => SpeechEncoder) {
    this.#modelsDir = modelsDir;
    this.#createSpeechEncoder = createSpeechEncoder;
  }

  /** The voices' encoder, made on first use. */
  speechEncoder(): SpeechEncoder {
    return (this.#speechEncoder ??= this.#createSpeechEncoder());
  }

  /** Closes the voices' encoder (the last voice was unloaded); the next voice makes a new one. */
  async closeSpeechEncoder(): Promise<void> {
    const encoder = this.#speechEncoder;
    this.#speechEncoder = undefined;
    await encoder?.dispose();
  }

  /** The token-id decoder, made on first use; its thread stops by itself when idle. */
  tokenDecoder(): TokenDecoder {
    return (this.#tokenDecoder ??= new TokenDecoder());
  }

  /**
   * A stream for a realtime session's audio: PCM16 or G.711 at `inputSampleRate` → 16 kHz, with speech
   * probabilities from the voice-activity model when `detectSpeech`.
   */
  async openLiveAudio(options: LiveAudioOptions): Promise<LiveAudioStream> {
    if (!this.#liveAudio) {
      const vadModelPath = await vadModelFile(this.#modelsDir);
      // Checked again: another session may have started it while the file was looked up.
      this.#liveAudio ??= new LiveAudio({ vadModelPath });
    }
    if (options.detectSpeech && !this.#liveAudio.canDetectSpeech) throw new ModelNotInstalledError(DEFAULT_VAD_MODEL, VAD_INSTALL_COMMAND);
    return this.#liveAudio.open(options);
  }

  async close(): Promise<void> {
    await this.closeSpeechEncoder();
    const liveAudio = this.#liveAudio;
    this.#liveAudio = undefined;
    await liveAudio?.dispose();
    const tokenDecoder = this.#tokenDecoder;
    this.#tokenDecoder = undefined;
    await tokenDecoder?.dispose();
  }
}
