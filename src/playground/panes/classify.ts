/** Classify: the labels as bars of confidence; candidate labels for models that take them (`accepts_labels`). */
import type { Label } from '../../client/index.js';
import { client, element, PaneState } from '../page.js';
import { modelInfo, onModelsChanged } from '../models.js';

export function setUpClassify(): void {
  const state = new PaneState('classify');
  const model = element<HTMLSelectElement>('classify-model');
  const labels = element<HTMLInputElement>('classify-labels');

  onModelsChanged(() => {
    const info = modelInfo(model.value);
    const own = Array.isArray(info?.labels) ? (info.labels as unknown[]).filter((label): label is string => typeof label === 'string') : [];
    const accepts = info?.accepts_labels === true;
    const hint = element('classify-labels-hint');
    labels.disabled = !accepts && own.length > 0;
    if (labels.disabled) hint.textContent = `This model has fixed labels: ${own.join(', ')}.`;
    else if (own.length) hint.textContent = `Leave empty for the model's own labels (${own.join(', ')}), or name your own.`;
    else hint.textContent = 'Zero-shot: name the labels to choose from.';
  });

  element<HTMLFormElement>('classify-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const candidates = labels.disabled
      ? []
      : labels.value
          .split(',')
          .map((label) => label.trim())
          .filter(Boolean);
    void state.run('Classifying…', async () => {
      const started = performance.now();
      const result = await client().classify({
        model: model.value,
        query: element<HTMLTextAreaElement>('classify-text').value,
        ...(candidates.length ? { labels: candidates } : {}),
      });
      showBars(result.labels);
      state.status(`Classified in ${Math.round(performance.now() - started)} ms.`);
    });
  });
}

function showBars(labels: Label[]): void {
  element('classify-result').hidden = false;
  const sorted = [...labels].sort((a, b) => b.confidence - a.confidence);
  element('classify-bars').replaceChildren(
    ...sorted.map(({ label, confidence }) => {
      const item = document.createElement('li');
      const percent = `${(confidence * 100).toFixed(1)}%`;
      const name = document.createElement('span');
      name.className = 'name';
      name.textContent = label;
      const track = document.createElement('span');
      track.className = 'track';
      track.setAttribute('aria-hidden', 'true');
      const fill = document.createElement('span');
      fill.className = 'fill';
      // A CSS custom property would need an inline style attribute, which the CSP forbids; the CSSOM is allowed.
      fill.style.width = `${Math.max(0, Math.min(1, confidence)) * 100}%`;
      track.append(fill);
      const value = document.createElement('span');
      value.className = 'value';
      value.textContent = percent;
      item.append(name, track, value);
      item.setAttribute('aria-label', `${label}: ${percent}`);
      return item;
    }),
  );
}
