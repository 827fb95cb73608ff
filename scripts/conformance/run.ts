/**
 * External conformance run: starts the real server (tsx src/server.ts on a free loopback port,
 * a temp SQLite, the installed real test models, one key), then drives it with clients nobody
 * here wrote — the Python `openai` SDK (incl. a port of speaches' audio API tests),
 * `libretranslatepy`, huggingface_hub's InferenceClient, the Node `openai` SDK and the npm
 * `libretranslate` package — and prints one pass/fail row per case; then the Files + Batch API
 * check (batch_check.py, on a server of its own that it kill -9s; CONFORMANCE_BATCH_LINES lines,
 * 500 by default: 2000 take minutes). Exits 1 on any failure not listed in known-failures.txt,
 * or on a listed one that passes (so the list stays true).
 *
 * Usage: npm run conformance [-- --filter <substring>]   (--filter batch: the batch check alone)
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const HERE = join(ROOT, 'scripts/conformance');
const KEY = 'conformance-key-0123456789abcdef';

interface Result {
  suite: string;
  name: string;
  ok: boolean;
  skipped?: boolean;
  detail?: string;
  ms?: number;
  /** Listed in known-failures.txt: 'known' (must fail), 'flaky' (either). */
  known?: 'known' | 'flaky';
}

/** known-failures.txt: `<suite> / <case>  # note`, `[flaky]` at the end for either outcome. */
function knownFailures(): Map<string, 'known' | 'flaky'> {
  const known = new Map<string, 'known' | 'flaky'>();
  for (const line of readFileSync(join(HERE, 'known-failures.txt'), 'utf8').split('\n')) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const [key = '', note = ''] = line.split(/\s+#\s/, 2);
    known.set(key.trim(), note.trimEnd().endsWith('[flaky]') ? 'flaky' : 'known');
  }
  return known;
}

type Verdict = 'PASS' | 'FAIL' | 'SKIP' | 'XFAIL' | 'XPASS' | 'FLAKY';
function verdict(r: Result): Verdict {
  if (r.skipped) return 'SKIP';
  if (r.known === 'flaky') return r.ok ? 'PASS' : 'FLAKY';
  if (r.known === 'known') return r.ok ? 'XPASS' : 'XFAIL';
  return r.ok ? 'PASS' : 'FAIL';
}
const failing = (v: Verdict) => v === 'FAIL' || v === 'XPASS';

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? done(address.port) : fail(new Error('no port'))));
    });
  });
}

