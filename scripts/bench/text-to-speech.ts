/**
 * `npm run bench:speech` (second half). Three measurements in one run, on piper-en_US-joe-medium
 * and the 50 sentences of the shared TTS set:
 *
 * 1. Warm speed against a baseline: the product (manifest → ENGINES → synthesis worker → MP3
 *    encoder worker) vs the piper-tts Python package that the `piper` CLI runs (same .onnx and
 *    .onnx.json, ORT default thread count on both sides), sentence by sentence and interleaved
 *    (the machine is shared), each side's time per sentence the best of the rounds (what is left
 *    of background load is then the same for both). Ours includes MP3 encoding; Piper's
 *    includes writing WAV. Compared per second of audio produced. Goal: ratio ours/piper ≤ 1.0.
 * 2. For reference, the `piper` CLI's wall clock over all sentences (`-i file -d dir`: process
 *    start, Python imports and voice load included).
 * 0. MP3 encoders on the same synthesised speech: @breezystack/lamejs (pure JS) vs
 *    wasm-media-encoders (LAME in WASM, what the product uses), best of 3, in this thread.
 * 3. Time to first streamed byte: a real server (`tsx src/server.ts`, 127.0.0.1), POST
 *    /v1/text-to-speech per sentence (the first 20 of the set), MP3 and WAV, after warm-up
 *    requests. Against a baseline in the same server: the same voice with `firstPieceWords: 0`
 *    (a first sentence is cut only at a short first clause, as before the word-boundary cut),
 *    the four kinds of request interleaved and rotated per sentence, 150 ms apart. Goal: median
 *    < 200 ms for MP3 and for WAV.
 *
 *   tsx scripts/bench/text-to-speech.ts [--voice piper-en_US-joe-medium] [--rounds 3] [--limit N]
 *                                       [--ttfb-requests 20] [--skip-baseline] [--skip-server] [--ttfb-only]
 *                                       [--spinning on|off|<µs>] [--memory-arena on|off]
 *
 * `--ttfb-only`: only part 3 (no Piper baseline, no in-process speed rounds).
 *
 * Env: MODELS_DIR (default models), TOOLS_PYTHON (default .cache/venv/bin/python; piper-tts==1.8.0
 * is pip-installed there when missing), EVAL_TTS_DIR or EVAL_DIR (the TTS sentences, not in the repository). Bounded loops only.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { Mp3Encoder } from '@breezystack/lamejs';
import { compileMp3Codec, createMp3StreamEncoder } from '../../src/audio/encode-mp3.js';
import { speechBytes } from '../../src/inference/text-to-speech/speech-bytes.js';
import type { Synthesizer } from '../../src/inference/types.js';
import { createSpeechEncoder } from '../../src/inference/text-to-speech/speech-encoder.js';
import { percentile, startServer } from '../eval/lib/bench-server.js';
import { loadAverage } from '../eval/lib/load-average.js';
import { loadSynthesizer } from '../eval/lib/load-synthesizer.js';
import { modelsDir } from '../eval/lib/load-transcriber.js';
import { readTtsSentences, ttsDir } from '../eval/lib/tts-sentences.js';
import { PiperProcess } from './baselines/piper-process.js';

const GOAL_RATIO = 1.0;
const GOAL_TTFB_MS = 200;
/** Pause before each first-byte request (measureFirstByte says why). */
const REQUEST_GAP_MS = 150;
const PIPER_TTS = 'piper-tts==1.8.0';

const { values: args } = parseArgs({
  options: {
    voice: { type: 'string', default: 'piper-en_US-joe-medium' },
    rounds: { type: 'string', default: '3' },
    limit: { type: 'string' },
    'ttfb-requests': { type: 'string', default: '20' },
    'skip-baseline': { type: 'boolean', default: false },
    'skip-server': { type: 'boolean', default: false },
    'ttfb-only': { type: 'boolean', default: false },
    /** The voice's `spinning` option for this run (the manifest's when absent). */
    spinning: { type: 'string' },
    /** The voice's `memoryArena` option for this run (the manifest's when absent). */
    'memory-arena': { type: 'string' },
  },
});
const voiceId = args.voice!;
const rounds = Math.max(1, Math.min(10, Number(args.rounds)));
const python = process.env.TOOLS_PYTHON ?? resolve('.cache/venv/bin/python');
const sentences = await readTtsSentences(args.limit ? Number(args.limit) : undefined);

