/**
 * Per-file times of a mocha run, for finding the slow files: `npm test -- --require
 * test/helpers/file-times.ts` appends `wall<TAB>cpu<TAB>file<TAB>end<TAB>pid` for each test file to FILE_TIMES
 * (default test-results/file-times.tsv). With --parallel each file gets its own root hooks, so the
 * wall time includes its hooks (model loads) but not its import. The CPU time is the worker
 * process's (all its threads: the model workers too) since the previous file of that process ended,
 * so it does include the file's import; idle time between files costs none. The first file of each
 * worker also carries the worker's start (tsx, mocha).
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import type { Context } from 'mocha';
import { REPO_ROOT } from '../audio/audio-test-helpers.js';

const OUT = process.env.FILE_TIMES ?? `${REPO_ROOT}/test-results/file-times.tsv`;
/** Where each test's CPU seconds go (since the last test ended, so its suite's before hooks count), if set. */
const TESTS_OUT = process.env.TEST_TIMES;
let started = 0;
let cpuAtLastFileEnd = 0;
let cpuAtLastTestEnd = 0;

const cpuSeconds = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

export const mochaHooks = {
  beforeAll(): void {
    started = performance.now();
  },
  afterEach(this: Context): void {
    if (!TESTS_OUT || !this.currentTest) return;
    const cpu = cpuSeconds();
    mkdirSync(dirname(TESTS_OUT), { recursive: true });
    appendFileSync(TESTS_OUT, `${(cpu - cpuAtLastTestEnd).toFixed(2)}\t${this.currentTest.fullTitle()}\n`);
    cpuAtLastTestEnd = cpu;
  },
  afterAll(this: Context): void {
    const file = this.test?.parent?.suites[0]?.file;
    if (!file) return;
    const cpu = cpuSeconds();
    const wall = (performance.now() - started) / 1000;
    mkdirSync(dirname(OUT), { recursive: true });
    // The end time (ms since the epoch) and the worker's pid show each worker's timeline: idle cores at the tail.
    appendFileSync(OUT, `${wall.toFixed(1)}\t${(cpu - cpuAtLastFileEnd).toFixed(1)}\t${relative(REPO_ROOT, file)}\t${Date.now()}\t${process.pid}\n`);
    cpuAtLastFileEnd = cpu;
  },
};
