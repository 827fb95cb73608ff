/**
 * Long-form decoding with the real Whisper tiny.en (skipped when not installed: `npm run
 * test-models`) on a multi-window file built here from the shared English clips (each decoded
 * once, joined in file order with 1.5 s of silence, repeated to ~80 s; no audio is committed).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { ManifestEntry } from '../../../src/inference/manifest.js';
import { transformersAsrEngine } from '../../../src/inference/speech-to-text/transformers-asr-engine.js';
import type { Transcriber, TranscriptSegment } from '../../../src/inference/types.js';
import { decodeClipsOnce, joinClips, type LongSpeech } from '../../../scripts/eval/lib/long-speech.js';
import { normalizeTranscript } from '../../../scripts/eval/lib/normalize-transcript.js';
import { readSpeechClips } from '../../../scripts/eval/lib/speech-clips.js';
import { wordErrors } from '../../../scripts/eval/lib/wer.js';
import { REPO_ROOT, SPEECH_DIR } from '../../audio/audio-test-helpers.js';

const MODELS_DIR = join(REPO_ROOT, 'models');
const ENTRY: ManifestEntry = {
  id: 'whisper-tiny.en',
  task: 'speech-to-text',
  engine: 'transformers-asr',
  description: 'Whisper tiny.en',
  license: 'MIT',
  options: { dtype: 'fp32' },
};

describe('long-form transcription, whisper-tiny.en (real weights) on ~60 s of joined clips', function () {
  this.timeout(300_000);
  let transcriber: Transcriber;
  let audio: LongSpeech;
  /** One timed transcript (VAD off: this is about the windows themselves), with what onSegments reported as it went. */
  let timed: { transcript: Awaited<ReturnType<Transcriber['transcribe']>>; reported: TranscriptSegment[]; reports: number };
  const pcm = () => ({ samples: audio.samples.slice(), sampleRate: audio.sampleRate });

  before(async function () {
    if (!existsSync(join(MODELS_DIR, ENTRY.id, '.installed.json'))) this.skip(); // run `npm run test-models` to include it
    // Past two windows: the clips once round and the first few again.
    audio = joinClips(await decodeClipsOnce(await readSpeechClips(SPEECH_DIR)), { targetSeconds: 60, gapSeconds: 1.5 });
    transcriber = await transformersAsrEngine.load(ENTRY, { modelDir: join(MODELS_DIR, ENTRY.id), modelsDir: MODELS_DIR });
    const reported: TranscriptSegment[] = [];
    let reports = 0;
    const transcript = await transcriber.transcribe(pcm(), {
      segments: true,
      vadFilter: false,
      onSegments: (segments) => {
        reported.push(...segments);
        reports++;
      },
    });
    timed = { transcript, reported, reports };
  });
  after(() => transcriber?.dispose());

  it('plain text (no timestamps asked) keeps the words of every clip, and equals the timed transcript text', async () => {
    // VAD off: this is about the windows themselves (vad-filter's tests cover the cut and the time map).
    const plain = await transcriber.transcribe(pcm(), { vadFilter: false });
    const timedText = timed.transcript;
    const { wer } = wordErrors(normalizeTranscript(audio.reference), normalizeTranscript(plain.text));
    console.log(`      ${audio.clips.length} clips, ${audio.samples.length / audio.sampleRate} s: WER ${wer.toFixed(3)}`);
    expect(plain.segments).to.equal(undefined);
    expect(plain.text).to.equal(timedText.text);
    expect(wer).to.be.below(0.35);
    // Each clip has text timed within it: no window's speech was dropped.
    for (const clip of audio.clips) {
      const inside = timedText.segments!.filter((segment) => segment.end > clip.start - 0.5 && segment.start < clip.end + 0.5);
      expect(inside.map((segment) => segment.text).join(' '), `${clip.file} at ${clip.start.toFixed(1)} s`).to.match(/\w/);
    }
  });

  it('times segments in order within the audio, reports them as they are decoded, and keeps case and punctuation after the first window', async () => {
    const { transcript, reported, reports: reportedBeforeEnd } = timed;
    const segments = transcript.segments!;
    expect(segments.length).to.be.above(5);
    let previousEnd = 0;
    for (const segment of segments) {
      expect(segment.start, segment.text).to.be.at.least(previousEnd - 1e-6);
      expect(segment.end, segment.text).to.be.at.least(segment.start);
      expect(segment.end).to.be.at.most(transcript.duration);
      previousEnd = segment.end;
    }
    expect(segments[segments.length - 1]!.end).to.be.above(transcript.duration - 10);
    // Progress: the same segments, in more than one batch (one per window at least).
    expect(reportedBeforeEnd).to.be.above(1);
    expect(reported.map((segment) => segment.text.trim())).to.deep.equal(segments.map((segment) => segment.text));
    // The text carried over as the prompt keeps later windows in the same written style.
    const later = segments
      .filter((segment) => segment.start >= 30)
      .map((segment) => segment.text)
      .join(' ');
    expect(later).to.match(/[A-Z]/);
    expect(later).to.match(/[.,?!'-]/);
  });
});