const work = await mkdtemp(join(tmpdir(), 'tts-bench-'));
const sentencesFile = join(work, 'sentences.txt');
await writeFile(sentencesFile, `${sentences.join('\n')}\n`);
let failed = false;
console.log(
  `TTS bench: ${voiceId}, ${sentences.length} sentences from ${ttsDir()}, rounds ${rounds}${args.spinning ? `, spinning ${args.spinning}` : ''}${args['memory-arena'] ? `, memoryArena ${args['memory-arena']}` : ''}, load average ${loadAverage()}\n`,
);

try {
  if (!args['ttfb-only']) await measureSpeed();
  if (!args['skip-server']) await measureFirstByte();
} finally {
  await rm(work, { recursive: true, force: true });
}
if (failed) process.exitCode = 1;

async function measureSpeed(): Promise<void> {
  const loadStarted = performance.now();
  const spinning = args.spinning === undefined ? undefined : args.spinning === 'on' ? true : args.spinning === 'off' ? false : Number(args.spinning);
  const arena = args['memory-arena'] === undefined ? {} : { memoryArena: args['memory-arena'] === 'on' };
  const { synthesizer, modelDir, entry } = await loadSynthesizer(voiceId, { ...(spinning === undefined ? {} : { spinning }), ...arena });
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  const onnx = join(modelDir, String(entry.options?.onnxFile ?? 'en_US-joe-medium.onnx'));
  const encoder = createSpeechEncoder();
  const speak = async (text: string, format: 'mp3' | 'wav' = 'mp3') => {
    let bytes = 0;
    for await (const chunk of speechBytes(synthesizer, text, { format, encoder })) bytes += chunk.length;
    return bytes;
  };
  await speak('Warm up.');
  // Harvard sentences (list 1), about 10 s of speech.
  await compareMp3Encoders(
    synthesizer,
    "The birch canoe slid on the smooth planks. Glue the sheet to the dark blue background. It's easy to tell the depth of a well. These days a chicken leg is a rare dish.",
  );
  let piper: PiperProcess | undefined;
  if (!args['skip-baseline']) {
    await ensurePiperTts();
    piper = await PiperProcess.start(python, onnx);
  }

  // Sentence by sentence, alternating who goes first, so both sides see the same background load;
  // per sentence and side, the best round counts.
  const ours = new Array<number>(sentences.length).fill(Infinity);
  // The same output format as Piper's (WAV), so the ratio compares synthesis, not MP3 encoding.
  const oursWav = new Array<number>(sentences.length).fill(Infinity);
  const theirs = new Array<number>(sentences.length).fill(Infinity);
  // Counted from our WAV (44-byte header, 16-bit mono), as Piper's samples are: an MP3's length
  // over-counts by LAME's encoder delay and last-frame padding (~2 % of a 4-s sentence).
  let oursWavSamples = 0;
  let piperSamples = 0;
  for (let round = 0; round < rounds; round++) {
    for (const [index, text] of sentences.entries()) {
      const timeOurs = async () => {
        let started = performance.now();
        await speak(text);
        ours[index] = Math.min(ours[index]!, (performance.now() - started) / 1000);
        started = performance.now();
        oursWavSamples += ((await speak(text, 'wav')) - 44) / 2;
        oursWav[index] = Math.min(oursWav[index]!, (performance.now() - started) / 1000);
      };
      const timePiper = async () => {
        if (!piper) return;
        const { seconds, samples } = await piper.speak(text);
        theirs[index] = Math.min(theirs[index]!, seconds);
        piperSamples += samples;
      };
      if ((index + round) % 2 === 0) {
        await timeOurs();
        await timePiper();
      } else {
        await timePiper();
        await timeOurs();
      }
    }
  }
  // CLI-style: the whole file as one input (ours: one streamed MP3; Piper: `-i file` into one WAV),
  // alternating who goes first per round.
  let oursFile = Infinity;
  let piperFile = Infinity;
  if (piper) {
    for (let round = 0; round < rounds; round++) {
      const timeOurs = async () => {
        const started = performance.now();
        await speak(sentences.join('\n'));
        oursFile = Math.min(oursFile, (performance.now() - started) / 1000);
      };
      const timePiper = async () => {
        piperFile = Math.min(piperFile, (await piper!.speak(`@file ${sentencesFile}`)).seconds);
      };
      if (round % 2 === 0) {
        await timeOurs();
        await timePiper();
      } else {
        await timePiper();
        await timeOurs();
      }
    }
  }
  await Promise.allSettled([synthesizer.dispose(), encoder.dispose()]);
  const oursTotal = ours.reduce((a, b) => a + b, 0);
  // Audio per round: every round renders each sentence again, and VITS draws its durations at random.
  const oursWavAudio = oursWavSamples / synthesizer.sampleRate / rounds;
  console.log(
    `ours: load ${loadSeconds.toFixed(2)} s; ${oursTotal.toFixed(2)} s for ${sentences.length} sentences (best of ${rounds} rounds each) incl. MP3 (${oursWavAudio.toFixed(0)} s of audio, RTF ${(oursTotal / oursWavAudio).toFixed(3)})`,
  );

  if (piper) {
    piper.stop();
    const piperTotal = theirs.reduce((a, b) => a + b, 0);
    const piperAudio = piperSamples / piper.sampleRate / rounds;
    console.log(
      `piper (python): load ${piper.loadSeconds.toFixed(2)} s; ${piperTotal.toFixed(2)} s (best of ${rounds} rounds each) incl. WAV (${piperAudio.toFixed(0)} s of audio, RTF ${(piperTotal / piperAudio).toFixed(3)})\n`,
    );
    console.log(`${'#'.padStart(3)} ${'ours ms'.padStart(8)} ${'piper ms'.padStart(9)}  ratio`);
    for (const [index, seconds] of ours.entries()) {
      console.log(
        `${String(index + 1).padStart(3)} ${(seconds * 1000).toFixed(0).padStart(8)} ${(theirs[index]! * 1000).toFixed(0).padStart(9)}  ${(seconds / theirs[index]!).toFixed(2)}`,
      );
    }
    // Per second of audio, since the two renderings of a sentence differ slightly in length.
    const ratio = oursTotal / oursWavAudio / (piperTotal / piperAudio);
    const oursWavTotal = oursWav.reduce((a, b) => a + b, 0);
    const wavRatio = oursWavTotal / oursWavAudio / (piperTotal / piperAudio);
    console.log(
      `\nwarm total, best of ${rounds} rounds per sentence, per second of audio: ours WAV ${oursWavTotal.toFixed(2)} s (${oursWavAudio.toFixed(1)} s of audio), piper ${piperTotal.toFixed(2)} s (WAV) → ours/piper = ${wavRatio.toFixed(3)}× (goal ≤ ${GOAL_RATIO}×, same output format): ${wavRatio <= GOAL_RATIO ? 'PASS' : 'FAIL'}`,
    );
    console.log(`  ours MP3 (SPEC's default format; LAME encoding included) ${oursTotal.toFixed(2)} s → ${ratio.toFixed(3)}× piper's WAV`);
    if (wavRatio > GOAL_RATIO) failed = true;
    const fileRatio = oursFile / piperFile;
    console.log(
      `whole file as one input (CLI -i style), best of ${rounds}: ours ${oursFile.toFixed(2)} s (one MP3 stream), piper ${piperFile.toFixed(2)} s (one WAV) → ratio ${fileRatio.toFixed(3)}× (goal ≤ ${GOAL_RATIO}×): ${fileRatio <= GOAL_RATIO ? 'PASS' : 'FAIL'}`,
    );

    const cliStarted = performance.now();
    await run(join(python, '..', 'piper'), ['-m', onnx, '-i', sentencesFile, '-d', join(work, 'wav')]);
    const cliSeconds = (performance.now() - cliStarted) / 1000;
    console.log(
      `cold wall clock, all sentences once: piper CLI ${cliSeconds.toFixed(2)} s (process start + load + WAV files); ours load ${loadSeconds.toFixed(2)} s + ${oursTotal.toFixed(2)} s (in process, measured above)`,
    );
  }
}

