/**
 * Does cutting a first sentence at a word boundary (splitFirstPiece, for a quick first byte) cost
 * intelligibility? The TTS → STT round trip of tts-round-trip.ts (voice → MP3 through the
 * product's path → whisper-tiny.en → WER on normalised text), once per `firstPieceWords` value,
 * each value its own loaded voice, interleaved sentence by sentence and rotated, over `--rounds`
 * rounds (VITS draws its timing at random on every call, so one round of 50 sentences moves the
 * WER by about ±0.01). Only the first sentence of a line is ever cut, so the lines cut at a word
 * boundary are reported apart as well.
 *
 *   tsx scripts/eval/tts-first-piece-wer.ts [--voice piper-en_US-joe-medium] [--stt whisper-tiny.en]
 *                                           [--words 0,4] [--rounds 2] [--limit N] [--only-cut] [--verbose]
 *
 * `--only-cut`: only the lines some variant cuts at a word boundary (the others are spoken alike
 * by every variant). `--verbose`: every misheard line, per variant.
 *
 * Env: MODELS_DIR, MODELS_MANIFEST, EVAL_TTS_DIR or EVAL_DIR (the TTS sentences, not in the repository).
 */
import { parseArgs } from 'node:util';
import { speechBytes } from '../../src/inference/text-to-speech/speech-bytes.js';
import { createSpeechEncoder } from '../../src/inference/text-to-speech/speech-encoder.js';
import { splitFirstPiece, splitSentences } from '../../src/inference/text-to-speech/split-sentences.js';
import { loadAverage } from './lib/load-average.js';
import { loadSynthesizer } from './lib/load-synthesizer.js';
import { loadTranscriber } from './lib/load-transcriber.js';
import { normalizeTranscript } from './lib/normalize-transcript.js';
import { readTtsSentences, ttsDir } from './lib/tts-sentences.js';
import { corpusWer, wordErrors, type WerResult } from './lib/wer.js';

const { values: args } = parseArgs({
  options: {
    voice: { type: 'string', default: 'piper-en_US-joe-medium' },
    stt: { type: 'string', default: 'whisper-tiny.en' },
    words: { type: 'string', default: '0,4' },
    rounds: { type: 'string', default: '2' },
    limit: { type: 'string' },
    'only-cut': { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
  },
});
const variants = args.words!.split(',').map(Number);
const rounds = Math.max(1, Math.min(10, Number(args.rounds)));
const allSentences = await readTtsSentences(args.limit ? Number(args.limit) : undefined);
/** Whether some variant cuts the line's first sentence at a word boundary (where `words: 0` leaves it whole). */
const cutByWords = (sentence: string) => {
  const first = splitSentences(sentence)[0]!;
  return splitFirstPiece(first, { words: 0 }).length === 1 && variants.some((words) => splitFirstPiece(first, { words }).length > 1);
};
const sentences = args['only-cut'] ? allSentences.filter(cutByWords) : allSentences;
console.log(
  `first-piece round trip: ${args.voice} → MP3 → ${args.stt}, firstPieceWords ${variants.join(' / ')}, ${sentences.length} sentences from ${ttsDir()}, ${rounds} rounds, load average ${loadAverage()}\n`,
);

const voices = await Promise.all(variants.map((firstPieceWords) => loadSynthesizer(args.voice!, { firstPieceWords })));
const { transcriber } = await loadTranscriber({ modelId: args.stt! });
const encoder = createSpeechEncoder();
const results = variants.map(() => [] as WerResult[]);
const wordCut = sentences.map(cutByWords);
const onWordCutLines = variants.map(() => [] as WerResult[]);

try {
  for (let round = 0; round < rounds; round++) {
    for (const [index, sentence] of sentences.entries()) {
      for (let k = 0; k < variants.length; k++) {
        const variant = (index + round + k) % variants.length;
        const chunks: Uint8Array[] = [];
        for await (const chunk of speechBytes(voices[variant]!.synthesizer, sentence, { format: 'mp3', encoder })) chunks.push(chunk);
        const transcript = await transcriber.transcribe({ bytes: Buffer.concat(chunks), contentType: 'audio/mpeg', maxSeconds: 120 });
        const result = wordErrors(normalizeTranscript(sentence), normalizeTranscript(transcript.text));
        results[variant]!.push(result);
        if (wordCut[index]) onWordCutLines[variant]!.push(result);
        if (args.verbose && result.wer > 0) {
          const pieces = splitFirstPiece(splitSentences(sentence)[0]!, { words: variants[variant]! });
          console.log(`  [${variants[variant]}] ${pieces.join(' | ')}\n      heard: ${normalizeTranscript(transcript.text).join(' ')}`);
        }
      }
    }
    console.log(
      `round ${round + 1}: ${variants.map((words, variant) => `${words}: ${corpusWer(results[variant]!.slice(-sentences.length)).toFixed(4)}`).join(', ')} (load ${loadAverage()})`,
    );
  }
} finally {
  await Promise.allSettled([...voices.map(({ synthesizer }) => synthesizer.dispose()), transcriber.dispose(), encoder.dispose()]);
}

console.log(`\n${wordCut.filter(Boolean).length} of ${sentences.length} lines are cut at a word boundary by some variant`);
for (const [variant, words] of variants.entries()) {
  console.log(
    `firstPieceWords ${words}: WER ${corpusWer(results[variant]!).toFixed(4)} over ${rounds} × ${sentences.length} sentences; on those lines ${corpusWer(onWordCutLines[variant]!).toFixed(4)}`,
  );
}
