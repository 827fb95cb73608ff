/**
 * Where a streamed answer's first byte goes, stage by stage, for one sentence per request on a
 * Piper voice. Each sentence is measured at five depths, interleaved and rotated (the machine is
 * shared, so every depth sees the same background load), and each depth's median is printed with
 * the difference to the depth below it:
 *
 * 1. `ort`: the first piece's model run in this thread (ids ready), ORT alone.
 * 2. `phonemise`: espeak + ids of the first piece in this thread.
 * 3. `workers`: the first piece out of WorkerSynthesizer (text split, phonemizer worker, synthesis
 *    worker, the hops between them and back).
 * 4. `speak mp3` / `speak wav`: the first chunk of speechBytes (adds the encoder worker).
 * 5. `http mp3` / `http wav`: the first byte of POST /v1/text-to-speech on a real server
 *    (`tsx src/server.ts`; adds HTTP, auth, validation, the registry, Koa's stream).
 *
 *   tsx scripts/bench/tts-first-byte-breakdown.ts [--voice piper-en_US-joe-medium] [--limit 20] [--words N]
 *
 * `--words`: the voice's firstPieceWords for this run (the manifest's when absent).
 * Env: MODELS_DIR, MODELS_MANIFEST, EVAL_TTS_DIR or EVAL_DIR (the TTS sentences, not in the repository).
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { findOnnx } from '../../src/inference/text-to-speech/find-onnx.js';
import { PiperPhonemizer } from '../../src/inference/text-to-speech/piper-phonemizer.js';
import { PiperVoice } from '../../src/inference/text-to-speech/piper-voice.js';
import { speechBytes } from '../../src/inference/text-to-speech/speech-bytes.js';
import { createSpeechEncoder } from '../../src/inference/text-to-speech/speech-encoder.js';
import { FIRST_PIECE_DEFAULTS, splitFirstPiece, splitSentences } from '../../src/inference/text-to-speech/split-sentences.js';
import { percentile, startServer } from '../eval/lib/bench-server.js';
import { loadAverage } from '../eval/lib/load-average.js';
import { loadSynthesizer } from '../eval/lib/load-synthesizer.js';
import { modelsDir } from '../eval/lib/load-transcriber.js';
import { readTtsSentences } from '../eval/lib/tts-sentences.js';

const PAUSE_MS = 150;

const { values: args } = parseArgs({
  options: {
    voice: { type: 'string', default: 'piper-en_US-joe-medium' },
    limit: { type: 'string', default: '20' },
    words: { type: 'string' },
  },
});
const sentences = await readTtsSentences(Number(args.limit));
const words = args.words === undefined ? undefined : Number(args.words);
const firstPieceOf = (text: string) => splitFirstPiece(splitSentences(text)[0]!, words === undefined ? {} : { words })[0]!;
console.log(
  `first-byte breakdown: ${args.voice}, ${sentences.length} sentences, firstPieceWords ${words ?? `manifest (default ${FIRST_PIECE_DEFAULTS.words})`}, load average ${loadAverage()}\n`,
);

const modelDir = join(modelsDir(), args.voice!);
const voice = await PiperVoice.load(modelDir, { phonemize: false });
const phonemizer = await PiperPhonemizer.load(join(modelDir, `${await findOnnx(modelDir)}.json`));
const { synthesizer } = await loadSynthesizer(args.voice!, words === undefined ? {} : { firstPieceWords: words });
const encoder = createSpeechEncoder();
const server = await startServer({ modelsDir: modelsDir(), env: words === undefined ? {} : { MODELS_MANIFEST: await manifestWithWords(words) } });

const timed = async (run: () => Promise<unknown>) => {
  const started = performance.now();
  await run();
  return performance.now() - started;
};
/** Time to the first chunk; the rest is read to the end, so the next stage does not wait for this one's leftover synthesis in the shared worker. */
const firstChunk = async (iterable: AsyncIterable<unknown>) => {
  const started = performance.now();
  let ms = -1;
  for await (const _chunk of iterable) if (ms < 0) ms = performance.now() - started;
  return ms;
};
const stages: Array<[string, (text: string) => Promise<number>]> = [
  [
    'ort',
    async (text) => {
      const ids = await phonemizer.ids(firstPieceOf(text));
      return timed(() => voice.synthesizeIds(ids));
    },
  ],
  ['phonemise', (text) => timed(() => phonemizer.ids(firstPieceOf(text)))],
  ['workers', (text) => firstChunk(synthesizer.synthesize(text))],
  ['speak mp3', (text) => firstChunk(speechBytes(synthesizer, text, { format: 'mp3', encoder }))],
  ['speak wav', (text) => firstChunk(speechBytes(synthesizer, text, { format: 'wav', encoder }))],
  ['http mp3', (text) => httpFirstByte(text, 'mp3')],
  ['http wav', (text) => httpFirstByte(text, 'wav')],
];

try {
  for (const [, stage] of stages) await stage('Warm up the voice, then the encoder.');
  const loadBefore = loadAverage();
  const times = stages.map(() => [] as number[]);
  for (const [index, text] of sentences.entries()) {
    for (let k = 0; k < stages.length; k++) {
      const which = (index + k) % stages.length;
      // A pause first: a request then meets idle threads, not the spin tail of the stage before
      // (each depth has its own ORT session, and ORT's threads spin on after a run).
      await new Promise((done) => setTimeout(done, PAUSE_MS));
      times[which]!.push(await stages[which]![1](text));
    }
  }
  const medians = times.map((list) => percentile(list, 50));
  const below: Record<string, string | undefined> = {
    workers: 'ort',
    'speak mp3': 'workers',
    'speak wav': 'workers',
    'http mp3': 'speak mp3',
    'http wav': 'speak wav',
  };
  console.log(`median first-byte time per depth (ms), load average ${loadBefore} before, ${loadAverage()} after:`);
  for (const [index, [name]] of stages.entries()) {
    const base = below[name];
    const step = base === undefined ? '' : ` (+${(medians[index]! - medians[stages.findIndex(([other]) => other === base)]!).toFixed(0)} over ${base})`;
    console.log(`  ${name.padEnd(10)} ${medians[index]!.toFixed(0).padStart(6)}  p90 ${percentile(times[index]!, 90).toFixed(0).padStart(5)}${step}`);
  }
} finally {
  await Promise.allSettled([server.stop(), synthesizer.dispose(), encoder.dispose(), voice.dispose()]);
}

function httpFirstByte(input: string, format: 'mp3' | 'wav'): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const started = performance.now();
    let firstMs = -1;
    const req = request(
      `${server.baseUrl}/v1/text-to-speech`,
      { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${server.apiKey}` } },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`HTTP ${res.statusCode}`));
        res.on('data', () => {
          if (firstMs < 0) firstMs = performance.now() - started;
        });
        res.on('end', () => resolvePromise(firstMs));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ model: args.voice, input, response_format: format }));
  });
}

/** A copy of the manifest whose voice has `firstPieceWords: words`. */
async function manifestWithWords(words: number): Promise<string> {
  const manifest = JSON.parse(await readFile(resolve(process.env.MODELS_MANIFEST ?? 'models/models.json'), 'utf8')) as {
    models: Array<{ id: string; options?: object }>;
  };
  for (const entry of manifest.models) if (entry.id === args.voice) entry.options = { ...entry.options, firstPieceWords: words };
  const path = join(await mkdtemp(join(tmpdir(), 'tts-breakdown-')), 'models.json');
  await writeFile(path, JSON.stringify(manifest));
  return path;
}
