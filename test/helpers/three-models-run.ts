/**
 * The child process of test/http/model-memory-budget.slow.test.ts: one request to each of three real
 * models (`npm run test-models`), in order, over HTTP to a fresh app whose registry has the budget
 * given as the first argument (none if absent). Prints one JSON line: what the registry counted
 * after each request, the unloads, and GET /v1/models. A script, not a test helper run in-process:
 * the test needs what a fresh process measures.
 *
 * Run: node --import tsx test/helpers/three-models-run.ts [maxMemoryBytes]
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Manifest } from '../../src/inference/manifest.js';
import type { UnloadEvent } from '../../src/inference/model-registry.js';
import { SPEECH_DIR } from '../audio/audio-test-helpers.js';
import { REAL_MODELS_DIR } from './real-models.js';
import { bearer, createTestApp, type TestApp } from './test-app.js';
import { until } from './until.js';

export const THREE_MODELS = ['whisper-tiny.en', 'minilm-embeddings', 'piper-en_US-joe-medium'] as const;
export const THREE_MODELS_SPEECH = join(SPEECH_DIR, 'en_jfk.wav');

export interface ThreeModelsRun {
  /** Per request: the models in memory then, with the bytes each counts against the budget. */
  residents: Array<Array<{ id: string; state: string; bytes: number }>>;
  unloads: UnloadEvent[];
  models: Array<{ id: string; state: string; installed: boolean; memory_bytes: number | null }>;
}

async function use(app: TestApp, id: (typeof THREE_MODELS)[number]): Promise<void> {
  const post = (path: string) => app.request.post(path).set('Authorization', bearer());
  const text = 'The budget holds after warm-up.';
  const res =
    id === 'whisper-tiny.en'
      ? await post('/v1/audio/transcriptions').field('model', id).attach('file', THREE_MODELS_SPEECH)
      : id === 'minilm-embeddings'
        ? await post('/v1/embeddings').send({ model: id, input: text })
        : await post('/v1/audio/speech').send({ model: id, input: text, response_format: 'wav' });
  if (res.status !== 200) throw new Error(`${id} answered ${res.status}: ${res.text}`);
}

async function run(maxMemoryBytes: number | undefined): Promise<ThreeModelsRun> {
  const committed = JSON.parse(readFileSync(join(REAL_MODELS_DIR, 'models.json'), 'utf8')) as Manifest;
  const manifest = { models: committed.models.filter((entry) => (THREE_MODELS as readonly string[]).includes(entry.id)) };
  const app = await createTestApp({
    manifest,
    modelsDir: REAL_MODELS_DIR,
    // An evicted model must free its memory, as in the server.
    shareModels: false,
    registry: maxMemoryBytes === undefined ? {} : { maxMemoryBytes },
  });
  try {
    const unloads: UnloadEvent[] = [];
    app.models.onUnload((event) => unloads.push(event));
    const residents: ThreeModelsRun['residents'] = [];
    for (const id of THREE_MODELS) {
      await use(app, id);
      residents.push(app.models.residents());
    }
    // An eviction's unload is reported once the model's workers have ended; an evicted model
    // leaves residents() at once, so every model no longer resident has an unload to come.
    await until(() => unloads.length >= THREE_MODELS.length - app.models.residents().length, 'the evictions to be reported', 10_000);
    const models = (await app.request.get('/v1/models').set('Authorization', bearer())).body.data as ThreeModelsRun['models'];
    return { residents, unloads, models };
  } finally {
    await app.close();
  }
}

// Run as a script (the test imports only the names above).
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const budget = process.argv[2];
  run(budget === undefined ? undefined : Number(budget)).then(
    (result) => console.log(JSON.stringify(result)),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
