/**
 * Numbers and claims of the documentation that the code decides, read from the code: when one
 * changes, the other must follow. (The OpenAPI description's names are checked in
 * test/http/openapi.test.ts.)
 */
import { expect } from 'chai';
import { join } from 'node:path';
import { DEFAULT_LIMITS } from '../../src/config/load-config.js';
import { ENGINES } from '../../src/inference/engines.js';
import { defaultMaxPending } from '../../src/inference/tasks.js';
import { type Manifest, readManifest } from '../../src/inference/manifest.js';
import { ModelCatalog } from '../../src/inference/model-catalog.js';
import { NLLB_CODES } from '../../src/inference/translation/language-codes.js';
import { MAX_FIELD_BYTES, MAX_FORM_FIELDS } from '../../src/http/routes/v1/audio-upload.js';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';
import { documentationFiles, readDoc } from './markdown.js';

const NLLB = 'nllb-200-distilled-600M';

/** Markdown's line breaks inside a paragraph as spaces, so a phrase can be found across them. */
const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ');

describe('the documentation says what the code does', () => {
  let manifest: Manifest;
  before(async () => {
    manifest = await readManifest(join(REPO_ROOT, 'models/models.json'));
  });

  it('names no issue of our tracker, which readers do not have', () => {
    const found = documentationFiles().flatMap((file) =>
      readDoc(file)
        .split('\n')
        .flatMap((line, index) => (/\bissues? #?\d+/i.test(line) ? [`${file}:${index + 1}`] : [])),
    );
    expect(found).to.deep.equal([]);
  });

  it(`gives NLLB the languages the server maps to it (${Object.keys(NLLB_CODES).length}), as --list and /v1/models do`, async () => {
    const mapped = Object.keys(NLLB_CODES).length;
    const catalog = new ModelCatalog({ manifest, modelsDir: join(REPO_ROOT, 'models'), engines: ENGINES });
    const info = (await catalog.list(() => undefined)).find((model) => model.id === NLLB) as { languages?: string[] | null };
    expect(info.languages).to.have.length(mapped);
    const counts = ['README.md', 'docs/models.md', 'docs/api.md'].flatMap((file) => {
      const text = oneLine(readDoc(file));
      // Every count of languages said within a sentence of the model's name.
      return [...text.matchAll(/(?:nllb-200-distilled-600M|NLLB-200)[^.]*?\b(\d+) (?:of (?:its|them|the model's)\b[^.]*?)?languages/g)].map(
        (m) => `${file}: ${m[1]}`,
      );
    });
    expect(counts).to.have.length.greaterThan(2);
    for (const count of counts) expect(count).to.match(new RegExp(`: ${mapped}$`));
  });

  it('says download-models skips only the models that have no download source', () => {
    const text = oneLine(readDoc('docs/models.md'));
    const sentences = text.split(/(?<=\.)\s+/).filter((sentence) => /\b(?:is|are) skipped\b/.test(sentence));
    expect(sentences).to.have.length.greaterThan(0);
    for (const sentence of sentences) {
      const named = [...sentence.matchAll(/`([^`]+)`/g)].map((m) => m[1]!).filter((id) => manifest.models.some((entry) => entry.id === id));
      for (const id of named) {
        const entry = manifest.models.find((model) => model.id === id)!;
        expect(entry.source ?? entry.hubRepo, `${id} is said to be skipped, yet has a download source`).to.equal(undefined);
      }
    }
  });

  it('quotes the admission bound of every task (the tasks table)', () => {
    const pending = defaultMaxPending();
    const sentence =
      `${pending['speech-to-text']} speech-to-text, ${pending['text-to-speech']} text-to-speech, ${pending.translation} translation and ` +
      `${pending['text-classification']} classification requests and ${pending.embeddings} embedding texts`;
    for (const file of ['docs/api.md', 'docs/security.md']) expect(oneLine(readDoc(file)), file).to.include(sentence);
  });

  it('quotes the multipart and JSON body limits of the code', () => {
    const security = oneLine(readDoc('docs/security.md'));
    expect(security).to.include(`at most ${MAX_FORM_FIELDS} text fields of ${MAX_FIELD_BYTES / 1024} KiB each`);
    expect(security).to.include(`JSON: ${DEFAULT_LIMITS.maxJsonBytes / 1024 / 1024} MB`);
  });
});
