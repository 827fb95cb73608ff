/**
 * DecodeBatcher, the one place whole window decodes of concurrent long-form decodes are gathered
 * (decodeBatch): a batch waits for every joined caller, and a caller that ends without asking,
 * early or by failing, is counted out, so it cannot stall the others.
 */
import { Tensor } from '@huggingface/transformers';
import { expect } from 'chai';
import type { WindowDecodeRequest, WindowDecodeResult } from '../../../src/inference/speech-to-text/decoding/window-decode-request.js';
import { DecodeBatcher } from '../../../src/inference/speech-to-text/long-form/decode-batcher.js';

const request = (id: number): WindowDecodeRequest => ({
  audioFeatures: new Tensor('float32', Float32Array.of(id), [1, 1, 1]),
  prompt: [],
  startTokens: [],
  temperature: 0,
  maxTokens: 4,
  maxInitialTimestampIndex: 50,
  signal: new AbortController().signal,
});
const idOf = (one: WindowDecodeRequest) => (one.audioFeatures.data as Float32Array)[0]!;

describe('DecodeBatcher', () => {
  it('a caller that returns early without asking does not stall the batch of the others', async () => {
    const batches: number[][] = [];
    const batcher = new DecodeBatcher({
      decodeBatch: async (requests: readonly WindowDecodeRequest[]) => {
        batches.push(requests.map(idOf));
        return requests.map((one): WindowDecodeResult => ({ tokens: [idOf(one)], avgLogProb: 0, noSpeechProb: 0 }));
      },
    });
    const asking = (id: number) => batcher.join(async () => [(await batcher.decode(request(id))).tokens[0], (await batcher.decode(request(id + 1))).tokens[0]]);
    const early = batcher.join(() => new Promise<string>((resolve) => setTimeout(() => resolve('no speech'), 20)));
    const failing = batcher.join(() => new Promise<never>((_, reject) => setTimeout(() => reject(new Error('aborted')), 30)));
    const results = await Promise.allSettled([asking(10), asking(20), early, failing]);
    expect(results.map((one) => (one.status === 'fulfilled' ? one.value : (one.reason as Error).message))).to.deep.equal([
      [10, 11],
      [20, 21],
      'no speech',
      'aborted',
    ]);
    // The first batch waited for the two callers still joined, then ran both rows together.
    expect(batches).to.deep.equal([
      [10, 20],
      [11, 21],
    ]);
  });
});
