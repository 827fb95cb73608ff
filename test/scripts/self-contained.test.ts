/**
 * A clone has nothing beside it: no test reads outside the repository, and no script defaults to
 * a folder outside it (the benches' data sets come only through EVAL_DIR / EVAL_SPEECH_DIR /
 * EVAL_TTS_DIR, scripts/eval/lib/eval-data.ts). .ci/run also runs the suite in a clone with
 * nothing beside it; this catches the mistake in seconds, before that run.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';

const CODE = /\.(ts|mjs|js|py|sh)$/;
/**
 * The folders a clone does not have, spelled from parts so that this file, which only looks for
 * them, does not itself name them: the evaluation data beside the repository, and the machine's
 * work folder.
 */
const SIBLING = ['shared'].join('');
const BESIDE = `\\.\\./${SIBLING}`;
const WORK = ['', 'work', ''].join('\\/');

function codeFiles(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && CODE.test(entry.name) && !entry.parentPath.includes('node_modules'))
    .map((entry) => relative(REPO_ROOT, join(entry.parentPath, entry.name)));
}

/** Lines of `files` that match `pattern`, as `file:line: text`. */
function offending(files: readonly string[], pattern: RegExp): string[] {
  return files.flatMap((file) =>
    readFileSync(join(REPO_ROOT, file), 'utf8')
      .split('\n')
      .flatMap((text, index) => (pattern.test(text) ? [`${file}:${index + 1}: ${text.trim()}`] : [])),
  );
}

describe('the repository is self-contained', () => {
  const tests = codeFiles('test').filter((file) => file !== 'test/scripts/self-contained.test.ts');
  const scripts = codeFiles('scripts');

  it('finds the code it checks', () => {
    expect(tests.length).to.be.above(100);
    expect(scripts.length).to.be.above(50);
  });

  it('no test names a folder outside the repository (the data beside it, the work folder, its eval sets)', () => {
    expect(offending(tests, new RegExp(`${BESIDE}|${WORK}|${SIBLING}\\/eval`))).to.deep.equal([]);
  });

  it('no script has a default path outside the repository (a quoted path beside it or in the work folder)', () => {
    // Python's `ROOT.parent / "<folder>"` too. Mentions in prose (an example EVAL_DIR value) are fine.
    expect(offending(scripts, new RegExp(`["'\`](${BESIDE}|${WORK})|\\.parent \\/ ["']${SIBLING}`))).to.deep.equal([]);
  });

  it('no after() waits on a server that before() may not have made (`x?.close(resolve)` never settles for undefined)', () => {
    expect(offending(tests, /\?\.\w+\(\s*(resolve|\(\) => resolve)/)).to.deep.equal([]);
  });

  it('a bench without its data set stops with one error line naming the variable', () => {
    const env = { ...process.env, EVAL_DIR: '', EVAL_SPEECH_DIR: '' };
    const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', "(await import('./scripts/eval/lib/eval-data.ts')).evalSetDir('speech')"], {
      cwd: REPO_ROOT,
      env,
      encoding: 'utf8',
    });
    expect(run.status).to.equal(2);
    expect(run.stderr.trim().split('\n')).to.have.length(1);
    expect(run.stderr).to.match(/^error: .*EVAL_DIR.*EVAL_SPEECH_DIR/);
    const missing = spawnSync(process.execPath, ['--import', 'tsx', '-e', "(await import('./scripts/eval/lib/eval-data.ts')).evalSetDir('tts')"], {
      cwd: REPO_ROOT,
      env: { ...env, EVAL_DIR: '/nonexistent-eval' },
      encoding: 'utf8',
    });
    expect(missing.status).to.equal(2);
    expect(missing.stderr.trim()).to.equal('error: EVAL_DIR=/nonexistent-eval: no folder /nonexistent-eval/tts');
  });
});
