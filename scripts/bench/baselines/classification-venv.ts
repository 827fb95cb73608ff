/**
 * The Python stack the classification benches compare against: what `pip install onnxruntime
 * tokenizers` gives a user today, in its own venv (.cache/venv-classification), apart from the
 * tools venv whose onnxruntime is pinned older for the weight converters. Bump the pins when PyPI
 * moves (`pip index versions onnxruntime`); the venv is rebuilt when they change.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Latest on PyPI on 2026-11-26, and still on 2026-12-01 (issue 28 was filed at onnxruntime 1.31.1). */
export const CLASSIFICATION_BASELINE = ['onnxruntime==1.32.0', 'tokenizers==0.23.3', 'numpy==2.4.6'];

/** The baseline venv's python, created or updated first if its pins changed (about a minute). */
export function classificationBaselinePython(root: string): string {
  if (process.env.BASELINE_PYTHON) return process.env.BASELINE_PYTHON;
  const venv = join(root, '.cache/venv-classification');
  const python = join(venv, 'bin/python');
  const stamp = join(venv, '.pins');
  const pins = CLASSIFICATION_BASELINE.join(' ');
  if (existsSync(python) && existsSync(stamp) && readFileSync(stamp, 'utf8') === pins) return python;
  process.stderr.write(`[bench] installing ${pins} into ${venv}\n`);
  if (!existsSync(python)) execFileSync('python3', ['-m', 'venv', venv], { stdio: 'inherit' });
  execFileSync(python, ['-m', 'pip', 'install', '--quiet', ...CLASSIFICATION_BASELINE], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 15 * 60_000 });
  writeFileSync(stamp, pins);
  return python;
}
