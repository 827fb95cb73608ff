/**
 * Per-file wall times of a mocha run, for finding the slow files: `npm test -- --require
 * test/helpers/file-times.ts` appends `seconds<TAB>file` for each test file to FILE_TIMES (default
 * test-results/file-times.tsv). With --parallel each file gets its own root hooks, so a file's time
 * includes its hooks (model loads) but not its import.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import type { Context } from 'mocha';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';

const OUT = process.env.FILE_TIMES ?? `${REPO_ROOT}/test-results/file-times.tsv`;
let started = 0;

export const mochaHooks = {
  beforeAll(): void {
    started = performance.now();
  },
  afterAll(this: Context): void {
    const file = this.test?.parent?.suites[0]?.file;
    if (!file) return;
    mkdirSync(dirname(OUT), { recursive: true });
    appendFileSync(OUT, `${((performance.now() - started) / 1000).toFixed(1)}\t${relative(REPO_ROOT, file)}\n`);
  },
};
