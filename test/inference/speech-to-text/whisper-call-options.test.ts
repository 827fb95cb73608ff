import { expect } from 'chai';
import type { AsrRequest } from '../../../src/inference/speech-to-text/asr-worker-protocol.js';
import { needsOwnDecoder, whisperCallOptions } from '../../../src/inference/speech-to-text/whisper-call-options.js';

const REQUEST: AsrRequest = {
  audio: { samples: new Float32Array(0), sampleRate: 16000 },
  segments: false,
  chunkLengthSeconds: 30,
  strideSeconds: 5,
};

describe('whisperCallOptions', () => {
  it('uses one window, without chunking, for audio up to 30 s', () => {
    expect(whisperCallOptions(REQUEST, 30)).to.deep.equal({ return_timestamps: false });
  });

  it('chunks longer audio into 30 s windows with a 5 s stride', () => {
    expect(whisperCallOptions(REQUEST, 30.01)).to.include({ chunk_length_s: 30, stride_length_s: 5 });
  });

  it('passes language, task, segments and the token cap through', () => {
    const options = whisperCallOptions({ ...REQUEST, language: 'es', task: 'translate', segments: true, maxNewTokens: 64 }, 3);
    expect(options).to.deep.equal({ return_timestamps: true, language: 'es', task: 'translate', max_new_tokens: 64 });
  });
});

describe('needsOwnDecoder', () => {
  it('leaves one plain window to transformers.js, and takes long audio, words and segments', () => {
    expect(needsOwnDecoder(REQUEST, 'en', 30)).to.equal(false);
    expect(needsOwnDecoder(REQUEST, undefined, 30)).to.equal(false);
    expect(needsOwnDecoder(REQUEST, 'en', 30.01)).to.equal(true);
    expect(needsOwnDecoder({ ...REQUEST, words: true }, 'en', 3)).to.equal(true);
    expect(needsOwnDecoder({ ...REQUEST, segments: true }, 'en', 3)).to.equal(true);
  });

  it('takes any decoding option (the pipeline honours none of them as openai/whisper means them), not an empty set', () => {
    expect(needsOwnDecoder({ ...REQUEST, decoding: { prompt: 'Siobhan' } }, 'en', 3)).to.equal(true);
    expect(needsOwnDecoder({ ...REQUEST, decoding: { temperatures: [0] } }, 'en', 3)).to.equal(true);
    expect(needsOwnDecoder({ ...REQUEST, decoding: {} }, 'en', 3)).to.equal(false);
  });

  it('takes a beam search or best-of, but leaves beam_size=1 (with its patience) to the pipeline: the same text as no option', () => {
    expect(needsOwnDecoder({ ...REQUEST, decoding: { beamSize: 5 } }, 'en', 3)).to.equal(true);
    expect(needsOwnDecoder({ ...REQUEST, decoding: { bestOf: 2 } }, 'en', 3)).to.equal(true);
    expect(needsOwnDecoder({ ...REQUEST, decoding: { beamSize: 1, bestOf: 1, patience: 2, lengthPenalty: 1 } }, 'en', 3)).to.equal(false);
    expect(needsOwnDecoder({ ...REQUEST, decoding: { beamSize: 1, prompt: 'Siobhan' } }, 'en', 3)).to.equal(true);
  });

  it("takes large-v3's Cantonese (yue), which transformers.js's generate() throws on, given or detected", () => {
    expect(needsOwnDecoder(REQUEST, 'yue', 3)).to.equal(true);
  });
});
