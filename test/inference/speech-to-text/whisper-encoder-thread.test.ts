/**
 * The encoder moved into a thread of its own: the file transformers.js loaded is found by dtype,
 * and on the real whisper-tiny.en (skipped when not installed: `npm run test-models`) the moved
 * encoder gives the window decoder exactly the output of the one it replaced, and the pipeline
 * rebuilt over it (transformers.js's public constructors) transcribes as the loaded one did.
 */
import { join } from 'node:path';
import { expect } from 'chai';
import { encoderFile, withEncoderInThread } from '../../../src/inference/speech-to-text/whisper-encoder-thread.js';
import { OnnxSessionThread } from '../../../src/inference/onnx-session-thread.js';
import { WhisperWindowDecoder } from '../../../src/inference/speech-to-text/decoder/whisper-window-decoder.js';
import { decodeClipsOnce } from '../../../scripts/eval/lib/long-speech.js';
import { readSpeechClips } from '../../../scripts/eval/lib/speech-clips.js';
import { REPO_ROOT, SPEECH_DIR } from '../../audio/audio-test-helpers.js';
import { loadTinyEnWindowDecoder, tinyEnAvailable, type TinyEnPipeline, type TinyEnWindowDecoder } from './tiny-en-window-decoder.js';

describe('whisper encoder thread', function () {
  this.timeout(120_000);

  it('finds the encoder file of the dtype transformers.js loads, and none for a dtype it cannot place', () => {
    expect(encoderFile('/m/tiny', 'fp32')).to.equal(join('/m/tiny', 'onnx', 'encoder_model.onnx'));
    expect(encoderFile('/m/tiny', 'q8')).to.equal(join('/m/tiny', 'onnx', 'encoder_model_quantized.onnx'));
    expect(encoderFile('/m/tiny', { encoder_model: 'fp16', decoder_model_merged: 'q8' })).to.equal(join('/m/tiny', 'onnx', 'encoder_model_fp16.onnx'));
    expect(encoderFile('/m/tiny', { decoder_model_merged: 'q8' })).to.equal(join('/m/tiny', 'onnx', 'encoder_model.onnx'));
    expect(encoderFile('/m/tiny', 'auto')).to.equal(undefined);
  });

  describe('whisper-tiny.en (real weights)', () => {
    let tiny: TinyEnWindowDecoder;
    let moved: TinyEnPipeline | undefined;
    before(async function () {
      if (!tinyEnAvailable()) this.skip();
      tiny = await loadTinyEnWindowDecoder();
    });
    // The moved pipeline holds the loaded one's decoder and the thread: disposing it releases both.
    after(() => (moved ?? tiny?.asr)?.dispose());

    it('encodes in the thread exactly as in this one, transcribes as before, and leaves a missing file alone', async () => {
      const [clip] = await decodeClipsOnce((await readSpeechClips(SPEECH_DIR)).slice(0, 1));
      const features = async () => (await tiny.asr.processor(clip!.samples)).input_features;
      const here = await tiny.decoder.encode(await features());
      const transcribe = (asr: TinyEnPipeline) =>
        (asr as unknown as (audio: Float32Array, options: object) => Promise<unknown>)(clip!.samples, { return_timestamps: true });
      const answer = await transcribe(tiny.asr);
      const init = { sessionOptions: { intraOpNumThreads: 1, interOpNumThreads: 1 }, nice: 0 };
      expect(await withEncoderInThread(tiny.asr, join(REPO_ROOT, 'models/whisper-tiny.en/onnx/missing.onnx'), init)).to.equal(tiny.asr);
      moved = await withEncoderInThread(tiny.asr, encoderFile(join(REPO_ROOT, 'models/whisper-tiny.en'), 'fp32'), init);
      expect(moved).to.not.equal(tiny.asr);
      expect(moved.model.sessions.model).to.be.instanceOf(OnnxSessionThread);
      expect(moved.model.sessions.decoder_model_merged).to.equal(tiny.asr.model.sessions.decoder_model_merged);
      expect(moved.model.generation_config).to.deep.equal(tiny.asr.model.generation_config);
      const there = await new WhisperWindowDecoder(moved.model, tiny.tokens).encode(await features(), new AbortController().signal);
      expect(there.dims).to.deep.equal(here.dims);
      expect(Buffer.from((there.data as Float32Array).buffer).equals(Buffer.from((here.data as Float32Array).buffer))).to.equal(true);
      expect(await transcribe(moved)).to.deep.equal(answer);
    });
  });
});
