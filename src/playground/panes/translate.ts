/** Translate: the language pickers follow the chosen model's `source_languages` / `target_languages`. */
import { client, element, option, PaneState } from '../page.js';
import { modelInfo, onModelsChanged } from '../models.js';

const names = typeof Intl.DisplayNames === 'function' ? new Intl.DisplayNames([navigator.language || 'en'], { type: 'language' }) : undefined;

function languageName(code: string): string {
  try {
    const name = names?.of(code);
    return name && name !== code ? `${name} (${code})` : code;
  } catch {
    return code; // not a BCP 47 tag (an NLLB code such as eng_Latn)
  }
}

function codes(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((code): code is string => typeof code === 'string') : [];
}

export function setUpTranslate(): void {
  const state = new PaneState('translate');
  const model = element<HTMLSelectElement>('translate-model');
  const source = element<HTMLSelectElement>('translate-source');
  const target = element<HTMLSelectElement>('translate-target');

  const fillLanguages = () => {
    const info = modelInfo(model.value);
    const fill = (select: HTMLSelectElement, languages: string[], preferred: string[]) => {
      const previous = select.value;
      select.replaceChildren(...languages.map((code) => option(code, languageName(code))));
      const pick = [previous, ...preferred].find((code) => languages.includes(code));
      if (pick) select.value = pick;
    };
    const sources = codes(info?.source_languages);
    const targets = codes(info?.target_languages);
    fill(source, sources, ['en', 'eng_Latn']);
    fill(target, targets, ['es', 'spa_Latn', 'fr', 'fra_Latn', 'de', ...targets.filter((code) => code !== source.value)]);
  };
  onModelsChanged(fillLanguages);

  element('translate-swap').addEventListener('click', () => {
    const [from, to] = [source.value, target.value];
    const text = element<HTMLTextAreaElement>('translate-text');
    const output = element('translate-output').textContent;
    if ([...target.options].some((o) => o.value === from) && [...source.options].some((o) => o.value === to)) {
      source.value = to;
      target.value = from;
      if (output) text.value = output;
    } else {
      state.error(new Error('This model translates in one direction only.'));
    }
  });

  element<HTMLFormElement>('translate-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void state.run('Translating…', async () => {
      const started = performance.now();
      const result = await client().translate({
        model: model.value,
        text: element<HTMLTextAreaElement>('translate-text').value,
        targetLanguage: target.value,
        ...(source.value ? { sourceLanguage: source.value } : {}),
      });
      element('translate-result').hidden = false;
      element('translate-output').textContent = result.translation;
      state.status(`Translated in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
    });
  });
}
