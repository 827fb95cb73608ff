/**
 * The window decoder on the real Whisper tiny.en (skipped when not installed: `npm run
 * test-models`): a long prompt is read a few tokens per pass (so no pass returns logits for
 * hundreds of tokens), which must decode exactly as reading it in one pass.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from '@huggingface/transformers';
import { expect } from 'chai';
import { configureRuntime } from '../../../src/inference/runtime.js';
import { MAX_PROMPT_TOKENS, WhisperWindowDecoder, type WhisperSeq2Seq } from '../../../src/inference/speech-to-text/whisper-window-decoder.js';
import { whisperSpecialTokens, whisperStartTokens, type WhisperSpecialTokens } from '../../../src/inference/speech-to-text/whisper-special-tokens.js';
import { decodeClipsOnce } from '../../../scripts/eval/lib/long-speech.js';
import { readSpeechClips } from '../../../scripts/eval/lib/speech-clips.js';
import { REPO_ROOT, SPEECH_DIR } from '../../audio/audio-test-helpers.js';

const MODELS_DIR = join(REPO_ROOT, 'models');
const MODEL_ID = 'whisper-tiny.en';

interface TestPipeline {
  model: WhisperSeq2Seq & { generation_config: Parameters<typeof whisperSpecialTokens>[0] };
  tokenizer: { get_vocab(): Map<string, number>; encode(text: string, options: { add_special_tokens: boolean }): number[] };
  processor(pcm: Float32Array): Promise<{ input_features: Parameters<WhisperWindowDecoder['encode']>[0] }>;
  dispose(): Promise<void>;
}

describe('WhisperWindowDecoder, whisper-tiny.en (real weights)', function () {
  this.timeout(120_000);
  let asr: TestPipeline;
  let decoder: WhisperWindowDecoder;
  let tokens: WhisperSpecialTokens;
  let clips: Array<{ reference: string; samples: Float32Array }>;
  before(async function () {
    if (!existsSync(join(MODELS_DIR, MODEL_ID, '.installed.json'))) this.skip(); // run `npm run test-models` to include it
    if (!existsSync(join(SPEECH_DIR, 'transcripts.tsv'))) this.skip(); // the shared speech clips are not here
    configureRuntime({ modelsDir: MODELS_DIR });
    asr = (await pipeline('automatic-speech-recognition', MODEL_ID, { dtype: 'fp32', device: 'cpu' })) as unknown as TestPipeline;
    tokens = whisperSpecialTokens(asr.model.generation_config, asr.tokenizer.get_vocab())!;
    decoder = new WhisperWindowDecoder(asr.model, tokens);
    clips = await decodeClipsOnce((await readSpeechClips(SPEECH_DIR)).slice(0, 10));
  });
  after(() => asr?.dispose());

  it('decodes after a long prompt read in chunks exactly as after the same prompt read in one pass', async () => {
    const [clip, ...earlier] = clips;
    const prompt = asr.tokenizer.encode(earlier.map((c) => c.reference).join(' '), { add_special_tokens: false });
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
