/**
 * `npm run eval:speech` (first half): word error rate of a speech-to-text model over the English
 * clips of the shared evaluation set, through the product's own engine and audio decoder.
 *
 *   tsx scripts/eval/speech-to-text.ts [--model whisper-tiny.en] [--dtype fp32|q8] [--threads N]
 *
 * Env: MODELS_DIR (default models), MODELS_MANIFEST, EVAL_SPEECH_DIR or EVAL_DIR (the speech set, not in the repository).
 * Both sides are normalised by scripts/eval/lib/normalize-transcript.ts before scoring.
 * Exits 1 when the overall WER is above the goal (0.15).
 */
import { parseArgs } from 'node:util';
import { loadTranscriber } from './lib/load-transcriber.js';
import { normalizeTranscript } from './lib/normalize-transcript.js';
import { readSpeechClips, speechDir } from './lib/speech-clips.js';
import { corpusWer, wordErrors, type WerResult } from './lib/wer.js';

const GOAL_WER = 0.15;
const MAX_SECONDS = 600;

const { values: args } = parseArgs({
  options: {
    model: { type: 'string', default: 'whisper-tiny.en' },
    dtype: { type: 'string' },
    threads: { type: 'string' },
  },
});

const overrides: Record<string, unknown> = {};
if (args.dtype) overrides.dtype = args.dtype;
if (args.threads) overrides.threads = Number(args.threads);

const clips = await readSpeechClips();
const { entry, transcriber } = await loadTranscriber({ modelId: args.model!, options: overrides });
console.log(`STT eval: ${entry.id} (dtype ${JSON.stringify(entry.options?.dtype ?? 'fp32')}), ${clips.length} English clips from ${speechDir()}\n`);

const results: WerResult[] = [];
let audioSeconds = 0;
const started = performance.now();
try {
  for (const clip of clips) {
    const audio = clip.pcm ?? { bytes: clip.bytes!, maxSeconds: MAX_SECONDS };
    const transcript = await transcriber.transcribe(audio);
    const result = wordErrors(normalizeTranscript(clip.reference), normalizeTranscript(transcript.text));
    results.push(result);
    audioSeconds += transcript.duration;
    console.log(
      `${clip.file.padEnd(44)} WER ${result.wer.toFixed(3)}  (S${result.substitutions} D${result.deletions} I${result.insertions} / ${result.referenceWords})`,
    );
    if (result.wer > 0) {
      console.log(`  ref: ${normalizeTranscript(clip.reference).join(' ')}`);
      console.log(`  hyp: ${normalizeTranscript(transcript.text).join(' ')}`);
    }
  }
} finally {
  await transcriber.dispose();
}

const seconds = (performance.now() - started) / 1000;
const overall = corpusWer(results);
const words = results.reduce((sum, r) => sum + r.referenceWords, 0);
console.log(`\noverall WER ${overall.toFixed(4)} over ${words} words (goal ≤ ${GOAL_WER}): ${overall <= GOAL_WER ? 'PASS' : 'FAIL'}`);
console.log(`${audioSeconds.toFixed(1)} s of audio in ${seconds.toFixed(1)} s (real-time factor ${(seconds / audioSeconds).toFixed(3)})`);
if (overall > GOAL_WER) process.exitCode = 1;