async function waitReady(base: string, server: ChildProcess, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (server.exitCode !== null) throw new Error(`server exited with ${server.exitCode}`);
    try {
      const res = await fetch(`${base}/healthz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('server did not become ready');
}

/** The pinned Python clients, installed into the tools venv once (stamped by the requirements' hash). */
function pythonWithClients(): string {
  const venvPython = join(ROOT, '.cache/venv/bin/python');
  if (!existsSync(venvPython)) {
    const made = spawnSync('bash', [join(ROOT, 'scripts/tools/setup-venv.sh')], { stdio: ['ignore', 'pipe', 'inherit'] });
    if (made.status !== 0) throw new Error('could not create the tools venv (scripts/tools/setup-venv.sh)');
  }
  const requirements = join(HERE, 'requirements.txt');
  const stamp = join(ROOT, '.cache/venv/.conformance.stamp');
  const want = readFileSync(requirements, 'utf8');
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== want) {
    const pip = spawnSync(venvPython, ['-m', 'pip', 'install', '-q', '-r', requirements], { stdio: 'inherit' });
    if (pip.status !== 0) throw new Error('pip install of scripts/conformance/requirements.txt failed');
    writeFileSync(stamp, want);
  }
  return venvPython;
}

function runSuite(command: string, args: string[], env: NodeJS.ProcessEnv, resultsFile: string, suite: string): Promise<Result[]> {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('exit', (code) => {
      let results: Result[] = [];
      try {
        results = readFileSync(resultsFile, 'utf8')
          .split('\n')
          .filter((line) => line.trim() !== '')
          .map((line) => JSON.parse(line) as Result);
      } catch {
        // no results written: the suite itself crashed, reported below
      }
      if (code !== 0 && results.length === 0) results.push({ suite, name: '(suite)', ok: false, detail: `exited with ${code} before any case ran` });
      done(results);
    });
  });
}

function printTable(results: Result[]): void {
  const width = Math.min(80, Math.max(...results.map((r) => r.suite.length + r.name.length + 3)));
  for (const r of results) {
    const label = `${r.suite} / ${r.name}`.padEnd(width);
    const status = verdict(r);
    const detail =
      status === 'XPASS'
        ? '  passes now: delete its line from known-failures.txt'
        : r.ok && !r.skipped
          ? ''
          : `  ${(r.detail ?? '').replace(/\s+/g, ' ').slice(0, 300)}`;
    console.log(`${status.padEnd(5)}  ${label} ${String(r.ms ?? '').padStart(6)}ms${detail}`);
  }
  const bySuite = new Map<string, { pass: number; fail: number; known: number; skip: number }>();
  for (const r of results) {
    const s = bySuite.get(r.suite) ?? { pass: 0, fail: 0, known: 0, skip: 0 };
    const v = verdict(r);
    if (v === 'SKIP') s.skip++;
    else if (r.ok) s.pass++;
    else s.fail++;
    if (v === 'XFAIL' || v === 'FLAKY') s.known++;
    bySuite.set(r.suite, s);
  }
  console.log('\nsuite                     pass  fail (known)  skip');
  for (const [suite, s] of bySuite) {
    console.log(`${suite.padEnd(24)} ${String(s.pass).padStart(5)} ${String(s.fail).padStart(5)} ${`(${s.known})`.padStart(8)} ${String(s.skip).padStart(5)}`);
  }
}

/** The cases name these models; without them every case would fail for one reason. */
const NEEDED_MODELS = ['whisper-tiny.en', 'whisper-base-pypi', 'piper-en_US-joe-medium', 'all-MiniLM-L6-v2'];

async function main(): Promise<void> {
  const modelsDir = resolve(ROOT, process.env.MODELS_DIR ?? 'models');
  const missing = NEEDED_MODELS.filter((id) => !existsSync(join(modelsDir, id)));
  if (missing.length > 0) throw new Error(`${missing.join(', ')} not installed in ${modelsDir}: run npm run test-models first`);
  const filterAt = process.argv.indexOf('--filter');
  const filter = filterAt > 0 ? (process.argv[filterAt + 1] ?? '') : '';
  const python = pythonWithClients();
  const work = mkdtempSync(join(tmpdir(), 'conformance-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = spawn(join(ROOT, 'node_modules/.bin/tsx'), ['src/server.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: `sqlite:${join(work, 'app.db')}`,
      MODELS_DIR: process.env.MODELS_DIR ?? 'models',
      API_KEYS: KEY,
      LOG_LEVEL: 'error',
      CORS_ORIGINS: 'https://app.example',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const started = Date.now();
  try {
    await waitReady(base, server, 60_000);
    const env = { ...process.env, CONFORMANCE_BASE_URL: base, CONFORMANCE_API_KEY: KEY, CONFORMANCE_FILTER: filter, CONFORMANCE_WORK: work };
    const pyResults = join(work, 'python.jsonl');
    const nodeResults = join(work, 'node.jsonl');
    // The two suites run one after the other: the server (2 cores, shared) is the thing measured.
    const results = [
      ...(await runSuite(python, [join(HERE, 'python/run_cases.py'), pyResults], env, pyResults, 'python')),
      ...(await runSuite(join(ROOT, 'node_modules/.bin/tsx'), [join(HERE, 'node-clients.ts'), nodeResults], env, nodeResults, 'node')),
    ];
    if (filter === '' || filter.startsWith('batch')) {
      // Its own server (it kill -9s and restarts it), after the shared one is done with.
      server.kill('SIGTERM');
      const batchResults = join(work, 'batch.jsonl');
      const lines = process.env.CONFORMANCE_BATCH_LINES ?? '500';
      results.push(...(await runSuite(python, [join(HERE, 'batch_check.py'), '--lines', lines, '--results', batchResults], env, batchResults, 'batch')));
    }
    const known = knownFailures();
    for (const r of results) {
      const listed = known.get(`${r.suite} / ${r.name}`);
      if (listed) r.known = listed;
    }
    console.log('');
    printTable(results);
    const passed = results.filter((r) => r.ok && !r.skipped).length;
    const unexpected = results.filter((r) => failing(verdict(r))).length;
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    console.log(`\n${passed} of ${results.length} cases passed; ${unexpected} unexpected (FAIL or XPASS) in ${seconds} s`);
    process.exitCode = unexpected > 0 || results.length === 0 ? 1 : 0;
  } finally {
    server.kill('SIGTERM');
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
