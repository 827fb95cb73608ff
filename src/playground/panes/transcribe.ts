/** Transcribe: an uploaded or dropped file, a microphone recording, or live captions over the realtime WebSocket. */
import type { TranscribeInput, VerboseTranscription } from '../../client/index.js';
import { recordingUpload } from '../audio.js';
import { listed, modelsOf, onModelsChanged } from '../models.js';
import { client, element, offerDownload, PaneState } from '../page.js';
// The server's own renderings (pure functions, bundled in): the page's files match its srt/vtt answers.
import { toSrt, toWebVtt } from '../../http/routes/v1/subtitle-formats.js';
import { LiveCaptions } from './live-captions.js';

interface Word {
  word: string;
  start: number;
  end: number;
}
/** What verbose_json may carry beyond the client's type: words, once the server gives them. */
type Transcript = Omit<VerboseTranscription, 'segments'> & { words?: Word[]; segments?: Array<{ start: number; end: number; text: string; words?: Word[] }> };

/** `1:02.5` for the segment list. */
function shortClock(seconds: number): string {
  const tenths = Math.max(0, Math.round(seconds * 10));
  return `${Math.floor(tenths / 600)}:${String(Math.floor(tenths / 10) % 60).padStart(2, '0')}.${tenths % 10}`;
}

export function setUpTranscribe(): void {
  const state = new PaneState('transcribe');
  const form = element<HTMLFormElement>('transcribe-form');
  const fileInput = element<HTMLInputElement>('transcribe-file');
  const drop = element('transcribe-drop');
  const record = element<HTMLButtonElement>('transcribe-record');
  const live = element<HTMLButtonElement>('transcribe-live');
  const playback = element<HTMLAudioElement>('transcribe-recording');
  let recorder: MediaRecorder | undefined;
  let captions: LiveCaptions | undefined;

  const model = () => element<HTMLSelectElement>('transcribe-model').value;
  const language = () => element<HTMLInputElement>('transcribe-language').value.trim();
  const prompt = () => element<HTMLTextAreaElement>('transcribe-prompt').value.trim();

  async function transcribe(file: File): Promise<void> {
    await state.run(`Transcribing ${file.name}…`, async () => {
      const started = performance.now();
      const words = element<HTMLInputElement>('transcribe-words').checked;
      const result = (await client().transcribe({
        model: model(),
        file,
        filename: file.name,
        responseFormat: 'verbose_json',
        timestampGranularities: words ? ['segment', 'word'] : ['segment'],
        ...(language() ? { language: language() } : {}),
        ...(element<HTMLInputElement>('transcribe-vad').checked ? { vadFilter: true } : {}),
        ...advancedDecoding(),
      })) as Transcript;
      showTranscript(result);
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      state.status(`Transcribed ${result.duration?.toFixed(1) ?? '?'} s of audio in ${seconds} s${result.language ? ` (language: ${result.language})` : ''}.`);
    });
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const file = fileInput.files?.[0];
    if (!file) {
      state.clear();
      state.error(new Error('Choose or drop an audio file first, or record from the microphone.'));
      return;
    }
    void transcribe(file);
  });
  fileInput.addEventListener('change', () => {
    const file = fileInput.files?.[0];
    element('transcribe-file-hint').textContent = file ? `${file.name} (${(file.size / 1024).toFixed(0)} KiB)` : '…or drop an audio file here.';
  });

  drop.addEventListener('dragover', (event) => {
    event.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (event) => {
    event.preventDefault();
    drop.classList.remove('over');
    const files = event.dataTransfer?.files;
    if (!files?.length) return;
    fileInput.files = files;
    fileInput.dispatchEvent(new Event('change'));
    void transcribe(files[0]!);
  });

  record.addEventListener('click', async () => {
    if (recorder?.state === 'recording') {
      recorder.stop();
      return;
    }
    state.clear();
    try {
      const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
      const parts: Blob[] = [];
      const started = performance.now();
      recorder = new MediaRecorder(stream);
      recorder.addEventListener('dataavailable', (event) => parts.push(event.data));
      recorder.addEventListener('stop', async () => {
        stream.getTracks().forEach((track) => track.stop());
        setRecording(false);
        const recording = new Blob(parts, { type: recorder?.mimeType || 'audio/webm' });
        if (playback.src.startsWith('blob:')) URL.revokeObjectURL(playback.src);
        playback.src = URL.createObjectURL(recording);
        element('transcribe-recording-box').hidden = false;
        try {
          await transcribe(await recordingUpload(recording));
        } catch (error) {
          state.error(error);
        }
      });
      recorder.start();
      setRecording(true);
      const tick = setInterval(() => {
        if (recorder?.state !== 'recording') return clearInterval(tick);
        state.status(`Recording… ${((performance.now() - started) / 1000).toFixed(0)} s. Press “Stop recording” to transcribe.`);
      }, 250);
    } catch (error) {
      state.error(error);
    }
  });

  function setRecording(on: boolean): void {
    record.textContent = on ? 'Stop recording' : 'Record from microphone';
    record.setAttribute('aria-pressed', String(on));
    if (on) state.status('Recording…');
  }

  // Live captions need the server's voice activity detection to find the turns: offered only when it is installed.
  onModelsChanged(() => {
    if (captions) return;
    const vad = modelsOf('voice-activity-detection');
    const ready = !listed() || vad.some((model) => model.installed);
    live.disabled = !ready;
    const hint = element('transcribe-live-hint');
    hint.textContent = ready ? '' : `Live captions need a voice activity detection model on the server${vad[0]?.install ? `: ${vad[0].install}` : ''}.`;
    hint.hidden = ready;
  });

  live.addEventListener('click', async () => {
    if (captions) {
      captions.stop();
      return;
    }
    state.clear();
    const box = element('transcribe-captions');
    element('transcribe-captions-box').hidden = false;
    box.replaceChildren();
    live.textContent = 'Stop live captions';
    live.setAttribute('aria-pressed', 'true');
    captions = new LiveCaptions(box, {
      model: model(),
      apiKey: element<HTMLInputElement>('api-key').value.trim(),
      ...(language() ? { language: language() } : {}),
      ...(prompt() ? { prompt: prompt() } : {}),
      onStatus: (text) => state.status(text),
      onError: (error) => state.error(error),
      onEnd: () => {
        captions = undefined;
        live.textContent = 'Start live captions';
        live.setAttribute('aria-pressed', 'false');
      },
    });
    await captions.start();
  });
}

