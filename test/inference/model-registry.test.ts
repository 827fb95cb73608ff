import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Type } from '@sinclair/typebox';
import { defineEngine, INSTALL_MARKER, type Engine } from '../../src/inference/engine.js';
import { ENGINES } from '../../src/inference/engines.js';
import { ManifestError, readManifest, type Manifest, type ManifestEntry } from '../../src/inference/manifest.js';
import { ModelRegistry } from '../../src/inference/model-registry.js';
import { createSpeechEncoder, type SpeechEncoder } from '../../src/inference/text-to-speech/speech-encoder.js';
import type { Classifier, Translator } from '../../src/inference/types.js';
import { bearer, createTestApp, type TestApp } from '../helpers/test-app.js';

/** A classifier engine whose load the test controls: it counts loads and can fail on demand. */
class ScriptedEngine implements Engine<'text-classification'> {
  readonly tasks = ['text-classification'] as const;
  loads = 0;
  disposed = 0;
  failNext: string | undefined;
  #release: (() => void) | undefined;
  #gate: Promise<void> | undefined;

  /** Holds every load until `release()`, so several callers overlap the same load. */
  hold(): void {
    this.#gate = new Promise((resolve) => (this.#release = resolve));
  }

  release(): void {
    this.#release?.();
    this.#gate = undefined;
  }

  async load(entry: ManifestEntry): Promise<Classifier> {
    this.loads += 1;
    await this.#gate;
    const failure = this.failNext;
    this.failNext = undefined;
    if (failure) throw new Error(failure);
    return {
      classify: async (text) => [
        { label: entry.id, confidence: 0.75 },
        { label: `len-${text.length}`, confidence: 0.25 },
      ],
      dispose: async () => {
        this.disposed += 1;
      },
    };
  }
}

const entry = (id: string, overrides: Partial<ManifestEntry> = {}): ManifestEntry => ({
  id,
  task: 'text-classification',
  engine: 'scripted',
  description: `${id} (test)`,
  license: 'mit',
  ...overrides,
});

const MANIFEST: Manifest = {
  models: [
    entry('sentiment'),
    entry('not-installed'),
    entry('test-only', { installCommand: 'npm run test-models' }),
    entry('a-translator', { task: 'translation', engine: 'scripted-translator' }),
  ],
};

/** Serves the manifest's translation entry, so the classification routes meet a model of another task. */
const scriptedTranslator: Engine<'translation'> = {
  tasks: ['translation'],
  async load(): Promise<Translator> {
    return { targetLanguages: ['es'], translate: async (text) => text, dispose: async () => {} };
  },
};

function install(modelsDir: string, id: string): void {
  mkdirSync(join(modelsDir, id), { recursive: true });
  writeFileSync(join(modelsDir, id, INSTALL_MARKER), '{}');
}

