import { expect } from 'chai';
import { ValidationError } from '../../../src/errors.js';
import { KokoroModel } from '../../../src/inference/text-to-speech/kokoro-model.js';

const FIXTURE = new URL('../../fixtures/models/kokoro-random/', import.meta.url).pathname;

// In-process (the server runs it in the synthesis worker: test/http/text-to-speech-kokoro.slow.test.ts).
describe('KokoroModel (random-weight fixture, fp32)', function () {
  this.timeout(60_000);
  let model: KokoroModel;
  before(async () => {
    model = await KokoroModel.load({ modelDir: FIXTURE, dtype: 'fp32', threads: 1, phonemize: false });
  });
  after(() => model.dispose());

  // "a " repeated: ids 43 and 16 (space), padded by 0.
  const ids = (phonemes: number) => [0, ...Array.from({ length: phonemes }, (_, i) => (i % 2 === 0 ? 43 : 16)), 0];

  it('speaks a run past the 512-position context in parts cut at spaces, joined, within full scale', async () => {
    const whole = await model.synthesizeIds(ids(1100), { voice: 'af_heart' });
    const first = await model.synthesizeIds(ids(510), { voice: 'af_heart' });
    expect(model.sampleRate).to.equal(24000);
    expect(whole.length).to.be.greaterThan(first.length * 1.5);
    for (const sample of whole) if (!(Math.abs(sample) <= 1)) expect.fail(`sample ${sample} outside full scale`);
  });

  it('says nothing for the pads alone, and rejects a voice it cannot speak before running', async () => {
    expect(await model.synthesizeIds([0, 0], { voice: 'af_heart' })).to.have.length(0);
    expect(() => model.checkOptions({ voice: 'jf_alpha' })).to.throw(ValidationError);
    const error = await model.synthesizeIds(ids(4), { voice: 'nobody' }).catch((caught: unknown) => caught);
    expect(error).to.be.instanceOf(ValidationError);
  });
});
