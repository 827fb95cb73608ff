import { expect } from 'chai';
import { ModelNotInstalledError } from '../../../src/errors.js';
import { Pcm16Buffer } from '../../../src/audio/pcm16-buffer.js';
import { windowReader } from '../../../src/inference/speech-to-text/vad/speech-windows.js';
import {
  gainedRegion,
  islandVadOptions,
  REGION_MAX_GAIN,
  REGION_TARGET_RMS,
  regionGain,
  silentTranscript,
  windowedVadOptions,
} from '../../../src/inference/speech-to-text/vad/vad-filter.js';
import { vadFilterRequest } from '../../../src/inference/speech-to-text/vad/vad-request.js';

describe('vad filter pieces', () => {
  it('asks the VAD for regions of at most one window, or shorter when the request says so', () => {
    expect(windowedVadOptions({})).to.deep.equal({ maxSpeechDurationS: 30 });
    expect(windowedVadOptions({ maxSpeechDurationS: 12, threshold: 0.4 })).to.deep.equal({ maxSpeechDurationS: 12, threshold: 0.4 });
    expect(windowedVadOptions({ maxSpeechDurationS: 90 })).to.deep.equal({ maxSpeechDurationS: 30 });
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

  it('reads the regions of a window, raising a quiet one to the target level (at most ×100) and leaving loud ones and silence as they are', () => {
    const second = 16_000;
    const sine = (amplitude: number) => Float32Array.from({ length: second }, (_, i) => amplitude * Math.sin(i / 3));
    const pcm = new Pcm16Buffer();
    for (const amplitude of [0.5, 0.002, 0.0002, 0]) pcm.append(sine(amplitude));
    const regions = [0, 1, 2, 3].map((k) => ({ start: k * second, end: (k + 1) * second }));
    const rms = (samples: Float32Array) => Math.sqrt(samples.reduce((sum, x) => sum + x * x, 0) / samples.length);
    expect(regionGain(pcm, regions[0]!)).to.equal(1);
    expect(regionGain(pcm, regions[1]!)).to.be.closeTo(REGION_TARGET_RMS / (0.002 / Math.SQRT2), 1);
    expect(regionGain(pcm, regions[2]!)).to.equal(REGION_MAX_GAIN);
    expect(regionGain(pcm, regions[3]!)).to.equal(1);
    const before = [0, 1, 2, 3].map((k) => pcm.read(k * second, (k + 1) * second));
    const joined = windowReader(pcm, { start: 0, end: 4 * second, regions: regions.map((region) => ({ ...region, gain: regionGain(pcm, region) })) });
    expect(joined.length).to.equal(4 * second);
    expect(Array.from(joined.read(0, second))).to.deep.equal(Array.from(before[0]!));
    expect(rms(joined.read(second, 2 * second))).to.be.closeTo(REGION_TARGET_RMS, 0.001);
    expect(rms(joined.read(2 * second, 3 * second))).to.be.closeTo(100 * rms(before[2]!), 0.001);
    expect(joined.read(3 * second, 4 * second).every((x) => x === 0)).to.equal(true);
  });

  it('raises a quiet utterance after a loud one in the same region on its own, and reads the pause between them as it was', () => {
    const second = 16_000;
    const sine = (amplitude: number, seconds: number) => Float32Array.from({ length: seconds * second }, (_, i) => amplitude * Math.sin(i / 3));
    const pcm = new Pcm16Buffer();
    for (const [amplitude, seconds] of [
      [0.5, 2],
      [0.001, 1],
      [0.002, 2],
    ] as const)
      pcm.append(sine(amplitude, seconds));
    const rms = (samples: Float32Array) => Math.sqrt(samples.reduce((sum, x) => sum + x * x, 0) / samples.length);
    const loud = { start: 0, end: 2 * second };
    const quiet = { start: 3 * second, end: 5 * second };
    const region = gainedRegion(pcm, { start: 0, end: 5 * second }, [loud, quiet]);
    expect(region.gain).to.equal(1);
    expect(region.islands!.map((island) => island.gain)).to.deep.equal([1, regionGain(pcm, quiet)]);
    const read = windowReader(pcm, { start: 0, end: 5 * second, regions: [region] });
    expect(Array.from(read.read(0, 3 * second))).to.deep.equal(Array.from(pcm.read(0, 3 * second)));
    expect(rms(read.read(3 * second, 5 * second))).to.be.closeTo(REGION_TARGET_RMS, 0.001);
    // Islands end at shorter pauses, with shorter pads, than the request's regions; never longer ones.
    expect(islandVadOptions({})).to.deep.equal({ minSilenceDurationMs: 500, speechPadMs: 200 });
    expect(islandVadOptions({ minSilenceDurationMs: 100, speechPadMs: 600, threshold: 0.4 })).to.deep.equal({
      minSilenceDurationMs: 100,
      speechPadMs: 200,
      threshold: 0.4,
    });
  });
});
