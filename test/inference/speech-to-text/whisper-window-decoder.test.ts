/**
 * The window decoder on the real Whisper tiny.en (skipped when not installed: `npm run
 * test-models`): a long prompt is read a few tokens per pass (so no pass returns logits for
 * hundreds of tokens), which must decode exactly as reading it in one pass.
 */
import { expect } from 'chai';
import type { WhisperWindowDecoder } from '../../../src/inference/speech-to-text/decoder/whisper-window-decoder.js';
import { MAX_PROMPT_TOKENS } from '../../../src/inference/speech-to-text/decoding/window-decode-request.js';
import { whisperStartTokens, type WhisperSpecialTokens } from '../../../src/inference/speech-to-text/decoding/whisper-special-tokens.js';
import { decodeClipsOnce } from '../../../scripts/eval/lib/long-speech.js';
import { readSpeechClips } from '../../../scripts/eval/lib/speech-clips.js';
import { SPEECH_DIR } from '../../audio/audio-test-helpers.js';
import { loadTinyEnWindowDecoder, tinyEnAvailable, type TinyEnPipeline } from './tiny-en-window-decoder.js';

describe('WhisperWindowDecoder, whisper-tiny.en (real weights)', function () {
  this.timeout(120_000);
  let asr: TinyEnPipeline;
  let decoder: WhisperWindowDecoder;
  let tokens: WhisperSpecialTokens;
  let clips: Array<{ reference: string; samples: Float32Array }>;
  before(async function () {
    if (!tinyEnAvailable()) this.skip(); // run `npm run test-models` to include it
    ({ asr, tokens, decoder } = await loadTinyEnWindowDecoder());
    clips = await decodeClipsOnce((await readSpeechClips(SPEECH_DIR)).slice(0, 10));
  });
  after(() => asr?.dispose());

  it('decodes after a long prompt read in chunks exactly as after the same prompt read in one pass', async () => {
    const [clip, ...earlier] = clips;
    // The earlier clips' text twice over: a prompt longer than one chunk.
    const prompt = asr.tokenizer.encode([...earlier, ...earlier].map((c) => c.reference).join(' '), { add_special_tokens: false });
    expect(prompt.length).to.be.within(70, MAX_PROMPT_TOKENS); // several chunks, none cut off
    const audioFeatures = await decoder.encode((await asr.processor(clip!.samples)).input_features);
    const startTokens = whisperStartTokens(asr.model.generation_config, {});
    const common = { audioFeatures, temperature: 0, maxTokens: 224, signal: new AbortController().signal };

    const chunked = await decoder.decode({ ...common, prompt, startTokens });
    // With no prompt, the start tokens are read in one pass: here they carry the prompt themselves.
    const onePass = await decoder.decode({ ...common, prompt: [], startTokens: [tokens.sotPrev!, ...prompt, ...startTokens] });

    expect(chunked.tokens).to.deep.equal(onePass.tokens);
    expect(chunked.tokens.length).to.be.greaterThan(5);
    expect(chunked.avgLogProb).to.be.closeTo(onePass.avgLogProb, 1e-4);
    expect(chunked.noSpeechProb).to.be.closeTo(onePass.noSpeechProb, 1e-5);
  });
});