/**
 * Part 3. The voice twice in one server: as the manifest has it, and with `firstPieceWords: 0`
 * (the baseline), both folders linked to the installed one.
 */
async function measureFirstByte(): Promise<void> {
  const baselineId = `${voiceId}-clause-only`;
  const manifestPath = resolve(process.env.MODELS_MANIFEST ?? 'models/models.json');
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as { models: Array<{ id: string; default?: boolean; options?: object }> };
  const entry = manifest.models.find((model) => model.id === voiceId);
  if (!entry) throw new Error(`no ${voiceId} in ${manifestPath}`);
  const linked = join(work, 'models');
  await mkdir(linked);
  await symlink(join(modelsDir(), voiceId), join(linked, voiceId));
  await symlink(join(modelsDir(), voiceId), join(linked, baselineId));
  const baseline = { ...entry, id: baselineId, default: false, options: { ...entry.options, firstPieceWords: 0 } };
  await writeFile(join(work, 'models.json'), JSON.stringify({ models: [entry, baseline] }));
  const server = await startServer({ modelsDir: linked, env: { MODELS_MANIFEST: join(work, 'models.json') } });
  try {
    const kinds = [
      { model: voiceId, format: 'mp3' },
      { model: voiceId, format: 'wav' },
      { model: baselineId, format: 'mp3' },
      { model: baselineId, format: 'wav' },
    ] as const;
    const post = (kind: (typeof kinds)[number], input: string) =>
      firstByte(`${server.baseUrl}/v1/text-to-speech`, server.apiKey, { model: kind.model, input, response_format: kind.format });
    for (const kind of kinds) await post(kind, 'Warm up the voice, then the encoder.');
    const count = Math.max(1, Math.min(200, Number(args['ttfb-requests'])));
    const loadBefore = loadAverage();
    const times = kinds.map(() => [] as number[]);
    const totals = kinds.map(() => [] as number[]);
    for (let i = 0; i < count; i++) {
      const sentence = sentences[i % sentences.length]!;
      for (let k = 0; k < kinds.length; k++) {
        const index = (i + k) % kinds.length; // each kind goes first as often as the others
        // Each request meets an idle server, as a lone request does: not the tail of the previous
        // one's ORT threads, which spin on for a while after a run (the baseline voice has a session of its own).
        await new Promise((done) => setTimeout(done, REQUEST_GAP_MS));
        const { firstMs, totalMs } = await post(kinds[index]!, sentence);
        times[index]!.push(firstMs);
        totals[index]!.push(totalMs);
      }
    }
    const loadAfter = loadAverage();
    const paragraph = (sentences.length >= 24 ? sentences.slice(14, 24) : sentences.slice(0, 10)).join(' ');
    const long = await post(kinds[0], paragraph);
    console.log(
      `\ntime to first byte over HTTP, ${count} single-sentence requests per kind, interleaved, ${REQUEST_GAP_MS} ms apart; load average ${loadBefore} before, ${loadAfter} after`,
    );
    const medians = kinds.map((_, index) => percentile(times[index]!, 50));
    for (const [index, kind] of kinds.entries()) {
      const median = medians[index]!;
      const ratio = index < 2 ? ` → ${(median / medians[index + 2]!).toFixed(2)}× the baseline` : '';
      console.log(
        `  ${kind.model === voiceId ? 'product ' : 'baseline'} ${kind.format}: median ${median.toFixed(0)} ms, p90 ${percentile(times[index]!, 90).toFixed(0)} ms, max ${Math.max(...times[index]!).toFixed(0)} ms; whole response median ${percentile(totals[index]!, 50).toFixed(0)} ms${ratio}`,
      );
    }
    console.log(
      `multi-sentence paragraph (${paragraph.length} chars), MP3: first byte ${long.firstMs.toFixed(0)} ms, whole response ${long.totalMs.toFixed(0)} ms`,
    );
    for (const [index, format] of ['mp3', 'wav'].entries()) {
      const pass = medians[index]! < GOAL_TTFB_MS;
      console.log(
        `TTFB goal < ${GOAL_TTFB_MS} ms (median, ${format}): ${medians[index]!.toFixed(0)} ms at load average ${loadBefore} → ${loadAfter}: ${pass ? 'PASS' : 'FAIL'}`,
      );
      if (!pass) failed = true;
    }
  } finally {
    await server.stop();
  }
}

