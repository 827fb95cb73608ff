/** The pure parts of long-form decoding: segment splitting, timestamp rules, fallback decisions. */
import { expect } from 'chai';
import { compressionRatio, isNoSpeech, needsFallback } from '../../../src/inference/speech-to-text/decoding/decode-quality.js';
import { whisperSpecialTokens, whisperStartTokens, type WhisperSpecialTokens } from '../../../src/inference/speech-to-text/decoding/whisper-special-tokens.js';
import { applyTimestampRules } from '../../../src/inference/speech-to-text/decoding/whisper-timestamp-rules.js';
import { splitWindow } from '../../../src/inference/speech-to-text/long-form/whisper-window-segments.js';

// A toy vocabulary: text 0–9, eot 10, no-timestamps 11, timestamps from 12 (12 = 0.00 s, 13 = 0.02 s …).
const TOKENS: WhisperSpecialTokens = { eot: 10, sot: 20, noTimestamps: 11, timestampBegin: 12, suppress: [3], beginSuppress: [0, 10] };
const TS = (seconds: number) => TOKENS.timestampBegin + Math.round(seconds / 0.02);

describe('splitWindow (segments from timestamp tokens)', () => {
  it('cuts at each timestamp pair and seeks to the end of the last closed segment, dropping the open tail', () => {
    const tokens = [TS(0), 1, 2, TS(2), TS(2), 4, TS(5), TS(5.5), 6, 7];
    const split = splitWindow(tokens, TOKENS.timestampBegin, 3000);
    expect(split.segments.map(({ start, end }) => [start, end])).to.deep.equal([
      [0, 2],
      [2, 5],
    ]);
    expect(split.segments[1]!.tokens).to.deep.equal([TS(2), 4, TS(5)]);
    expect(split.seekFrames).to.equal(500); // 5 s at 100 frames per second
  });

  it('takes the whole window when it ends on a single timestamp (the last segment is complete)', () => {
    const tokens = [TS(0), 1, TS(3), TS(3), 2, TS(7)];
    const split = splitWindow(tokens, TOKENS.timestampBegin, 2400);
    expect(split.segments.map(({ start, end }) => [start, end])).to.deep.equal([
      [0, 3],
      [3, 7],
    ]);
    expect(split.seekFrames).to.equal(2400);
  });

  it('makes one segment of a window without a pair, ending at its last timestamp', () => {
    const split = splitWindow([TS(0), 1, 2, TS(4.5)], TOKENS.timestampBegin, 3000);
    expect(split.segments).to.deep.equal([{ start: 0, end: 4.5, tokens: [TS(0), 1, 2, TS(4.5)] }]);
    expect(split.seekFrames).to.equal(3000);
    expect(splitWindow([], TOKENS.timestampBegin, 3000)).to.deep.equal({ segments: [], seekFrames: 3000 });
  });

  it('never seeks by zero (a lone pair at 0.00 would loop forever)', () => {
    expect(splitWindow([TS(0), TS(0), 1], TOKENS.timestampBegin, 3000).seekFrames).to.equal(3000);
  });
});

describe('applyTimestampRules', () => {
  const logits = (values: Record<number, number> = {}) => {
    const array = new Float32Array(TOKENS.timestampBegin + 200).fill(0);
    for (const [index, value] of Object.entries(values)) array[Number(index)] = value;
    return array;
  };

  it('starts with a timestamp no later than the allowed first one', () => {
    const l = logits({ 1: 10 });
    applyTimestampRules(l, [], TOKENS, { maxInitialTimestampIndex: 50 });
    expect(Array.from(l.subarray(0, TOKENS.timestampBegin)).every((v) => v === -Infinity)).to.equal(true);
    expect(l[TS(1)]).to.equal(0);
    expect(l[TS(1.02)]).to.equal(-Infinity);
  });

  it('closes a pair after a lone timestamp, and forbids going back in time', () => {
    const l = logits({ [TOKENS.eot]: 10 });
    applyTimestampRules(l, [TS(0), 1, 2, TS(2)], TOKENS);
    expect(l[1]).to.equal(-Infinity); // text cannot follow the first stamp of a pair…
    expect(l[TOKENS.eot]).to.equal(10); // …but eot can
    expect(l[TS(1)]).to.equal(-Infinity);
    expect(l[TS(2)]).to.equal(0); // the closing stamp may repeat it
  });

  it('wants text after a pair, never <|notimestamps|> or suppressed tokens', () => {
    const l = logits({ 1: 50 });
    applyTimestampRules(l, [TS(0), 1, TS(2), TS(2)], TOKENS);
    expect(l.subarray(TOKENS.timestampBegin).every((v) => v === -Infinity)).to.equal(true);
    expect(l[TOKENS.noTimestamps]).to.equal(-Infinity);
    expect(l[3]).to.equal(-Infinity);
    expect(l[1]).to.equal(50);
  });

  it('takes a timestamp when all timestamps together outweigh the best text token', () => {
    const l = logits({ 1: 2 }); // 200 timestamps at 0 each: log-sum-exp ≈ 5.3 > 2
    applyTimestampRules(l, [TS(0), 1], TOKENS);
    expect(l[1]).to.equal(-Infinity);
  });
});

