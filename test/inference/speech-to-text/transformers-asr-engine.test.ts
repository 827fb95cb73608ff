import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PayloadTooLargeError, UndecodableAudioError, ValidationError } from '../../../src/errors.js';
import { ManifestError, type ManifestEntry } from '../../../src/inference/manifest.js';
import { transformersAsrEngine } from '../../../src/inference/speech-to-text/transformers-asr-engine.js';
import { whisperLanguageCode, whisperLanguageName } from '../../../src/inference/speech-to-text/whisper-languages.js';
import { WhisperTranscriber } from '../../../src/inference/speech-to-text/whisper-transcriber.js';
import { toTranscript } from '../../../src/inference/speech-to-text/whisper-output.js';
import type { Transcriber } from '../../../src/inference/types.js';
import { REPO_ROOT, sine, SPEECH_DIR } from '../../audio/audio-test-helpers.js';
import { wav8kSilence } from '../../audio/hour-long-audio.js';
import { rejection } from '../../helpers/rejection.js';

const MODELS_DIR = join(REPO_ROOT, 'test/fixtures/models');
const ENTRY: ManifestEntry = {
  id: 'whisper-tiny-random',
  task: 'speech-to-text',
  engine: 'transformers-asr',
  description: 'random Whisper fixture',
  license: 'MIT',
  options: { maxNewTokens: 6 },
};

describe('transformers-asr engine (random-weight Whisper fixture in a worker)', () => {
  let transcriber: Transcriber;
  before(async () => {
    transcriber = await transformersAsrEngine.load(ENTRY, { modelDir: join(MODELS_DIR, ENTRY.id), modelsDir: MODELS_DIR });
  });
  after(() => transcriber.dispose());

  it('transcribes encoded audio, decoding it in the worker', async () => {
    const bytes = readFileSync(join(SPEECH_DIR, 'en_jfk.mp3'));
    const transcript = await transcriber.transcribe({ bytes, contentType: 'audio/mpeg', maxSeconds: 60 });
    expect(transcript.text).to.be.a('string');
    expect(transcript.duration).to.be.closeTo(11, 0.05);
    expect(transcript.language).to.equal('en');
    expect(transcript.segments).to.equal(undefined);
  });

  it('resamples PCM given at another rate and returns segments within the audio', async () => {
    const transcript = await transcriber.transcribe({ samples: sine(300, 44100, 2), sampleRate: 44100 }, { segments: true });
    expect(transcript.duration).to.equal(2);
    expect(transcript.segments).to.be.an('array');
    for (const segment of transcript.segments!) {
      expect(segment.start).to.be.at.least(0).and.at.most(segment.end);
      expect(segment.end).to.be.at.most(2);
    }
  });

  it('decodes a multi-window upload into 16-bit PCM and transcribes it window by window, segments in order and reported as decoded', async function () {
    this.timeout(60_000);
    // 95 s of a quiet square wave: more than three 30-s windows through the long-form decoder.
    const bytes = wav8kSilence(95, true);
    const reported: { start: number; end: number }[] = [];
    const transcript = await transcriber.transcribe(
      { bytes, contentType: 'audio/wav', maxSeconds: 3600 },
      { segments: true, onSegments: (segments) => reported.push(...segments) },
    );
    expect(transcript.duration).to.equal(95);
    const segments = transcript.segments!;
    expect(segments.length).to.be.greaterThan(0);
    for (const [index, segment] of segments.entries()) {
      expect(segment.start)
        .to.be.at.least(index === 0 ? 0 : segments[index - 1]!.end - 0.01)
        .and.at.most(segment.end);
      expect(segment.end).to.be.at.most(95);
    }
    // What stream=true sends comes from these progress reports: the same segments, as they were decoded.
    // The padding of the last window holds no audio: no stamp lands past the end.
    expect(reported.map(({ start, end }) => [start, end])).to.deep.equal(segments.map(({ start, end }) => [start, end]));
  });

  it('re-throws decoding errors from the worker as UndecodableAudioError (400)', async () => {
    const error = await rejection(transcriber.transcribe({ bytes: new TextEncoder().encode('nope'), maxSeconds: 60 }));
    expect(error).to.be.instanceOf(UndecodableAudioError);
  });

  it('rejects audio over maxSeconds with a 413 from inside the worker', async () => {
    const bytes = readFileSync(join(SPEECH_DIR, 'en_jfk.wav'));
    const error = await rejection(transcriber.transcribe({ bytes, maxSeconds: 5 }));
    expect(error).to.be.instanceOf(PayloadTooLargeError);
    expect((error as PayloadTooLargeError).status).to.equal(413);
  });

  it('refuses a non-English language or translation on an English-only model, before any work', async () => {
    const audio = { samples: new Float32Array(16000), sampleRate: 16000 };
    for (const options of [{ language: 'de' }, { task: 'translate' as const }, { language: 'xx' }]) {
      expect(await rejection(transcriber.transcribe(audio, options))).to.be.instanceOf(ValidationError);
    }
    expect((await transcriber.transcribe(audio, { language: 'English', task: 'transcribe' })).language).to.equal('en');
  });

  it("rejects a transcription with its signal's reason when the caller gives up, and still answers the others", async () => {
    const audio = () => ({ samples: sine(300, 16000, 2), sampleRate: 16000 });
    const controller = new AbortController();
    const reason = new Error('client went away');
    const running = transcriber.transcribe(audio());
    const abandoned = transcriber.transcribe(audio(), { signal: controller.signal }).catch((caught: unknown) => caught);
    controller.abort(reason);
    expect(await abandoned).to.equal(reason);
    expect((await running).duration).to.equal(2);
    const already = await rejection(transcriber.transcribe(audio(), { signal: AbortSignal.abort(reason) }));
    expect(already).to.equal(reason);
  });

  // Last: it disposes the suite's transcriber (a second load in a worker of its own cost seconds); after() disposes it again, which does nothing.
  it('refuses work after dispose', async () => {
    await transcriber.dispose();
    const error = await rejection(transcriber.transcribe({ samples: new Float32Array(1600), sampleRate: 16000 }));
    expect(error.message).to.match(/unloaded|disposed/);
  });
});

