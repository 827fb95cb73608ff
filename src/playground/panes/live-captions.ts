/**
 * Live captions: the microphone as PCM16 at 24 kHz over `/v1/realtime?intent=transcription`
 * (docs/api.md, "Live transcription over WebSocket"); the server finds the turns and sends each one's
 * text. The key travels as the `openai-insecure-api-key.<key>` subprotocol: a browser's
 * WebSocket cannot set headers.
 */
import { base64Pcm16 } from '../audio.js';

/** The rate the realtime API takes (the AudioContext resamples the microphone to it). */
const RATE = 24_000;
/** How long a stop waits for the last turn's text before closing. */
const FINAL_TURN_WAIT_MS = 10_000;

interface LiveCaptionsOptions {
  model: string;
  apiKey: string;
  language?: string;
  /** Each turn's previous text (names, spellings). */
  prompt?: string;
  onStatus(text: string): void;
  onError(error: Error): void;
  onEnd(): void;
}

interface ServerEvent {
  type: string;
  delta?: string;
  transcript?: string;
  error?: { message?: string; code?: string };
}

export class LiveCaptions {
  #socket: WebSocket | undefined;
  #context: AudioContext | undefined;
  #stream: MediaStream | undefined;
  #partial: HTMLParagraphElement | undefined;
  #opened = false;
  #stopping = false;
  #ended = false;
  #finalTurn: (() => void) | undefined;

  constructor(
    readonly box: HTMLElement,
    readonly options: LiveCaptionsOptions,
  ) {}

  async start(): Promise<void> {
    const { model, apiKey, language, prompt } = this.options;
    try {
      this.#stream = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true } });
    } catch (error) {
      this.options.onError(error as Error);
      return this.#end();
    }
    const url = new URL(`/v1/realtime?intent=transcription&model=${encodeURIComponent(model)}`, location.href);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    this.options.onStatus('Connecting…');
    // The beta protocol's events (transcription_session.update), said as browsers can: a subprotocol.
    const protocols = ['realtime', 'openai-beta.realtime-v1', ...(apiKey ? [`openai-insecure-api-key.${apiKey}`] : [])];
    const socket = (this.#socket = new WebSocket(url, protocols));
    socket.addEventListener('open', () => {
      this.#opened = true;
      if (language || prompt) {
        socket.send(JSON.stringify({ type: 'transcription_session.update', session: { input_audio_transcription: { model, language, prompt } } }));
      }
      this.#startMicrophone();
      this.options.onStatus('Listening: speak, and each sentence appears when you pause.');
    });
    socket.addEventListener('message', (message) => this.#onEvent(JSON.parse(String(message.data)) as ServerEvent));
    socket.addEventListener('close', (event) => {
      if (!this.#stopping) {
        const why = !this.#opened
          ? 'The server refused live captions: check the API key, and that the model is installed and live transcription is available.'
          : `Live captions closed by the server (${event.code}${event.reason ? `: ${event.reason}` : ''}).`;
        this.options.onError(new Error(why));
      }
      this.#end();
    });
  }

  /** Stops the microphone, asks for the text of what was said since the last pause, then closes. */
  stop(): void {
    if (this.#stopping || this.#ended) return;
    this.#stopping = true;
    this.#stopMicrophone();
    const socket = this.#socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) {
      this.#end();
      return;
    }
    this.options.onStatus('Finishing the last sentence…');
    socket.send(JSON.stringify({ type: 'input_audio_buffer.commit' }));
    const timer = setTimeout(() => socket.close(1000), FINAL_TURN_WAIT_MS);
    this.#finalTurn = () => {
      clearTimeout(timer);
      socket.close(1000);
    };
  }

  #onEvent(event: ServerEvent): void {
    switch (event.type) {
      case 'input_audio_buffer.speech_started':
        this.options.onStatus('Hearing speech…');
        break;
      case 'conversation.item.input_audio_transcription.delta':
        this.#line().textContent += event.delta ?? '';
        break;
      case 'conversation.item.input_audio_transcription.completed': {
        const line = this.#line();
        line.textContent = (event.transcript ?? '').trim() || '…';
        line.className = '';
        this.#partial = undefined;
        if (!this.#stopping) this.options.onStatus('Listening…');
        this.#finalTurn?.();
        break;
      }
      case 'conversation.item.input_audio_transcription.failed':
      case 'error':
        // After a stop, an empty final commit is expected to be refused: nothing was left to transcribe.
        if (this.#stopping) this.#finalTurn?.();
        else this.options.onError(new Error(`${event.error?.message ?? 'live transcription failed'}${event.error?.code ? ` (${event.error.code})` : ''}`));
        break;
    }
  }

  /** The caption being written (deltas), or a new one. */
  #line(): HTMLParagraphElement {
    if (!this.#partial) {
      this.#partial = document.createElement('p');
      this.#partial.className = 'partial';
      this.box.append(this.#partial);
    }
    return this.#partial;
  }

  #startMicrophone(): void {
    const context = (this.#context = new AudioContext({ sampleRate: RATE }));
    const input = context.createMediaStreamSource(this.#stream!);
    // ScriptProcessorNode rather than an AudioWorklet: a worklet is one more module file to
    // serve under the CSP for the same few lines; 4096 frames (170 ms) per append event.
    const tap = context.createScriptProcessor(4096, 1, 1);
    tap.addEventListener('audioprocess', (event) => {
      if (this.#socket?.readyState !== WebSocket.OPEN || this.#stopping) return;
      this.#socket.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: base64Pcm16(event.inputBuffer.getChannelData(0)) }));
    });
    input.connect(tap);
    tap.connect(context.destination);
  }

  #stopMicrophone(): void {
    this.#stream?.getTracks().forEach((track) => track.stop());
    void this.#context?.close();
    this.#context = undefined;
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#stopMicrophone();
    if (this.#stopping) this.options.onStatus(this.box.childElementCount ? 'Live captions stopped.' : 'Live captions stopped: no speech was heard.');
    this.options.onEnd();
  }
}