describe('fallback decisions', () => {
  it('measures repetition as the zlib compression ratio of the text', () => {
    expect(compressionRatio('')).to.equal(0);
    expect(compressionRatio('And so, my fellow Americans, ask not what your country can do for you.')).to.be.below(1.5);
    expect(compressionRatio('the the the the the the the the the the the the the the the the the the')).to.be.above(2.4);
  });

  it('decodes again when the text is repetitive or unlikely, unless the window is silence', () => {
    const fine = { text: 'Ask not what your country can do for you.', avgLogProb: -0.3, noSpeechProb: 0.01 };
    expect(needsFallback(fine)).to.equal(false);
    expect(needsFallback({ ...fine, text: 'la '.repeat(40) })).to.equal(true);
    expect(needsFallback({ ...fine, avgLogProb: -1.5 })).to.equal(true);
    expect(needsFallback({ ...fine, avgLogProb: -1.5, noSpeechProb: 0.9 })).to.equal(false);
  });

  it('skips a window only when no-speech is likely and the text unlikely', () => {
    expect(isNoSpeech({ avgLogProb: -1.5, noSpeechProb: 0.9 })).to.equal(true);
    expect(isNoSpeech({ avgLogProb: -0.2, noSpeechProb: 0.9 })).to.equal(false);
    expect(isNoSpeech({ avgLogProb: -1.5, noSpeechProb: 0.3 })).to.equal(false);
  });
});

describe('whisperSpecialTokens / whisperStartTokens', () => {
  const vocab = new Map([
    ['<|startofprev|>', 50360],
    ['<|startoflm|>', 50359],
    ['<|nocaptions|>', 50361],
  ]);
  const english = {
    decoder_start_token_id: 50257,
    eos_token_id: 50256,
    no_timestamps_token_id: 50362,
    suppress_tokens: [1, 2],
    begin_suppress_tokens: [220, 50256],
  };

  it('reads the ids from the generation config and tokenizer, and suppresses every marker that is no text', () => {
    const tokens = whisperSpecialTokens(english, vocab)!;
    expect(tokens).to.include({ eot: 50256, sot: 50257, sotPrev: 50360, noSpeech: 50361, noTimestamps: 50362, timestampBegin: 50363 });
    expect(tokens.suppress).to.have.members([1, 2, 50257, 50360, 50359, 50361]);
    expect(whisperSpecialTokens({ ...english, no_timestamps_token_id: undefined }, vocab), 'no timestamp tokens').to.equal(undefined);
  });

  it('starts English-only models with <|startoftranscript|> alone, multilingual ones with language and task', () => {
    expect(whisperStartTokens(english, {})).to.deep.equal([50257]);
    const multilingual = {
      ...english,
      decoder_start_token_id: 50258,
      lang_to_id: { '<|en|>': 50259, '<|es|>': 50262 },
      task_to_id: { transcribe: 50359, translate: 50358 },
    };
    expect(whisperStartTokens(multilingual, { language: 'es', task: 'translate' })).to.deep.equal([50258, 50262, 50358]);
    expect(whisperStartTokens(multilingual, {})).to.deep.equal([50258, 50259, 50359]);
  });
});