function firstByte(url: string, apiKey: string, body: object): Promise<{ firstMs: number; totalMs: number }> {
  return new Promise((resolvePromise, reject) => {
    const started = performance.now();
    let firstMs = -1;
    const req = request(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${apiKey}` } }, (res) => {
      if (res.statusCode !== 200) {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => reject(new Error(`HTTP ${res.statusCode}: ${text}`)));
        return;
      }
      res.on('data', () => {
        if (firstMs < 0) firstMs = performance.now() - started;
      });
      res.on('end', () => resolvePromise({ firstMs, totalMs: performance.now() - started }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

async function compareMp3Encoders(synthesizer: Synthesizer, text: string): Promise<void> {
  const parts: Float32Array[] = [];
  for await (const piece of synthesizer.synthesize(text)) parts.push(piece.samples);
  const samples = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((offset, part) => (samples.set(part, offset), offset + part.length), 0);
  const int16 = Int16Array.from(samples, (x) => Math.max(-32768, Math.min(32767, Math.round(x * 32767))));
  const codec = await compileMp3Codec();
  const best = async (encode: () => Promise<number>) => {
    let ms = Infinity;
    let bytes = 0;
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      bytes = await encode();
      ms = Math.min(ms, performance.now() - started);
    }
    return { ms, bytes };
  };
  const lame = await best(async () => {
    const encoder = new Mp3Encoder(1, synthesizer.sampleRate, 64);
    let bytes = 0;
    for (let offset = 0; offset < int16.length; offset += 1152 * 16) bytes += encoder.encodeBuffer(int16.subarray(offset, offset + 1152 * 16)).length;
    return bytes + encoder.flush().length;
  });
  const wasm = await best(async () => {
    const encoder = await createMp3StreamEncoder({ sampleRate: synthesizer.sampleRate, codec });
    return encoder.encode(samples).length + encoder.finish().length;
  });
  const seconds = samples.length / synthesizer.sampleRate;
  console.log(
    `MP3 encoding of ${seconds.toFixed(1)} s of speech at 64 kbit/s: @breezystack/lamejs ${lame.ms.toFixed(0)} ms (${lame.bytes} B), wasm-media-encoders ${wasm.ms.toFixed(0)} ms (${wasm.bytes} B) → ${(lame.ms / wasm.ms).toFixed(1)}× faster\n`,
  );
}

/** The baseline needs piper-tts in the tools venv; install the pinned version when missing. */
async function ensurePiperTts(): Promise<void> {
  try {
    await promisify(execFile)(python, ['-c', 'import piper']);
  } catch {
    console.log(`installing ${PIPER_TTS} into the tools venv…`);
    await run(python, ['-m', 'pip', 'install', '--quiet', PIPER_TTS]);
  }
}

function run(command: string, argv: string[]): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolvePromise() : reject(new Error(`${command} exited ${code}: ${stderr}`))));
  });
}