describe('ModelRegistry', () => {
  let modelsDir: string;
  let engine: ScriptedEngine;
  let registry: ModelRegistry;

  beforeEach(() => {
    modelsDir = mkdtempSync(join(tmpdir(), 'lis-registry-'));
    install(modelsDir, 'sentiment');
    engine = new ScriptedEngine();
    registry = new ModelRegistry({ manifest: MANIFEST, modelsDir, engines: { scripted: engine, 'scripted-translator': scriptedTranslator } });
  });
  afterEach(async () => {
    await registry.close();
    rmSync(modelsDir, { recursive: true, force: true });
  });

  it('loads nothing until a model is first used', async () => {
    await registry.list();
    expect(engine.loads).to.equal(0);
  });

  it('loads a model once for concurrent first callers, who all get the same instance', async () => {
    engine.hold();
    const callers = Array.from({ length: 5 }, () => registry.get('sentiment', 'text-classification'));
    await new Promise((resolve) => setImmediate(resolve));
    engine.release();
    const models = await Promise.all(callers);
    expect(engine.loads).to.equal(1);
    expect(new Set(models).size).to.equal(1);
    await registry.get('sentiment', 'text-classification');
    expect(engine.loads).to.equal(1);
  });

  it('shares one failed load among concurrent callers and retries on the next call', async () => {
    engine.hold();
    engine.failNext = 'corrupt weights';
    const callers = [1, 2, 3].map(() => registry.get('sentiment', 'text-classification').catch((error: unknown) => error));
    await new Promise((resolve) => setImmediate(resolve));
    engine.release();
    const errors = (await Promise.all(callers)) as Array<{ code: string; status: number }>;
    expect(engine.loads).to.equal(1);
    expect(errors.map((error) => [error.status, error.code])).to.deep.equal(Array(3).fill([503, 'model_unavailable']));
    await registry.get('sentiment', 'text-classification');
    expect(engine.loads).to.equal(2);
  });

  it('open resolves the name once, lets the caller refuse the id before any load, and says which model it is', async () => {
    const admitted: string[] = [];
    const opened = await registry.open('sentiment', 'text-classification', (id) => admitted.push(id));
    expect(opened.id).to.equal('sentiment');
    expect(admitted).to.deep.equal(['sentiment']);
    expect(await opened.model.classify('hi')).to.have.length(2);
    const refused = await registry
      .open('not-installed', 'text-classification', () => {
        throw new Error('not for this key');
      })
      .catch((error: unknown) => error);
    expect((refused as Error).message).to.equal('not for this key');
    expect(engine.loads).to.equal(1);
  });

  it('reports loaded models and disposes them on close', async () => {
    await registry.get('sentiment', 'text-classification');
    const info = (await registry.list()).find((model) => model.id === 'sentiment');
    expect(info).to.include({ installed: true, loaded: true });
    await registry.close();
    expect(engine.disposed).to.equal(1);
    expect((await registry.list()).find((model) => model.id === 'sentiment')).to.include({ loaded: false });
  });

  it('refuses a manifest that names an engine it does not know', () => {
    expect(() => new ModelRegistry({ manifest: { models: [entry('x', { engine: 'nope' })] }, modelsDir, engines: {} })).to.throw(
      ManifestError,
      /model "x" uses unknown engine "nope"/,
    );
  });
});

describe('ModelRegistry start-up checks of the manifest', () => {
  const build =
    (models: ManifestEntry[], engines: Readonly<Record<string, Engine>> = ENGINES) =>
    () =>
      new ModelRegistry({ manifest: { models }, modelsDir: 'models', engines });
  const piper = (options?: Record<string, unknown>) => entry('voice', { task: 'text-to-speech', engine: 'piper', ...(options ? { options } : {}) });

  it('accepts the shipped models/models.json with the real engines', async () => {
    const manifest = await readManifest('models/models.json');
    expect(build(manifest.models)).not.to.throw();
  });

  it('refuses an entry whose task its engine does not serve, naming model, engine and task', () => {
    expect(build([entry('voice', { task: 'translation', engine: 'piper' })])).to.throw(
      ManifestError,
      /model "voice": engine "piper" serves text-to-speech, not task "translation"/,
    );
  });

  it('refuses a bad option value, an unknown option and a missing one, naming model and field', () => {
    expect(build([piper({ threads: 0 })])).to.throw(ManifestError, /model "voice" \(engine "piper"\): options\.threads must be >= 1/);
    expect(build([piper({ thread: 2 })])).to.throw(
      ManifestError,
      /options\.thread is not an option of this engine \(known: onnxFile, threads, spinning, firstPieceWords, memoryArena\)/,
    );
    const apertium = entry('pair', { task: 'translation', engine: 'apertium', options: { source: 'en', target: 'es' } });
    expect(build([apertium])).to.throw(ManifestError, /model "pair" \(engine "apertium"\): options\.pair is required/);
    const marian = entry('mt', { task: 'translation', engine: 'transformers-translation', options: { family: 'marian', source: 'en' } });
    expect(build([marian])).to.throw(ManifestError, /model "mt".*options\.target is required/);
  });

  it('refuses options for an engine that declares none', () => {
    const none: Engine<'text-classification'> = { tasks: ['text-classification'], load: () => Promise.reject(new Error('unused')) };
    expect(build([entry('x', { engine: 'none', options: { speed: 2 } })], { none })).to.throw(ManifestError, /options\.speed is not an option/);
  });

  it('gives the engine its typed options with defaults filled in, without changing the manifest', async () => {
    const seen: unknown[] = [];
    const typed = defineEngine({
      tasks: ['text-classification'],
      options: Type.Object({ size: Type.Integer({ default: 3 }), name: Type.Optional(Type.String()) }, { additionalProperties: false }),
      async load(_entry, _context, options): Promise<Classifier> {
        seen.push(options);
        return { classify: async () => [], dispose: async () => {} };
      },
    });
    const declared = entry('typed', { engine: 'typed', options: { name: 'n' } });
    expect(typed.options.read(declared)).to.deep.equal({ size: 3, name: 'n' });
    await typed.load(declared, { modelDir: 'x', modelsDir: 'y' });
    expect(seen).to.deep.equal([{ size: 3, name: 'n' }]);
    expect(declared.options).to.deep.equal({ name: 'n' });
  });
});

