/**
 * npm run eval:text (translation part): chrF of the installed Apertium pair on FLORES-101
 * devtest (200 English→Spanish sentence pairs), through the product's Translator exactly as the
 * server loads it (manifest + ENGINES + registry), 8 requests in flight at a time.
 *
 *   apertium-eng-spa on translation/en-es.flores101-devtest.tsv   chrF (6-grams, β 2), ~50 is typical
 *
 * For comparison it also scores the plain command line (`apertium -u eng-spa`, one process for
 * the whole file), which shows what our formatting around the pipeline changes.
 * Env: MODELS_DIR, MODELS_MANIFEST, EVAL_DIR (the folder of the evaluation sets, e.g. ../shared/eval beside the repository).
 * Install the pair with `bash scripts/test-models/apertium.sh`.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../../src/config/load-config.js';
import { ENGINES } from '../../src/inference/engines.js';
import { readManifest } from '../../src/inference/manifest.js';
import { ModelRegistry } from '../../src/inference/model-registry.js';
import { configureRuntime } from '../../src/inference/runtime.js';
import { corpusChrf } from './lib/chrf.js';
import { readPairs } from './lib/translation-pairs.js';
import { evalSetDir } from './lib/eval-data.js';

const MODEL = 'apertium-eng-spa';
const FILE = 'translation/en-es.flores101-devtest.tsv';
const CONCURRENCY = 8;

const evalDir = dirname(evalSetDir('translation'));

async function commandLine(sources: readonly string[]): Promise<string[] | undefined> {
  // The apertium script misreads a piped stdin when started from Node; give it a file instead.
  const dir = await mkdtemp(join(tmpdir(), 'eval-apertium-'));
  try {
    const input = join(dir, 'source.txt');
    await writeFile(input, `${sources.join('\n')}\n`);
    const { stdout } = await promisify(execFile)('apertium', ['-u', 'eng-spa', input], { maxBuffer: 1 << 24 });
    const lines = stdout.split('\n');
    return lines.length >= sources.length ? lines.slice(0, sources.length) : undefined;
  } catch {
    return undefined;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
  configureRuntime({ modelsDir: config.modelsDir });
  const manifest = await readManifest(config.manifestPath);
  const registry = new ModelRegistry({ manifest, modelsDir: config.modelsDir, engines: ENGINES });
  try {
    const pairs = await readPairs(join(evalDir, FILE));
    const translator = await registry.get(MODEL, 'translation');
    const started = performance.now();
    const hypotheses: string[] = [];
    for (let start = 0; start < pairs.length; start += CONCURRENCY) {
      const chunk = pairs.slice(start, start + CONCURRENCY);
      hypotheses.push(...(await Promise.all(chunk.map((pair) => translator.translate(pair.source, { targetLanguage: 'es' })))));
    }
    const seconds = (performance.now() - started) / 1000;
    const references = pairs.map((pair) => pair.reference);
    const chars = pairs.reduce((sum, pair) => sum + pair.source.length, 0);
    const score = corpusChrf(hypotheses, references);
    const first60 = corpusChrf(hypotheses.slice(0, 60), references.slice(0, 60));
    console.log(`${MODEL} on ${FILE} (${pairs.length} pairs)`);
    console.log(`  chrF ${score.toFixed(1)}  (first 60 lines: ${first60.toFixed(1)})  ${(chars / seconds).toFixed(0)} source chars/s`);
    const cli = await commandLine(pairs.map((pair) => pair.source));
    if (cli) {
      console.log(`  for comparison, \`apertium -u eng-spa\` on the same lines: chrF ${corpusChrf(cli, references).toFixed(1)}`);
    }
    console.log('  (FLORES chrF around 50 is typical for rule-based MT)');
  } finally {
    await registry.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
