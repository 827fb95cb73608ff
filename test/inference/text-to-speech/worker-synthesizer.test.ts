import { expect } from 'chai';
import { ValidationError } from '../../../src/errors.js';
import { WorkerSynthesizer } from '../../../src/inference/text-to-speech/worker-synthesizer.js';

const FIXTURES = new URL('../../fixtures/models/', import.meta.url).pathname;

describe('WorkerSynthesizer (fixture models in a worker thread)', () => {
  describe('piper engine', () => {
    let synthesizer: WorkerSynthesizer;
    before(async () => {
      synthesizer = await WorkerSynthesizer.spawn({ engine: 'piper', modelDir: `${FIXTURES}piper-random`, threads: 1 }, 'piper-random');
    });
    after(() => synthesizer.dispose());

    it('reports the voice sample rate', () => {
      expect(synthesizer.sampleRate).to.equal(16000);
    });

    it('yields one chunk of audio per sentence', async () => {
      const chunks = [];
      for await (const chunk of synthesizer.synthesize('Hello there. How are you today? Fine, thanks.')) chunks.push(chunk);
      expect(chunks).to.have.length(3);
      for (const chunk of chunks) {
        expect(chunk.sampleRate).to.equal(16000);
        expect(chunk.samples.length).to.be.greaterThan(0);
      }
    });

    it('cuts a long first sentence in two pieces and says which piece is the last', async () => {
      const lasts = async (text: string) => {
        const chunks = [];
        for await (const chunk of synthesizer.synthesize(text)) chunks.push(chunk.last);
        return chunks;
      };
      expect(await lasts('The birch canoe slid on the smooth planks and drifted slowly down the river.')).to.deep.equal([false, true]);
      expect(await lasts('Hello there.')).to.deep.equal([true]);
      expect(await lasts('Hello there. How are you today?')).to.deep.equal([false, true]);
    });

    it('gives the pieces of a cut sentence one level, each sentence of its own at full scale', async () => {
      const peaks = [];
      for await (const chunk of synthesizer.synthesize('The birch canoe slid on the smooth planks and drifted slowly down the river. Hello there.')) {
        peaks.push(chunk.samples.reduce((peak, sample) => Math.max(peak, Math.abs(sample)), 0));
      }
      expect(peaks).to.have.length(3);
      // The first piece and the next sentence at full scale; the rest of the first sentence at the
      // first piece's gain, which may leave it below full scale but never above.
      expect(peaks[0]).to.be.closeTo(1, 1e-5);
      expect(peaks[1]).to.be.at.most(1 + 1e-5);
      expect(peaks[2]).to.be.closeTo(1, 1e-5);
    });

    it('cuts only at a short first clause with firstPieceWords 0', async () => {
      const clauseOnly = await WorkerSynthesizer.spawn({ engine: 'piper', modelDir: `${FIXTURES}piper-random`, threads: 1 }, 'piper-random', { words: 0 });
      try {
        let pieces = 0;
        for await (const _chunk of clauseOnly.synthesize('The birch canoe slid on the smooth planks and drifted slowly down the river.')) pieces++;
        expect(pieces).to.equal(1);
        pieces = 0;
        for await (const _chunk of clauseOnly.synthesize('Henry V, Part II, Scene IV, I believe, is V I Lenin not Charles I.')) pieces++;
        expect(pieces).to.equal(2);
      } finally {
        await clauseOnly.dispose();
      }
    });

    it("rejects with the signal's reason when the request is aborted part way, and still serves later calls", async () => {
      const controller = new AbortController();
      const reason = new Error('client went away');
      let chunks = 0;
      const error = await (async () => {
        for await (const _chunk of synthesizer.synthesize('One. Two. Three. Four. Five. Six.', { signal: controller.signal })) {
          if (++chunks === 1) controller.abort(reason);
        }
      })().catch((caught: unknown) => caught);
      expect(error).to.equal(reason);
      expect(chunks).to.equal(1);
      let total = 0;
      for await (const chunk of synthesizer.synthesize('Still here.')) total += chunk.samples.length;
      expect(total).to.be.greaterThan(0);
    });

    it('rejects at once, without starting, when the signal has already aborted', async () => {
      const reason = new Error('gone before it started');
      const error = await (async () => {
        for await (const _chunk of synthesizer.synthesize('One. Two.', { signal: AbortSignal.abort(reason) })) expect.fail('no audio expected');
      })().catch((caught: unknown) => caught);
      expect(error).to.equal(reason);
    });

    it('can be abandoned part way (the client went away) and still serves later calls', async () => {
      for await (const _chunk of synthesizer.synthesize('One. Two. Three. Four.')) break;
      let total = 0;
      for await (const chunk of synthesizer.synthesize('Still here.')) total += chunk.samples.length;
      expect(total).to.be.greaterThan(0);
    });
  });

  describe('transformers-tts engine (MMS-style VITS)', () => {
    let synthesizer: WorkerSynthesizer;
    before(async () => {
      synthesizer = await WorkerSynthesizer.spawn({ engine: 'transformers-tts', modelsDir: FIXTURES, modelId: 'mms-tts-random', threads: 1 }, 'mms-tts-random');
    });
    after(() => synthesizer.dispose());

    it('takes the sample rate from config.json and synthesises each sentence', async () => {
      expect(synthesizer.sampleRate).to.equal(16000);
      const chunks = [];
      for await (const chunk of synthesizer.synthesize('Hello world. Good bye.')) chunks.push(chunk);
      expect(chunks).to.have.length(2);
      expect(chunks[0]!.samples.length).to.be.greaterThan(1000);
    });

    it('rejects a speed it cannot honour with a ValidationError (400), before any audio', async () => {
      let error: unknown;
      try {
        for await (const _chunk of synthesizer.synthesize('Hello.', { speed: 2 })) expect.fail('no audio expected');
      } catch (caught) {
        error = caught;
      }
      expect(error).to.be.instanceOf(ValidationError);
      expect((error as Error).message).to.match(/speed/);
    });
  });

  it('fails to spawn with the loader error when the model folder is missing', async () => {
    let error: Error | undefined;
    await WorkerSynthesizer.spawn({ engine: 'piper', modelDir: `${FIXTURES}does-not-exist` }, 'missing').catch((caught: Error) => (error = caught));
    expect(error?.message).to.match(/ENOENT|does-not-exist/);
  });
});