describe('model errors over HTTP (POST /v1/classifications)', () => {
  let app: TestApp;
  let modelsDir: string;
  let engine: ScriptedEngine;

  beforeEach(async () => {
    modelsDir = mkdtempSync(join(tmpdir(), 'lis-registry-http-'));
    install(modelsDir, 'sentiment');
    engine = new ScriptedEngine();
    app = await createTestApp({ manifest: MANIFEST, modelsDir, engines: { scripted: engine, 'scripted-translator': scriptedTranslator } });
  });
  afterEach(async () => {
    await app.close();
    rmSync(modelsDir, { recursive: true, force: true });
  });

  const classify = (model: string) => app.request.post('/v1/classifications').set('Authorization', bearer()).send({ model, query: 'great film' });

  it('answers 200 from the lazily loaded model', async () => {
    const res = await classify('sentiment');
    expect(res.status).to.equal(200);
    expect(res.body.labels[0]).to.deep.equal({ label: 'sentiment', confidence: 0.75 });
  });

  it('loads once when the first requests arrive together', async () => {
    engine.hold();
    const pending = Array.from({ length: 4 }, () => classify('sentiment').then((res) => res));
    await new Promise((resolve) => setTimeout(resolve, 50));
    engine.release();
    const answers = await Promise.all(pending);
    expect(answers.map((res) => res.status)).to.deep.equal([200, 200, 200, 200]);
    expect(engine.loads).to.equal(1);
  });

  it('answers 404 model_not_found in JSON for an unknown model, listing the ones for this task', async () => {
    const res = await classify('gpt-17');
    expect(res.status).to.equal(404);
    expect(res.headers['content-type']).to.match(/^application\/json/);
    expect(res.body.error.code).to.equal('model_not_found');
    expect(res.body.error.message).to.include('gpt-17').and.include('sentiment').and.not.include('a-translator');
  });

  it('answers an unknown model, when none of the task is installed, with the commands that list and install one', async () => {
    rmSync(join(modelsDir, 'sentiment'), { recursive: true, force: true });
    const res = await classify('whisper-huge');
    expect(res.status).to.equal(404);
    expect(res.body.error.code).to.equal('model_not_found');
    expect(res.body.error.message).to.equal(
      'Unknown model "whisper-huge", and no text-classification model is installed. ' +
        'List the installable ones with `npm run download-models -- --list`, install one with `npm run download-models -- <id>`',
    );
  });

  it('answers 400 wrong_model_task for a model of another task', async () => {
    const res = await classify('a-translator');
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('wrong_model_task');
    expect(res.body.error.message).to.match(/translation/);
  });

  it('answers 503 model_not_installed naming the command that installs it', async () => {
    const res = await classify('not-installed');
    expect(res.status).to.equal(503);
    expect(res.body.error.code).to.equal('model_not_installed');
    expect(res.body.error.message).to.include('npm run download-models -- not-installed');
    const testOnly = await classify('test-only');
    expect(testOnly.body.error.message).to.include('npm run test-models');
    expect(engine.loads).to.equal(0);
  });

  it('works without a restart once the missing model is installed', async () => {
    expect((await classify('not-installed')).status).to.equal(503);
    install(modelsDir, 'not-installed');
    expect((await classify('not-installed')).status).to.equal(200);
  });

  it('answers 503 model_unavailable when loading fails, and loads again once fixed', async () => {
    engine.failNext = 'onnx: invalid protobuf';
    const failed = await classify('sentiment');
    expect(failed.status).to.equal(503);
    expect(failed.body.error.code).to.equal('model_unavailable');
    expect(failed.body.error.message).to.equal(
      'Model "sentiment" failed to load; the server log has the reason. If its files are damaged, reinstall it: npm run download-models -- sentiment',
    );
    const fixed = await classify('sentiment');
    expect(fixed.status).to.equal(200);
    expect(engine.loads).to.equal(2);
  });
});

