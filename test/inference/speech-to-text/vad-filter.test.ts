import { expect } from 'chai';
import { ModelNotInstalledError } from '../../../src/errors.js';
import { SpeechTimestampsMap } from '../../../src/inference/speech-to-text/speech-timestamps.js';
import { originalEnd, silentTranscript } from '../../../src/inference/speech-to-text/vad-filter.js';
import { vadFilterRequest } from '../../../src/inference/speech-to-text/vad-request.js';

describe('vad filter pieces', () => {
  // Regions 1–3 s and 5–6 s of the original: joined, the second starts at 2 s.
  const map = new SpeechTimestampsMap([
    { start: 16_000, end: 48_000 },
    { start: 80_000, end: 96_000 },
  ]);

  it('ends a segment that Whisper stamps just into the next region\'s pad at the end of its own region', () => {
    expect(originalEnd(map, 0.5, 2.1, 0.4)).to.equal(3);
    // A segment that really runs into the next region keeps its mapped end…
    expect(originalEnd(map, 0.5, 2.5, 0.4)).to.equal(5.5);
    // …and one that starts in the region is mapped as faster-whisper maps it.
    expect(originalEnd(map, 2.05, 2.1, 0.4)).to.equal(5.1);
    expect(originalEnd(map, 0.5, 2, 0.4)).to.equal(3);
  });

  it('answers nothing for audio without speech, with segments only when asked', () => {
    expect(silentTranscript(60.0004, { segments: false })).to.deep.equal({ text: '', duration: 60 });
    expect(silentTranscript(12.5, { segments: true, language: 'de' })).to.deep.equal({ text: '', duration: 12.5, language: 'de', segments: [] });
  });

  it('runs the filter when asked or by default, and refuses an explicit request without the VAD model', () => {
    expect(vadFilterRequest({}, true)).to.deep.equal({ always: false, options: {} });
    expect(vadFilterRequest({ vadFilter: true, vad: { speechPadMs: 100 } }, true)).to.deep.equal({ always: true, options: { speechPadMs: 100 } });
    expect(vadFilterRequest({ vadFilter: false }, true)).to.equal(undefined);
    expect(vadFilterRequest({}, false)).to.equal(undefined);
    expect(() => vadFilterRequest({ vadFilter: true }, false)).to.throw(ModelNotInstalledError, /silero-vad-v6/);
  });
});
