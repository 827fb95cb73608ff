/**
 * Fills every model picker (`select[data-task]`) from /v1/models: the installed models in one
 * group, the catalogue's others (some two hundred) after them in a group that says how to install
 * them, so a picker opens on what answers now.
 */
import type { ModelInfo } from '../client/index.js';
import { client, describeError, element, option } from './page.js';

let known: ModelInfo[] = [];
let loaded = false;
const listeners: Array<() => void> = [];

/** The listing's entry for `id` (engines add fields: languages, labels…). */
export function modelInfo(id: string): (ModelInfo & Record<string, unknown>) | undefined {
  return known.find((model) => model.id === id) as (ModelInfo & Record<string, unknown>) | undefined;
}

/** Whether the last listing succeeded (before a key is entered there is none). */
export function listed(): boolean {
  return loaded;
}

/** The listing's models of `task`. */
export function modelsOf(task: string): ModelInfo[] {
  return known.filter((model) => model.task === task);
}

/** Called after every (re)load, and when a picker changes. */
export function onModelsChanged(listener: () => void): void {
  listeners.push(listener);
}

/** Installed first, real models before aliases, otherwise the server's order. */
function ranked(models: ModelInfo[]): ModelInfo[] {
  const rank = (model: ModelInfo) => (model.installed ? 0 : 2) + (model.alias_of === undefined ? 0 : 1);
  return models
    .map((model, index) => ({ model, index }))
    .sort((a, b) => rank(a.model) - rank(b.model) || a.index - b.index)
    .map(({ model }) => model);
}

export async function loadModels(): Promise<void> {
  const status = element('key-status');
  loaded = false;
  if (!element<HTMLInputElement>('api-key').value.trim()) {
    known = [];
    status.textContent = 'Enter the API key of this server to list its models.';
    status.className = 'hint';
    fillPickers();
    return;
  }
  try {
    known = await client().models.list();
  } catch (error) {
    known = [];
    status.textContent = describeError(error);
    status.className = 'hint bad';
    fillPickers();
    return;
  }
  loaded = true;
  const installed = known.filter((model) => model.installed && model.alias_of === undefined).length;
  status.textContent = `Connected: ${installed} model${installed === 1 ? '' : 's'} installed.`;
  status.className = 'hint good';
  fillPickers();
}

/** The group the models `GET /v1/models` reports as not installed sit in; an option adds its own command when it differs. */
const NOT_INSTALLED_GROUP = 'Not installed — npm run download-models -- <id>';

function modelOption(model: ModelInfo): HTMLOptionElement {
  const label = model.alias_of ? `${model.id} → ${model.alias_of}` : model.id;
  const usual = `npm run download-models -- ${model.id}`;
  const install = !model.installed && model.install && model.install !== usual ? ` (${model.install})` : '';
  const entry = option(model.id, label + install);
  if (model.description) entry.title = model.description;
  return entry;
}

function group(label: string, models: ModelInfo[]): HTMLOptGroupElement {
  const created = document.createElement('optgroup');
  created.label = label;
  created.append(...models.map(modelOption));
  return created;
}

function fillPickers(): void {
  for (const select of document.querySelectorAll<HTMLSelectElement>('select[data-task]')) {
    const previous = select.value;
    const models = ranked(known.filter((model) => model.task === select.dataset.task));
    const installed = models.filter((model) => model.installed);
    const missing = models.filter((model) => !model.installed);
    select.replaceChildren(
      ...(installed.length > 0 ? [group('Installed', installed)] : []),
      ...(missing.length > 0 ? [group(NOT_INSTALLED_GROUP, missing)] : []),
    );
    if (models.length === 0) select.append(option('', known.length ? 'No model for this task' : 'Enter the API key to list models'));
    if (models.some((model) => model.id === previous)) select.value = previous;
  }
  for (const listener of listeners) listener();
}

/** Re-run the listeners when a picker changes (the language and label pickers follow the model). */
export function watchPickers(): void {
  for (const select of document.querySelectorAll<HTMLSelectElement>('select[data-task]')) {
    select.addEventListener('change', () => listeners.forEach((listener) => listener()));
  }
}
