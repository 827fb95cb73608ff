/**
 * What the check of a model's folder before each load costs (model-folder-check.ts): for each
 * installed model folder, the first check (every graph's headers and external data, every JSON
 * parsed) and a second one over unchanged files (one directory walk), the median of `--runs` fresh
 * checkers each. Run: npx tsx scripts/bench/model-folder-check.ts [--runs 5] [ids…]
 * (MODELS_DIR, default models/; every installed folder when no id is given).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ModelFolderCheck } from '../../src/inference/model-folder-check.js';

const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const runs = runsAt >= 0 ? Number(args.splice(runsAt, 2)[1]) : 5;
const modelsDir = resolve(process.env.MODELS_DIR ?? 'models');
const ids = args.length > 0 ? args : readdirSync(modelsDir).filter((id) => existsSync(join(modelsDir, id, '.installed.json')));

const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
console.log('| model | first check (ms) | files unchanged (ms) | problem |');
console.log('|---|---:|---:|---|');
for (const id of ids) {
  const first: number[] = [];
  const kept: number[] = [];
  let problem: string | undefined;
  for (let run = 0; run < runs; run++) {
    const check = new ModelFolderCheck();
    let started = performance.now();
    problem = (await check.problem(modelsDir, join(modelsDir, id)))?.problem;
    first.push(performance.now() - started);
    started = performance.now();
    await check.problem(modelsDir, join(modelsDir, id));
    kept.push(performance.now() - started);
  }
  console.log(`| ${id} | ${median(first).toFixed(1)} | ${median(kept).toFixed(2)} | ${problem ?? 'none'} |`);
}
