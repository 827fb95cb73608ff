import { expect } from 'chai';
import { TransformersTranslator, type TranslationPipelineLike } from '../../../src/inference/translation/transformers-translator.js';

/**
 * A stand-in pipeline that "translates" by upper-casing, to check the translator's own logic
 * (sentence batches, order, language options) in isolation; the real pipeline runs in
 * transformers-translation.test.ts.
 */
function fakePipeline() {
  const calls: { texts: string[]; options: Record<string, unknown> }[] = [];
  const pipeline = (async (texts: string[], options: Record<string, unknown>) => {
    calls.push({ texts, options });
    return texts.map((text) => ({ translation_text: text.toUpperCase() }));
  }) as TranslationPipelineLike;
  pipeline.tokenizer = { encode: (text: string) => [...text].map((_, index) => index) };
  pipeline.dispose = async () => {};
  return { pipeline, calls };
}

describe('TransformersTranslator (batching logic, stand-in pipeline)', () => {
  it('batches sentences by length and puts every translation back in its place', async () => {
    const { pipeline, calls } = fakePipeline();
    const translator = new TransformersTranslator({
      modelId: 'fake',
      pipeline,
      targetCodes: { es: 'es' },
      fixedSource: 'en',
      batchSize: 2,
      maxUnitChars: 400,
    });
    const text = 'A much longer first sentence here. Short. Medium one here.\n\nTiny. Another rather long sentence again.';
    expect(await translator.translate(text, { targetLanguage: 'es' })).to.equal(text.toUpperCase());
    expect(calls.map((call) => call.texts.length)).to.deep.equal([2, 2, 1]);
    expect(calls[0]?.texts).to.deep.equal(['Tiny.', 'Short.']);
    expect(calls[0]?.options).to.include({ num_beams: 1 });
    expect(calls[0]?.options).not.to.have.property('tgt_lang'); // one-pair model
  });

  it('passes the model codes of the source and target to multilingual models', async () => {
    const { pipeline, calls } = fakePipeline();
    const codes = { en: 'eng_Latn', es: 'spa_Latn' };
    const translator = new TransformersTranslator({
      modelId: 'fake',
      pipeline,
      targetCodes: codes,
      sourceCodes: codes,
      batchSize: 8,
      maxUnitChars: 400,
    });
    await translator.translate('Hola, ¿qué tal?', { targetLanguage: 'en' });
    expect(calls[0]?.options).to.include({ src_lang: 'spa_Latn', tgt_lang: 'eng_Latn' });
    await translator.translate('Hello there.', { targetLanguage: 'es', sourceLanguage: 'en' });
    expect(calls[1]?.options).to.include({ src_lang: 'eng_Latn', tgt_lang: 'spa_Latn' });
  });

  it('refuses a detected source language the model lacks, saying it was detected', async () => {
    const { pipeline } = fakePipeline();
    const codes = { en: 'eng_Latn', es: 'spa_Latn' };
    const translator = new TransformersTranslator({
      modelId: 'fake',
      pipeline,
      targetCodes: codes,
      sourceCodes: codes,
      batchSize: 8,
      maxUnitChars: 400,
    });
    await translator.translate('Das Wetter ist schön und die Kinder spielen.', { targetLanguage: 'en' }).then(
      () => expect.fail('should refuse'),
      (error: Error & { status?: number }) => {
        expect(error.status).to.equal(400);
        expect(error.message).to.match(/detected as de.*supported: en, es/);
      },
    );
  });

  describe('cancellation', () => {
    const options = (pipeline: TranslationPipelineLike) => ({
      modelId: 'fake',
      pipeline,
      targetCodes: { es: 'es' },
      fixedSource: 'en',
      batchSize: 1,
      maxUnitChars: 400,
    });

    it('stops between batches once the signal aborts, rejecting with its reason', async () => {
      const { pipeline, calls } = fakePipeline();
      const controller = new AbortController();
      const reason = new Error('client went away');
      const counting = (async (texts: string[], callOptions: Record<string, unknown>) => {
        controller.abort(reason); // the client leaves while the first batch runs
        return pipeline(texts, callOptions);
      }) as TranslationPipelineLike;
      counting.tokenizer = pipeline.tokenizer;
      counting.dispose = pipeline.dispose;
      const translator = new TransformersTranslator(options(counting));
      const error = await translator
        .translate('One. Two. Three. Four.', { targetLanguage: 'es', signal: controller.signal })
        .catch((caught: unknown) => caught);
      expect(error).to.equal(reason);
      expect(calls).to.have.length(1);
    });

    it('gives the pipeline a streamer that ends generation at the next token once the signal aborts', async () => {
      const { pipeline, calls } = fakePipeline();
      const translator = new TransformersTranslator(options(pipeline));
      const controller = new AbortController();
      await translator.translate('Hello.', { targetLanguage: 'es', signal: controller.signal });
      const streamer = calls[0]?.options.streamer as { put(tokens: unknown): void };
      expect(() => streamer.put([[1n]])).not.to.throw();
      const reason = new Error('client went away');
      controller.abort(reason);
      expect(() => streamer.put([[2n]])).to.throw(reason.message);
    });
  });
});
