/**
 * Regenerates models/catalog/{speech-to-text,translation,embeddings}.json from the tables in
 * scripts/catalog/hub-models.ts:
 *
 *   npx tsx scripts/catalog/build-hub-models.ts
 */
import { join } from 'node:path';
import { manifestIds, writeCatalog } from './catalog-file.js';
import { hubCatalogs } from './hub-models.js';

const shipped = await manifestIds('models/models.json');
for (const [name, entries] of Object.entries(hubCatalogs())) {
  const clash = entries.find((entry) => shipped.has(entry.id));
  if (clash) throw new Error(`${clash.id} is already in models/models.json`);
  const path = join('models/catalog', `${name}.json`);
  await writeCatalog(
    path,
    {
      generator: 'scripts/catalog/build-hub-models.ts',
      inputs: [{ what: 'the tables of scripts/catalog/hub-models.ts', source: 'their comments name each source' }],
    },
    entries,
  );
  console.log(`${path}: ${entries.length} models`);
}
