/**
 * Transcription lines name an uploaded audio file by id and answer exactly as the synchronous
 * multipart route does (real whisper-tiny.en); translation lines run on Debian's Apertium.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Manifest } from '../../src/inference/manifest.js';
import { REPO_ROOT, SPEECH_DIR } from '../audio/audio-test-helpers.js';
import { batchApi } from '../helpers/batch-app.js';
import { bearer, createTestApp, type TestApp } from '../helpers/test-app.js';
import { realModel } from '../helpers/real-models.js';

const MODELS_DIR = join(REPO_ROOT, 'models');
const committed = JSON.parse(readFileSync(join(MODELS_DIR, 'models.json'), 'utf8')) as Manifest;
const HAS_APERTIUM = existsSync('/usr/share/apertium/modes/eng-spa.mode');

describe('Batch API: transcription by file id, translation', function () {
  this.timeout(120_000);
  let app: TestApp;
  before(async function () {
    if (!realModel('whisper-tiny.en').installed) this.skip();
    app = await createTestApp({
      manifest: { models: committed.models.filter((entry) => ['whisper-tiny.en', 'apertium-eng-spa', 'silero-vad-v6'].includes(entry.id)) },
      modelsDir: MODELS_DIR,
    });
    await app.app.batches.start();
  });
  after(() => app?.close());

  const api = batchApi(() => app);
  const runBatch = async (endpoint: string, lines: object[]): Promise<{ batch: any; output: any[]; errors: any[] }> => {
    const batch = await api.settle((await api.create(await api.upload(lines), endpoint)).id);
    return { batch, output: await api.lines(batch.output_file_id), errors: await api.lines(batch.error_file_id) };
  };

  it('transcribes audio uploaded by id exactly as the synchronous route, with every field', async () => {
    const audio = readFileSync(join(SPEECH_DIR, 'en_jfk.mp3'));
    const uploaded = await app.request.post('/v1/files').set('Authorization', bearer()).field('purpose', 'user_data').attach('file', audio, 'jfk.mp3');
    expect(uploaded.status, uploaded.text).to.equal(200);
    const forms: Record<string, unknown>[] = [
      { model: 'whisper-tiny.en' },
      { model: 'whisper-tiny.en', response_format: 'text' },
      { model: 'whisper-tiny.en', response_format: 'verbose_json', timestamp_granularities: ['word', 'segment'], temperature: 0 },
    ];
    const { batch, output, errors } = await runBatch('/v1/audio/transcriptions', [
      ...forms.map((body, i) => ({ custom_id: `t${i}`, method: 'POST', url: '/v1/audio/transcriptions', body: { ...body, file: uploaded.body.id } })),
      { custom_id: 'missing', method: 'POST', url: '/v1/audio/transcriptions', body: { model: 'whisper-tiny.en', file: 'file-000000000000000000000000' } },
    ]);
    expect(batch.request_counts).to.deep.equal({ total: 4, completed: 3, failed: 1 });
    for (const [i, fields] of forms.entries()) {
      let request = app.request.post('/v1/audio/transcriptions').set('Authorization', bearer());
      for (const [name, value] of Object.entries(fields)) {
        if (Array.isArray(value)) for (const item of value) request = request.field(`${name}[]`, String(item));
        else request = request.field(name, String(value));
      }
      const sync = await request.attach('file', audio, 'jfk.mp3');
      expect(sync.status).to.equal(200);
      const line = output.find((candidate: { custom_id: string }) => candidate.custom_id === `t${i}`);
      expect(line.response.body, `t${i}`).to.deep.equal(fields.response_format === 'text' ? sync.text : sync.body);
    }
    expect(errors.map((line: { custom_id: string; error: { message: string } }) => [line.custom_id, line.error.message])).to.deep.equal([
      ['missing', '"file": no file file-000000000000000000000000 the batch\'s key can read'],
    ]);
  });

  it('translates lines on the engine route of each line', async function () {
    if (!HAS_APERTIUM) this.skip();
    const { batch, output } = await runBatch('/v1/engines/{model}/translate', [
      {
        custom_id: 'cats',
        method: 'POST',
        url: '/v1/engines/apertium-eng-spa/translate',
        body: { model: 'apertium-eng-spa', text: 'I have two cats and a dog.', target_language: 'es' },
      },
    ]);
    expect(batch.status).to.equal('completed');
    expect(output[0].response.body.translation).to.equal('Tengo dos gatos y un perro.');
  });
});