describe('the models ModelRegistry hands out', () => {
  let modelsDir: string;
  let registry: ModelRegistry;
  const translated: Array<{ targetLanguage: string; sourceLanguage?: string }> = [];
  const tone: Engine<'text-to-speech'> = {
    tasks: ['text-to-speech'],
    load: async () => ({
      sampleRate: 16_000,
      async *synthesize() {
        yield { samples: new Float32Array(1600).fill(0.25), sampleRate: 16_000 };
      },
      dispose: async () => {},
    }),
  };
  const echo: Engine<'translation'> = {
    tasks: ['translation'],
    load: async (): Promise<Translator> => ({
      targetLanguages: ['es'],
      sourceLanguages: ['en'],
      translate: async (text, { targetLanguage, sourceLanguage }) => {
        translated.push({ targetLanguage, ...(sourceLanguage ? { sourceLanguage } : {}) });
        return text;
      },
      dispose: async () => {},
    }),
  };

  before(() => {
    modelsDir = mkdtempSync(join(tmpdir(), 'lis-registry-tasks-'));
    install(modelsDir, 'voice');
    install(modelsDir, 'pair');
    const models = [entry('voice', { task: 'text-to-speech', engine: 'tone' }), entry('pair', { task: 'translation', engine: 'echo' })];
    registry = new ModelRegistry({ manifest: { models }, modelsDir, engines: { tone, echo } });
  });
  after(async () => {
    await registry.close();
    rmSync(modelsDir, { recursive: true, force: true });
  });

  it('gives synthesizers speak(): encoded bytes in the requested format, through the registry’s encoder', async () => {
    const voice = await registry.get('voice', 'text-to-speech');
    const collect = async (format: 'mp3' | 'wav') => {
      const chunks: Uint8Array[] = [];
      for await (const chunk of voice.speak('Hello.', { format })) chunks.push(chunk);
      return Buffer.concat(chunks);
    };
    const wav = await collect('wav');
    expect(wav.subarray(0, 4).toString('latin1')).to.equal('RIFF');
    expect(wav.length).to.equal(44 + 1600 * 2);
    const mp3 = await collect('mp3');
    expect(mp3.length).to.be.greaterThan(100);
    expect(mp3.subarray(0, 3).toString('latin1') === 'ID3' || (mp3[0] === 0xff && (mp3[1]! & 0xe0) === 0xe0)).to.equal(true);
  });

  it('shares one speech encoder among its voices and disposes it on close', async () => {
    const made: string[] = [];
    const counting = (): SpeechEncoder => {
      const encoder = createSpeechEncoder();
      made.push('made');
      return { ...encoder, dispose: async () => (made.push('disposed'), encoder.dispose()) };
    };
    const models = ['one', 'two'].map((id) => entry(id, { task: 'text-to-speech', engine: 'tone' }));
    for (const id of ['one', 'two']) install(modelsDir, id);
    const voices = new ModelRegistry({ manifest: { models }, modelsDir, engines: { tone }, createSpeechEncoder: counting });
    for (const id of ['one', 'two']) {
      for await (const _chunk of (await voices.get(id, 'text-to-speech')).speak('Hi.', { format: 'wav' }));
    }
    expect(made).to.deep.equal(['made']);
    await voices.close();
    expect(made).to.deep.equal(['made', 'disposed']);
  });

  it('gives translators the client’s language codes to resolve', async () => {
    const pair = await registry.get('pair', 'translation');
    await pair.translate('hi', { targetLanguage: 'es-mx', sourceLanguage: 'eng' });
    expect(translated).to.deep.equal([{ targetLanguage: 'es', sourceLanguage: 'en' }]);
    const refused = await pair.translate('hi', { targetLanguage: 'fr' }).catch((error: unknown) => error);
    expect(refused).to.include({ status: 400, code: 'invalid_request' });
  });
});