describe('transformers-asr options', () => {
  const readAsrOptions = (entry: ManifestEntry) => transformersAsrEngine.options.read(entry);

  it('fills defaults: fp32, 30 s windows with 5 s stride, at least one thread', () => {
    const options = readAsrOptions({ ...ENTRY, options: undefined });
    expect(options).to.include({ dtype: 'fp32', chunkLengthSeconds: 30, strideSeconds: 5 });
    expect(options).to.include({ fastFeatures: true, threadNice: 10 });
    expect(options.threads).to.equal(undefined); // the engine uses all cores but one
    expect(options.multilingual).to.equal(undefined);
  });

  it('rejects invalid values with the option named', () => {
    expect(() => readAsrOptions({ ...ENTRY, options: { chunkLengthSeconds: -1 } })).to.throw(ManifestError, /options\.chunkLengthSeconds/);
    expect(() => readAsrOptions({ ...ENTRY, options: { strideSeconds: 20 } })).to.throw(ManifestError, /options\.strideSeconds/);
    expect(() => readAsrOptions({ ...ENTRY, options: { multilingual: 'yes' } })).to.throw(ManifestError, /options\.multilingual/);
    expect(() => readAsrOptions({ ...ENTRY, options: { dtype: 8 } })).to.throw(ManifestError, /options\.dtype/);
  });
});

describe('whisperLanguageCode', () => {
  it('accepts codes and English names in any case', () => {
    expect(whisperLanguageCode('es')).to.equal('es');
    expect(whisperLanguageCode('FR')).to.equal('fr');
    expect(whisperLanguageCode('German')).to.equal('de');
    expect(whisperLanguageCode('klingon')).to.equal(undefined);
  });

  it("knows large-v3's Cantonese", () => {
    expect(whisperLanguageCode('yue')).to.equal('yue');
    expect(whisperLanguageCode('Cantonese')).to.equal('yue');
    expect(whisperLanguageName('yue')).to.equal('cantonese');
  });
});

describe('WhisperTranscriber language check', () => {
  const worker = {
    call: () => {
      throw new Error('the worker was called');
    },
  };
  const transcriber = (languages?: string[]) =>
    new WhisperTranscriber(worker as never, {
      ...transformersAsrEngine.options.read(ENTRY),
      modelId: 'whisper-base',
      multilingual: true,
      languages,
    });
  const audio = { samples: new Float32Array(16000), sampleRate: 16000 };

  it('refuses a language the model has no token for (yue before large-v3) with a 400, before any work', async () => {
    const error = await rejection(transcriber(['en', 'de', 'su']).transcribe(audio, { language: 'yue' }));
    expect(error).to.be.instanceOf(ValidationError);
    expect(error.message).to.match(/no "yue" language token.*large-v3/);
  });

  it("passes a language the model's tokens include to the worker", async () => {
    const error = await rejection(transcriber(['en', 'yue']).transcribe(audio, { language: 'cantonese' }));
    expect(error.message).to.equal('the worker was called');
    expect((await rejection(transcriber(undefined).transcribe(audio, { language: 'yue' }))).message).to.equal('the worker was called');
  });
});

describe('toTranscript', () => {
  it('trims text and closes open or out-of-range segment stamps at the audio end', () => {
    const transcript = toTranscript(
      {
        text: ' hello there ',
        chunks: [
          { timestamp: [0, 1.5], text: ' hello' },
          { timestamp: [1.5, null], text: ' there' },
          { timestamp: [9, 12], text: 'x' },
        ],
      },
      { duration: 3, segments: true },
    );
    expect(transcript).to.deep.equal({
      text: 'hello there',
      duration: 3,
      segments: [
        { start: 0, end: 1.5, text: 'hello' },
        { start: 1.5, end: 3, text: 'there' },
        { start: 3, end: 3, text: 'x' },
      ],
    });
  });
});
