/**
 * The decoding options over a scripted window decoder: what each window is prompted with (initial
 * prompt, hotwords, condition_on_previous_text), the temperatures and thresholds it is decoded
 * with, and the token log probabilities kept. The real model runs in test/http/decoding-options.slow.test.ts.
 */
import { expect } from 'chai';
import { Tensor } from '@huggingface/transformers';
import { DEFAULT_SEARCH, longFormDecoding, withDefaultSearch } from '../../../src/inference/speech-to-text/decoding/decoding-options.js';
import { decodeLongForm, type LongFormModel } from '../../../src/inference/speech-to-text/long-form/long-form-decoder.js';
import { TokenLogprobs } from '../../../src/inference/speech-to-text/token-logprobs.js';
import type { WhisperSpecialTokens } from '../../../src/inference/speech-to-text/decoding/whisper-special-tokens.js';
import { windowPrompt } from '../../../src/inference/speech-to-text/decoding/whisper-prompt.js';
import { MAX_PROMPT_TOKENS, type WindowDecodeRequest, type WindowDecodeResult } from '../../../src/inference/speech-to-text/decoding/window-decode-request.js';
import { ValidationError } from '../../../src/errors.js';
import type { DecodingOptions } from '../../../src/inference/types.js';

const TOKENS: WhisperSpecialTokens = { eot: 100, sot: 101, noTimestamps: 102, timestampBegin: 103, suppress: [], beginSuppress: [] };
const TS = (seconds: number) => TOKENS.timestampBegin + Math.round(seconds / 0.02);
const WORDS = ['', ' one', ' two', ' three', ' four', ' five', ' six'];

/** A model whose window decodes come from `script` in order, recording each request. */
function scriptedModel(script: WindowDecodeResult[], calls: WindowDecodeRequest[]): LongFormModel {
  return {
    tokens: TOKENS,
    features: async () => new Tensor('float32', new Float32Array(1), [1, 1, 1]),
    decoder: {
      encode: async (features) => features,
      decode: async (request: WindowDecodeRequest) => {
        calls.push(request);
        const next = script.shift();
        if (!next) throw new Error('decoded more windows than scripted');
        return next;
      },
    },
    detokenize: (ids) => ids.map((id) => WORDS[id] ?? '?').join(''),
  };
}

const ok = (tokens: number[], tokenLogProbs?: number[]): WindowDecodeResult => ({ tokens, tokenLogProbs, avgLogProb: -0.2, noSpeechProb: 0.01 });
const silence = (seconds: number) => new Float32Array(seconds * 16_000);
/** Token ids of a text, one per character (what the tests' `encode` does). */
const encode = (text: string) => [...text].map((character) => character.charCodeAt(0));
const signal = new AbortController().signal;

