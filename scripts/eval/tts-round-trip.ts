/**
 * `npm run eval:speech` (second half): TTS → STT round trip. Each sentence of the shared TTS set
 * is synthesised with the Piper voice through the product's path (synthesis worker, MP3 encoder
 * worker, the same bytes a client receives), then transcribed from that MP3 by whisper-tiny.en
 * through the product's Transcriber, and scored with WER against the sentence.
 *
 *   tsx scripts/eval/tts-round-trip.ts [--voice piper-en_US-joe-medium] [--stt whisper-tiny.en] [--limit N]
 *                                      [--first-piece-words N]
 *
 * `--first-piece-words`: the voice's `firstPieceWords` for this run (0: a first sentence is cut
 * only at a short first clause), to compare the word-boundary cut against none.
 *
 * Env: MODELS_DIR (default models), MODELS_MANIFEST, EVAL_TTS_DIR or EVAL_DIR (the TTS sentences, not in the repository).
 * Both sides are normalised by scripts/eval/lib/normalize-transcript.ts. Lines 1–14 are text
 * normalisation stress cases (roman numerals, "St."/"Dr.", money, times), so WER is also shown
 * for them and for lines 15–50 separately. Exits 1 when the overall WER is above the goal (0.20).
 */
import { parseArgs } from 'node:util';
import { speechBytes } from '../../src/inference/text-to-speech/speech-bytes.js';
import { createSpeechEncoder } from '../../src/inference/text-to-speech/speech-encoder.js';
import { loadSynthesizer } from './lib/load-synthesizer.js';
import { loadTranscriber } from './lib/load-transcriber.js';
import { normalizeTranscript } from './lib/normalize-transcript.js';
import { readTtsSentences, ttsDir } from './lib/tts-sentences.js';
import { corpusWer, wordErrors, type WerResult } from './lib/wer.js';

const GOAL_WER = 0.2;
const NORMALISATION_CASES = 14;

const { values: args } = parseArgs({
  options: {
    voice: { type: 'string', default: 'piper-en_US-joe-medium' },
    stt: { type: 'string', default: 'whisper-tiny.en' },
    limit: { type: 'string' },
    'first-piece-words': { type: 'string' },
  },
});

const sentences = await readTtsSentences(args.limit ? Number(args.limit) : undefined);

const firstPieceWords = args['first-piece-words'];
const { synthesizer } = await loadSynthesizer(args.voice!, firstPieceWords === undefined ? {} : { firstPieceWords: Number(firstPieceWords) });
const { transcriber } = await loadTranscriber({ modelId: args.stt! });
const encoder = createSpeechEncoder();
console.log(
  `TTS round trip: ${args.voice}${firstPieceWords === undefined ? '' : ` (firstPieceWords ${firstPieceWords})`} → MP3 → ${args.stt}, ${sentences.length} sentences from ${ttsDir()}\n`,
);

const results: WerResult[] = [];
let audioSeconds = 0;
let synthSeconds = 0;
try {
  for (const [index, sentence] of sentences.entries()) {
    const started = performance.now();
    const chunks: Uint8Array[] = [];
    for await (const chunk of speechBytes(synthesizer, sentence, { format: 'mp3', encoder })) chunks.push(chunk);
    synthSeconds += (performance.now() - started) / 1000;
    const mp3 = Buffer.concat(chunks);
    const mp3KiB = mp3.length / 1024; // read now: transcribe() transfers the buffer to its worker
    const transcript = await transcriber.transcribe({ bytes: mp3, contentType: 'audio/mpeg', maxSeconds: 120 });
    audioSeconds += transcript.duration;
    const reference = normalizeTranscript(sentence);
    const hypothesis = normalizeTranscript(transcript.text);
    const result = wordErrors(reference, hypothesis);
    results.push(result);
    console.log(`${String(index + 1).padStart(2)} WER ${result.wer.toFixed(3)}  ${transcript.duration.toFixed(2)} s  ${mp3KiB.toFixed(1)} KiB`);
    if (result.wer > 0) {
      console.log(`   ref: ${reference.join(' ')}`);
      console.log(`   hyp: ${hypothesis.join(' ')}`);
    }
  }
} finally {
  await Promise.allSettled([synthesizer.dispose(), transcriber.dispose(), encoder.dispose()]);
}

const overall = corpusWer(results);
const words = results.reduce((sum, r) => sum + r.referenceWords, 0);
console.log(`\nWER lines 1–${NORMALISATION_CASES} (normalisation cases): ${corpusWer(results.slice(0, NORMALISATION_CASES)).toFixed(4)}`);
if (results.length > NORMALISATION_CASES) {
  console.log(`WER lines ${NORMALISATION_CASES + 1}–${results.length} (Harvard + ARCTIC): ${corpusWer(results.slice(NORMALISATION_CASES)).toFixed(4)}`);
}
console.log(`overall WER ${overall.toFixed(4)} over ${words} words (goal ≤ ${GOAL_WER}): ${overall <= GOAL_WER ? 'PASS' : 'FAIL'}`);
console.log(
  `synthesis incl. MP3: ${synthSeconds.toFixed(1)} s for ${audioSeconds.toFixed(1)} s of speech (real-time factor ${(synthSeconds / audioSeconds).toFixed(3)})`,
);
if (overall > GOAL_WER) process.exitCode = 1;
