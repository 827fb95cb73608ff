/**
 * What the first audio of a stream waits for, step by step, and how long a first piece to cut
 * (splitFirstPiece's `words`). In this thread, no server, best of `--rounds` per measurement:
 *
 * 1. The fixed costs on the first-byte path: splitting the text, phonemising the first piece
 *    (espeak in WASM, warm), a worker round trip (the encoder worker, warm), opening an MP3
 *    stream from the compiled LAME module, encoding the first piece to MP3, a WAV header.
 * 2. Per first-piece length (`words` 2…6, and the whole sentence as `whole`), over the first
 *    `--limit` sentences of the shared TTS set: the median synthesis time of the first piece
 *    (what the first byte waits for), the median audio length of that piece, and how many
 *    sentences would stall (the rest takes longer to synthesise than the first piece to play).
 * 3. Through the product's WorkerSynthesizer (phonemizer worker → synthesis worker), for the
 *    Piper voice and for Kokoro: median time to the first piece with the default cut against
 *    `firstPieceWords: 0` (clause only), interleaved. Kokoro is the random-weight fixture
 *    (test/fixtures/models/kokoro-random, or `--kokoro-dir`): plumbing, not its real speed.
 *
 *   tsx scripts/bench/tts-first-piece.ts [--voice piper-en_US-joe-medium] [--limit 20] [--rounds 3]
 *                                        [--kokoro-dir DIR]
 *
 * Env: MODELS_DIR (default models), EVAL_TTS_DIR or EVAL_DIR (the TTS sentences, not in the repository). Run beside the
 * load of a shared machine, it prints the load average; compare lengths within one run.
 */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { compileMp3Codec, createMp3StreamEncoder } from '../../src/audio/encode-mp3.js';
import { wavStreamHeader } from '../../src/audio/encode-wav.js';
import { findOnnx } from '../../src/inference/text-to-speech/find-onnx.js';
import { createSpeechEncoder } from '../../src/inference/text-to-speech/speech-encoder.js';
import { PiperPhonemizer } from '../../src/inference/text-to-speech/piper-phonemizer.js';
import { PiperVoice } from '../../src/inference/text-to-speech/piper-voice.js';
import { splitFirstPiece, splitSentences } from '../../src/inference/text-to-speech/split-sentences.js';
import type { SynthesisWorkerInit } from '../../src/inference/text-to-speech/synthesis-worker-init.js';
import { WorkerSynthesizer } from '../../src/inference/text-to-speech/worker-synthesizer.js';
import { percentile } from '../eval/lib/bench-server.js';
import { loadAverage } from '../eval/lib/load-average.js';
import { modelsDir } from '../eval/lib/load-transcriber.js';
import { readTtsSentences } from '../eval/lib/tts-sentences.js';

const { values: args } = parseArgs({
  options: {
    voice: { type: 'string', default: 'piper-en_US-joe-medium' },
    limit: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '3' },
    'kokoro-dir': { type: 'string', default: 'test/fixtures/models/kokoro-random' },
  },
});
const rounds = Math.max(1, Math.min(10, Number(args.rounds)));
const sentences = await readTtsSentences(Number(args.limit));
console.log(`first-piece bench: ${args.voice}, ${sentences.length} sentences, best of ${rounds}, load average ${loadAverage()}\n`);

const modelDir = join(modelsDir(), args.voice!);
const voice = await PiperVoice.load(modelDir, { phonemize: false });
const phonemizer = await PiperPhonemizer.load(join(modelDir, `${await findOnnx(modelDir)}.json`));
const encoder = createSpeechEncoder();

/** Best of `rounds` wall times of `run`, in ms, and its last result. */
async function best<T>(run: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  let ms = Infinity;
  let value: T | undefined;
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    value = await run();
    ms = Math.min(ms, performance.now() - started);
  }
  return { ms, value: value as T };
}

