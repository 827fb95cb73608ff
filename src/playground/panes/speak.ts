/** Speak: text → audio that starts playing while it streams (MP3 through MediaSource), and a download. */
import type { SpeechFormat } from '../../client/index.js';
import { wavFromPcm16 } from '../audio.js';
import { modelInfo, onModelsChanged } from '../models.js';
import { client, element, offerDownload, option, PaneState } from '../page.js';

const EXTENSIONS: Record<SpeechFormat, string> = { mp3: 'mp3', wav: 'wav', pcm: 'wav', opus: 'ogg', flac: 'flac', aac: 'aac' };

export function setUpSpeak(): void {
  const state = new PaneState('speak');
  const form = element<HTMLFormElement>('speak-form');
  const audio = element<HTMLAudioElement>('speak-audio');
  const speed = element<HTMLInputElement>('speak-speed');
  const stop = element<HTMLButtonElement>('speak-stop');
  const download = element<HTMLAnchorElement>('speak-download');
  let running: AbortController | undefined;

  // Voice names where the listing gives them (a multi-speaker model's `voices`); any name can still be typed.
  onModelsChanged(() => {
    const voices = modelInfo(element<HTMLSelectElement>('speak-model').value)?.voices;
    const names = Array.isArray(voices)
      ? voices
          .map((voice) => (typeof voice === 'string' ? voice : (voice as { name?: unknown })?.name))
          .filter((name): name is string => typeof name === 'string')
      : [];
    element('speak-voices').replaceChildren(...names.map((name) => option(name)));
  });
  speed.addEventListener('input', () => (element('speak-speed-value').textContent = `${Number(speed.value).toFixed(2)}×`));
  stop.addEventListener('click', () => {
    running?.abort();
    audio.pause();
  });
  // Stop is for a request still streaming or audio still playing.
  const updateStop = () => (stop.disabled = running === undefined && audio.paused);
  for (const event of ['play', 'pause', 'ended', 'emptied']) audio.addEventListener(event, updateStop);

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const model = element<HTMLSelectElement>('speak-model').value;
    const input = element<HTMLTextAreaElement>('speak-text').value;
    const voice = element<HTMLInputElement>('speak-voice').value.trim();
    const format = element<HTMLSelectElement>('speak-format').value as SpeechFormat;
    running?.abort();
    const controller = (running = new AbortController());
    download.hidden = true;
    stop.disabled = false;
    void state
      .run('Synthesising…', async () => {
        const started = performance.now();
        const speech = await client().speak({ model, input, format, speed: Number(speed.value), ...(voice ? { voice } : {}) }, { signal: controller.signal });
        const chunks: Uint8Array[] = [];
        if (format === 'mp3' && typeof MediaSource !== 'undefined' && MediaSource.isTypeSupported('audio/mpeg')) {
          await playWhileStreaming(audio, speech.chunks(), chunks, () =>
            state.status(`Playing while streaming (first audio after ${Math.round(performance.now() - started)} ms)…`),
          );
        } else {
          for await (const chunk of speech.chunks()) chunks.push(chunk);
          const bytes = new Blob(chunks as Uint8Array<ArrayBuffer>[]);
          const playable =
            format === 'pcm'
              ? wavFromPcm16(new Uint8Array(await bytes.arrayBuffer()), speech.sampleRate ?? 24_000)
              : new Blob([bytes], { type: speech.contentType });
          setSource(audio, URL.createObjectURL(playable));
          await play(audio, state);
        }
        const whole = new Blob(chunks as Uint8Array<ArrayBuffer>[], { type: speech.contentType });
        offerDownload(
          download,
          format === 'pcm' ? new Blob([whole], { type: 'application/octet-stream' }) : whole,
          `speech.${format === 'pcm' ? 'pcm' : EXTENSIONS[format]}`,
        );
        state.status(`Done: ${(whole.size / 1024).toFixed(1)} KiB of ${speech.contentType} in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
      })
      .finally(() => {
        if (running === controller) running = undefined;
        updateStop();
      });
  });
}

function setSource(audio: HTMLAudioElement, url: string): void {
  if (audio.src.startsWith('blob:')) URL.revokeObjectURL(audio.src);
  audio.src = url;
}

/** Autoplay rules may refuse; the audio is still there to press play on. */
async function play(audio: HTMLAudioElement, state: PaneState): Promise<void> {
  try {
    await audio.play();
  } catch (error) {
    if (error instanceof DOMException && error.name === 'NotAllowedError') state.status('Ready: press play.');
    else throw error;
  }
}

/** Appends each MP3 chunk to a MediaSource as it arrives; playback starts with the first one. */
async function playWhileStreaming(audio: HTMLAudioElement, stream: AsyncIterable<Uint8Array>, kept: Uint8Array[], onFirstAudio: () => void): Promise<void> {
  const source = new MediaSource();
  setSource(audio, URL.createObjectURL(source));
  await new Promise((resolve) => source.addEventListener('sourceopen', resolve, { once: true }));
  const buffer = source.addSourceBuffer('audio/mpeg');
  const appended = () => new Promise((resolve) => buffer.addEventListener('updateend', resolve, { once: true }));
  let first = true;
  for await (const chunk of stream) {
    kept.push(chunk);
    buffer.appendBuffer(chunk as Uint8Array<ArrayBuffer>);
    await appended();
    if (first) {
      first = false;
      onFirstAudio();
      audio.play().catch(() => undefined); // refused autoplay leaves the controls to press
    }
  }
  if (source.readyState === 'open') source.endOfStream();
}
