/**
 * npm run eval:embeddings: what `dimensions` costs an embedding model that was not trained to be
 * shortened (OpenAI's text-embedding-3 was; all-MiniLM-L6-v2 was not). Every row of the shared
 * classification sets is embedded once, at full width, through the product's Embedder exactly as
 * the server loads it (manifest + ENGINES + registry); each width is then the product's own
 * shortenEmbedding (the first values, scaled back to unit length), as /v1/embeddings answers it.
 *
 * Two figures per set and width:
 *   - k-NN accuracy: each text's label predicted by its 10 nearest other texts (cosine, leave one
 *     out, majority with ties to the larger summed similarity): how well classes stay apart.
 *   - neighbours kept: of each text's 10 nearest at full width, the share still among its 10
 *     nearest at this width: what a search over the vectors would return the same.
 *
 * Env: MODELS_DIR, MODELS_MANIFEST (as the server), EVAL_DIR (the folder of the evaluation sets,
 * e.g. ../shared/eval beside the repository). `--model ID` (default minilm-embeddings),
 * `--dimensions 384,256,128,64,32`. Install the model with `npm run test-models`.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../src/config/load-config.js';
import { ENGINES } from '../../src/inference/engines.js';
import { readManifest } from '../../src/inference/manifest.js';
import { ModelRegistry, shortenEmbedding } from '../../src/inference/model-registry.js';
import { configureRuntime } from '../../src/inference/runtime.js';
import { evalSetDir } from './lib/eval-data.js';
import { loadAverage } from './lib/load-average.js';

const SETS = ['sst2_validation_300.tsv', 'tweeteval_sentiment_test_300.tsv', 'agnews_test_400.tsv'];
const K = 10;
const CHUNK = 64;

interface Row {
  text: string;
  label: string;
}

async function readRows(path: string): Promise<Row[]> {
  const [header, ...lines] = (await readFile(path, 'utf8')).split('\n').filter((line) => line.trim() !== '');
  if (header !== 'text\tlabel') throw new Error(`${path}: expected a "text<TAB>label" header`);
  return lines.map((line) => {
    const tab = line.lastIndexOf('\t');
    return { text: line.slice(0, tab), label: line.slice(tab + 1) };
  });
}

/** Every row's other rows, most similar first (indices), from unit vectors. */
function neighbours(vectors: readonly Float32Array[]): number[][] {
  return vectors.map((a, i) => {
    const scored: [number, number][] = [];
    vectors.forEach((b, j) => {
      if (i === j) return;
      let dot = 0;
      for (let d = 0; d < a.length; d++) dot += a[d]! * b[d]!;
      scored.push([j, dot]);
    });
    scored.sort((x, y) => y[1] - x[1]);
    return scored.map(([j]) => j);
  });
}

function knnAccuracy(vectors: readonly Float32Array[], rows: readonly Row[], order: readonly number[][]): number {
  let correct = 0;
  order.forEach((ranked, i) => {
    const votes = new Map<string, { count: number; similarity: number }>();
    for (const j of ranked.slice(0, K)) {
      let dot = 0;
      for (let d = 0; d < vectors[i]!.length; d++) dot += vectors[i]![d]! * vectors[j]![d]!;
      const vote = votes.get(rows[j]!.label) ?? { count: 0, similarity: 0 };
      votes.set(rows[j]!.label, { count: vote.count + 1, similarity: vote.similarity + dot });
    }
    const [best] = [...votes].sort((a, b) => b[1].count - a[1].count || b[1].similarity - a[1].similarity)[0]!;
    if (best === rows[i]!.label) correct++;
  });
  return correct / rows.length;
}

function neighboursKept(full: readonly number[][], shortened: readonly number[][]): number {
  let kept = 0;
  full.forEach((ranked, i) => {
    const now = new Set(shortened[i]!.slice(0, K));
    kept += ranked.slice(0, K).filter((j) => now.has(j)).length;
  });
  return kept / (full.length * K);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { model: { type: 'string', default: 'minilm-embeddings' }, dimensions: { type: 'string', default: '384,256,128,64,32' } },
  });
  const widths = values.dimensions.split(',').map(Number);
  const dir = evalSetDir('classification');
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
  configureRuntime({ modelsDir: config.modelsDir });
  const manifest = await readManifest(config.manifestPath);
  const registry = new ModelRegistry({ manifest, modelsDir: config.modelsDir, engines: ENGINES });
  console.log(`load average at start ${loadAverage()}`);
  try {
    const embedder = await registry.get(values.model, 'embeddings');
    const table: string[][] = [];
    for (const file of SETS) {
      const rows = await readRows(join(dir, file));
      const full: Float32Array[] = [];
      for (let start = 0; start < rows.length; start += CHUNK) {
        full.push(...(await embedder.embed(rows.slice(start, start + CHUNK).map((row) => row.text))));
      }
      const fullOrder = neighbours(full);
      for (const width of widths) {
        const vectors = full.map((vector) => shortenEmbedding(vector, width));
        const order = width >= full[0]!.length ? fullOrder : neighbours(vectors);
        table.push([file, String(width), knnAccuracy(vectors, rows, order).toFixed(3), neighboursKept(fullOrder, order).toFixed(3)]);
      }
    }
    console.log(`${values.model}: ${K}-NN accuracy (leave one out) and ${K} nearest neighbours kept, by width`);
    console.log(['set', 'dimensions', 'k-NN accuracy', 'neighbours kept'].join('\t'));
    for (const row of table) console.log(row.join('\t'));
    for (const width of widths) {
      const ofWidth = table.filter((row) => row[1] === String(width));
      const mean = (column: number) => (ofWidth.reduce((sum, row) => sum + Number(row[column]), 0) / ofWidth.length).toFixed(3);
      console.log(`mean over the sets at ${width}: k-NN accuracy ${mean(2)}, neighbours kept ${mean(3)}`);
    }
  } finally {
    await registry.close();
  }
  console.log(`load average at end ${loadAverage()}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
