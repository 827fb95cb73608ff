/**
 * The real app on an ephemeral loopback port for the playground's browser tests: the tiny fixture
 * models of every task, plus the real test models when `npm run test-models` installed them
 * (one models folder of links to both, as the registry reads a single folder).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Manifest, ManifestEntry } from '../../src/inference/manifest.js';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { REAL_MODELS_DIR } from '../helpers/real-models.js';

const FIXTURE_MODELS_DIR = join(REPO_ROOT, 'test/fixtures/models');

const FIXTURES: ManifestEntry[] = [
  {
    id: 'piper-random',
    task: 'text-to-speech',
    engine: 'piper',
    description: 'Random-weight Piper voice (test fixture: noise, quickly)',
    license: 'test',
    options: { threads: 1 },
  },
  {
    id: 'whisper-tiny-random',
    task: 'speech-to-text',
    engine: 'transformers-asr',
    description: 'Random-weight Whisper (test fixture)',
    license: 'MIT',
    options: { maxNewTokens: 6 },
  },
  {
    id: 'marian-en-es-random',
    task: 'translation',
    engine: 'transformers-translation',
    description: 'Random-weight Marian en→es (test fixture)',
    license: 'MIT',
    options: { family: 'marian', source: 'en', target: 'es' },
  },
  {
    id: 'nllb-random',
    task: 'translation',
    engine: 'transformers-translation',
    description: 'Random-weight NLLB (test fixture)',
    license: 'MIT',
    options: { family: 'nllb' },
  },
  {
    id: 'bert-sentiment-random',
    task: 'text-classification',
    engine: 'transformers-text-classification',
    description: 'Random-weight sentiment classifier (test fixture)',
    license: 'test',
    options: { labels: ['negative', 'positive'], workers: 1 },
  },
  {
    id: 'nli-random',
    task: 'text-classification',
    engine: 'transformers-zero-shot',
    description: 'Random-weight zero-shot NLI classifier (test fixture)',
    license: 'test',
    options: { labels: ['sports', 'politics'], workers: 1 },
  },
];

/**
 * Catalogue entries nothing installs here, as most of the real catalogue's two hundred are: the
 * pickers must put them after the installed ones, in their own group. One installs by download,
 * one (Apertium) by its Debian package.
 */
export const NOT_INSTALLED: ManifestEntry[] = [
  {
    id: 'whisper-absent',
    task: 'speech-to-text',
    engine: 'transformers-asr',
    description: 'A hub Whisper that is not installed (test fixture)',
    license: 'MIT',
    hubRepo: { repo: 'Xenova/whisper-absent', revision: 'main' },
  },
  {
    id: 'apertium-absent',
    task: 'translation',
    engine: 'apertium',
    description: 'An Apertium pair whose Debian package is not installed (test fixture)',
    license: 'GPL-3.0-or-later',
    options: { pair: 'absent-pair', source: 'en', target: 'ca', package: 'apertium-absent-pair' },
  },
];

/** Real models the panes use when installed (their files are under models/). */
const REAL_IDS = ['piper-en_US-joe-medium', 'whisper-tiny.en', 'minilm-sentiment', 'minilm-topics', 'silero-vad-v6', 'apertium-eng-spa', 'apertium-spa-eng'];

export interface PlaygroundApp {
  app: TestApp;
  baseUrl: string;
  /** Ids of the real models that are installed. */
  realModels: string[];
  close(): Promise<void>;
}

/** `realModels: false`: the fixture models only, as on a clone without `npm run test-models`. */
export async function servePlaygroundApp({ realModels = true } = {}): Promise<PlaygroundApp> {
  const modelsDir = mkdtempSync(join(tmpdir(), 'lis-playground-models-'));
  for (const dir of [FIXTURE_MODELS_DIR, REAL_MODELS_DIR]) {
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      if (name === 'models.json' || existsSync(join(modelsDir, name))) continue;
      symlinkSync(join(dir, name), join(modelsDir, name));
    }
  }
  const realManifest: Manifest = existsSync(join(REAL_MODELS_DIR, 'models.json'))
    ? JSON.parse(readFileSync(join(REAL_MODELS_DIR, 'models.json'), 'utf8'))
    : { models: [] };
  const real = realModels ? realManifest.models.filter((entry) => REAL_IDS.includes(entry.id)) : [];
  const app = await createTestApp({ manifest: { models: [...real, ...FIXTURES, ...NOT_INSTALLED] }, modelsDir });
  // The registry knows what is installed (files under models/, or Debian's Apertium pairs).
  const installed = new Set((await app.models.list()).filter((info) => info.installed).map((info) => info.id));
  // The Batches pane's batches run in the background, as in the server.
  await app.app.batches.start();
  const server: Server = createServer(app.app.callback());
  server.on('upgrade', app.app.realtime.upgrade);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    app,
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    realModels: real.map((entry) => entry.id).filter((id) => installed.has(id)),
    async close() {
      server.closeAllConnections();
      app.app.realtime.close();
      await new Promise((resolve) => server.close(resolve));
      await app.close();
      rmSync(modelsDir, { recursive: true, force: true });
    },
  };
}
