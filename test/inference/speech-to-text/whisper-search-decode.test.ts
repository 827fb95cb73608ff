/**
 * decodeSearch over a stand-in decoder: the rows it asks the decoder for always exist in the
 * cache it has (a best-of's samples all grow from the start tokens' one row).
 */
import { expect } from 'chai';
import { decodeSearch, type SearchSession } from '../../../src/inference/speech-to-text/decoding/whisper-search-decode.js';
import type { WhisperSpecialTokens } from '../../../src/inference/speech-to-text/decoding/whisper-special-tokens.js';
import { seededRandom } from '../../../src/inference/speech-to-text/decoding/whisper-token-choice.js';

const TOKENS: WhisperSpecialTokens = { eot: 100, sot: 101, noTimestamps: 102, timestampBegin: 103, suppress: [], beginSuppress: [] };
const VOCAB = 110;

/** A session of flat logits that records each step's sources against the rows it holds. */
function recordingSession(): { session: SearchSession; steps: { rows: number; sources: readonly number[] }[] } {
  const steps: { rows: number; sources: readonly number[] }[] = [];
  let rows = 1;
  const session: SearchSession = {
    start: async () => ({ logits: new Float32Array(VOCAB), noSpeechProb: 0 }),
    step: async (sources, tokens) => {
      steps.push({ rows, sources });
      rows = sources.length;
      return tokens.map(() => new Float32Array(VOCAB));
    },
  };
  return { session, steps };
}

describe('decodeSearch', () => {
  const request = { temperature: 0, maxTokens: 4, signal: new AbortController().signal };

  it('grows a best-of sample set from the start tokens’ one row', async () => {
    const { session, steps } = recordingSession();
    await decodeSearch({ ...request, temperature: 0.5, random: seededRandom(3), search: { bestOf: 5 } }, TOKENS, session);
    expect(steps[0]).to.deep.equal({ rows: 1, sources: [0, 0, 0, 0, 0] });
    for (const { rows, sources } of steps) expect(Math.max(...sources)).to.be.below(rows);
  });

  it('grows a beam search from the start tokens’ one row', async () => {
    const { session, steps } = recordingSession();
    await decodeSearch({ ...request, search: { beamSize: 5 } }, TOKENS, session);
    expect(steps[0]!.rows).to.equal(1);
    for (const { rows, sources } of steps) expect(Math.max(...sources)).to.be.below(rows);
  });
});
