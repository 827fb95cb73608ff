/**
 * `npm run download-models -- --list`: one line per model with its task, size, languages,
 * licence, whether its real weights were run here, and its state or install command.
 *
 * Installed state, languages and install commands come from the same catalog the server uses, so
 * engines with their own notion of "installed" (Apertium's Debian packages) answer for
 * themselves, and --list names the command a 503 model_not_installed names. The engine table is
 * imported only here: downloading needs none of the inference libraries.
 *
 * The size is the catalogue's when it knows it (pinned file sizes, or a stated figure, `~` when
 * it is an estimate); otherwise
 * the hub's file tree at the pinned revision is asked (`(hub)` marks it); when neither can tell,
 * the sum of the sized files with a `+`, or `?`.
 */
import type { Manifest, ManifestEntry } from '../manifest.js';
import type { ModelInfo } from '../model-catalog.js';
import { knownSize } from '../model-size.js';
import type { HubSizes } from './hub-sizes.js';
import { formatBytes } from './progress-bar.js';

interface Row {
  id: string;
  task: string;
  size: string;
  languages: string;
  license: string;
  ranHere: string;
  state: string;
}

const HEADER: Row = { id: 'ID', task: 'TASK', size: 'SIZE', languages: 'LANGUAGES', license: 'LICENCE', ranHere: 'RUN HERE', state: 'STATE' };

export async function listModels(manifest: Manifest, modelsDir: string, out: { write(chunk: string): unknown }, sizes: HubSizes): Promise<void> {
  const [{ ENGINES }, { ModelCatalog }] = await Promise.all([import('../engines.js'), import('../model-catalog.js')]);
  const catalog = new ModelCatalog({ manifest, modelsDir, engines: ENGINES });
  const infos = new Map((await catalog.list(() => undefined)).map((info) => [info.id, info]));
  const rows: Row[] = [];
  for (const entry of manifest.models) {
    const info = infos.get(entry.id) as ModelInfo;
    const state = info.installed ? 'installed' : `not installed (${catalog.installCommand(entry)})`;
    rows.push({
      id: entry.id,
      task: entry.task,
      size: await sizeText(entry, sizes),
      languages: languagesText(info.languages as string[] | null),
      license: shortLicense(entry.license),
      ranHere: entry.realWeightsRunHere ? 'yes' : 'no',
      state: [entry.default ? 'default' : '', state].filter(Boolean).join(', '),
    });
  }
  const hubUrl = sizes.hubUrl;
  const width = (key: keyof Row) => Math.max(...[HEADER, ...rows].map((row) => row[key].length));
  const widths = { id: width('id'), task: width('task'), size: width('size'), languages: width('languages'), license: width('license') };
  for (const row of [HEADER, ...rows]) {
    out.write(
      `${row.id.padEnd(widths.id)}  ${row.task.padEnd(widths.task)}  ${row.size.padStart(widths.size)}  ${row.languages.padEnd(widths.languages)}  ` +
        `${row.license.padEnd(widths.license)}  ${row.ranHere.padEnd(HEADER.ranHere.length)}  ${row.state}\n`,
    );
  }
  if (rows.some((row) => row.size.startsWith('~'))) {
    out.write('\n~: an estimate (docs/models.md, "Sizes"); the download prints the exact size before it starts\n');
  }
  if (rows.some((row) => row.size === '?' || row.size.endsWith('+'))) {
    out.write(`\n?, +: the catalogue does not size these files and the hub (${hubUrl}) did not say; run again where it answers\n`);
  }
}

async function sizeText(entry: ManifestEntry, sizes: HubSizes): Promise<string> {
  const known = knownSize(entry);
  if (known) return `${known.estimated ? '~' : ''}${formatBytes(known.bytes)}`;
  const fromHub = await sizes.total(entry);
  if (fromHub !== undefined) return `${formatBytes(fromHub)} (hub)`;
  const sized = (entry.source?.files ?? []).reduce((sum, file) => sum + (file.size ?? 0), 0);
  // A "+" says some files have no size anywhere we could ask, so the total is a lower bound.
  return sized > 0 ? `${formatBytes(sized)}+` : '?';
}

function languagesText(languages: readonly string[] | null): string {
  if (!languages || languages.length === 0) return '-';
  return languages.length <= 3 ? languages.join(',') : `${languages.length} languages`;
}

/** The licence's name without its explanation ("CC-BY-4.0 (Helsinki-NLP OPUS-MT)" → "CC-BY-4.0"), cut to a column. */
function shortLicense(license: string): string {
  const name = license.split(/ \(|; /)[0]?.trim() || '-';
  return name.length > LICENSE_WIDTH ? `${name.slice(0, LICENSE_WIDTH - 1)}…` : name;
}

/** The full licence is in GET /v1/models and the catalogue; a URL must not widen every line. */
const LICENSE_WIDTH = 24;