try {
  // 1. Fixed costs.
  const sample = sentences[Math.min(14, sentences.length - 1)]!;
  const [head] = splitFirstPiece(splitSentences(sample)[0]!);
  const headIds = await phonemizer.ids(head!);
  const headAudio = await voice.synthesizeIds(headIds);
  const codec = await compileMp3Codec();
  const stream = await encoder.openStream('mp3', voice.sampleRate);
  await stream.encode(headAudio);
  await stream.finish();
  const costs: Array<[string, number]> = [
    ['split the text (sentences, first piece)', (await best(() => splitFirstPiece(splitSentences(sample)[0]!))).ms],
    [`phonemise the first piece ("${head}")`, (await best(() => phonemizer.ids(head!))).ms],
    [`synthesise it (${(headAudio.length / voice.sampleRate).toFixed(2)} s of audio)`, (await best(() => voice.synthesizeIds(headIds))).ms],
    [
      'worker round trip (open and abort a PCM stream in the warm encoder worker)',
      (await best(async () => (await encoder.openStream('pcm', voice.sampleRate)).abort())).ms,
    ],
    ['open an MP3 stream in the encoder worker (compiled module)', (await best(async () => (await encoder.openStream('mp3', voice.sampleRate)).abort())).ms],
    ['new LAME stream from the compiled module, in this thread', (await best(() => createMp3StreamEncoder({ sampleRate: voice.sampleRate, codec }))).ms],
    [
      'encode the first piece to MP3 in the encoder worker',
      (
        await best(async () => {
          const mp3 = await encoder.openStream('mp3', voice.sampleRate);
          const bytes = await mp3.encode(headAudio.slice());
          mp3.abort();
          return bytes;
        })
      ).ms,
    ],
    ['WAV stream header', (await best(() => wavStreamHeader(voice.sampleRate))).ms],
    [
      'encoder worker cold start (start, compile LAME, open an MP3 stream: a request after 30 s idle)',
      (
        await best(async () => {
          const cold = createSpeechEncoder();
          (await cold.openStream('mp3', voice.sampleRate)).abort();
          await cold.dispose();
        })
      ).ms,
    ],
  ];
  for (const [what, ms] of costs) console.log(`${ms.toFixed(2).padStart(8)} ms  ${what}`);

  // 2. First-piece length.
  console.log(`\n${'words'.padStart(6)} ${'cut'.padStart(4)} ${'first piece ms'.padStart(15)} ${'its audio s'.padStart(12)} ${'stalls'.padStart(7)}`);
  const rows = new Map<string, { ms: number[]; audio: number[]; stalls: number; cut: number }>();
  for (const words of ['whole', 0, 2, 3, 4, 5, 6] as const) rows.set(String(words), { ms: [], audio: [], stalls: 0, cut: 0 });
  // Sentence by sentence, every length in turn, so background load falls on all of them alike.
  for (const text of sentences) {
    const first = splitSentences(text)[0]!;
    for (const [key, row] of rows) {
      const pieces = key === 'whole' ? [first] : splitFirstPiece(first, { words: Number(key) });
      const ids = await phonemizer.ids(pieces[0]!);
      const { ms, value: audio } = await best(() => voice.synthesizeIds(ids));
      row.ms.push(ms);
      const audioSeconds = audio.length / voice.sampleRate;
      row.audio.push(audioSeconds);
      if (pieces.length > 1) {
        row.cut++;
        const restIds = await phonemizer.ids(pieces[1]!);
        const rest = await best(() => voice.synthesizeIds(restIds));
        if (rest.ms / 1000 > audioSeconds) row.stalls++;
      }
    }
  }
  for (const [key, row] of rows) {
    console.log(
      `${key.padStart(6)} ${String(row.cut).padStart(4)} ${percentile(row.ms, 50).toFixed(0).padStart(15)} ${percentile(row.audio, 50).toFixed(2).padStart(12)} ${String(row.stalls).padStart(7)}`,
    );
  }
  console.log(
    `\n(cut: sentences cut in two; stalls: of those, the rest took longer to synthesise than the first piece to play.) load average ${loadAverage()}`,
  );

  // 3. Through the workers, both engines.
  const engines: Array<[string, SynthesisWorkerInit]> = [
    [args.voice!, { engine: 'piper', modelDir }],
    ['kokoro (random weights)', { engine: 'kokoro', modelDir: resolve(args['kokoro-dir']!), dtype: 'fp32' }],
  ];
  console.log('\ntime to the first piece through WorkerSynthesizer (median over the sentences, best of the rounds each):');
  for (const [name, init] of engines) {
    const cut = await WorkerSynthesizer.spawn(init, name);
    const clauseOnly = await WorkerSynthesizer.spawn(init, name, { words: 0 });
    try {
      const firstPiece = async (synthesizer: WorkerSynthesizer, text: string) => {
        const started = performance.now();
        for await (const _piece of synthesizer.synthesize(text)) break;
        return performance.now() - started;
      };
      const times = [[], []] as [number[], number[]];
      await firstPiece(cut, 'Warm up.');
      await firstPiece(clauseOnly, 'Warm up.');
      for (const [index, text] of sentences.entries()) {
        const pair = [cut, clauseOnly] as const;
        const best2 = [Infinity, Infinity];
        for (let round = 0; round < rounds; round++) {
          for (let k = 0; k < 2; k++) {
            const which = (index + round + k) % 2;
            best2[which] = Math.min(best2[which]!, await firstPiece(pair[which]!, text));
          }
        }
        times[0].push(best2[0]!);
        times[1].push(best2[1]!);
      }
      const [withCut, without] = times.map((list) => percentile(list, 50)) as [number, number];
      console.log(`  ${name}: ${withCut.toFixed(0)} ms with the cut, ${without.toFixed(0)} ms clause only → ${(withCut / without).toFixed(2)}×`);
    } finally {
      await Promise.allSettled([cut.dispose(), clauseOnly.dispose()]);
    }
  }
  console.log(`load average ${loadAverage()}`);
} finally {
  await Promise.allSettled([voice.dispose(), encoder.dispose()]);
}
