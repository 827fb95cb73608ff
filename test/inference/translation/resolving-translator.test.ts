import { expect } from 'chai';
import { ValidationError } from '../../../src/errors.js';
import { resolvingTranslator } from '../../../src/inference/translation/resolving-translator.js';
import type { TranslateOptions, Translator } from '../../../src/inference/types.js';

/** Records what reaches the model: its own codes only. */
function recordingTranslator(languages: { target: string[]; source?: string[] }) {
  const calls: TranslateOptions[] = [];
  const translator: Translator = {
    targetLanguages: languages.target,
    ...(languages.source ? { sourceLanguages: languages.source } : {}),
    translate: async (text, options) => {
      calls.push(options);
      return text;
    },
    dispose: async () => {},
  };
  return { translator: resolvingTranslator(translator, 'm'), calls };
}

describe('resolvingTranslator (client language codes → the model’s own)', () => {
  it('maps regional, three-letter and upper-case codes to the model’s codes', async () => {
    const { translator, calls } = recordingTranslator({ target: ['es', 'zh-tw', 'zh'], source: ['en', 'pt'] });
    const signal = new AbortController().signal;
    await translator.translate('a', { targetLanguage: 'es-mx', sourceLanguage: 'pt_br', signal });
    await translator.translate('b', { targetLanguage: 'spa' });
    await translator.translate('c', { targetLanguage: 'zh-TW', sourceLanguage: 'ENG' });
    await translator.translate('d', { targetLanguage: 'ZH' });
    expect(calls).to.deep.equal([
      { targetLanguage: 'es', sourceLanguage: 'pt', signal },
      { targetLanguage: 'es', signal: undefined },
      { targetLanguage: 'zh-tw', sourceLanguage: 'en', signal: undefined },
      { targetLanguage: 'zh', signal: undefined },
    ]);
  });

  it('answers 400 naming the field and listing the supported codes, before the model runs', async () => {
    const { translator, calls } = recordingTranslator({ target: ['es'], source: ['en'] });
    const target = await translator.translate('a', { targetLanguage: 'fr' }).catch((error: unknown) => error);
    expect(target).to.be.instanceOf(ValidationError);
    expect((target as Error).message).to.equal('"target_language" fr is not supported by m; supported: es');
    const source = await translator.translate('a', { targetLanguage: 'es', sourceLanguage: 'de' }).catch((error: unknown) => error);
    expect((source as Error).message).to.equal('"source_language" de is not supported by m; supported: en');
    expect(calls).to.deep.equal([]);
  });

  it('checks the source against the targets when the model lists no source languages', async () => {
    const { translator, calls } = recordingTranslator({ target: ['es', 'fr'] });
    await translator.translate('a', { targetLanguage: 'fr', sourceLanguage: 'spa' });
    expect(calls[0]).to.include({ targetLanguage: 'fr', sourceLanguage: 'es' });
    expect(translator.sourceLanguages).to.equal(undefined);
  });
});
