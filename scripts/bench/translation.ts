/**
 * npm run bench:text (translation part): Apertium translation throughput of our server against
 * Apertium APy (PyPI apertium-apy, the reference Apertium HTTP server) on the same pair
 * (eng-spa), the same machine and the same input: the 200 English FLORES-101 devtest sentences.
 *
 * Both servers run as their own processes on 127.0.0.1 and are driven over HTTP by this script:
 *   sequential   one sentence per request, one request at a time
 *   concurrent   one sentence per request, 8 requests in flight
 *   document     the first sentences that fit in 15,000 characters, in one request, one line each
 * Each measurement is repeated (ROUNDS, default 3) alternating the servers; the best round counts.
 * Prints source characters per second and the ratio ours / APy (goal ≥ 1.0×).
 *
 * Needs: apt-get install apertium apertium-eng-spa; apertium-apy in the tools venv (installed
 * here with pip when missing). Env: EVAL_DIR, ROUNDS.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readPairs } from '../eval/lib/translation-pairs.js';
import { evalSetDir } from '../eval/lib/eval-data.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const evalDir = dirname(evalSetDir('translation'));
const python = join(root, '.cache/venv/bin/python');
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const CONCURRENCY = 8;
const API_KEY = 'bench-key-0123456789abcdef';

interface Server {
  name: string;
  translate(text: string): Promise<string>;
}

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

async function waitFor(check: () => Promise<boolean>, what: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited (code ${child.exitCode})`);
    if (await check().catch(() => false)) return;
    await new Promise((wait) => setTimeout(wait, 200));
  }
  throw new Error(`${what} did not start within 60 s`);
}

function ensureApy(): void {
  const probe = spawnSync(python, ['-c', 'import apertium_apy'], { stdio: 'ignore' });
  if (probe.status === 0) return;
  console.log('installing apertium-apy into the tools venv (PyPI) ...');
  const install = spawnSync(python, ['-m', 'pip', 'install', '--quiet', 'apertium-apy'], { stdio: 'inherit' });
  if (install.status !== 0) throw new Error('pip install apertium-apy failed');
}

async function startApy(children: ChildProcess[]): Promise<Server> {
  ensureApy();
  const port = await freePort();
  // -i 1 / -u 5 are APy's defaults, spelled out: one pipeline per pair, as in our server.
  const child = spawn(python, [join(root, 'scripts/bench/baselines/apertium-apy.py'), String(port), '-i', '1', '-u', '5'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LC_ALL: 'C.UTF-8' },
  });
  child.stderr?.resume();
  children.push(child);
  const base = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${base}/listPairs`)).ok, 'APy', child);
  return {
    name: 'APy',
    async translate(text) {
      const body = new URLSearchParams({ langpair: 'eng|spa', markUnknown: 'no', q: text });
      const res = await fetch(`${base}/translate`, { method: 'POST', body });
      const json = (await res.json()) as { responseData?: { translatedText?: string }; responseDetails?: string };
      if (!res.ok || json.responseData?.translatedText === undefined) throw new Error(`APy: ${res.status} ${json.responseDetails}`);
      return json.responseData.translatedText;
    },
  };
}

async function startOurs(children: ChildProcess[]): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/server.ts')], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', API_KEYS: API_KEY, DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'warn' },
  });
  child.stderr?.resume();
  children.push(child);
  const base = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${base}/`)).ok, 'our server', child);
  return {
    name: 'ours',
    async translate(text) {
      const res = await fetch(`${base}/v1/engines/apertium-eng-spa/translate`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${API_KEY}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ model: 'apertium-eng-spa', text, target_language: 'es' }),
      });
      const json = (await res.json()) as { translation?: string; error?: { message: string } };
      if (!res.ok || json.translation === undefined) throw new Error(`ours: ${res.status} ${json.error?.message}`);
      return json.translation;
    },
  };
}

type Mode = 'sequential' | 'concurrent' | 'document';

async function run(server: Server, sentences: readonly string[], mode: Mode): Promise<number> {
  const started = performance.now();
  if (mode === 'document') {
    await server.translate(sentences.join('\n'));
  } else {
    const inFlight = mode === 'sequential' ? 1 : CONCURRENCY;
    let next = 0;
    const worker = async () => {
      while (next < sentences.length) await server.translate(sentences[next++] as string);
    };
    await Promise.all(Array.from({ length: inFlight }, worker));
  }
  const chars = sentences.reduce((sum, sentence) => sum + sentence.length, 0);
  return chars / ((performance.now() - started) / 1000);
}

async function main(): Promise<void> {
  const sentences = (await readPairs(join(evalDir, 'translation/en-es.flores101-devtest.tsv'))).map((pair) => pair.source);
  const children: ChildProcess[] = [];
  try {
    const [apy, ours] = [await startApy(children), await startOurs(children)];
    // Warm-up: both start their pipeline on first use; also compare outputs once.
    const sample = sentences.slice(0, 20);
    const apyOut = await Promise.all(sample.map((s) => apy.translate(s)));
    const ourOut = await Promise.all(sample.map((s) => ours.translate(s)));
    const same = sample.filter((_, i) => apyOut[i]?.replace(/\s+/g, ' ').trim() === ourOut[i]).length;
    console.log(`eng-spa, ${sentences.length} FLORES sentences, best of ${ROUNDS} rounds; identical outputs on a 20-sentence sample: ${same}/20`);
    const differing = sample.findIndex((_, i) => apyOut[i]?.replace(/\s+/g, ' ').trim() !== ourOut[i]);
    if (differing >= 0) console.log(`  first difference:\n    ours: ${ourOut[differing]}\n    APy:  ${apyOut[differing]}`);

    // Under our default 20,000-character limit on "text".
    const documentSentences: string[] = [];
    for (let length = 0, i = 0; i < sentences.length && length + (sentences[i] as string).length < 15_000; i++) {
      length += (sentences[i] as string).length + 1;
      documentSentences.push(sentences[i] as string);
    }
    for (const mode of ['sequential', 'concurrent', 'document'] as Mode[]) {
      const input = mode === 'document' ? documentSentences : sentences;
      const best = { ours: 0, APy: 0 };
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? [ours, apy] : [apy, ours];
        for (const server of order) {
          const rate = await run(server, input, mode);
          best[server.name as 'ours' | 'APy'] = Math.max(best[server.name as 'ours' | 'APy'], rate);
        }
      }
      console.log(
        `  ${mode.padEnd(10)}  ours ${best.ours.toFixed(0).padStart(6)} chars/s   APy ${best.APy.toFixed(0).padStart(6)} chars/s   ratio ${(best.ours / best.APy).toFixed(2)}x (goal >= 1.0x)`,
      );
    }
  } finally {
    for (const child of children) child.kill('SIGTERM');
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
