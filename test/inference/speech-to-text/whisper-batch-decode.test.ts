/**
 * Batched decoding on the real Whisper tiny.en (skipped when not installed: `npm run
 * test-models`): windows of different speech clips decoded in one batch give, row by row, the
 * tokens the sequential decode gives, whatever the rows' prompts, and end on their own.
 */
import type { Tensor } from '@huggingface/transformers';
import { expect } from 'chai';
import type { WhisperSpecialTokens } from '../../../src/inference/speech-to-text/decoding/whisper-special-tokens.js';
import type { WhisperWindowDecoder } from '../../../src/inference/speech-to-text/decoder/whisper-window-decoder.js';
import type { WindowDecodeRequest, WindowDecodeResult } from '../../../src/inference/speech-to-text/decoding/window-decode-request.js';
import { decodeClipsOnce } from '../../../scripts/eval/lib/long-speech.js';
import { readSpeechClips } from '../../../scripts/eval/lib/speech-clips.js';
import { SPEECH_DIR } from '../../audio/audio-test-helpers.js';
import { loadTinyEnWindowDecoder, tinyEnAvailable, type TinyEnPipeline } from './tiny-en-window-decoder.js';

describe('WhisperWindowDecoder batches, whisper-tiny.en (real weights)', function () {
  this.timeout(300_000);
  let asr: TinyEnPipeline;
  let decoder: WhisperWindowDecoder;
  let tokens: WhisperSpecialTokens;
  let startTokens: number[];
  let features: Tensor[];
  /** The encoder's output for each clip, computed once: every test decodes from it. */
  let audio: Tensor[];
  let references: string[];
  const signal = new AbortController().signal;
  const request = (audioFeatures: Tensor, prompt: number[] = []): WindowDecodeRequest => ({
    audioFeatures,
    prompt,
    startTokens,
    temperature: 0,
    maxTokens: 224,
    signal,
  });
  const encodeEach = async (inputs: readonly Tensor[]) => {
    const outputs: Tensor[] = [];
    for (const inputFeatures of inputs) outputs.push(await decoder.encode(inputFeatures));
    return outputs;
  };

  before(async function () {
    if (!tinyEnAvailable()) this.skip(); // run `npm run test-models` to include it
    ({ asr, tokens, decoder, startTokens } = await loadTinyEnWindowDecoder());
    // Clips of different lengths (JFK, the LibriVox clip, goforward, a card): rows end at different steps.
    const clips = await decodeClipsOnce((await readSpeechClips(SPEECH_DIR)).slice(0, 5));
    features = [];
    for (const clip of clips) features.push((await asr.processor(clip.samples)).input_features);
    references = clips.map((clip) => clip.reference);
    audio = await encodeEach(features);
  });
  after(() => asr?.dispose());

  it('decodes each row of a batch to the tokens of its sequential decode', async () => {
    const sequential: WindowDecodeResult[] = [];
    for (const audioFeatures of audio) sequential.push(await decoder.decode(request(audioFeatures)));
    const batched = await decoder.decodeBatch(audio.map((audioFeatures) => request(audioFeatures)));
    expect(new Set(sequential.map((result) => result.tokens.length)).size).to.be.greaterThan(2); // rows leave at different steps
    batched.forEach((result, index) => {
      expect(result.tokens, `window ${index}`).to.deep.equal(sequential[index]!.tokens);
      expect(result.avgLogProb).to.be.closeTo(sequential[index]!.avgLogProb, 1e-3);
      expect(result.noSpeechProb).to.be.closeTo(sequential[index]!.noSpeechProb, 1e-4);
    });
    const text = asr.tokenizer.decode(
      batched[0]!.tokens.filter((id) => id < tokens.eot),
      { skip_special_tokens: true },
    );
    expect(text.trim().toLowerCase().slice(0, 10)).to.equal(references[0]!.trim().toLowerCase().slice(0, 10));
  });

  it('batches rows with prompts of the same length together and others apart, each as decoded alone', async () => {
    const encode = (text: string) => asr.tokenizer.encode(text, { add_special_tokens: false });
    const promptA = encode(references.slice(1).join(' ')).slice(0, 12);
    const promptB = encode(references[0]!).slice(0, 12);
    expect(promptA.length).to.equal(promptB.length);
    const requests = [request(audio[0]!, promptA), request(audio[1]!), request(audio[2]!, promptB), request(audio[3]!, promptA.slice(0, 7))];
    const batched = await decoder.decodeBatch(requests);
    for (const [index, one] of requests.entries()) expect(batched[index]!.tokens, `window ${index}`).to.deep.equal((await decoder.decode(one)).tokens);
  });

  it('stops between steps once a row’s signal aborts', async () => {
    const audioFeatures = audio[0]!;
    const controller = new AbortController();
    let steps = 0;
    const counting = { ...request(audioFeatures), signal: controller.signal };
    Object.defineProperty(counting, 'signal', {
      get: () => {
        if (++steps === 3) controller.abort(new Error('cancelled'));
        return controller.signal;
      },
    });
    let failure: unknown;
    await decoder.decodeBatch([request(audioFeatures), counting]).catch((error: unknown) => {
      failure = error;
    });
    expect((failure as Error | undefined)?.message).to.equal('cancelled');
  });
});
