/**
 * What batching gives a whole VAD-chunked file, against faster-whisper with its VAD on: the long
 * file of long-speech.ts (the shared English clips joined with 1.5-s silences), Silero VAD v6
 * regions merged into chunks of at most 30 s (WhisperX's merge), every chunk decoded on its own
 * (no prompt across chunks or windows; inside a chunk, the next window starts at the last
 * segment's end, also after a window that stopped early). The chunk loop
 * here is a stand-in for the product's (branch vad-chunks): each round takes the next window of
 * every unfinished chunk, in batches of B (decodeIndependentWindows; B = 1 is the sequential
 * decode). Ours runs in this process (VAD, features, encoder, decoder all timed, model loaded
 * before); faster-whisper 1.2.1 in its own (beam 5 default, vad_filter=True, same threads, nice 0
 * on both sides). Rounds alternate the sides; prints wall time, WER and ratios with the load.
 *
 *   tsx scripts/bench/vad-chunks-batch.ts [--minutes 10] [--threads 2] [--batch 16] [--rounds 1]
 *
 * Env: MODELS_DIR (whisper-tiny.en and silero-vad-v6 from `npm run test-models`), EVAL_SPEECH_DIR,
 * TOOLS_PYTHON.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pipeline, type Tensor } from '@huggingface/transformers';
import { Pcm16Buffer } from '../../src/audio/pcm16-buffer.js';
import { configureRuntime } from '../../src/inference/runtime.js';
import { isNoSpeech } from '../../src/inference/speech-to-text/decode-quality.js';
import { useFastWhisperFeatures } from '../../src/inference/speech-to-text/fast-features.js';
import { decodeIndependentWindows } from '../../src/inference/speech-to-text/independent-windows.js';
import { SileroVad, TRANSCRIPTION_STATE_RESETS } from '../../src/inference/speech-to-text/silero-vad.js';
import type { SpeechChunk } from '../../src/inference/speech-to-text/speech-timestamps.js';
import { whisperSpecialTokens, whisperStartTokens, type WhisperGenerationConfig } from '../../src/inference/speech-to-text/whisper-special-tokens.js';
import { seededRandom } from '../../src/inference/speech-to-text/whisper-token-choice.js';
import { WhisperWindowDecoder, type WhisperSeq2Seq } from '../../src/inference/speech-to-text/whisper-window-decoder.js';
import { splitWindow } from '../../src/inference/speech-to-text/whisper-window-segments.js';
import { decodeClipsOnce, joinClips } from '../eval/lib/long-speech.js';
import { normalizeTranscript } from '../eval/lib/normalize-transcript.js';
import { readSpeechClips } from '../eval/lib/speech-clips.js';
import { wordErrors } from '../eval/lib/wer.js';
import { ensureFasterWhisper, tinyEnWheelPath } from './baselines/faster-whisper-setup.js';
import { runFasterWhisper } from './long-speech.js';

const RATE = 16_000;
const WINDOW_SAMPLES = 30 * RATE;
const SAMPLES_PER_FRAME = 160;
/** A window is taken up again after its last segment only if that leaves at least 1 s on either side. */
const MIN_SEEK_FRAMES = 100;

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    threads: { type: 'string', default: '2' },
    batch: { type: 'string', default: '16' },
    rounds: { type: 'string', default: '1' },
  },
});
const threads = Number(args.threads);
const batch = Number(args.batch);
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

/** WhisperX's merge_chunks: consecutive regions joined while the chunk stays within 30 s. */
function mergeRegions(regions: readonly SpeechChunk[]): SpeechChunk[] {
  const chunks: SpeechChunk[] = [];
  for (const region of regions) {
    const last = chunks.at(-1);
    if (last && region.end - last.start <= WINDOW_SAMPLES) last.end = region.end;
    else chunks.push({ start: region.start, end: region.end });
  }
  return chunks;
}

configureRuntime({ modelsDir: process.env.MODELS_DIR ?? resolve('models') });
const asr = (await pipeline('automatic-speech-recognition', 'whisper-tiny.en', {
  dtype: 'fp32',
  device: 'cpu',
  session_options: { intraOpNumThreads: threads, interOpNumThreads: 1, enableCpuMemArena: false, extra: { session: { disable_prepacking: '1' } } },
})) as unknown as {
  model: WhisperSeq2Seq & { generation_config: WhisperGenerationConfig };
  tokenizer: { get_vocab(): Map<string, number>; decode(ids: number[], options: { skip_special_tokens: boolean }): string };
  processor: ((pcm: Float32Array) => Promise<{ input_features: Tensor }>) & { feature_extractor: Parameters<typeof useFastWhisperFeatures>[0] };
};
useFastWhisperFeatures(asr.processor.feature_extractor);
const tokens = whisperSpecialTokens(asr.model.generation_config, asr.tokenizer.get_vocab())!;
const model = {
  decoder: new WhisperWindowDecoder(asr.model, tokens),
  tokens,
  detokenize: (ids: number[]) => asr.tokenizer.decode(ids, { skip_special_tokens: true }),
};
const startTokens = whisperStartTokens(asr.model.generation_config, {});
const vad = await SileroVad.load(join(process.env.MODELS_DIR ?? resolve('models'), 'silero-vad-v6/silero_vad_v6.onnx'));

