/**
 * Regenerates models/catalog/piper-voices.json from a copy of rhasspy/piper-voices' voices.json:
 *
 *   npx tsx scripts/catalog/build-piper-voices.ts <voices.json> --revision <commit|tag|main> --source "<where the copy came from>" \
 *     [--licences <licences.json> --licences-source "<where they were read>"]
 *
 * (the copy: https://huggingface.co/rhasspy/piper-voices/resolve/<revision>/voices.json).
 * `--licences`: `{"verified": {"<voice key>": {"dataset_license": "…"}}}`, dataset licences read
 * from MODEL_CARDs whose bytes match voices.json's md5; other voices say "see model card". Voices
 * the hand-written models/models.json already lists are left to it.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { manifestIds, writeCatalog } from './catalog-file.js';
import { piperVoiceEntries, type PiperVoice } from './piper-voices.js';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    revision: { type: 'string' },
    source: { type: 'string' },
    licences: { type: 'string' },
    'licences-source': { type: 'string' },
    manifest: { type: 'string', default: 'models/models.json' },
    out: { type: 'string', default: 'models/catalog/piper-voices.json' },
  },
});
const [voicesPath] = positionals;
if (!voicesPath || !values.revision || !values.source) {
  console.error('usage: npx tsx scripts/catalog/build-piper-voices.ts <voices.json> --revision <commit|tag|main> --source "<where it came from>"');
  process.exit(2);
}
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

const bytes = await readFile(voicesPath);
const voices = JSON.parse(bytes.toString('utf8')) as Record<string, PiperVoice>;
const licenceBytes = values.licences ? await readFile(values.licences) : undefined;
const verified = (licenceBytes ? JSON.parse(licenceBytes.toString('utf8')).verified : {}) as Record<string, { dataset_license: string }>;
const datasetLicences = Object.fromEntries(Object.entries(verified).map(([key, card]) => [key, card.dataset_license]));
const entries = piperVoiceEntries(voices, {
  repo: 'rhasspy/piper-voices',
  revision: values.revision,
  skipIds: await manifestIds(values.manifest),
  datasetLicences,
});
await writeCatalog(
  values.out,
  {
    generator: 'scripts/catalog/build-piper-voices.ts',
    inputs: [
      { what: `rhasspy/piper-voices voices.json (revision ${values.revision})`, source: values.source, sha256: sha256(bytes) },
      ...(licenceBytes
        ? [
            {
              what: `dataset licences of ${Object.keys(datasetLicences).length} voices, from their MODEL_CARDs`,
              source: values['licences-source'] ?? (values.licences as string),
              sha256: sha256(licenceBytes),
            },
          ]
        : []),
    ],
  },
  entries,
);
console.log(`${values.out}: ${entries.length} voices (${Object.keys(voices).length - entries.length} left to ${values.manifest})`);
