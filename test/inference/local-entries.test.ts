import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCAL_ENTRY_FILE, loadManifest } from '../../src/inference/local-entries.js';
import type { ManifestEntry } from '../../src/inference/manifest.js';
import { rejection } from '../helpers/rejection.js';

const entry = (id: string): ManifestEntry => ({ id, task: 'embeddings', engine: 'sentence-embedding', description: 'x', license: 'x' });

describe('user-installed manifest entries (<MODELS_DIR>/<id>/.manifest-entry.json)', () => {
  let dir: string;
  let manifestPath: string;
  let modelsDir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lis-local-'));
    manifestPath = join(dir, 'models.json');
    modelsDir = join(dir, 'models');
    writeFileSync(manifestPath, JSON.stringify({ models: [entry('shipped')] }));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const place = (folder: string, text: string) => {
    mkdirSync(join(modelsDir, folder), { recursive: true });
    writeFileSync(join(modelsDir, folder, LOCAL_ENTRY_FILE), text);
  };

  it('adds each installed entry after the shipped ones, and names their ids', async () => {
    place('mine', JSON.stringify(entry('mine')));
    mkdirSync(join(modelsDir, 'no-entry'), { recursive: true });
    const manifest = await loadManifest(manifestPath, modelsDir);
    expect(manifest.models.map((model) => model.id)).to.deep.equal(['shipped', 'mine']);
    expect(manifest.localIds).to.deep.equal(['mine']);
  });

  it('reads a missing models folder as no entries', async () => {
    expect((await loadManifest(manifestPath, join(dir, 'absent'))).models.map((model) => model.id)).to.deep.equal(['shipped']);
  });

  it('refuses an entry whose id a shipped model has, naming the folder', async () => {
    place('shipped', JSON.stringify(entry('shipped')));
    expect((await rejection(loadManifest(manifestPath, modelsDir))).message).to.match(
      /shipped\/\.manifest-entry\.json: id "shipped" is also in .*models\.json/,
    );
  });

  it('refuses an entry copied into a folder of another name', async () => {
    place('copy', JSON.stringify(entry('mine')));
    expect((await rejection(loadManifest(manifestPath, modelsDir))).message).to.match(/copy\/\.manifest-entry\.json: id must be the folder name "copy"/);
  });

  it('checks the entries as the shipped manifest is checked', async () => {
    place('bad', JSON.stringify({ ...entry('bad'), task: 'dancing' }));
    expect((await rejection(loadManifest(manifestPath, modelsDir))).message).to.match(/task must be one of/);
  });
});