describe('decoding options in the long-form decoder (scripted windows)', () => {
  it('gives the initial prompt to the first window as previous text, then the text so far after it', async () => {
    const calls: WindowDecodeRequest[] = [];
    const model = scriptedModel([ok([TS(0), 1, TS(30)]), ok([TS(0), 2, TS(5)])], calls);
    await decodeLongForm(silence(35), model, { startTokens: [TOKENS.sot], signal, initialPrompt: [7, 8] });
    expect(calls[0]!.prompt).to.deep.equal([7, 8]);
    expect(calls[1]!.prompt).to.deep.equal([7, 8, TS(0), 1, TS(30)]);
  });

  it("samples no further than the decoder's 448 positions after a full prompt", async () => {
    const calls: WindowDecodeRequest[] = [];
    const model = scriptedModel([ok([TS(0), 1, TS(5)])], calls);
    const initialPrompt = Array.from({ length: 300 }, (_, index) => index % 90);
    await decodeLongForm(silence(5), model, { startTokens: [TOKENS.sot, 50, 51], signal, initialPrompt });
    expect(calls[0]!.prompt).to.have.length(MAX_PROMPT_TOKENS);
    expect(calls[0]!.maxTokens).to.equal(448 - 1 - MAX_PROMPT_TOKENS - 3);
  });

  it('without condition_on_previous_text, only the first window has a prompt (as openai/whisper)', async () => {
    const calls: WindowDecodeRequest[] = [];
    const model = scriptedModel([ok([TS(0), 1, TS(30)]), ok([TS(0), 2, TS(5)])], calls);
    await decodeLongForm(silence(35), model, { startTokens: [TOKENS.sot], signal, initialPrompt: [7, 8], conditionOnPreviousText: false });
    expect(calls.map((call) => call.prompt)).to.deep.equal([[7, 8], []]);
  });

  it('puts hotwords before the previous text of every window, even after a prompt reset', async () => {
    const calls: WindowDecodeRequest[] = [];
    const model = scriptedModel([ok([TS(0), 1, TS(30)]), ok([TS(0), 2, TS(5)])], calls);
    await decodeLongForm(silence(35), model, { startTokens: [TOKENS.sot], signal, hotwords: [9], conditionOnPreviousText: false });
    expect(calls.map((call) => call.prompt)).to.deep.equal([[9], [9]]);
  });

  it('decodes at one given temperature without fallback, and keeps the window even when it fails the thresholds', async () => {
    const calls: WindowDecodeRequest[] = [];
    const unlikely = { tokens: [TS(0), 3, TS(2)], avgLogProb: -3, noSpeechProb: 0.01 };
    const model = scriptedModel([unlikely], calls);
    const segments = await decodeLongForm(silence(5), model, { startTokens: [TOKENS.sot], signal, temperatures: [0.3] });
    expect(calls.map((call) => call.temperature)).to.deep.equal([0.3]);
    expect(segments.map((segment) => [segment.text, segment.details.temperature])).to.deep.equal([[' three', 0.3]]);
  });

  it('gives every decode of a window the search options: beams at temperature 0, samples at the fallbacks', async () => {
    const calls: WindowDecodeRequest[] = [];
    const unlikely = { tokens: [TS(0), 3, TS(2)], avgLogProb: -3, noSpeechProb: 0.01 };
    const model = scriptedModel([unlikely, { ...unlikely, avgLogProb: -0.2 }], calls);
    const search = { beamSize: 5, bestOf: 3, patience: 1.5 };
    await decodeLongForm(silence(5), model, { startTokens: [TOKENS.sot], signal, search });
    expect(calls.map((call) => [call.temperature, call.search])).to.deep.equal([
      [0, search],
      [0.2, search],
    ]);
  });

  it('falls back only while a window fails the thresholds given', async () => {
    const calls: WindowDecodeRequest[] = [];
    const unlikely = { tokens: [TS(0), 3, TS(2)], avgLogProb: -3, noSpeechProb: 0.01 };
    const model = scriptedModel([unlikely], calls);
    const thresholds = { compressionRatio: 2.4, logProb: -5, noSpeech: 0.6 };
    await decodeLongForm(silence(5), model, { startTokens: [TOKENS.sot], signal, thresholds });
    expect(
      calls.map((call) => call.temperature),
      'passes a log-prob threshold of -5',
    ).to.deep.equal([0]);
  });

  it('keeps each segment its tokens’ log probabilities, sliced as the window is cut', async () => {
    const calls: WindowDecodeRequest[] = [];
    const model = scriptedModel([ok([TS(0), 1, TS(1), TS(1), 2, TS(2)], [-0.1, -0.2, -0.3, -0.4, -0.5, -0.6])], calls);
    const segments = await decodeLongForm(silence(2), model, { startTokens: [TOKENS.sot], signal, logprobs: true });
    expect(segments.map((segment) => segment.tokenLogprobs)).to.deep.equal([
      [-0.1, -0.2, -0.3],
      [-0.4, -0.5, -0.6],
    ]);
  });
});

describe('windowPrompt', () => {
  it('keeps hotwords whole and the end of the previous text, 223 tokens together at most', () => {
    const previous = Array.from({ length: 300 }, (_, index) => 1000 + index);
    const prompt = windowPrompt([1, 2, 3], previous);
    expect(prompt).to.have.length(MAX_PROMPT_TOKENS);
    expect(prompt.slice(0, 4)).to.deep.equal([1, 2, 3, 1080]);
    expect(prompt.at(-1)).to.equal(1299);
  });

  it('cuts over-long hotwords from their end (as faster-whisper) and leaves no room for previous text', () => {
    const hotwords = Array.from({ length: 400 }, (_, index) => index);
    expect(windowPrompt(hotwords, [5000])).to.deep.equal(hotwords.slice(0, MAX_PROMPT_TOKENS));
    expect(windowPrompt([], [])).to.deep.equal([]);
  });
});

