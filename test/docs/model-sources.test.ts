/**
 * Every model a user reads about can be installed: each id of the merged manifest
 * (models/models.json + models/catalog/*.json) that README.md, docs/*.md or the playground
 * names has a download source (a hub source, a `hubRepo`, a PyPI wheel), or is an Apertium pair
 * whose install command is the exact `apt-get install` of the Debian package its size was read from
 * (`apertium-spa-eng` is served by Debian's `apertium-eng-spa`).
 */
import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ENGINES } from '../../src/inference/engines.js';
import { type Manifest, type ManifestEntry, readManifest } from '../../src/inference/manifest.js';
import { ModelCatalog } from '../../src/inference/model-catalog.js';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const DOCS = [
  join(REPO_ROOT, 'README.md'),
  ...readdirSync(join(REPO_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(REPO_ROOT, 'docs', name)),
  ...filesUnder(join(REPO_ROOT, 'src/playground')),
];

/** An id as a whole word: `whisper-base` is not found inside `whisper-base-pypi` or `whisper-base.en`. */
function mentions(text: string, id: string): boolean {
  const escaped = id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\w.-])${escaped}(?![\\w-]|\\.\\w)`).test(text);
}

function hasDownloadSource(entry: ManifestEntry): boolean {
  return entry.source !== undefined || entry.hubRepo !== undefined;
}

/** The Debian package whose Installed-Size (apt-cache show) the entry states: the name Debian really has. */
function debianPackageSized(entry: ManifestEntry): string | undefined {
  return /of Debian (apertium-[a-z]+-[a-z]+) /.exec(entry.diskSize?.from ?? '')?.[1];
}

describe('every model the docs and the playground name has a download source', () => {
  let manifest: Manifest;
  let catalog: ModelCatalog;
  const used = new Map<string, string[]>();

  before(async () => {
    manifest = await readManifest(join(REPO_ROOT, 'models/models.json'));
    catalog = new ModelCatalog({ manifest, modelsDir: join(REPO_ROOT, 'models'), engines: ENGINES });
    for (const file of DOCS) {
      const text = readFileSync(file, 'utf8');
      for (const entry of manifest.models) {
        if (mentions(text, entry.id)) used.set(entry.id, [...(used.get(entry.id) ?? []), relative(REPO_ROOT, file)]);
      }
    }
  });

  it('finds the models the README teaches with', () => {
    for (const id of ['whisper-tiny.en', 'minilm-embeddings', 'opus-mt-en-es', 'apertium-eng-spa']) expect([...used.keys()]).to.include(id);
  });

  it('each has a hub source, a hubRepo, a PyPI wheel or, for Apertium, its apt-get command', () => {
    const missing: string[] = [];
    for (const [id, files] of used) {
      const entry = manifest.models.find((model) => model.id === id) as ManifestEntry;
      if (hasDownloadSource(entry)) continue;
      if (entry.engine === 'apertium' && catalog.installCommand(entry) === `apt-get install apertium ${debianPackageSized(entry)}`) continue;
      missing.push(`${id} (${files.join(', ')}): ${catalog.installCommand(entry)}`);
    }
    expect(missing, 'models named without a download source').to.deep.equal([]);
  });
});