/** The "Advanced decoding" fields that are filled in; the server validates them (its 400 names the field). */
function advancedDecoding(): Partial<TranscribeInput> {
  const text = (id: string) => element<HTMLInputElement | HTMLTextAreaElement>(id).value.trim();
  const number = (id: string) => (text(id) === '' ? undefined : Number(text(id)));
  const options: Partial<TranscribeInput> = {
    prompt: text('transcribe-prompt') || undefined,
    hotwords: text('transcribe-hotwords') || undefined,
    temperature: text('transcribe-temperature') === '' ? undefined : text('transcribe-temperature').split(',').map(Number),
    compressionRatioThreshold: number('transcribe-compression'),
    logProbThreshold: number('transcribe-logprob'),
    noSpeechThreshold: number('transcribe-nospeech'),
    beamSize: number('transcribe-beam'),
    bestOf: number('transcribe-bestof'),
    patience: number('transcribe-patience'),
    conditionOnPreviousText: element<HTMLInputElement>('transcribe-condition').checked ? undefined : false,
  };
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}

function showTranscript(result: Transcript): void {
  element('transcribe-result').hidden = false;
  element('transcribe-text').textContent = result.text.trim() || '(no speech found)';
  const segments = result.segments ?? [];
  const list = element('transcribe-segments');
  list.replaceChildren(
    ...segments.map((segment) => {
      const item = document.createElement('li');
      const time = document.createElement('time');
      time.textContent = `${shortClock(segment.start)} → ${shortClock(segment.end)}`;
      const text = document.createElement('span');
      text.textContent = segment.text.trim();
      item.append(time, text);
      const words = segment.words ?? result.words?.filter((word) => word.start >= segment.start && word.start < segment.end);
      if (words?.length) {
        const row = document.createElement('div');
        row.className = 'words';
        row.setAttribute('aria-label', `Words from ${shortClock(segment.start)}, each with its start time`);
        for (const word of words) {
          const chip = document.createElement('span');
          const at = document.createElement('small');
          at.textContent = ` ${word.start.toFixed(2)}`;
          chip.append(word.word.trim(), at);
          row.append(chip);
        }
        item.append(row);
      }
      return item;
    }),
  );
  offerDownload(element<HTMLAnchorElement>('transcribe-srt'), new Blob([toSrt(segments)], { type: 'application/x-subrip' }), 'transcript.srt');
  offerDownload(element<HTMLAnchorElement>('transcribe-vtt'), new Blob([toWebVtt(segments)], { type: 'text/vtt' }), 'transcript.vtt');
}