describe('longFormDecoding', () => {
  it("encodes the prompt and hotwords with openai/whisper's leading space; defaults are openai's", () => {
    const decoding = longFormDecoding({ prompt: '  Siobhan ', hotwords: 'k8s' }, encode);
    expect(decoding.initialPrompt).to.deep.equal(encode(' Siobhan'));
    expect(decoding.hotwords).to.deep.equal(encode(' k8s'));
    expect(decoding.temperatures).to.deep.equal([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(decoding.thresholds).to.deep.equal({ compressionRatio: 2.4, logProb: -1, noSpeech: 0.6 });
    expect(decoding.conditionOnPreviousText).to.equal(true);
  });

  it('takes beam_size and best_of as search options, none when both are 1; refuses more than the cost cap', () => {
    expect(longFormDecoding({}, encode).search).to.equal(undefined);
    expect(longFormDecoding({ beamSize: 1, bestOf: 1, patience: 2 }, encode).search).to.equal(undefined);
    expect(longFormDecoding({ beamSize: 5, lengthPenalty: 0.5 }, encode).search).to.deep.equal({
      beamSize: 5,
      bestOf: 1,
      patience: undefined,
      lengthPenalty: 0.5,
    });
    expect(() => longFormDecoding({ beamSize: 10, bestOf: 3 }, encode)).to.throw(ValidationError, /"beam_size" × "best_of" must be at most 25/);
    expect(() => longFormDecoding({ beamSize: 11 }, encode)).to.throw(ValidationError, /"beam_size" must be an integer from 1 to 10/);
    expect(() => longFormDecoding({ beamSize: 2, patience: 0.2 }, encode)).to.throw(ValidationError, /"patience" must be a number between 0.5 and 5/);
  });

  it('VAD windows take a beam search of DEFAULT_SEARCH unless the request names beam_size or best_of; a sequential decode none', () => {
    const WINDOWS_BEAM_SIZE = DEFAULT_SEARCH.vadWindows!.beamSize;
    expect(WINDOWS_BEAM_SIZE).to.equal(2);
    expect(withDefaultSearch(longFormDecoding({}, encode), {}, 'sequential').search).to.equal(undefined);
    const windows = (options: DecodingOptions) => withDefaultSearch(longFormDecoding(options, encode), options, 'vadWindows').search;
    expect(windows({})).to.deep.equal({ beamSize: WINDOWS_BEAM_SIZE, bestOf: 1, patience: undefined, lengthPenalty: undefined });
    expect(windows({ patience: 2 })).to.deep.equal({ beamSize: WINDOWS_BEAM_SIZE, bestOf: 1, patience: 2, lengthPenalty: undefined });
    // beam_size=1 is the request's own choice: the greedy decode.
    expect(windows({ beamSize: 1 })).to.equal(undefined);
    expect(windows({ bestOf: 1 })).to.equal(undefined);
    expect(windows({ beamSize: 5 })).to.deep.include({ beamSize: 5 });
  });

  it('refuses more than 6 temperatures (the cost cap) or none', () => {
    expect(() => longFormDecoding({ temperatures: [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6] }, encode)).to.throw(ValidationError, /1 to 6 values/);
    expect(() => longFormDecoding({ temperatures: [] }, encode)).to.throw(ValidationError);
  });
});

describe('TokenLogprobs', () => {
  const vocabulary = new Map([
    ['ĠKub', 0],
    ['ernetes', 1],
    ['Ġâ', 2],
    ['Ĥ¬', 3],
  ]);
  it("gives each text token's text and exact UTF-8 bytes, U+FFFD where a token holds part of a character", () => {
    const entries = new TokenLogprobs(vocabulary).entries([0, 1, 2, 3, 100], [-0.5, -0.1, -1, -2, -0.01], 100);
    expect(entries.map((entry) => entry.token)).to.deep.equal([' Kub', 'ernetes', ' \ufffd', '\ufffd\ufffd']);
    expect(entries[0]).to.deep.equal({ token: ' Kub', logprob: -0.5, bytes: [0x20, 0x4b, 0x75, 0x62] });
    // " €" is 0x20 0xE2 0x82 0xAC, split over two tokens.
    expect([...entries[2]!.bytes, ...entries[3]!.bytes]).to.deep.equal([0x20, 0xe2, 0x82, 0xac]);
  });
});
