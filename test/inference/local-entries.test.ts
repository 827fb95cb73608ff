import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCAL_ENTRY_FILE, loadManifest } from '../../src/inference/local-entries.js';
import type { ManifestEntry } from '../../src/inference/manifest.js';

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

  /** The manifest's model ids, with what was skipped and why. */
  const loaded = async (options: { check?: (entry: ManifestEntry) => void } = {}) => {
    const skipped: string[] = [];
    const manifest = await loadManifest(manifestPath, modelsDir, { ...options, onSkipped: ({ file, reason }) => skipped.push(`${file}: ${reason}`) });
    return { ids: manifest.models.map((model) => model.id), localIds: manifest.localIds, skipped };
  };

  it('leaves out an entry whose id a shipped model has, naming the folder, and keeps the others', async () => {
    place('shipped', JSON.stringify(entry('shipped')));
    place('mine', JSON.stringify(entry('mine')));
    const { ids, skipped } = await loaded();
    expect(ids).to.deep.equal(['shipped', 'mine']);
    expect(skipped).to.have.length(1);
    expect(skipped[0]).to.match(/shipped\/\.manifest-entry\.json: id "shipped" is also in .*models\.json/);
  });

  it('leaves out an entry copied into a folder of another name', async () => {
    place('copy', JSON.stringify(entry('mine')));
    const { ids, skipped } = await loaded();
    expect(ids).to.deep.equal(['shipped']);
    expect(skipped).to.have.length(1);
    expect(skipped[0]).to.match(/copy\/\.manifest-entry\.json: id must be the folder name "copy"/);
  });

  it('checks each entry as the shipped manifest is checked, leaving out only the bad one', async () => {
    place('bad', JSON.stringify({ ...entry('bad'), task: 'dancing' }));
    place('good', JSON.stringify(entry('good')));
    const { ids, localIds, skipped } = await loaded();
    expect(ids).to.deep.equal(['shipped', 'good']);
    expect(localIds).to.deep.equal(['good']);
    expect(skipped).to.have.length(1);
    expect(skipped[0]).to.match(/bad\/\.manifest-entry\.json: .*task must be one of/);
  });

  it('leaves out a truncated entry (not JSON) with one line, and serves the others', async () => {
    const whole = JSON.stringify(entry('cut'));
    place('cut', whole.slice(0, Math.floor(whole.length / 2)));
    place('mine', JSON.stringify(entry('mine')));
    const { ids, skipped } = await loaded();
    expect(ids).to.deep.equal(['shipped', 'mine']);
    expect(skipped).to.have.length(1);
    expect(skipped[0]).to.match(/cut\/\.manifest-entry\.json: is not valid JSON .*reinstall that model/);
  });

  it("leaves out an entry its caller's check refuses (the server: engine and options)", async () => {
    place('mine', JSON.stringify(entry('mine')));
    const { ids, skipped } = await loaded({
      check: (one) => {
        throw new Error(`model "${one.id}" uses unknown engine`);
      },
    });
    expect(ids).to.deep.equal(['shipped']);
    expect(skipped[0]).to.match(/mine\/\.manifest-entry\.json: model "mine" uses unknown engine/);
  });
});