/** Our side: VAD, chunks, then rounds of windows (the next of every unfinished chunk), `size` at a time. */
async function transcribeChunked(samples: Float32Array, size: number): Promise<{ text: string; chunks: number; windows: number }> {
  const signal = new AbortController().signal;
  const pcm = new Pcm16Buffer();
  pcm.append(samples);
  const chunks = mergeRegions(await vad.speechChunks(pcm, {}, signal, TRANSCRIPTION_STATE_RESETS));
  const state = chunks.map((chunk, index) => ({ ...chunk, seek: chunk.start, texts: [] as string[], round: 0, index }));
  let windows = 0;
  for (;;) {
    const active = state.filter((chunk) => chunk.seek < chunk.end - SAMPLES_PER_FRAME);
    if (active.length === 0) break;
    for (let at = 0; at < active.length; at += size) {
      const group = active.slice(at, at + size);
      const inputs = [];
      for (const chunk of group) {
        const window = samples.subarray(chunk.seek, Math.min(chunk.end, chunk.seek + WINDOW_SAMPLES));
        inputs.push({ inputFeatures: (await asr.processor(window)).input_features, random: seededRandom(chunk.index * 1000 + chunk.round) });
      }
      windows += group.length;
      const decoded = await decodeIndependentWindows(model, inputs, { startTokens, signal });
      group.forEach((chunk, position) => {
        const windowFrames = Math.floor((Math.min(chunk.end, chunk.seek + WINDOW_SAMPLES) - chunk.seek) / SAMPLES_PER_FRAME);
        const { result } = decoded[position]!;
        chunk.round++;
        if (isNoSpeech(result)) {
          chunk.seek += windowFrames * SAMPLES_PER_FRAME;
          return;
        }
        const split = splitWindow(result.tokens, tokens.timestampBegin, windowFrames);
        for (const segment of split.segments) chunk.texts.push(model.detokenize(segment.tokens.filter((id) => id < tokens.eot)));
        // A window that stops at a timestamp before its audio ends is taken up again from there
        // (openai seeks past the whole window, which loses the rest of a chunk: issue 26).
        const lastEnd = Math.round((split.segments.at(-1)?.end ?? 0) * 100);
        const seekFrames = lastEnd >= MIN_SEEK_FRAMES && lastEnd < windowFrames - MIN_SEEK_FRAMES ? lastEnd : split.seekFrames;
        chunk.seek += Math.max(1, seekFrames) * SAMPLES_PER_FRAME;
      });
    }
  }
  return {
    text: state
      .flatMap((chunk) => chunk.texts)
      .join('')
      .trim(),
    chunks: chunks.length,
    windows,
  };
}

const decoded = await decodeClipsOnce(await readSpeechClips());
const audio = joinClips(decoded, { targetSeconds: Number(args.minutes) * 60, gapSeconds: 1.5 });
const reference = normalizeTranscript(audio.reference);
await ensureFasterWhisper(process.env.TOOLS_PYTHON ?? resolve('.cache/venv/bin/python'), tinyEnWheelPath(resolve('.')));
const dir = await mkdtemp(join(tmpdir(), 'vad-chunks-batch-'));
const file = join(dir, 'long.f32');
await writeFile(file, new Uint8Array(audio.samples.buffer, audio.samples.byteOffset, audio.samples.byteLength));
console.log(
  `vad-chunks-batch: whisper-tiny.en fp32, ${threads} threads, ${(audio.samples.length / RATE).toFixed(0)} s file (${audio.clips.length} clips), batch ${batch}, rounds ${args.rounds}; load average ${load()}`,
);
await transcribeChunked(audio.samples.subarray(0, 20 * RATE), batch); // warm-up
const sides = new Map<string, { seconds: number; text: string }>();
const keep = (name: string, seconds: number, text: string) => {
  if (seconds < (sides.get(name)?.seconds ?? Infinity)) sides.set(name, { seconds, text });
  console.log(`  ${name}: ${seconds.toFixed(2)} s (load ${load()})`);
};
try {
  for (let round = 0; round < Number(args.rounds); round++) {
    for (const size of [1, batch]) {
      const started = performance.now();
      const { text, chunks, windows } = await transcribeChunked(audio.samples, size);
      keep(size === 1 ? 'ours, chunks one at a time' : `ours, chunks in batches of ${size}`, (performance.now() - started) / 1000, text);
      if (round === 0 && size === 1) console.log(`  (${chunks} chunks, ${windows} windows)`);
    }
    const fw = await runFasterWhisper(file, { threads, dtype: 'fp32', nice: 0, beamSize: 5, vad: true });
    keep('faster-whisper, vad_filter on', fw.seconds, fw.text);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
const fw = sides.get('faster-whisper, vad_filter on')!;
for (const [name, side] of sides) {
  const { wer } = wordErrors(reference, normalizeTranscript(side.text));
  console.log(`${name.padEnd(34)} WER ${wer.toFixed(3)}  wall ${side.seconds.toFixed(2)} s  ${(side.seconds / fw.seconds).toFixed(2)}× faster-whisper`);
}
console.log(`load average ${load()}`);
await vad.dispose();
