/**
 * Text that the Apertium stream format would read as markup, through the real Debian eng-spa
 * processes: every character is text, the words around it are translated, and no input fails
 * or restarts the pipeline for anyone else.
 */
import { expect } from 'chai';
import { readModeFile } from '../../../src/inference/translation/apertium-mode.js';
import { ApertiumPipeline } from '../../../src/inference/translation/apertium-pipeline.js';
import { ApertiumTranslator } from '../../../src/inference/translation/apertium-translator.js';
import { ENG_SPA_MODE, skipWithoutApertium } from './apertium-available.js';
import { count, MARKUP } from './apertium-markup.js';

describe('Apertium eng-spa with hostile input', () => {
  let pipeline: ApertiumPipeline;
  let translator: ApertiumTranslator;
  const translate = (text: string, signal?: AbortSignal) => translator.translate(text, { targetLanguage: 'es', ...(signal ? { signal } : {}) });

  before(async function () {
    skipWithoutApertium(this);
    // A short timeout so that a hang fails its test quickly instead of at mocha's limit.
    pipeline = new ApertiumPipeline({ commands: await readModeFile(ENG_SPA_MODE), name: 'eng-spa', timeoutMs: 5000 });
    translator = new ApertiumTranslator({ modelId: 'apertium-eng-spa', pipeline, source: 'en', target: 'es' });
    await translate('Hello.');
  });
  after(() => translator?.dispose());
  let startsBefore: number;
  beforeEach(() => {
    startsBefore = pipeline.starts;
  });
  const expectNoRestart = () => expect(pipeline.starts, 'pipeline restarts').to.equal(startsBefore);

  it('gives back each stream-format character sent alone', async () => {
    for (const char of MARKUP) expect(await translate(char), char).to.equal(char);
    expectNoRestart();
  });

  it('keeps each character and translates the words around it, wherever it stands', async () => {
    for (const char of MARKUP) {
      for (const text of [`The dog ${char} the cat.`, `the dog${char}`, `${char}dog`, `a ${char}`, `the dog ${char}${char}`]) {
        const spanish = await translate(text);
        expect(count(spanish, char), `${text} → ${spanish}`).to.equal(count(text, char));
        if (text.includes('dog')) expect(spanish, text).to.match(/perro/i);
      }
    }
    expectNoRestart();
  });

  it('keeps all of them mixed together', async () => {
    const text = 'The dog ^$@#*\\[]{}<>/~ saw ^^ $$ [^] {^} <^> ^/^ \\^ @^# *^* ^dog$ the cat.';
    const spanish = await translate(text);
    for (const char of MARKUP) expect(count(spanish, char), char).to.equal(count(text, char));
    expect(spanish).to.match(/perro/);
    expect(spanish).to.match(/gato/);
    expectNoRestart();
  });

  it('turns NULs, control characters and lone surrogates into blanks', async () => {
    const spanish = await translate('The dog\0saw\x01the\x1bcat \ud800 and \udc00 the 😀 house.');
    expect(spanish).to.match(/perro .* gato/);
    expect(spanish).to.include('😀');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: no control character may come back
    expect(spanish).not.to.match(/[\0-\x08\x0e-\x1f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    expectNoRestart();
  });

  it('loses nothing of very long words', async () => {
    // lt-proc dropped all but ~2048 characters of a run it could still match ("a.a.a.…").
    expect(count(await translate('a.'.repeat(2000)), '.')).to.equal(2000);
    for (const word of ['x'.repeat(20_000), '5'.repeat(20_000), '😀'.repeat(10_000)]) {
      expect(await translate(word)).to.equal(word);
    }
    expectNoRestart();
  });

  it("keeps the user's @, # and * as text, and drops Apertium's own unknown-word marks (like apertium -u)", async () => {
    const spanish = await translate('I see @home #tag *the dog* xyzzy');
    expect(count(spanish, '@')).to.equal(1);
    expect(count(spanish, '#')).to.equal(1);
    expect(count(spanish, '*')).to.equal(2);
    expect(spanish).to.include(' xyzzy');
    expect(spanish).not.to.include('*xyzzy');
    expectNoRestart();
  });

  it('answers 90 concurrent requests, 15 of them hostile, each with its own translation', async () => {
    const hostile = ['^', 'a ^', 'dog^', '@', '#', '*', '^^', '{^}', '^$', 'I see ^', '\\', '[^]', '~^~', '@#*', '^ $ ^'];
    const texts = Array.from({ length: 90 }, (_, index) => (index % 6 === 0 ? (hostile[index / 6] as string) : `I see the dog number ${index}.`));
    const results = await Promise.allSettled(texts.map((text) => translate(text)));
    expect(results.filter((result) => result.status === 'rejected')).to.deep.equal([]);
    results.forEach((result, index) => {
      const spanish = (result as PromiseFulfilledResult<string>).value;
      const text = texts[index] as string;
      if (text.startsWith('I see the dog')) expect(spanish).to.equal(`Veo el número de perro ${index}.`);
      else for (const char of MARKUP) expect(count(spanish, char), `${text} → ${spanish}`).to.equal(count(text, char));
    });
    expectNoRestart();
  });

  describe('cancellation', () => {
    /** About a second of work for the pipeline. */
    const long = 'The dog is big and the cat is small. '.repeat(500);

    it('rejects with the reason of an already aborted signal', async () => {
      const reason = new Error('client went away');
      await translate('The dog.', AbortSignal.abort(reason)).then(
        () => expect.fail('should reject'),
        (error: unknown) => expect(error).to.equal(reason),
      );
    });

    it('drops a queued request at once while the one ahead of it finishes', async () => {
      const own = new ApertiumPipeline({ commands: await readModeFile(ENG_SPA_MODE), name: 'eng-spa', maxInFlight: 1 });
      const ownTranslator = new ApertiumTranslator({ modelId: 'apertium-eng-spa', pipeline: own, source: 'en', target: 'es' });
      try {
        let aheadDone = false;
        const ahead = ownTranslator.translate(long, { targetLanguage: 'es' }).finally(() => (aheadDone = true));
        const controller = new AbortController();
        const queued = ownTranslator.translate('The dog.', { targetLanguage: 'es', signal: controller.signal });
        const reason = new Error('gone');
        controller.abort(reason);
        await queued.then(
          () => expect.fail('should reject'),
          (error: unknown) => expect(error).to.equal(reason),
        );
        expect(aheadDone, 'rejected before the request ahead finished').to.equal(false);
        expect(await ahead).to.match(/^El perro es grande y el gato es pequeño\./);
        expect(await ownTranslator.translate('The cat.', { targetLanguage: 'es' })).to.equal('El gato.');
        expect(own.starts).to.equal(1);
      } finally {
        await ownTranslator.dispose();
      }
    });

    it('drops the answer of a request aborted in the pipe; the next request gets its own', async () => {
      const controller = new AbortController();
      const inPipe = translate(long, controller.signal);
      const next = translate('The cat.');
      controller.abort(new Error('gone'));
      await inPipe.then(
        () => expect.fail('should reject'),
        (error: Error) => expect(error.message).to.equal('gone'),
      );
      expect(await next).to.equal('El gato.');
      expect(await translate('The dog.')).to.equal('El perro.');
      expectNoRestart();
    });
  });
});
