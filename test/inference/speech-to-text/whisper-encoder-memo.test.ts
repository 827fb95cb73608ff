/**
 * The encoder memo answers a second run of the same one-window features without the session, and
 * runs the session for anything else. The real model's detection-then-decode path is covered by the
 * multilingual tests in test/http/transcriptions.test.ts (the same text as before the memo).
 */
import { expect } from 'chai';
import { EncoderMemo } from '../../../src/inference/speech-to-text/whisper-encoder-memo.js';
import type { OrtTensor } from '../../../src/inference/ort-tensor.js';

/** A session that counts its runs and answers each with a fresh output. */
function countingSession() {
  const session = {
    runs: 0,
    inputNames: ['input_features'],
    outputNames: ['last_hidden_state'],
    async run(feeds: Record<string, OrtTensor>): Promise<Record<string, OrtTensor>> {
      session.runs++;
      const input = feeds.input_features!.data as Float32Array;
      return { last_hidden_state: { type: 'float32', data: Float32Array.of(input[0]! * 2, session.runs), dims: [1, 1, 2] } };
    },
  };
  return session;
}

const features = (first: number, rows = 1): OrtTensor => {
  const data = new Float32Array(rows * 80 * 30);
  data[0] = first;
  return { type: 'float32', data, dims: [rows, 80, 30] };
};

describe('EncoderMemo', () => {
  it('answers the same features again from the memo, and runs the session for other features', async () => {
    const session = countingSession();
    const memo = new EncoderMemo(session);
    const first = await memo.run({ input_features: features(1) });
    const again = await memo.run({ input_features: features(1) });
    expect(session.runs).to.equal(1);
    expect(memo.hits).to.equal(1);
    expect(again.last_hidden_state!.data).to.deep.equal(first.last_hidden_state!.data);
    await memo.run({ input_features: features(2) });
    expect(session.runs).to.equal(2);
  });

  it('keeps its own copy of the features: a caller that reuses or moves its buffer changes nothing', async () => {
    const session = countingSession();
    const memo = new EncoderMemo(session);
    const input = features(1);
    await memo.run({ input_features: input });
    (input.data as Float32Array)[0] = 5;
    await memo.run({ input_features: input });
    expect(session.runs, 'changed in place: not the same features').to.equal(2);
    const moved = features(3);
    await memo.run({ input_features: moved });
    structuredClone((moved.data as Float32Array).buffer, { transfer: [(moved.data as Float32Array).buffer] });
    await memo.run({ input_features: features(3) });
    expect(session.runs).to.equal(3);
  });

  it('passes batches, chosen fetches and runs after forget() to the session', async () => {
    const session = countingSession();
    const memo = new EncoderMemo(session);
    await memo.run({ input_features: features(1, 2) });
    await memo.run({ input_features: features(1, 2) });
    expect(session.runs, 'a batch of two windows').to.equal(2);
    await memo.run({ input_features: features(1) });
    await memo.run({ input_features: features(1) }, ['last_hidden_state']);
    expect(session.runs, 'fetches named').to.equal(4);
    memo.forget();
    await memo.run({ input_features: features(1) });
    expect(session.runs).to.equal(5);
  });

  it('runs again when the output it kept was disposed or moved to another thread', async () => {
    const session = countingSession();
    const memo = new EncoderMemo(session);
    const output = (await memo.run({ input_features: features(1) })).last_hidden_state!;
    structuredClone((output.data as Float32Array).buffer, { transfer: [(output.data as Float32Array).buffer] });
    await memo.run({ input_features: features(1) });
    expect(session.runs).to.equal(2);
  });
});
